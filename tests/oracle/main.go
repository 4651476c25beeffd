// karpenter-sim: Karpenter's provisioning scheduler (sigs.k8s.io/karpenter v1.14.1)
// with the AWS provider's instance types and offerings
// (github.com/aws/karpenter-provider-aws v1.14.1), run on a directory gpuform
// rendered, for the pods its pod contracts stand for at full quota.
//
//	karpenter-sim [-catalog FILE] [-region R] [-zones a,b,...] [-v] DIR
//
// Prints {"nodeclaims": [...], "unschedulable": [...], "pods": N, "notes": [...]}
// as JSON on stdout. See docs/oracle.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	catalogPath := flag.String("catalog", "generator/catalog.tsv", "gpuform's instance catalog (instance facts for types the provider's fake data lacks)")
	region := flag.String("region", "us-east-1", "AWS region (prices from the provider's tables)")
	zones := flag.String("zones", "us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f", "zones every instance type is offered in")
	verbose := flag.Bool("v", false, "Karpenter's log on stderr")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: karpenter-sim [options] DIR\n\nKarpenter v1.14.1's provisioning scheduler on a rendered directory.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *verbose {
		log.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	} else {
		log.SetLogger(logr.Discard())
	}
	r, err := readRendered(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-sim: %v\n", err)
		os.Exit(1)
	}
	cat, err := readCatalog(*catalogPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-sim: %v\n", err)
		os.Exit(1)
	}
	out, err := simulate(context.Background(), r, cat, *region, strings.Split(*zones, ","))
	if err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-sim: %v\n", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "karpenter-sim: %v\n", err)
		os.Exit(1)
	}
}

type nodeClaimOut struct {
	NodePool     string `json:"nodepool"`
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	// the zones and instance types the NodeClaim's requirements still allow:
	// EC2 (CreateFleet) picks among them at launch
	Zones         []string `json:"zones"`
	InstanceTypes []string `json:"instanceTypes"`
	Pods          []string `json:"pods"`
	Gangs         []string `json:"gangs"`
}

type unschedulableOut struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

type output struct {
	NodeClaims    []nodeClaimOut     `json:"nodeclaims"`
	Unschedulable []unschedulableOut `json:"unschedulable"`
	Pods          int                `json:"pods"`
	Notes         []string           `json:"notes"`
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func sortedKeys(s []string) []string {
	s = lo.Uniq(s)
	sort.Strings(s)
	return s
}
