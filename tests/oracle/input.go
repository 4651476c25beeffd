package main

// Reading a rendered directory: the Karpenter objects, the Kueue queues (for
// the quota) and the pod contracts (addons/pod-contract-*.yaml), and turning
// each contract into the pods it stands for at full quota.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/apis/v1alpha1"
)

// rendered is what the simulation needs from a rendered directory.
type rendered struct {
	nodePools   []*karpv1.NodePool
	nodeClasses []*awsv1.EC2NodeClass
	overlays    []*v1alpha1.NodeOverlay
	// ClusterQueue name -> resource name -> the sum of its flavors' nominal quotas
	quota map[string]map[string]resource.Quantity
	// "namespace/name" of a LocalQueue -> its ClusterQueue
	localQueues map[string]string
	contracts   []contract
}

// contract is addons/pod-contract-NAME.yaml (gpuform's own kind, not applied
// to a cluster): what every pod of the workload carries.
type contract struct {
	file     string
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Gang                          int                                 `json:"gang"`
	Labels                        map[string]string                   `json:"labels"`
	Annotations                   map[string]string                   `json:"annotations"`
	NodeSelector                  map[string]string                   `json:"nodeSelector"`
	Tolerations                   []corev1.Toleration                 `json:"tolerations"`
	Affinity                      *corev1.Affinity                    `json:"affinity"`
	Resources                     corev1.ResourceRequirements         `json:"resources"`
	TopologySpreadConstraints     []corev1.TopologySpreadConstraint   `json:"topologySpreadConstraints"`
	TerminationGracePeriodSeconds *int64                              `json:"terminationGracePeriodSeconds"`
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// kueue objects, only the fields the quota needs (Kueue is not imported here)
type clusterQueue struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		ResourceGroups []struct {
			Flavors []struct {
				Resources []struct {
					Name         string            `json:"name"`
					NominalQuota resource.Quantity `json:"nominalQuota"`
				} `json:"resources"`
			} `json:"flavors"`
		} `json:"resourceGroups"`
	} `json:"spec"`
}

type localQueue struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		ClusterQueue string `json:"clusterQueue"`
	} `json:"spec"`
}

func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		if len(bytes.TrimSpace(d)) > 0 {
			docs = append(docs, d)
		}
	}
	return docs
}

func readRendered(dir string) (*rendered, error) {
	r := &rendered{quota: map[string]map[string]resource.Quantity{}, localQueues: map[string]string{}}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, doc := range splitDocs(data) {
			if err := r.add(f, doc); err != nil {
				return nil, err
			}
		}
	}
	if len(r.nodePools) == 0 {
		return nil, fmt.Errorf("%s: no karpenter.sh NodePool found (is it a rendered directory?)", dir)
	}
	return r, nil
}

func (r *rendered) add(file string, doc []byte) error {
	var tm typeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	group := strings.SplitN(tm.APIVersion, "/", 2)[0]
	strict := func(into any) error {
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			return fmt.Errorf("%s: %s: %w", file, tm.Kind, err)
		}
		return nil
	}
	switch {
	case group == "karpenter.sh" && tm.Kind == "NodePool":
		np := &karpv1.NodePool{}
		if err := strict(np); err != nil {
			return err
		}
		r.nodePools = append(r.nodePools, np)
	case group == "karpenter.sh" && tm.Kind == "NodeOverlay":
		o := &v1alpha1.NodeOverlay{}
		if err := strict(o); err != nil {
			return err
		}
		r.overlays = append(r.overlays, o)
	case group == "karpenter.k8s.aws" && tm.Kind == "EC2NodeClass":
		nc := &awsv1.EC2NodeClass{}
		if err := strict(nc); err != nil {
			return err
		}
		r.nodeClasses = append(r.nodeClasses, nc)
	case group == "kueue.x-k8s.io" && tm.Kind == "ClusterQueue":
		var cq clusterQueue
		if err := yaml.Unmarshal(doc, &cq); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		q := map[string]resource.Quantity{}
		for _, g := range cq.Spec.ResourceGroups {
			for _, fl := range g.Flavors {
				for _, res := range fl.Resources {
					v := q[res.Name]
					v.Add(res.NominalQuota)
					q[res.Name] = v
				}
			}
		}
		r.quota[cq.Metadata.Name] = q
	case group == "kueue.x-k8s.io" && tm.Kind == "LocalQueue":
		var lq localQueue
		if err := yaml.Unmarshal(doc, &lq); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		r.localQueues[lq.Metadata.Namespace+"/"+lq.Metadata.Name] = lq.Spec.ClusterQueue
	case group == "gpuform.io" && tm.Kind == "PodContract":
		var c contract
		if err := yaml.Unmarshal(doc, &c); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		c.file = file
		if c.Gang < 1 {
			c.Gang = 1
		}
		r.contracts = append(r.contracts, c)
	}
	return nil
}

