/*
 * generator/embedded.h: files compiled into the binary by util/embed.sh
 * (templates/<name>.yaml and generator/catalog.tsv).
 */
#ifndef GENERATOR_EMBEDDED_H
#define GENERATOR_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path; /* as given to embed.sh, e.g. "templates/nodepool.yaml" */
	const char *data; /* NUL-terminated */
	size_t len;
};

/* terminated by an entry whose path is NULL */
extern const struct embedded_file embedded_files[];

#endif
