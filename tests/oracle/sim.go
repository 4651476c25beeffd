package main

// Wiring Karpenter's provisioner the way karpenter-provider-aws's
// cmd/controller/main.go does (AWS cloud provider, decorated with the NodeOverlay
// store), with the provider's fake EC2 API (pkg/fake) and a controller-runtime
// fake client holding the rendered objects in place of the API server.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/awslabs/operatorpkg/status"
	"github.com/patrickmn/go-cache"
	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	awscache "github.com/aws/karpenter-provider-aws/pkg/cache"
	awscloudprovider "github.com/aws/karpenter-provider-aws/pkg/cloudprovider"
	"github.com/aws/karpenter-provider-aws/pkg/fake"
	awsoptions "github.com/aws/karpenter-provider-aws/pkg/operator/options"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
	"github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"github.com/aws/karpenter-provider-aws/pkg/providers/subnet"
	awstest "github.com/aws/karpenter-provider-aws/pkg/test"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/overlay"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeoverlay"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	coreoptions "sigs.k8s.io/karpenter/pkg/operator/options"
	coretest "sigs.k8s.io/karpenter/pkg/test"
)

func newCache() *cache.Cache { return cache.New(awscache.DefaultTTL, awscache.DefaultCleanupInterval) }

// zoneID: a stable made-up zone ID per zone name (use1-az1, ...)
func zoneID(zone string) string {
	r := zone[len(zone)-1]
	return fmt.Sprintf("%s-az%d", strings.ReplaceAll(zone[:len(zone)-2], "-", "")[:4], int(r-'a')+1)
}

func readyConditions(types ...string) []status.Condition {
	now := metav1.NewTime(time.Unix(1_700_000_000, 0))
	var cs []status.Condition
	for _, t := range types {
		cs = append(cs, status.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: now})
	}
	return cs
}

// nodeClassStatus fills what Karpenter's nodeclass controller would resolve from
// EC2: a subnet in every zone, one AMI per architecture, the security groups,
// the capacity reservations (see reservations).
func nodeClassStatus(nc *awsv1.EC2NodeClass, zones []string, res []awsv1.CapacityReservation) {
	for _, z := range zones {
		nc.Status.Subnets = append(nc.Status.Subnets, awsv1.Subnet{ID: "subnet-" + zoneID(z), Zone: z, ZoneID: zoneID(z)})
	}
	for _, arch := range []string{"amd64", "arm64"} {
		nc.Status.AMIs = append(nc.Status.AMIs, awsv1.AMI{ID: "ami-oracle-" + arch, Name: "oracle-" + arch,
			Requirements: []corev1.NodeSelectorRequirement{{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}}}})
	}
	nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-oracle", Name: "oracle"}}
	nc.Status.InstanceProfile = "oracle"
	nc.Status.CapacityReservations = res
	nc.Status.Conditions = readyConditions(status.ConditionReady, awsv1.ConditionTypeSubnetsReady,
		awsv1.ConditionTypeSecurityGroupsReady, awsv1.ConditionTypeAMIsReady, awsv1.ConditionTypeInstanceProfileReady,
		awsv1.ConditionTypeCapacityReservationsReady, awsv1.ConditionTypeValidationSucceeded)
}

