/*
 * reconcile/notify.c: Events and status on the inventory (see notify.h).
 */
#include "reconcile/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/kobj.h"
#include "reconcile/lease.h"
#include "util/xalloc.h"

static char r_core[] = "", r_v1[] = "v1", r_cm[] = "ConfigMap",
	    r_cms[] = "configmaps", r_ev[] = "Event", r_evs[] = "events";
static const struct kube_resource cm_res = { r_core, r_v1, r_cm, r_cms, 1 };
static const struct kube_resource ev_res = { r_core, r_v1, r_ev, r_evs, 1 };

static const char *inv_ns(const struct notify_run *n)
{
	return n->inventory_ns ? n->inventory_ns : RECON_INVENTORY_NS;
}

/* "nodepool.karpenter.sh/gpu -n ns", as `reconcile` prints items */
static void item_name(struct buf *out, const struct recon_item *it)
{
	kobj_display(&it->id, out);
}

/* cut a message to NOTIFY_MAX_MESSAGE bytes (on a UTF-8 boundary) */
static void cap(struct buf *m)
{
	if (m->len <= NOTIFY_MAX_MESSAGE)
		return;
	size_t n = NOTIFY_MAX_MESSAGE - 4;
	while (n && ((unsigned char)m->ptr[n] & 0xC0) == 0x80)
		n--;
	m->len = n;
	m->ptr[n] = '\0';
	buf_adds(m, " ...");
}

static void list_items(struct buf *m, const struct recon_report *rep,
		       enum recon_action a, int with_detail)
{
	int shown = 0;

	for (size_t i = 0; i < rep->nr; i++) {
		const struct recon_item *it = &rep->items[i];
		if (it->action != a)
			continue;
		if (shown == 20) {
			buf_addf(m, "; and %zu more", rep->counts[a] - 20);
			break;
		}
		buf_adds(m, shown++ ? "; " : ": ");
		item_name(m, it);
		if (with_detail && it->detail)
			buf_addf(m, " (%s)", it->detail);
	}
}

static void add_event(cJSON *arr, const struct notify_run *n, const char *uid,
		      const char *now, const char *type, const char *reason,
		      struct buf *msg)
{
	cJSON *e = cJSON_CreateObject(), *md, *io, *src;
	char *gen = xasprintf("gpuform-%s.", n->cluster);
	char *inv = xasprintf("gpuform-%s", n->cluster);

	cap(msg);
	cJSON_AddStringToObject(e, "apiVersion", "v1");
	cJSON_AddStringToObject(e, "kind", "Event");
	md = cJSON_AddObjectToObject(e, "metadata");
	cJSON_AddStringToObject(md, "generateName", gen);
	cJSON_AddStringToObject(md, "namespace", inv_ns(n));
	io = cJSON_AddObjectToObject(e, "involvedObject");
	cJSON_AddStringToObject(io, "apiVersion", "v1");
	cJSON_AddStringToObject(io, "kind", "ConfigMap");
	cJSON_AddStringToObject(io, "namespace", inv_ns(n));
	cJSON_AddStringToObject(io, "name", inv);
	if (uid)
		cJSON_AddStringToObject(io, "uid", uid);
	cJSON_AddStringToObject(e, "type", type);
	cJSON_AddStringToObject(e, "reason", reason);
	cJSON_AddStringToObject(e, "message", buf_cstr(msg));
	src = cJSON_AddObjectToObject(e, "source");
	cJSON_AddStringToObject(src, "component", "gpuform");
	cJSON_AddStringToObject(e, "reportingComponent", "gpuform");
	if (n->identity)
		cJSON_AddStringToObject(e, "reportingInstance", n->identity);
	cJSON_AddStringToObject(e, "firstTimestamp", now);
	cJSON_AddStringToObject(e, "lastTimestamp", now);
	cJSON_AddNumberToObject(e, "count", 1);
	cJSON_AddItemToArray(arr, e);
	free(gen);
	free(inv);
	buf_reset(msg);
}

