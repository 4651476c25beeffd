/*
 * generator/kobj.h: the Kubernetes object model gpuform shares between its
 * layers — an object's identity, the kinds gpuform renders and their apply
 * order.
 *
 * It lives in generator/, the lowest layer every user can include: the
 * renderer orders its output by it, the install command derives RBAC from
 * the kinds, reconcile/ identifies, indexes and orders live objects with
 * it, and cmd/ sorts diffs by it. util/ would do for the identity alone,
 * but the kinds are gpuform's domain knowledge, which util/ must not hold.
 * Pure functions; no I/O.
 */
#ifndef GENERATOR_KOBJ_H
#define GENERATOR_KOBJ_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/buf.h"

/* identity of an object; the strings are borrowed (except in a copy made
 * by kobj_id_copy); ns is NULL for cluster scope (an empty namespace
 * counts as none) */
struct kobj_id {
	const char *api_version, *kind, *ns, *name;
};

/* kobj_id_of: the identity of an object (members NULL where absent) */
void kobj_id_of(const cJSON *obj, struct kobj_id *id);

/* kobj_id_copy: an owned copy of src (NULL members stay NULL), for
 * identities that outlive the objects (report items); kobj_id_clear frees
 * it and sets every member to NULL */
void kobj_id_copy(struct kobj_id *dst, const struct kobj_id *src);
void kobj_id_clear(struct kobj_id *id);

/* kobj_group: the API group of an apiVersion ("" for the core group
 * "v1"), in buf (n bytes; a longer group is cut) */
const char *kobj_group(const char *api_version, char *buf, size_t n);

/* kobj_group_len: the length of the API group of an apiVersion (0 for the
 * core group); kobj_group_dup: that group whole, newly allocated. Object
 * identity uses these, never a fixed buffer (a group is a DNS subdomain of
 * up to 253 characters, and nothing here cuts a longer one) */
size_t kobj_group_len(const char *api_version);
char *kobj_group_dup(const char *api_version);

/* kobj_same: the same object? group, kind, namespace and name (the
 * version may differ: the API server serves an object at every version) */
int kobj_same(const struct kobj_id *a, const struct kobj_id *b);

/* kobj_key: the identity as one string (group, kind, namespace, name
 * joined by \x1f) for hashing; replaces out's content */
void kobj_key(const struct kobj_id *id, struct buf *out);

/* kobj_display: "kind.group/name -n ns" as kubectl names it (appended) */
void kobj_display(const struct kobj_id *id, struct buf *out);

/*
 * kobj_kinds: every kind gpuform renders, in apply order, terminated by an
 * entry whose kind is NULL. `ns` is where objects of the kind go: NULL
 * for cluster-scoped kinds, KOBJ_ANY_NAMESPACE when an intent chooses the
 * namespace, else the one fixed namespace. What gpuform may touch in a
 * cluster (`gpuform install`'s RBAC rules) is derived from this table; a
 * unit test checks that every rendered object's kind is listed here.
 */
#define KOBJ_ANY_NAMESPACE "*"
struct kobj_kind {
	const char *api_version, *kind, *resource, *ns;
};
extern const struct kobj_kind kobj_kinds[];

/* kobj_kind_find: the entry of apiVersion + kind, or NULL */
const struct kobj_kind *kobj_kind_find(const char *api_version,
				       const char *kind);

/* kobj_kind_rank: position of a kind in apply order (unknown kinds last) */
int kobj_kind_rank(const char *kind);

#endif
