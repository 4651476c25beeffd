/*
 * reconcile/owner.h: who owns a live object, and whether this run may write
 * or delete it. Pure functions over facts read from the live object and the
 * inventory; no requests. docs/reconcile-safety.md states the rules.
 *
 * An object is OURS (this cluster's gpuform created or adopted it) when all
 * of these hold:
 *  - it carries the label applyset.kubernetes.io/part-of=<our ApplySet id>,
 *  - our inventory lists it (same group, kind, namespace, name),
 *  - the inventory entry's UID, when it has one, is the object's UID.
 * A live object that is not ours is
 *  - GPUFORM: its part-of label names another ApplySet and its
 *    gpuform.io/cluster label names a gpuform cluster — another gpuform
 *    inventory owns it. Never written or deleted by this run; a desired
 *    object equal to it (apart from the owner labels) is shared instead;
 *  - FOREIGN: anything else (made by hand, by another tool, or labelled
 *    for us without being in our inventory). A conflict unless adopted.
 *
 * Prune needs more than OURS: the inventory entry must have a UID, the
 * object's UID must be it, the object's managedFields must show that our
 * field manager applied the part-of label, and the entry must carry an
 * ownership proof (owner_proof) for that identity and UID. The field
 * manager is a free query parameter — anyone who may patch an object can
 * apply with --field-manager=gpuform — so the label and managedFields alone
 * prove nothing; the proof is an HMAC under a key only gpuform's identity
 * can read (a Secret in the inventory namespace), written by gpuform into
 * its inventory after it applied the object and learnt its UID. An object
 * another inventory on the server still lists, or any when the other
 * inventories cannot all be read, is kept.
 */
#ifndef RECONCILE_OWNER_H
#define RECONCILE_OWNER_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "generator/kobj.h"
#include "util/buf.h"

#define OWNER_PART_OF "applyset.kubernetes.io/part-of"
#define OWNER_CLUSTER_LABEL "gpuform.io/cluster"

struct owner_facts {
	int exists;
	const char *part_of;       /* label value, NULL: none */
	const char *cluster_label; /* gpuform.io/cluster, NULL: none */
	const char *uid;           /* live UID */
	int listed;                /* our inventory lists this identity */
	const char *listed_uid;    /* its entry's UID (NULL: none recorded) */
	/* metadata.deletionTimestamp: being deleted (a Namespace stays
	 * Terminating until its content is gone); NULL: not */
	const char *deleting_since;
};

enum owner_class {
	OWNER_ABSENT,  /* no live object */
	OWNER_OURS,
	OWNER_GPUFORM, /* another gpuform inventory's */
	OWNER_FOREIGN,
};

enum owner_class owner_classify(const struct owner_facts *f,
				const char *our_applyset);

/* what a run does with a desired object, given its owner class */
enum owner_write {
	OW_WRITE,    /* ours, or absent: apply */
	OW_ADOPT,    /* foreign, and the user said --adopt: apply, record */
	OW_SHARE,    /* another gpuform's, equal to ours: record as shared,
		      * write nothing */
	OW_CONFLICT, /* not ours: nothing is written */
	OW_TERMINATING, /* being deleted: nothing is written, whoever owns
			 * it (--adopt does not help; wait until it is gone) */
};

/*
 * owner_write_decision: `equal_but_owner` says the live object already
 * holds every desired field apart from the owner labels (part-of,
 * gpuform.io/cluster).
 */
enum owner_write owner_write_decision(enum owner_class c, int adopt,
				      int equal_but_owner);
/* owner_write_decide: the same from the facts: an object being deleted
 * is OW_TERMINATING before anything else */
enum owner_write owner_write_decide(const struct owner_facts *f,
				    enum owner_class c, int adopt,
				    int equal_but_owner);

struct prune_facts {
	const char *entry_uid; /* our inventory entry's UID (NULL: none) */
	int entry_shared;      /* our entry records a shared object */
	int found;             /* found by our part-of label */
	const char *live_uid;
	int applied_label;     /* our manager applied the part-of label */
	int listed_elsewhere;  /* another gpuform inventory lists it */
	int proven;            /* the entry's ownership proof is valid */
	int others_unseen;     /* the other inventories cannot all be read */
};

