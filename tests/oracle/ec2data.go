package main

// The EC2 side of the simulation: DescribeInstanceTypes answers for the fake EC2
// API of karpenter-provider-aws (pkg/fake/ec2api.go).
//
// The provider's own offline DescribeInstanceTypes data (pkg/fake/
// zz_generated.describe_instance_types.go) holds a handful of types (g4dn.8xlarge,
// g5.12xlarge, m5.*, ...), none of the p4d/p5/g6 GPU types gpuform renders for.
// Every other type is built here from the instance facts in gpuform's catalog
// (generator/catalog.tsv: GPU count/name/memory, vCPU, memory, EFA, arch; its
// header says they were taken from Karpenter's generated instance-type table)
// and, for the network (ENIs, IPv4 per ENI, network cards, which set max-pods),
// from the provider's own generated table pkg/providers/instancetype/
// zz_generated.vpclimits.go (instancetype.Limits). Prices come from the
// provider's pricing tables (pkg/providers/pricing/zz_generated.pricing_aws.go).

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
)

type catalogType struct {
	name, family, arch string
	gpus, vcpu, efa    int32
	gpuMemMiB, memMiB  int64
}

type catalog struct {
	gpuName map[string]string // family -> GPU label value (h100, a10g, ...)
	types   []catalogType
	enis    map[string][2]int32
	nics    map[string][2]int32 // cards, card-0 interfaces
}

func readCatalog(path string) (*catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &catalog{gpuName: map[string]string{}, enis: map[string][2]int32{}, nics: map[string][2]int32{}}
	sc := bufio.NewScanner(f)
	line := 0
	num := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	for sc.Scan() {
		line++
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		col := strings.Split(t, "\t")
		switch col[0] {
		case "family":
			if len(col) >= 3 {
				c.gpuName[col[1]] = col[2]
			}
		case "type":
			if len(col) != 10 {
				return nil, fmt.Errorf("%s:%d: a type record has 10 columns", path, line)
			}
			c.types = append(c.types, catalogType{
				name: col[1], family: col[2], gpus: int32(num(col[3])), gpuMemMiB: num(col[4]),
				vcpu: int32(num(col[5])), memMiB: num(col[6]), efa: int32(num(col[7])), arch: col[9],
			})
		case "eni":
			if len(col) == 4 {
				c.enis[col[1]] = [2]int32{int32(num(col[2])), int32(num(col[3]))}
			}
		case "nic":
			if len(col) == 4 {
				c.nics[col[1]] = [2]int32{int32(num(col[2])), int32(num(col[3]))}
			}
		}
	}
	return c, sc.Err()
}

// info is the DescribeInstanceTypes record of one catalog type.
func (c *catalog) info(t catalogType) ec2types.InstanceTypeInfo {
	arch := ec2types.ArchitectureTypeX8664
	if t.arch == "arm64" {
		arch = ec2types.ArchitectureTypeArm64
	}
	it := ec2types.InstanceTypeInfo{
		InstanceType:                  ec2types.InstanceType(t.name),
		SupportedUsageClasses:         []ec2types.UsageClassType{"on-demand", "spot"},
		SupportedVirtualizationTypes:  []ec2types.VirtualizationType{"hvm"},
		BurstablePerformanceSupported: aws.Bool(false),
		BareMetal:                     aws.Bool(false),
		Hypervisor:                    "nitro",
		ProcessorInfo:                 &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{arch}},
		VCpuInfo:                      &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(t.vcpu), DefaultCores: aws.Int32(max(t.vcpu/2, 1))},
		MemoryInfo:                    &ec2types.MemoryInfo{SizeInMiB: aws.Int64(t.memMiB)},
		EbsInfo:                       &ec2types.EbsInfo{EbsOptimizedSupport: "default", EncryptionSupport: "supported", NvmeSupport: "required"},
		PlacementGroupInfo: &ec2types.PlacementGroupInfo{
			SupportedStrategies: []ec2types.PlacementGroupStrategy{"cluster", "partition", "spread"},
		},
	}
	if t.gpus > 0 {
		it.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Name: aws.String(strings.ToUpper(c.gpuName[t.family])), Manufacturer: aws.String("NVIDIA"),
			Count: aws.Int32(t.gpus), MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: aws.Int32(int32(t.gpuMemMiB))},
		}}}
	}
	ni := &ec2types.NetworkInfo{DefaultNetworkCardIndex: aws.Int32(0), EncryptionInTransitSupported: aws.Bool(true)}
	if l, ok := instancetype.Limits[t.name]; ok {
		ni.MaximumNetworkInterfaces = aws.Int32(int32(l.Interface))
		ni.Ipv4AddressesPerInterface = aws.Int32(int32(l.IPv4PerInterface))
		ni.DefaultNetworkCardIndex = aws.Int32(int32(l.DefaultNetworkCardIndex))
		for _, card := range l.NetworkCards {
			ni.NetworkCards = append(ni.NetworkCards, ec2types.NetworkCardInfo{
				NetworkCardIndex:         aws.Int32(int32(card.NetworkCardIndex)),
				MaximumNetworkInterfaces: aws.Int32(int32(card.MaximumNetworkInterfaces)),
			})
		}
	} else if e, ok := c.enis[t.name]; ok {
		ni.MaximumNetworkInterfaces = aws.Int32(e[0])
		ni.Ipv4AddressesPerInterface = aws.Int32(e[1])
		ni.NetworkCards = []ec2types.NetworkCardInfo{{NetworkCardIndex: aws.Int32(0), MaximumNetworkInterfaces: aws.Int32(e[0])}}
	}
	if t.efa > 0 {
		ni.EfaSupported = aws.Bool(true)
		ni.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(t.efa)}
	}
	it.NetworkInfo = ni
	return it
}

// instanceTypeInfos: the provider's fake data, and every catalog type it lacks.
func (c *catalog) instanceTypeInfos(defaults []ec2types.InstanceTypeInfo) []ec2types.InstanceTypeInfo {
	out := append([]ec2types.InstanceTypeInfo{}, defaults...)
	have := map[string]bool{}
	for _, d := range defaults {
		have[string(d.InstanceType)] = true
	}
	for _, t := range c.types {
		if !have[t.name] {
			out = append(out, c.info(t))
			have[t.name] = true
		}
	}
	return out
}
