/*
 * tests/unit/kube_fake.h: an in-memory Kubernetes API behind struct
 * kube_ops (kube/kube.h), for unit tests that need a cluster but no
 * server: reconcile (planner and executor), lease, notify.
 *
 * It holds objects, assigns uids ("uid-<n>") and resourceVersions (one
 * counter for the whole store, as etcd's revision), and answers as the
 * REST client does: 404 on get is *out = NULL; a failed delete
 * precondition (uid, resourceVersion) and a stale resourceVersion on
 * apply/update are ERR_CONFLICT; create of an existing object is
 * ERR_CONFLICT; an unserved kind is ERR_NOTFOUND from resource_for.
 * Server-side apply is modelled closely enough for reconcile: each field
 * manager owns the fields it applied (metadata.managedFields, fieldsV1);
 * a field another Apply manager owns with a different value is a conflict
 * unless forced (then ownership moves); a field a manager owned and no
 * longer applies is removed. Lists are served in pages of page_size so
 * stats.lists counts pages like the REST client.
 *
 * Faults: kube_fake_fail() makes the n-th next call of an operation fail
 * with a code and message; the `hook` runs before every operation (a
 * concurrent writer, a crash simulation); forbid_kind and
 * forbid_all_namespaces answer 403 (ERR_AUTH) as RBAC would. Every call is logged as one
 * line "<OP> <Kind> <ns>/<name>" in `log` (cluster scope: "/<name>";
 * dry runs as DRYRUN). A kind no longer served answers LIST, apply and
 * delete with the REST client's 404 error, GET with absent.
 */
#ifndef TESTS_UNIT_KUBE_FAKE_H
#define TESTS_UNIT_KUBE_FAKE_H

#include <cjson/cJSON.h>

#include "kube/kube.h"
#include "util/buf.h"
#include "util/err.h"

enum fake_op {
	FAKE_DISCOVERY,
	FAKE_GET,
	FAKE_LIST,
	FAKE_APPLY,
	FAKE_DRY_RUN, /* apply or delete with dryRun */
	FAKE_DELETE,
	FAKE_CREATE,
	FAKE_UPDATE,
	FAKE_PATCH,
	FAKE_OP_MAX
};

struct kube_fake;
typedef void (*kube_fake_hook)(struct kube_fake *f, enum fake_op op,
			       const char *kind, const char *ns,
			       const char *name, void *ctx);

struct kube_fake {
	struct kube base; /* first: a struct kube_fake * is a struct kube * */
	cJSON *objects;   /* the store: an array of objects */
	long rev;         /* last resourceVersion handed out */
	long next_uid;
	int page_size;    /* items per LIST page (default 2) */
	struct kube_resource *served;
	size_t nserved, served_alloc;
	struct buf log;
	kube_fake_hook hook;
	void *hook_ctx;
	struct {
		enum fake_op op;
		int after;  /* calls of op to let through first */
		enum err_code code;
		char *msg;
		const char *kind; /* NULL: any kind */
	} faults[8];
	int nfaults;
	/* RBAC, roughly: every request for this kind is 403 (NULL: none) */
	const char *forbid_kind;
	/* a LIST of this kind across all namespaces is 403, one namespace
	 * is allowed (a Role without a ClusterRole; NULL: none) */
	const char *forbid_all_namespaces;
};

/* kube_fake_new: a store serving the core kinds (Namespace, ConfigMap,
 * Secret, Event, Lease) and every kind gpuform renders. */
struct kube_fake *kube_fake_new(void);
/* the client to pass to recon_run(), lease_acquire(), ... */
struct kube *kube_fake_client(struct kube_fake *f);
/* kube_free(kube_fake_client(f)) frees it too */
void kube_fake_free(struct kube_fake *f);

/* serve one more kind (Pods, NodeClaims, ...) */
void kube_fake_serve(struct kube_fake *f, const char *api_version,
		     const char *kind, const char *resource, int namespaced);
/* stop serving a kind (a CRD removed); its objects stay but are unreachable */
void kube_fake_unserve(struct kube_fake *f, const char *api_version,
		       const char *kind);
/* put obj (copied) into the store as is, with a fresh uid/resourceVersion
 * unless it has them; manager (may be NULL) applied all its fields */
cJSON *kube_fake_put(struct kube_fake *f, const cJSON *obj,
		     const char *manager);
/* the stored object, or NULL */
cJSON *kube_fake_find(struct kube_fake *f, const char *kind, const char *ns,
		      const char *name);
/* remove it from the store without a request (0: it was not there) */
int kube_fake_remove(struct kube_fake *f, const char *kind, const char *ns,
		     const char *name);
/* bump the object's resourceVersion (someone else wrote it) */
void kube_fake_touch(cJSON *obj, struct kube_fake *f);
/* the `after`-th next call of op (0: the very next) on kind (NULL: any)
 * fails with code and msg */
void kube_fake_fail(struct kube_fake *f, enum fake_op op, int after,
		    const char *kind, enum err_code code, const char *msg);
/* number of log lines that start with prefix */
int kube_fake_count(const struct kube_fake *f, const char *prefix);

#endif