enum prune_verdict {
	PRUNE_DELETE,
	PRUNE_GONE,          /* not found with our label: forget the entry */
	PRUNE_RELEASE,       /* shared: drop our entry, delete nothing */
	PRUNE_NO_UID,        /* entry without a UID: kept, reported */
	PRUNE_UID_CHANGED,   /* recreated by someone else: forget, reported */
	PRUNE_NOT_APPLIED,   /* labelled by someone else: kept, reported */
	PRUNE_UNPROVEN,      /* no valid ownership proof: kept, reported */
	PRUNE_STILL_LISTED,  /* another inventory lists it: kept, reported */
	PRUNE_UNSEEN,        /* other inventories cannot be read: kept */
	PRUNE_HELD,          /* held back by the run's guard: kept, reported
			      * (never returned by owner_prune_decision) */
};

enum prune_verdict owner_prune_decision(const struct prune_facts *f);

/* owner_prune_reason: the report's sentence for a verdict that deletes
 * nothing (NULL for PRUNE_DELETE and PRUNE_GONE) */
const char *owner_prune_reason(enum prune_verdict v);

/* what a run does with one stale inventory entry (not desired any more) */
enum keep_entry {
	KEEP_NONE,     /* dropped from the inventory */
	KEEP_AS_IS,    /* kept, with its sharedWith */
	KEEP_UNSHARED, /* kept, without sharedWith */
};
struct prune_step {
	int report;           /* the report gets an item for it */
	int pruned;           /* ... saying pruned (else skipped) */
	const char *why;      /* its detail (NULL: none) */
	enum keep_entry keep; /* in the next inventory (a real run) */
	int delete_;          /* DELETE it, with preconditions (a real run;
			       * the report then says the DELETE's outcome) */
};

/*
 * owner_prune_step: the prune planner's step for an entry with verdict v
 * (owner_prune_decision, or PRUNE_HELD from the run's guard; held_detail
 * may be NULL). is_ns: the entry is a Namespace. `dry` gives what a dry
 * run reports, else what a real run reports, keeps and deletes. Pure.
 */
struct prune_step owner_prune_step(enum prune_verdict v, int is_ns, int prune,
				   int prune_namespaces,
				   const char *held_detail, int dry);

/*
 * owner_applied_label: does `manager` have an Apply entry in the object's
 * managedFields that owns metadata.labels[applyset.kubernetes.io/part-of]?
 */
int owner_applied_label(const cJSON *obj, const char *manager);

/*
 * Ownership proofs. The key: OWNER_KEY_LEN random bytes in the Secret
 * owner_key_name(cluster) (data key OWNER_KEY_DATA) in the inventory
 * namespace. A proof is "v1." and the unpadded base64url of the first 16
 * bytes of HMAC-SHA-256(key, "gpuform-owner-proof-v1" NUL applyset NUL
 * group NUL kind NUL namespace NUL name NUL uid): bound to this inventory,
 * to the object's identity (not its version) and to the UID the API server
 * gave it, so a proof copied from another entry or another object is not
 * valid. Pure.
 */
#define OWNER_KEY_LEN 32
#define OWNER_KEY_DATA "key"
#define OWNER_PROOF_PREFIX "v1."

/* owner_key_name: "gpuform-<cluster>-owner-key", appended to out */
void owner_key_name(const char *cluster, struct buf *out);

void owner_proof(const unsigned char *key, size_t keylen,
		 const char *applyset, const struct kobj_id *id,
		 const char *uid, struct buf *out);

/* owner_proof_ok: 1 when proof is the proof of (applyset, id, uid) under
 * key; 0 for NULL or anything else (compared in constant time) */
int owner_proof_ok(const unsigned char *key, size_t keylen,
		   const char *applyset, const struct kobj_id *id,
		   const char *uid, const char *proof);

/*
 * owner_facts_of: fill the live-object half of f from obj (NULL: absent).
 * The strings are borrowed from obj.
 */
void owner_facts_of(struct owner_facts *f, const cJSON *obj);

#endif
