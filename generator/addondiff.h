/*
 * generator/addondiff.h: the add-on files (the addons/ YAML files: Helm values, the
 * VPC CNI configuration, pod contracts) of two renders compared key by
 * key, each change with what it does and what to roll out first
 * ("Karpenter feature gate nodeOverlay: false -> true — needed by the
 * NodeOverlays this change adds; roll out the Helm release first").
 *
 * Keys are dotted paths; a string holding a YAML mapping (the Kueue
 * configuration inside kueue-values.yaml) is compared inside; lists are
 * compared whole. Pure and deterministic (files and keys sorted).
 */
#ifndef GENERATOR_ADDONDIFF_H
#define GENERATOR_ADDONDIFF_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/diag.h"

struct addondiff_item {
	char *cluster, *file, *key;
	char *before, *after; /* JSON text; NULL: absent on that side */
	char *impact;
};

struct addondiff {
	struct addondiff_item *items;
	size_t nr, alloc;
	int live; /* addondiff_live: before is the live value, after the
		   * rendered one ("live false, rendered true") */
};
#define ADDONDIFF_INIT { NULL, 0, 0, 0 }

/*
 * addondiff_add: compare one cluster's add-ons (base and head may be NULL:
 * the cluster is new or gone); the docs say which objects the change adds
 * (NodeOverlays...), for the impact text.
 */
void addondiff_add(struct addondiff *d, const char *cluster,
		   const cJSON *base_addons, const cJSON *head_addons,
		   const cJSON *base_docs, const cJSON *head_docs);
void addondiff_release(struct addondiff *d);

struct doctor_live;
/*
 * addondiff_live: the add-ons of one render (`addons`: file name ->
 * document; `docs` its objects) against what the running controllers show
 * (generator/doctor.h, read by reconcile/ctlread.c), key by key, into *d
 * (which becomes a live diff): each gate of karpenter-values.yaml's
 * settings.featureGates against the Karpenter Deployment's FEATURE_GATES
 * (a gate it leaves out: the running release's default), and every key of
 * kueue-values.yaml's managerConfig.controllerManagerConfigYaml against
 * the Kueue configuration ConfigMap. What cannot be compared (a
 * controller that may not be read, a ConfigMap that is no YAML document)
 * is a warning in *notes; a controller that is absent is nothing to
 * compare.
 */
void addondiff_live(struct addondiff *d, const char *cluster,
		    const cJSON *addons, const cJSON *docs,
		    const struct doctor_live *l, struct diags *notes);

/* text: "add-on clusterA/addons/karpenter-values.yaml: KEY: A -> B\n  impact\n"
 * (live: "KEY: live A, rendered B") */
void addondiff_format_text(struct buf *out, const struct addondiff *d);
/* markdown: a table (file, key, before, after, impact) */
void addondiff_format_markdown(struct buf *out, const struct addondiff *d);
/* json: [{cluster, file, key, before, after, impact}] (before/after the
 * values, null when absent; live: live and rendered instead) */
cJSON *addondiff_json(const struct addondiff *d);
/* the summary phrase: "2 add-on settings changed" (live: "2 add-on
 * settings differ from the running controllers") */
void addondiff_summary(struct buf *out, const struct addondiff *d);

#endif
