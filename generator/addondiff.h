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

struct addondiff_item {
	char *cluster, *file, *key;
	char *before, *after; /* JSON text; NULL: absent on that side */
	char *impact;
};

struct addondiff {
	struct addondiff_item *items;
	size_t nr, alloc;
};
#define ADDONDIFF_INIT { NULL, 0, 0 }

/*
 * addondiff_add: compare one cluster's add-ons (base and head may be NULL:
 * the cluster is new or gone); the docs say which objects the change adds
 * (NodeOverlays...), for the impact text.
 */
void addondiff_add(struct addondiff *d, const char *cluster,
		   const cJSON *base_addons, const cJSON *head_addons,
		   const cJSON *base_docs, const cJSON *head_docs);
void addondiff_release(struct addondiff *d);

/* text: "add-on clusterA/addons/karpenter-values.yaml: KEY: A -> B\n  impact\n" */
void addondiff_format_text(struct buf *out, const struct addondiff *d);
/* markdown: a table (file, key, before, after, impact) */
void addondiff_format_markdown(struct buf *out, const struct addondiff *d);
/* json: [{cluster, file, key, before, after, impact}] (before/after the
 * values, null when absent) */
cJSON *addondiff_json(const struct addondiff *d);
/* the summary phrase: "2 add-on settings changed" */
void addondiff_summary(struct buf *out, const struct addondiff *d);

#endif
