/*
 * generator/intent.h: the ClusterIntent (gpuform.io/v1alpha1) model and its
 * reader.
 *
 * intent_read() turns YAML into typed fields, keeping the line:column of
 * each so later stages can point at the user's text. It reports shape
 * problems (unknown keys, wrong types, bad enums) as diagnostics and keeps
 * going; the semantic rules live in validate.c. Defaults are filled in here,
 * and each *_set flag says whether the user wrote the key.
 */
#ifndef GENERATOR_INTENT_H
#define GENERATOR_INTENT_H

#include <stddef.h>

#include "generator/targets.h"
#include "util/diag.h"
#include "util/err.h"

struct pos {
	int line, col;
};

enum wl_type { WL_TRAINING, WL_INFERENCE, WL_DEV };
enum wl_interruption { INT_NONE, INT_CHECKPOINTED, INT_TOLERANT };
enum sharing_mode { SHARE_NONE, SHARE_TIMESLICING, SHARE_MIG };
enum ami_family { AMI_UNKNOWN, AMI_AL2023, AMI_BOTTLEROCKET };
/* workloads[].capacity.type: On-Demand Capacity Reservations or EC2
 * Capacity Blocks for ML (docs/reserved-capacity.md) */
enum cap_type { CAP_RESERVATION, CAP_BLOCK };
/* workloads[].capacity.whenExhausted */
enum cap_fallback { CAPF_WAIT, CAPF_ON_DEMAND, CAPF_SPOT };

/* default spec.nvidiaDevicePlugin.namespace: where NVIDIA's static
 * manifest and the EKS AL2023 guide put the plugin */
#define INTENT_DEVICE_PLUGIN_NS "kube-system"

/* default imageCache.initializationRate, MiB/s: the maximum EBS allows
 * (100..300), so the cache is read at a known rate from the first pull */
#define INTENT_CACHE_INIT_RATE 300

extern const char *const wl_type_names[];         /* "training", ... */
extern const char *const wl_interruption_names[]; /* "none", ... */
extern const char *const cap_type_names[];        /* "reservation", ... */
extern const char *const cap_fallback_names[];    /* "wait", ... */

/* one capacityReservationSelectorTerm: an id, or tags (with an owner) */
struct cap_term {
	struct pos pos;
	char *id; /* "cr-..." or NULL */
	struct pos id_pos;
	char **tag_keys, **tag_values;
	struct pos *tag_pos; /* of each key */
	size_t ntags;
	struct pos tags_pos;
	char *owner_id; /* 12-digit account id or NULL */
	struct pos owner_pos;
};

/* one entry of spec.acknowledge: the warnings of rule `rule` (an INT id,
 * as written) are accepted, for one workload (or its pool) or all */
struct intent_ack {
	struct pos pos; /* the list item */
	char *rule;
	struct pos rule_pos;
	char *reason;
	char *workload; /* NULL: anywhere in the intent */
	struct pos workload_pos;
};

struct workload {
	struct pos pos; /* the list item */
	char *name;
	struct pos name_pos;
	enum wl_type type;
	struct pos type_pos;
	char **gpu;       /* classes as written ("h100"); "l4+" kept with '+' */
	size_t ngpu;
	struct pos gpu_pos;
	struct pos *gpu_item_pos; /* position of each gpu[i] */
	long gpus_per_pod;
	struct pos gpus_per_pod_pos;
	long gang;
	struct pos gang_pos;
	enum wl_interruption interruption;
	struct pos interruption_pos;
	int efa;
	struct pos efa_pos;
	/* hugepages2Mi: MiB of 2 MiB pages each pod requests (0: none) */
	long hugepages_mi;
	struct pos hugepages_pos;
	enum sharing_mode sharing;
	long ts_replicas;  /* SHARE_TIMESLICING */
	char *mig_profile; /* SHARE_MIG */
	struct pos sharing_pos;
	long max_gpus;
	struct pos max_gpus_pos;
	char *ns;
	struct pos ns_pos;
	int ns_defaulted; /* taken from the name, not written */
	/* capacity: reserved capacity (docs/reserved-capacity.md) */
	int capacity; /* the key was written and is a mapping */
	struct pos capacity_pos;
	enum cap_type cap_type;
	struct pos cap_type_pos;
	long cap_instances; /* 0: not stated */
	struct pos cap_instances_pos;
	enum cap_fallback cap_fallback;
	struct pos cap_fallback_pos;
	struct cap_term *cap_terms;
	size_t ncap_terms;
	struct pos cap_terms_pos;
	/* placement: {zone, placementGroup, topology} (all optional) */
	int placement;
	struct pos placement_pos;
	char **zones;     /* zone names as written ("us-east-1a") */
	size_t nzones;
	int zone_list;    /* written as a list */
	struct pos zone_pos;
	struct pos *zone_item_pos;
	char *pg;         /* placement group name or id ("pg-...") */
	struct pos pg_pos;
	int topology;     /* placement.topology written: refused (validate) */
	struct pos topology_pos;
	int ok; /* every required key present and well-typed */
};

/* spec.addons.delivery: the addons/ files only, or also Flux HelmReleases
 * or Argo CD Applications carrying them (generator/delivery.c) */
