/*
 * aws/awsxml.h: just enough XML for the answers of the EC2 query API
 * and STS (elements, text, the five predefined entities and numeric
 * character references; attributes, comments and the declaration are
 * skipped). Pure; malformed or truncated input is ERR_INVALID.
 */
#ifndef AWS_AWSXML_H
#define AWS_AWSXML_H

#include <stddef.h>

#include "util/err.h"

struct xnode {
	char *name;   /* local name, namespace prefix dropped */
	char *text;   /* the element's own text, trimmed; "" if none */
	struct xnode *kids;
	size_t nkids, alloc;
};

int xml_parse(struct xnode *root, const char *data, size_t len,
	      struct err *err);
void xml_release(struct xnode *n);

/* xml_child: the first child named `name`, or NULL */
const struct xnode *xml_child(const struct xnode *n, const char *name);
/* xml_path: children along "a/b/c", or NULL */
const struct xnode *xml_path(const struct xnode *n, const char *path);
/* xml_text: text of the child at path, or NULL when absent */
const char *xml_text(const struct xnode *n, const char *path);

#endif
