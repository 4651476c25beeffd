/*
 * util/yaml.h: YAML in and out — the only module that uses libyaml.
 *
 * Reading produces a tree of struct ynode that keeps the 1-based line and
 * column of every node, so validation can say file:line:col. Aliases are
 * expanded by copying, against a node budget (no billion laughs); nesting
 * depth and duplicate keys are checked while parsing.
 *
 * Writing takes a cJSON value (the document model shared by render and
 * reconcile) and emits deterministic block YAML: keys in the object's order,
 * strings quoted whenever a YAML 1.1 or 1.2 reader could take them for
 * anything but a string ("true", "no", "0", "1e3", "~", ...).
 */
#ifndef UTIL_YAML_H
#define UTIL_YAML_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"
#include "util/err.h"

enum ynode_type { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

struct ynode {
	enum ynode_type type;
	int line, col; /* 1-based position of the node's first character */
	int plain;     /* scalar written without quotes or block style */
	char *tag;     /* explicit tag, or NULL */
	char *value;   /* scalar text (NUL-terminated; may contain NULs) */
	size_t len;
	/* SEQ: items; MAP: keys and values interleaved (k0, v0, k1, v1, ...) */
	struct ynode **kids;
	size_t nr, alloc;
};

struct ydoc {
	struct ynode *root; /* NULL for an empty document */
	int line, col;
};

struct ystream {
	struct ydoc *docs;
	size_t nr, alloc;
};
#define YSTREAM_INIT { NULL, 0, 0 }

/* Limits on what the reader accepts (README "Limits and failure behaviour"). */
#define YAML_MAX_DEPTH 128
#define YAML_MAX_NODES 500000 /* after alias expansion, per stream */
#define YAML_MAX_INPUT (16u << 20)

/*
 * yaml_parse: parse every document of data[0..len). `file` names the input
 * in messages. On failure (ERR_INVALID) the message is
 * "<file>:<line>:<col>: <problem>" and *out is left empty.
 */
int yaml_parse(struct ystream *out, const char *data, size_t len,
	       const char *file, struct err *err);
void ystream_release(struct ystream *s);
void ynode_free(struct ynode *n);

/* Map helpers: value for key (NULL if absent); i-th key / value. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
#define YNODE_MAP_LEN(m) ((m)->nr / 2)
#define YNODE_KEY(m, i) ((m)->kids[2 * (i)])
#define YNODE_VAL(m, i) ((m)->kids[2 * (i) + 1])

/* How a scalar resolves (YAML 1.2 core schema plus 1.1 yes/no/on/off). */
enum yscalar_kind { YS_STRING, YS_NULL, YS_BOOL, YS_INT, YS_FLOAT };
enum yscalar_kind yaml_scalar_kind(const struct ynode *n);
/* For YS_BOOL: 1 or 0. */
int yaml_scalar_bool(const struct ynode *n);
/* yaml_plain_needs_quotes: would this string, written plain, read back as
 * something other than the same string? */
int yaml_plain_needs_quotes(const char *s, size_t len);

/*
 * yaml_to_json: convert a node to cJSON with scalar types resolved
 * (ERR_INVALID for integers beyond 2^53, which JSON numbers cannot hold).
 */
int yaml_to_json(cJSON **out, const struct ynode *n, const char *file,
		 struct err *err);

/* yaml_emit: append one document (no "---") for `doc` to out. */
int yaml_emit(struct buf *out, const cJSON *doc, struct err *err);

/* yaml_format_number: the text gpuform writes for a JSON number. */
void yaml_format_number(struct buf *out, double v);

#endif