// podsAtFullQuota: how many pods of the contract its Kueue quota admits at once
// (the fewest over the quota'd resources it requests, cpu and memory aside),
// rounded down to whole gangs; one gang when no queue or quota is found.
func (r *rendered) podsAtFullQuota(c contract) (int, string) {
	lq := c.Labels["kueue.x-k8s.io/queue-name"]
	cq, ok := r.localQueues[c.Metadata.Namespace+"/"+lq]
	if !ok {
		return c.Gang, "no LocalQueue " + c.Metadata.Namespace + "/" + lq + ": one gang"
	}
	q, ok := r.quota[cq]
	if !ok {
		return c.Gang, "no ClusterQueue " + cq + ": one gang"
	}
	pods := math.MaxInt
	for name, req := range c.Resources.Requests {
		if name == corev1.ResourceCPU || name == corev1.ResourceMemory || req.IsZero() {
			continue
		}
		quota, ok := q[string(name)]
		if !ok {
			continue
		}
		n := int(quota.MilliValue() / req.MilliValue())
		if n < pods {
			pods = n
		}
	}
	if pods == math.MaxInt {
		return c.Gang, "ClusterQueue " + cq + " has no quota for the requested resources: one gang"
	}
	gangs := pods / c.Gang
	if gangs < 1 {
		return c.Gang, fmt.Sprintf("ClusterQueue %s admits %d pods, less than one gang of %d: one gang", cq, pods, c.Gang)
	}
	return gangs * c.Gang, fmt.Sprintf("ClusterQueue %s: %d gang(s) of %d", cq, gangs, c.Gang)
}

// GangLabel marks each pod with its gang, for the report.
const GangLabel = "oracle.gpuform.io/gang"

func (r *rendered) pods() ([]*corev1.Pod, []string) {
	var pods []*corev1.Pod
	var notes []string
	for _, c := range r.contracts {
		n, note := r.podsAtFullQuota(c)
		notes = append(notes, c.Metadata.Namespace+"/"+c.Metadata.Name+": "+fmt.Sprint(n)+" pods ("+note+")")
		for i := 0; i < n; i++ {
			g := i / c.Gang
			name := fmt.Sprintf("%s-%d-%d", c.Metadata.Name, g, i%c.Gang)
			labels := map[string]string{GangLabel: fmt.Sprintf("%s-%d", c.Metadata.Name, g)}
			for k, v := range c.Labels {
				labels[k] = v
			}
			pod := &corev1.Pod{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{
					Name: name, Namespace: c.Metadata.Namespace,
					UID:    types.UID(c.Metadata.Namespace + "/" + name),
					Labels: labels, Annotations: c.Annotations,
					CreationTimestamp: metav1.Unix(1_700_000_000, 0),
				},
				Spec: corev1.PodSpec{
					NodeSelector:                  c.NodeSelector,
					Tolerations:                   c.Tolerations,
					Affinity:                      c.Affinity,
					TopologySpreadConstraints:     c.TopologySpreadConstraints,
					TerminationGracePeriodSeconds: c.TerminationGracePeriodSeconds,
					Containers: []corev1.Container{{
						Name: "main", Image: "registry.invalid/oracle:0",
						Resources: *c.Resources.DeepCopy(),
					}},
				},
				Status: corev1.PodStatus{
					Phase: corev1.PodPending,
					Conditions: []corev1.PodCondition{{
						Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
						Reason: corev1.PodReasonUnschedulable,
					}},
				},
			}
			pods = append(pods, pod)
		}
	}
	return pods, notes
}
