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

#include "util/buf.h"
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
	int enis;           /* VPC CNI network interfaces (0 = unknown) */
	int ipv4_per_eni;   /* IPv4 addresses per interface */
	int cards;          /* network cards (0 = unknown; nic record) */
	int card0_ifaces;   /* network interfaces card 0 takes */
	/* Karpenter has no on-demand price for it (reservedonly record):
	 * an on-demand or spot offering without a price is unavailable, so
	 * only reserved capacity launches it */
	int reserved_only;
};

struct cat_family {
	const char *name;      /* "p4de" */
	const char *gpu;       /* Karpenter instance-gpu-name label: "a100" */
	const char *mig_model; /* Bottlerocket MIG key, "a100.80gb"; NULL = no MIG */
	const char **mig_profiles; /* valid MIG profiles ("1g.10gb", ...) */
	int *mig_instances;        /* per profile: instances on one GPU */
	size_t nmig;
	int misreports;        /* known to report a wrong/zero GPU count */
};

struct cat_class {
	const char *name;      /* intent GPU class: "a100" */
	int rank;              /* for "class+" (this or better); higher = better */
	const char **families; /* allow-listed families, in catalog order */
	size_t nfamilies;
};

/* a feature of an AMI family and the first release that has it */
struct cat_release {
	const char *ami;     /* "bottlerocket" */
	const char *feature; /* "timeslicing", "mig", "gpu:b200" */
	const char *first;   /* "1.34.0" */
	const char *source;  /* "bottlerocket#4418" */
};

struct catalog {
	struct cat_class *classes;
	size_t nclasses;
	struct cat_family *families;
	size_t nfamilies;
	struct cat_type *types;
	size_t ntypes;
	struct cat_release *releases;
	size_t nreleases;
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

/* catalog_mig_instances: instances of MIG `profile` one GPU of family f
 * holds (1g.10gb: 4 on the 40 GB A100, 7 on the 80 GB one); 0 if the
 * family's GPU has no such profile. */
int catalog_mig_instances(const struct cat_family *f, const char *profile);

/* catalog_max_pods: Karpenter's ENI-limited max pods for a type without
 * prefix delegation, ENIs * (IPv4 per ENI - 1) + 2; 0 if unknown. */
int catalog_max_pods(const struct cat_type *t);

/* catalog_release_of: the first `ami` release with `feature`, or NULL. */
const struct cat_release *catalog_release_of(const struct catalog *c,
					     const char *ami,
					     const char *feature);

/* catalog_version_cmp: compare "1.26.1" and "v1.34.0" numerically
 * (a leading 'v' is ignored); <0, 0, >0 like strcmp. */
int catalog_version_cmp(const char *a, const char *b);

/*
 * catalog_classes_table: the GPU classes of cat — each with its instance
 * families (GPU, GPUs per instance, GPU memory) and the classes `class+`
 * also allows — as a Markdown table (docs/intent-reference.md embeds it;
 * tests/docs.sh compares), or a terminal table whose last column wraps at
 * `width`.
 */
void catalog_classes_table(struct buf *out, const struct catalog *cat,
			   int markdown, size_t width);

#endif