// reservations: a capacity reservation for every `id:` selector term of an
// EC2NodeClass whose NodePools may launch reserved capacity. EC2 would say which
// instance type and zone it holds; the render does not, so the reservation is
// taken to hold the NodePool's first allowed catalog type (largest GPU count
// first) in its pinned zone (or the first zone), with room for every pod.
func reservations(r *rendered, nc *awsv1.EC2NodeClass, cat *catalog, zones []string) ([]awsv1.CapacityReservation, []string) {
	var out []awsv1.CapacityReservation
	var notes []string
	for _, np := range r.nodePools {
		if np.Spec.Template.Spec.NodeClassRef == nil || np.Spec.Template.Spec.NodeClassRef.Name != nc.Name {
			continue
		}
		reqs := np.Spec.Template.Spec.Requirements
		ct, _ := lo.Find(reqs, func(q karpv1.NodeSelectorRequirementWithMinValues) bool { return q.Key == karpv1.CapacityTypeLabelKey })
		if !lo.Contains(ct.Values, karpv1.CapacityTypeReserved) {
			continue
		}
		zone := zones[0]
		if zr, ok := lo.Find(reqs, func(q karpv1.NodeSelectorRequirementWithMinValues) bool { return q.Key == corev1.LabelTopologyZone }); ok && len(zr.Values) > 0 && zr.Operator == corev1.NodeSelectorOpIn {
			zone = zr.Values[0]
		}
		itype := ""
		best := int32(-1)
		for _, t := range cat.types {
			if allows(reqs, "karpenter.k8s.aws/instance-family", t.family) && allows(reqs, corev1.LabelInstanceTypeStable, t.name) && t.gpus > best {
				itype, best = t.name, t.gpus
			}
		}
		if itype == "" {
			continue
		}
		rtype := awsv1.CapacityReservationTypeDefault
		if len(ct.Values) == 1 {
			// reserved only: gpuform renders that for EC2 Capacity Blocks
			rtype = awsv1.CapacityReservationTypeCapacityBlock
		}
		for _, term := range nc.Spec.CapacityReservationSelectorTerms {
			if term.ID == "" || lo.ContainsBy(out, func(c awsv1.CapacityReservation) bool { return c.ID == term.ID }) {
				continue
			}
			out = append(out, awsv1.CapacityReservation{ID: term.ID, AvailabilityZone: zone, InstanceType: itype,
				InstanceMatchCriteria: "targeted", OwnerID: "111122223333", ReservationType: rtype,
				State: awsv1.CapacityReservationStateActive})
			notes = append(notes, fmt.Sprintf("capacity reservation %s (EC2NodeClass %s) assumed: %s in %s, %s, room for every pod", term.ID, nc.Name, itype, zone, rtype))
		}
	}
	return out, notes
}

func allows(reqs []karpv1.NodeSelectorRequirementWithMinValues, key, value string) bool {
	for _, q := range reqs {
		if q.Key != key {
			continue
		}
		switch q.Operator {
		case corev1.NodeSelectorOpIn:
			if !lo.Contains(q.Values, value) {
				return false
			}
		case corev1.NodeSelectorOpNotIn:
			if lo.Contains(q.Values, value) {
				return false
			}
		}
	}
	return true
}

