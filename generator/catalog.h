/*
 * generator/catalog.h: the GPU instance catalog.
 *
 * The data lives in generator/catalog.tsv (compiled into the binary by
 * util/embed.sh, see embedded.h); this module parses it once and answers
 * lookups. Nothing here is Kubernetes-specific.
 */
#ifndef GENERATOR_CATALOG_H
#define GENERATOR_CATALOG_H

#include <stddef.h>

#include "util/err.h"

struct cat_type {
	const char *name;   /* "p5.48xlarge" */
	const char *family; /* "p5" */
	const char *size;   /* "48xlarge" */
	int gpus;           /* physical GPUs */
	int gpu_mem_mib;    /* per GPU */
	int vcpu;
	int mem_mib;
	int efa;            /* max EFA interfaces (0 = none) */
	double price;       /* on-demand USD/hour, us-east-1 (approximate) */
	const char *arch;   /* "amd64" | "arm64" */
};

struct cat_family {
	const char *name;      /* "p4de" */
	const char *gpu;       /* Karpenter instance-gpu-name label: "a100" */
	const char *mig_model; /* Bottlerocket MIG key, "a100.80gb"; NULL = no MIG */
	const char **mig_profiles; /* valid MIG profiles ("1g.10gb", ...) */
	size_t nmig;
	int misreports;        /* known to report a wrong/zero GPU count */
};

struct cat_class {
	const char *name;      /* intent GPU class: "a100" */
	int rank;              /* for "class+" (this or better); higher = better */
	const char **families; /* allow-listed families, in catalog order */
	size_t nfamilies;
};

struct catalog {
	struct cat_class *classes;
	size_t nclasses;
	struct cat_family *families;
	size_t nfamilies;
	struct cat_type *types;
	size_t ntypes;
	char *text; /* owned copy of the data; every string points into it */
};
#define CATALOG_INIT { 0 }

/* catalog_parse: parse catalog text (TSV format described in catalog.tsv).
 * On a malformed line fails with ERR_INVALID "<file>:<line>: <problem>". */
int catalog_parse(struct catalog *out, const char *text, size_t len,
		  const char *file, struct err *err);
void catalog_release(struct catalog *c);

/* catalog_builtin: the embedded catalog, parsed on first use (BUG() if the
 * embedded data is malformed — a unit test guards that). */
const struct catalog *catalog_builtin(void);

const struct cat_class *catalog_class(const struct catalog *c,
				      const char *name);
const struct cat_family *catalog_family(const struct catalog *c,
					const char *name);
/* catalog_types_of: instance types of a family in catalog order; returns the
 * count and sets *first to the first (types of a family are contiguous). */
size_t catalog_types_of(const struct catalog *c, const char *family,
			const struct cat_type **first);

#endif