cJSON *notify_events(const struct notify_run *n, const char *uid, double now)
{
	cJSON *arr = cJSON_CreateArray();
	const struct recon_report *rep = n->rep;
	struct buf t = BUF_INIT, m = BUF_INIT;
	char when[32];

	/* Event timestamps are whole seconds (metav1.Time) */
	lease_format_time((double)(long long)now, &t);
	snprintf(when, sizeof(when), "%.19sZ", buf_cstr(&t));
	if (rep && !rep->dry_run) {
		if (rep->counts[RA_CONFIGURED]) {
			buf_addf(&m, "%zu object%s changed back to the desired state",
				 rep->counts[RA_CONFIGURED],
				 rep->counts[RA_CONFIGURED] == 1 ? "" : "s");
			list_items(&m, rep, RA_CONFIGURED, 0);
			add_event(arr, n, uid, when, "Normal", "DriftCorrected", &m);
		}
		if (rep->counts[RA_CREATED]) {
			buf_addf(&m, "%zu object%s created", rep->counts[RA_CREATED],
				 rep->counts[RA_CREATED] == 1 ? "" : "s");
			list_items(&m, rep, RA_CREATED, 0);
			add_event(arr, n, uid, when, "Normal", "Created", &m);
		}
		if (rep->counts[RA_PRUNED]) {
			buf_addf(&m, "%zu object%s pruned", rep->counts[RA_PRUNED],
				 rep->counts[RA_PRUNED] == 1 ? "" : "s");
			list_items(&m, rep, RA_PRUNED, 0);
			add_event(arr, n, uid, when, "Normal", "Pruned", &m);
		}
	}
	if (rep && rep->counts[RA_CONFLICT]) {
		buf_addf(&m, "%zu object%s in conflict with another field manager",
			 rep->counts[RA_CONFLICT],
			 rep->counts[RA_CONFLICT] == 1 ? "" : "s");
		list_items(&m, rep, RA_CONFLICT, 1);
		add_event(arr, n, uid, when, "Warning", "Conflict", &m);
	}
	if (n->error && n->held) {
		/* only the held changes were not applied (issue 17) */
		buf_addf(&m, "held back: %s", n->error);
		add_event(arr, n, uid, when, "Warning", "NodeReplacementHeld",
			  &m);
	} else if (n->error) {
		buf_addf(&m, "reconcile failed: %s", n->error);
		add_event(arr, n, uid, when, "Warning", "ReconcileFailed", &m);
	}
	buf_release(&t);
	buf_release(&m);
	return arr;
}

cJSON *notify_status_patch(const struct notify_run *n)
{
	cJSON *p = cJSON_CreateObject(), *a;
	const struct recon_report *rep = n->rep;
	struct buf b = BUF_INIT;

	a = cJSON_AddObjectToObject(cJSON_AddObjectToObject(p, "metadata"),
				    "annotations");
	lease_format_time((double)(long long)n->start, &b);
	{
		/* whole seconds: "2026-11-30T02:03:31Z" */
		char s[32];
		snprintf(s, sizeof(s), "%.19sZ", buf_cstr(&b));
		cJSON_AddStringToObject(a, "gpuform.io/last-run", s);
	}
	cJSON_AddStringToObject(a, "gpuform.io/last-result",
				n->held ? "held"
				: n->error ? "failed" : "success");
	if (n->source_commit)
		cJSON_AddStringToObject(a, "gpuform.io/last-source-commit",
					n->source_commit);
	else
		cJSON_AddNullToObject(a, "gpuform.io/last-source-commit");
	buf_reset(&b);
	for (int i = 0; i < RA_MAX; i++)
		buf_addf(&b, "%s%s=%zu", i ? " " : "", recon_action_names[i],
			 rep ? rep->counts[i] : 0);
	cJSON_AddStringToObject(a, "gpuform.io/last-counts", buf_cstr(&b));
	buf_reset(&b);
	buf_addf(&b, "%.3fs", n->duration_s);
	cJSON_AddStringToObject(a, "gpuform.io/last-duration", buf_cstr(&b));
	if (n->identity)
		cJSON_AddStringToObject(a, "gpuform.io/last-run-by", n->identity);
	buf_reset(&b);
	if (n->error)
		buf_adds(&b, n->error);
	else if (rep)
		buf_addf(&b, "%zu created, %zu configured, %zu unchanged, %zu "
			     "pruned (%ld API requests, %ld writes)",
			 rep->counts[RA_CREATED], rep->counts[RA_CONFIGURED],
			 rep->counts[RA_UNCHANGED], rep->counts[RA_PRUNED],
			 rep->stats.requests, rep->stats.writes);
	cap(&b);
	cJSON_AddStringToObject(a, "gpuform.io/last-message", buf_cstr(&b));
	buf_release(&b);
	return p;
}

int notify_publish(struct kube *k, const struct notify_run *n,
		   struct err *err)
{
	char *inv = xasprintf("gpuform-%s", n->cluster);
	cJSON *patch = notify_status_patch(n), *live = NULL, *events, *e;
	const cJSON *uid = NULL;
	struct err e2 = ERR_INIT;
	int ret = 0;

	if (kube_merge_patch(k, &cm_res, inv_ns(n), inv, patch,
			     NOTIFY_FIELD_MANAGER, &live, err) < 0) {
		err_wrap(err, "status");
		ret = -1;
	}
	if (live)
		uid = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(live, "metadata"), "uid");
	events = notify_events(n, cJSON_IsString(uid) ? uid->valuestring : NULL,
			       lease_now());
	cJSON_ArrayForEach(e, events)
	{
		if (kube_create(k, &ev_res, inv_ns(n), e, NULL,
				ret < 0 ? &e2 : err) < 0 && ret == 0) {
			err_wrap(err, "event");
			ret = -1;
		}
		err_clear(&e2);
	}
	err_release(&e2);
	cJSON_Delete(events);
	cJSON_Delete(live);
	cJSON_Delete(patch);
	free(inv);
	return ret;
}
