/*
 * reconcile/owner.c: ownership decisions (see owner.h). Pure.
 */
#include "reconcile/owner.h"

#include <string.h>

#include "util/digest.h"
#include "util/base64.h"
#include "util/json.h"

void owner_facts_of(struct owner_facts *f, const cJSON *obj)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

	f->exists = obj != NULL;
	f->part_of = json_str_at(md, "labels", OWNER_PART_OF);
	f->cluster_label = json_str_at(md, "labels", OWNER_CLUSTER_LABEL);
	f->uid = json_str_at(md, "uid", NULL);
	f->deleting_since = json_str_at(md, "deletionTimestamp", NULL);
	if (f->uid && !*f->uid)
		f->uid = NULL;
}

enum owner_class owner_classify(const struct owner_facts *f,
				const char *our_applyset)
{
	if (!f->exists)
		return OWNER_ABSENT;
	if (f->part_of && our_applyset && !strcmp(f->part_of, our_applyset)) {
		if (!f->listed)
			return OWNER_FOREIGN; /* labelled, never recorded */
		if (f->listed_uid && (!f->uid || strcmp(f->listed_uid, f->uid)))
			return OWNER_FOREIGN; /* recreated by someone else */
		return OWNER_OURS;
	}
	if (f->part_of && !strncmp(f->part_of, "applyset-", 9) &&
	    f->cluster_label && *f->cluster_label)
		return OWNER_GPUFORM;
	return OWNER_FOREIGN;
}

enum owner_write owner_write_decision(enum owner_class c, int adopt,
				      int equal_but_owner)
{
	switch (c) {
	case OWNER_ABSENT:
	case OWNER_OURS:
		return OW_WRITE;
	case OWNER_GPUFORM:
		/* another gpuform inventory's: never taken, even with
		 * --adopt; shared when it already is what we want */
		return equal_but_owner ? OW_SHARE : OW_CONFLICT;
	case OWNER_FOREIGN:
		return adopt ? OW_ADOPT : OW_CONFLICT;
	}
	return OW_CONFLICT;
}

enum owner_write owner_write_decide(const struct owner_facts *f,
				    enum owner_class c, int adopt,
				    int equal_but_owner)
{
	if (f->exists && f->deleting_since)
		return OW_TERMINATING;
	return owner_write_decision(c, adopt, equal_but_owner);
}

enum prune_verdict owner_prune_decision(const struct prune_facts *f)
{
	if (f->entry_shared)
		return PRUNE_RELEASE;
	if (!f->found)
		return PRUNE_GONE;
	if (!f->entry_uid || !*f->entry_uid)
		return PRUNE_NO_UID;
	if (!f->live_uid || strcmp(f->entry_uid, f->live_uid))
		return PRUNE_UID_CHANGED;
	if (!f->applied_label)
		return PRUNE_NOT_APPLIED;
	if (!f->proven)
		return PRUNE_UNPROVEN;
	if (f->listed_elsewhere)
		return PRUNE_STILL_LISTED;
	if (f->others_unseen)
		return PRUNE_UNSEEN;
	return PRUNE_DELETE;
}

const char *owner_prune_reason(enum prune_verdict v)
{
	switch (v) {
	case PRUNE_RELEASE:
		return "shared with another gpuform inventory, which owns it: "
		       "released from this inventory, not deleted";
	case PRUNE_NO_UID:
		return "the inventory entry has no UID: not pruned (gpuform "
		       "records the UID of every object it writes; an entry "
		       "without one was not written by it)";
	case PRUNE_UID_CHANGED:
		return "recreated by someone else (UID changed); not pruned";
	case PRUNE_NOT_APPLIED:
		return "its part-of label was not applied by gpuform (labelled "
		       "by hand or by another tool): not pruned";
	case PRUNE_UNPROVEN:
		return "its inventory entry carries no valid ownership proof "
		       "(recorded by a gpuform before ownership proofs, rebuilt "
		       "by --rebuild-inventory, or tampered with): not pruned; "
		       "delete it by hand if this cluster's gpuform created it";
	case PRUNE_STILL_LISTED:
		return "another gpuform inventory on this server still lists "
		       "it: not pruned";
	case PRUNE_UNSEEN:
		return "the other gpuform inventories on this server cannot "
		       "all be read, so gpuform cannot tell whether one still "
		       "lists it: not pruned";
	case PRUNE_DELETE:
	case PRUNE_GONE:
	case PRUNE_HELD:
		break;
	}
	return NULL;
}