func simulate(ctx context.Context, r *rendered, cat *catalog, region string, zones []string) (*output, error) {
	ctx = coreoptions.ToContext(ctx, coretest.Options(coretest.OptionsFields{
		IgnoreDRARequests: lo.ToPtr(true),
		FeatureGates: coretest.FeatureGates{
			NodeOverlay: lo.ToPtr(true), ReservedCapacity: lo.ToPtr(true),
		},
	}))
	ctx = awsoptions.ToContext(ctx, awstest.Options())
	awsv1.CapacityReservationsEnabled = true // as cmd/controller/main.go does with the gate
	out := &output{NodeClaims: []nodeClaimOut{}, Unschedulable: []unschedulableOut{}}
	clk := clock.NewFakeClock(time.Unix(1_700_000_000, 0))

	// the cluster: the rendered NodePools (Ready), EC2NodeClasses (with the
	// status the nodeclass controller would write), NodeOverlays
	var objs []client.Object
	for _, nc := range r.nodeClasses {
		res, notes := reservations(r, nc, cat, zones)
		out.Notes = append(out.Notes, notes...)
		nc = nc.DeepCopy()
		nodeClassStatus(nc, zones, res)
		objs = append(objs, nc)
	}
	for i, np := range r.nodePools {
		np = np.DeepCopy()
		np.UID = types.UID(fmt.Sprintf("nodepool-%d", i))
		np.Status.Conditions = readyConditions(status.ConditionReady, karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady)
		objs = append(objs, np)
	}
	for _, o := range r.overlays {
		objs = append(objs, o.DeepCopy())
	}
	kube := fakeclient.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(objs...).
		WithStatusSubresource(&karpv1.NodePool{}, &awsv1.EC2NodeClass{}, &v1alpha1.NodeOverlay{}, &karpv1.NodeClaim{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		Build()

	// EC2: instance types (the provider's fake data and the catalog's types),
	// every type offered in every zone
	ec2api := fake.NewEC2API()
	def, err := ec2api.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{})
	if err != nil {
		return nil, fmt.Errorf("fake DescribeInstanceTypes: %w", err)
	}
	infos := cat.instanceTypeInfos(def.InstanceTypes)
	ec2api.DescribeInstanceTypesOutput.Set(&ec2.DescribeInstanceTypesOutput{InstanceTypes: infos})
	var offs []ec2types.InstanceTypeOffering
	for _, it := range infos {
		for _, z := range zones {
			offs = append(offs, ec2types.InstanceTypeOffering{InstanceType: it.InstanceType, Location: aws.String(z), LocationType: ec2types.LocationTypeAvailabilityZone})
		}
	}
	ec2api.DescribeInstanceTypeOfferingsOutput.Set(&ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: offs})

	recorder := coretest.NewEventRecorder()
	pricingProvider := pricing.NewDefaultProvider(&fake.PricingAPI{}, ec2api, region, false)
	subnetProvider := subnet.NewDefaultProvider(ec2api, newCache(), newCache())
	capRes := capacityreservation.NewProvider(ec2api, clk, newCache(), cache.New(24*time.Hour, awscache.DefaultCleanupInterval))
	pgProvider := placementgroup.NewProvider(ec2api, newCache(), cache.New(awscache.PlacementGroupAvailabilityTTL, awscache.DefaultCleanupInterval))
	zonal := arczonalshift.NewProvider(fake.NewARCZonalShiftAPI(), clk, "")
	itProvider := instancetype.NewDefaultProvider(newCache(), newCache(), cache.New(awscache.DiscoveredCapacityCacheTTL, awscache.DefaultCleanupInterval),
		ec2api, subnetProvider, pricingProvider, capRes, pgProvider, awscache.NewUnavailableOfferings(),
		instancetype.NewDefaultResolver(region), zonal, kube)
	if err := itProvider.UpdateInstanceTypes(ctx); err != nil {
		return nil, fmt.Errorf("instance types: %w", err)
	}
	if err := itProvider.UpdateInstanceTypeOfferings(ctx); err != nil {
		return nil, fmt.Errorf("instance type offerings: %w", err)
	}
	for _, nc := range r.nodeClasses {
		for _, t := range nc.Spec.CapacityReservationSelectorTerms {
			if t.ID != "" {
				capRes.SetAvailableInstanceCount(t.ID, 100000)
			}
		}
	}

	store := nodeoverlay.NewInstanceTypeStore()
	awsCP := awscloudprovider.New(itProvider, nil, recorder, kube, nil, nil, capRes, pgProvider, store, nil)
	cp := overlay.Decorate(awsCP, kube, store)
	cluster := state.NewCluster(clk, kube, cp)

	// NodeOverlays: the controller evaluates them into the store
	if _, err := nodeoverlay.NewController(clk, kube, awsCP, store, cluster).Reconcile(ctx, reconcile.Request{}); err != nil {
		return nil, fmt.Errorf("nodeoverlay controller: %w", err)
	}
	var overlays v1alpha1.NodeOverlayList
	if err := kube.List(ctx, &overlays); err == nil {
		for _, o := range overlays.Items {
			for _, c := range o.Status.Conditions {
				if c.Status != metav1.ConditionTrue {
					out.Notes = append(out.Notes, fmt.Sprintf("NodeOverlay %s: %s %s: %s", o.Name, c.Type, c.Reason, c.Message))
				}
			}
		}
	}

	pods, notes := r.pods()
	out.Notes = append(out.Notes, notes...)
	out.Pods = len(pods)
	prov := provisioning.NewProvisioner(kube, recorder, cp, cluster, clk, nil, nil)
	s, err := prov.NewScheduler(ctx, pods, nil, sets.New[types.UID](), scheduling.DisableReservedCapacityFallback)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	results, err := s.Solve(ctx, pods)
	if err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	results = results.TruncateInstanceTypes(ctx, scheduling.MaxInstanceTypes)
	for _, nc := range results.NewNodeClaims {
		out.NodeClaims = append(out.NodeClaims, describeNodeClaim(nc))
	}
	sort.SliceStable(out.NodeClaims, func(i, j int) bool {
		a, b := out.NodeClaims[i], out.NodeClaims[j]
		if a.NodePool != b.NodePool {
			return a.NodePool < b.NodePool
		}
		return strings.Join(a.Pods, ",") < strings.Join(b.Pods, ",")
	})
	for p, e := range results.PodErrors {
		out.Unschedulable = append(out.Unschedulable, unschedulableOut{Pod: podKey(p), Reason: e.Error()})
	}
	sort.Slice(out.Unschedulable, func(i, j int) bool { return out.Unschedulable[i].Pod < out.Unschedulable[j].Pod })
	return out, nil
}

