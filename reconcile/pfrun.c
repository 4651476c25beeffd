/* reconcile/pfrun.c: the preflight run (see pfrun.h). */
#include "reconcile/pfrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "generator/preflight.h"
#include "aws/awscreds.h"
#include "reconcile/preflight.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "util/yaml.h"

void pfrun_init(struct pfrun *r)
{
	const struct diags d = DIAGS_INIT;
	const struct lint_findings f = LINT_FINDINGS_INIT;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->f = f;
	aws_init(&r->aws);
}

void pfrun_release(struct pfrun *r)
{
	for (size_t i = 0; i < r->n; i++) {
		pipeline_release(&r->files[i].p);
		buf_release(&r->files[i].data);
	}
	free(r->files);
	r->files = NULL;
	r->n = 0;
	diags_release(&r->d);
	lint_findings_release(&r->f);
	aws_release(&r->aws);
}

/* one intent: read, validated, of the cluster, planned; 0, or 1 invalid,
 * 2 unreadable */
static int read_one(struct pfrun_file *o, const struct buf *mem,
		    const char *cluster, struct diags *d)
{
	const struct intent *in = &o->p.in;
	struct err e = ERR_INIT;
	int rc;

	if (mem) {
		/* read already (reconcile --git: from the commit) */
		buf_add(&o->data, buf_cstr(mem), mem->len);
	} else if (fs_read_file(&o->data, o->path, YAML_MAX_INPUT, &e) < 0) {
		diags_add(d, DIAG_ERROR, o->path, 0, 0, NULL, "%s",
			  err_msg(&e));
		err_release(&e);
		memset(&o->p, 0, sizeof(o->p));
		return PFRUN_UNREADABLE;
	}
	rc = pipeline_run(&o->p, o->path, buf_cstr(&o->data), o->data.len,
			  NULL, PIPELINE_PLAN | PIPELINE_NO_ACK, d, &e);
	if (o->p.done < PIPELINE_INTENT) {
		err_release(&e);
		return PFRUN_INVALID;
	}
	if (cluster && in->name && strcmp(in->name, cluster)) {
		/* the intent must be the one of the cluster reconciled; what
		 * its plan said is not reported, as before it was planned */
		while (d->nr > o->p.plan_from)
			diags_drop(d, d->nr - 1);
		err_release(&e);
		diags_add(d, DIAG_ERROR, o->path, in->name_pos.line,
			  in->name_pos.col,
			  "name the intent file of this cluster with "
			  "--preflight-intent",
			  "this intent describes cluster '%s', not '%s' "
			  "(the cluster being reconciled)",
			  in->name, cluster);
		return PFRUN_INVALID;
	}
	if (rc < 0) {
		/* the plan failed (an internal failure, not the intent's) */
		diags_add(d, DIAG_ERROR, o->path, 0, 0, NULL, "%s",
			  err_msg(&e));
		err_release(&e);
		return PFRUN_INVALID;
	}
	o->have_plan = 1;
	return 0;
}

int pfrun_read(struct pfrun *r, char **paths, const struct buf *mem, size_t n,
	       const char *cluster)
{
	int invalid = 0, unreadable = 0;

	/* every intent valid first: nothing is asked about an invalid one */
	r->files = xcalloc(n ? n : 1, sizeof(*r->files));
	for (size_t i = 0; i < n; i++) {
		struct pfrun_file *o = &r->files[r->n++];
		int rc;

		o->path = paths[i];
		rc = read_one(o, mem ? &mem[i] : NULL, cluster, &r->d);
		invalid |= rc == PFRUN_INVALID;
		unreadable |= rc == PFRUN_UNREADABLE;
	}
	diags_sort(&r->d);
	return invalid ? PFRUN_INVALID : unreadable ? PFRUN_UNREADABLE : 0;
}

int pfrun_ask(struct pfrun *r, const char *region, const char *k8s,
	      double now, struct err *err)
{
	r->failed_path = NULL;
	if (awscreds_load(&r->aws, region, err) < 0)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		struct pfrun_file *o = &r->files[i];
		struct pf_facts facts;

		pf_questions(&facts, &o->p.plan, k8s);
		facts.now = now;
		if (preflight_ask(&r->aws, &o->p.plan, &facts, err) < 0) {
			r->failed_path = o->path;
			pf_facts_release(&facts);
			return -1;
		}
		pf_evaluate(&r->f, &o->p.plan, &facts, o->path, k8s);
		pf_facts_release(&facts);
	}
	return 0;
}

int pfrun_version_ok(const char *v)
{
	const char *p = v;
	int dots = 0;

	if (!*p || *p == '.')
		return 0;
	for (; *p; p++) {
		if (*p == '.')
			dots++;
		else if (*p < '0' || *p > '9')
			return 0;
	}
	return dots == 1 && p[-1] != '.';
}

/* "1" + "32+" -> "1.32" (EKS reports minor "32+") */
int pfrun_cluster_version(struct kube *k, char *out, size_t size,
			  struct err *err)
{
	cJSON *body = NULL;
	const cJSON *ma, *mi;
	long status;
	int ret = -1;

	if (kube_request(k, "GET", "/version", NULL, NULL, NULL, 0, &status,
			 &body, err) < 0)
		return -1;
	ma = cJSON_GetObjectItemCaseSensitive(body, "major");
	mi = cJSON_GetObjectItemCaseSensitive(body, "minor");
	if (status != 200 || !cJSON_IsString(ma) || !cJSON_IsString(mi)) {
		err_set(err, ERR_HTTP, "GET /version: HTTP %ld without major "
			"and minor", status);
	} else {
		snprintf(out, size, "%.8s.%.*s", ma->valuestring,
			 (int)strspn(mi->valuestring, "0123456789"),
			 mi->valuestring);
		if (!pfrun_version_ok(out))
			err_set(err, ERR_HTTP, "GET /version: unusable version "
				"'%.20s.%.20s'", ma->valuestring,
				mi->valuestring);
		else
			ret = 0;
	}
	cJSON_Delete(body);
	return ret;
}