struct prune_step owner_prune_step(enum prune_verdict v, int is_ns, int prune,
				   int prune_namespaces,
				   const char *held_detail, int dry)
{
	struct prune_step s = { 1, 0, owner_prune_reason(v), KEEP_AS_IS, 0 };
	const char *not_pruned =
		prune ? "namespaces are pruned only with --prune-namespaces"
		      : "not in the desired set (use --prune)";
	int deletable = prune && (!is_ns || prune_namespaces);

	if (dry) {
		s.keep = KEEP_NONE;
		if (v == PRUNE_GONE) {
			s.report = 0;
		} else if (v == PRUNE_RELEASE && !prune) {
			s.why = not_pruned;
		} else if (!s.why) {
			if (v == PRUNE_DELETE && deletable)
				s.pruned = 1;
			else
				s.why = not_pruned;
		}
		return s;
	}
	switch (v) {
	case PRUNE_GONE: /* gone, or no longer ours: forget it */
		s.report = 0;
		s.keep = KEEP_NONE;
		break;
	case PRUNE_UID_CHANGED: /* a prune run says it once more */
		s.keep = prune ? KEEP_NONE : KEEP_UNSHARED;
		break;
	case PRUNE_RELEASE:
		s.report = prune;
		s.keep = prune ? KEEP_NONE : KEEP_AS_IS;
		break;
	case PRUNE_HELD:
		s.why = held_detail ? held_detail : "held back by the guard";
		break;
	case PRUNE_NO_UID:
	case PRUNE_NOT_APPLIED:
	case PRUNE_UNPROVEN:
	case PRUNE_STILL_LISTED:
	case PRUNE_UNSEEN:
		break;
	case PRUNE_DELETE:
		s.keep = KEEP_UNSHARED;
		if (!deletable) {
			s.why = not_pruned;
		} else {
			s.report = 0;
			s.delete_ = 1;
		}
		break;
	}
	return s;
}

int owner_applied_label(const cJSON *obj, const char *manager)
{
	const cJSON *e;
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(md, "managedFields"))
	{
		const char *m = json_str(e, "manager");
		const char *op = json_str(e, "operation");
		const cJSON *f;
		if (!m || !op || strcmp(m, manager) || strcmp(op, "Apply"))
			continue;
		f = cJSON_GetObjectItemCaseSensitive(e, "fieldsV1");
		f = cJSON_GetObjectItemCaseSensitive(f, "f:metadata");
		f = cJSON_GetObjectItemCaseSensitive(f, "f:labels");
		if (cJSON_GetObjectItemCaseSensitive(f, "f:" OWNER_PART_OF))
			return 1;
	}
	return 0;
}

void owner_key_name(const char *cluster, struct buf *out)
{
	buf_addf(out, "gpuform-%s-owner-key", cluster);
}

static void proof_mac(const unsigned char *key, size_t keylen,
		      const char *applyset, const struct kobj_id *id,
		      const char *uid, unsigned char mac[32])
{
	struct buf m = BUF_INIT;
	char g[256];
	const char *const parts[] = {
		"gpuform-owner-proof-v1",
		applyset ? applyset : "",
		kobj_group(id->api_version ? id->api_version : "", g, sizeof(g)),
		id->kind ? id->kind : "",
		id->ns ? id->ns : "",
		id->name ? id->name : "",
		uid ? uid : "",
	};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		buf_add(&m, parts[i], strlen(parts[i]) + 1); /* with its NUL */
	digest_hmac_sha256(key, keylen, m.ptr, m.len, mac);
	buf_release(&m);
}

void owner_proof(const unsigned char *key, size_t keylen,
		 const char *applyset, const struct kobj_id *id,
		 const char *uid, struct buf *out)
{
	unsigned char mac[32];

	proof_mac(key, keylen, applyset, id, uid, mac);
	buf_adds(out, OWNER_PROOF_PREFIX);
	base64_encode(out, mac, 16, BASE64_URL | BASE64_NOPAD);
	digest_wipe(mac, sizeof(mac));
}

int owner_proof_ok(const unsigned char *key, size_t keylen,
		   const char *applyset, const struct kobj_id *id,
		   const char *uid, const char *proof)
{
	struct buf want = BUF_INIT;
	int ok;

	if (!key || !proof || !uid || !*uid)
		return 0;
	owner_proof(key, keylen, applyset, id, uid, &want);
	ok = strlen(proof) == want.len &&
	     digest_equal(proof, want.ptr, want.len);
	buf_release(&want);
	return ok;
}