// describeNodeClaim: what the AWS provider would launch for a NodeClaim. The
// capacity type is the one it prefers among those the requirements allow
// (reserved, then spot, then on-demand: pkg/providers/instance, getCapacityType);
// the instance type and zone are the cheapest available offering of that
// capacity type (on-demand launches use the lowest-price allocation strategy;
// for spot, price-capacity-optimized may pick another of "instanceTypes").
func describeNodeClaim(nc *scheduling.NodeClaim) nodeClaimOut {
	o := nodeClaimOut{NodePool: nc.NodePoolName}
	for _, p := range nc.Pods {
		o.Pods = append(o.Pods, podKey(p))
		if g := p.Labels[GangLabel]; g != "" {
			o.Gangs = append(o.Gangs, p.Namespace+"/"+g)
		}
	}
	sort.Strings(o.Pods)
	o.Gangs = sortedKeys(o.Gangs)
	reqs := nc.Requirements
	type cand struct {
		it    *cloudprovider.InstanceType
		of    *cloudprovider.Offering
		price float64
	}
	var zonesAllowed []string
	cts := reqs.Get(karpv1.CapacityTypeLabelKey)
	for _, ct := range []string{karpv1.CapacityTypeReserved, karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand} {
		if !cts.Has(ct) {
			continue
		}
		var cands []cand
		for _, it := range nc.InstanceTypeOptions {
			for _, of := range it.Offerings.Available().Compatible(reqs) {
				if of.CapacityType() == ct {
					cands = append(cands, cand{it, of, of.Price})
				}
			}
		}
		if len(cands) == 0 {
			continue
		}
		sort.SliceStable(cands, func(i, j int) bool {
			if cands[i].price != cands[j].price {
				return cands[i].price < cands[j].price
			}
			if cands[i].it.Name != cands[j].it.Name {
				return cands[i].it.Name < cands[j].it.Name
			}
			return cands[i].of.Zone() < cands[j].of.Zone()
		})
		o.CapacityType = ct
		o.InstanceType = cands[0].it.Name
		o.Zone = cands[0].of.Zone()
		for _, c := range cands {
			zonesAllowed = append(zonesAllowed, c.of.Zone())
			o.InstanceTypes = append(o.InstanceTypes, c.it.Name)
		}
		break
	}
	o.Zones = sortedKeys(zonesAllowed)
	o.InstanceTypes = sortedKeys(o.InstanceTypes)
	return o
}