enum addons_delivery { DELIVERY_VALUES, DELIVERY_FLUX, DELIVERY_ARGOCD };
extern const char *const addons_delivery_names[];

struct intent {
	char *file;
	struct pos pos;
	struct pos spec_pos; /* the spec mapping (where missing keys belong) */
	int spec_missing; /* no spec: reported once; its rules are skipped */
	int ami_present, role_present; /* written, even if invalid */
	int workloads_malformed; /* present but not a list: reported */
	int network_unknown_keys; /* e.g. a misspelt efaSecurityGroup */
	char *name; /* metadata.name: the EKS cluster */
	struct pos name_pos;
	char *node_role, *instance_profile;
	struct pos role_pos;
	char *ami;       /* as written: "bottlerocket@v1.26.1" */
	enum ami_family ami_family;
	char *ami_version; /* "v1.26.1" (after '@') */
	struct pos ami_pos;
	char *discovery;
	struct pos discovery_pos;
	int image_cache;
	char *snapshot_id;
	char *cache_size; /* quantity as written ("200Gi") */
	long long cache_size_gib;
	struct pos cache_pos, snapshot_pos, cache_size_pos;
	/* imageCache.initializationRate (MiB/s, 100..300; 0 = not written)
	 * and imageCache.fastSnapshotRestore (FSR enabled on the snapshot
	 * in the node's zones: no rate needed) */
	long cache_init_rate;
	struct pos cache_init_rate_pos;
	int cache_fsr;
	struct pos cache_fsr_pos;
	/* spec.nodeRepair (default true): Karpenter's NodeRepair gate */
	int node_repair;
	int node_repair_set;
	struct pos node_repair_pos;
	int prefix_delegation;
	struct pos pd_pos;
	char *efa_sg;
	struct pos efa_sg_pos;
	/* network.efaOnlyInterfaces: EFA classes get a static
	 * networkInterfaces layout with efa-only interfaces */
	int efa_only;
	struct pos efa_only_pos;
	/* where the NVIDIA device-plugin chart is installed (AL2023): its
	 * config ConfigMap must be in the chart's namespace */
	char *dp_ns;
	struct pos dp_ns_pos;
	int dp_ns_defaulted;
	int general;
	struct pos general_pos;
	int window;
	char *window_schedule, *window_duration;
	struct pos window_pos, window_schedule_pos, window_duration_pos;
	struct workload *workloads;
	size_t nworkloads, workloads_alloc;
	struct pos workloads_pos;
	/* spec.targets: the Karpenter and Kueue releases rendered for */
	struct targets targets;
	/* spec.acknowledge: accepted warnings (validate_acknowledge) */
	struct intent_ack *acks;
	size_t nacks;
	/* spec.addons.delivery (default values) */
	enum addons_delivery delivery;
	struct pos delivery_pos;
};

/*
 * intent_read: parse and type-check `data` (the content of `file`).
 * YAML syntax errors and shape problems go to *d (with file:line:col);
 * returns -1 only when nothing usable could be read (e.g. not YAML, empty,
 * several documents), after adding a diagnostic. *out is always initialised
 * and must be released with intent_release().
 */
int intent_read(struct intent *out, const char *file, const char *data,
		size_t len, struct diags *d);
void intent_release(struct intent *in);

/*
 * The accepted keys of each mapping of an intent, by its path ("" the top,
 * "spec.workloads[]" one workload); NULL-terminated; used by intent_read and
 * by the JSON Schema (generator/schema.c).
 */
struct intent_keyset {
	const char *path;
	const char *const *keys;
};
extern const struct intent_keyset intent_keysets[];

/* duration: "4h", "30m", "1h30m", "90s"; returns seconds or -1 */
long long intent_parse_duration(const char *s);
/* quantity in GiB ("200Gi", "1Ti", "500G" rounded up); -1 if not one */
long long intent_parse_gib(const char *s);
/* closest of `words` to `s` (edit distance <= 2 or prefix), or NULL */
const char *intent_suggest(const char *s, const char *const *words);

/*
 * The rules of the intent's warnings (validate, render, plan, lint): id and
 * name, as two arguments of diags_add_rule() and of the rule table
 * (generator/lint_rules.c: summary and `gpuform explain` text).
 * Stable; `spec.acknowledge` names them.
 */
#define INTENT_RULE_AMI_VERSION "INT001", "ami-version-normalized"
#define INTENT_RULE_BLOCK_FALLBACK "INT002", "capacity-block-fallback"
#define INTENT_RULE_NO_WINDOW "INT003", "no-maintenance-window"
#define INTENT_RULE_DP_NS_IGNORED "INT004", "device-plugin-namespace-ignored"
#define INTENT_RULE_EFA_SG_UNUSED "INT005", "efa-security-group-unused"
#define INTENT_RULE_SPOT_TO_SPOT "INT006", "spot-pool-no-cheaper-replacement"
#define INTENT_RULE_DENSE_TYPES "INT007", "instance-types-left-out"
#define INTENT_RULE_EFA_SHARE "INT008", "efa-share-types-left-out"
#define INTENT_RULE_GANG_MEMORY "INT009", "gang-mixed-gpu-memory"
#define INTENT_RULE_TARGET_FEATURE "INT010", "target-lacks-feature"
#define INTENT_RULE_ACK_UNUSED "INT011", "acknowledgement-unused"

#endif
