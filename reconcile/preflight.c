/*
 * reconcile/preflight.c: see preflight.h. Request and answer shapes from
 * the AWS API references: EC2 DescribeSnapshots (snapshotSet/item: status,
 * volumeSize in GiB), DescribeSecurityGroups (securityGroupInfo/item:
 * ipPermissions and ipPermissionsEgress, each item with ipProtocol "-1"
 * for all traffic, groups/item/groupId, ipRanges/item/cidrIp),
 * DescribeSubnets (subnetSet/item/availabilityZone), DescribeInstanceType-
 * Offerings (instanceTypeOfferingSet/item: instanceType, location), all
 * paged with nextToken; SSM GetParameter (Parameter.Value; error
 * ParameterNotFound); SQS GetQueueUrl (QueueUrl; error QueueDoesNotExist);
 * DescribeCapacityReservations (CapacityReservationId.N or Filter.N:
 * tag:KEY, tag-key, owner-id, state; capacityReservationSet/item:
 * capacityReservationId, instanceType, availabilityZone, state,
 * totalInstanceCount, endDate, reservationType; paged with nextToken;
 * error InvalidCapacityReservationId.NotFound).
 */
#include "reconcile/preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "aws/awsxml.h"
#include "reconcile/lease.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define EC2_VERSION "2016-11-15"
#define MAX_PAGES 50
#define OFFER_BATCH 100 /* filter values per request */

static int call_failed(struct err *err, const char *service,
		       const char *action, const struct aws_answer *ans)
{
	return err_set(err, ERR_HTTP, "%s %s failed: HTTP %ld%s%.200s%s%.300s",
		       service, action, ans->status, ans->code ? ": " : "",
		       ans->code ? ans->code : "", ans->message ? ": " : "",
		       ans->message ? ans->message : "");
}

static int parse_xml(struct xnode *root, const struct buf *body,
		     const char *action, struct err *err)
{
	if (xml_parse(root, buf_cstr(body), body->len, err) < 0) {
		struct buf m = BUF_INIT;
		buf_addf(&m, "ec2 %s: %s", action, err_msg(err));
		err_release(err);
		err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
		buf_release(&m);
		return -1;
	}
	return 0;
}

/* ec2: one call; on 200 the answer's body in *body */
static int ec2(struct aws *a, const char *action, const char *params,
	       const char *token, struct pf_facts *f, enum pf_check c,
	       const char *absent_code, struct buf *body, int *status_out,
	       struct err *err)
{
	struct buf form = BUF_INIT;
	struct aws_answer ans;
	int ret = -1;

	*status_out = PF_FOUND;
	aws_form_add(&form, "Action", action);
	aws_form_add(&form, "Version", EC2_VERSION);
	if (params && *params)
		buf_addf(&form, "&%s", params);
	if (token)
		aws_form_add(&form, "NextToken", token);
	if (aws_call(a, "ec2", AWS_QUERY, NULL, buf_cstr(&form), &ans, err) < 0)
		goto out;
	if (ans.status != 200) {
		if (aws_is_denied(ans.code)) {
			f->st[c] = PF_DENIED;
			*status_out = PF_DENIED;
			ret = 0;
		} else if (absent_code && ans.code &&
			   !strcmp(ans.code, absent_code)) {
			*status_out = PF_ABSENT;
			ret = 0;
		} else {
			call_failed(err, "ec2", action, &ans);
		}
		goto out;
	}
	buf_add(body, buf_cstr(&ans.body), ans.body.len);
	ret = 0;
out:
	aws_answer_release(&ans);
	buf_release(&form);
	return ret;
}

static void form_filter(struct buf *b, int n, const char *name,
			char *const *values, size_t nvalues)
{
	char k[64];

	snprintf(k, sizeof(k), "Filter.%d.Name", n);
	aws_form_add(b, k, name);
	for (size_t i = 0; i < nvalues; i++) {
		snprintf(k, sizeof(k), "Filter.%d.Value.%zu", n, i + 1);
		aws_form_add(b, k, values[i]);
	}
}

int preflight_parse_snapshot(struct pf_facts *f, const char *xml, size_t len,
			     struct err *err)
{
	struct xnode root;
	const struct xnode *item;
	const char *st, *size;
	char *end;

	if (xml_parse(&root, xml, len, err) < 0)
		return -1;
	item = xml_path(&root, "snapshotSet/item");
	if (!item) {
		f->st[PF_SNAPSHOT] = PF_ABSENT;
		xml_release(&root);
		return 0;
	}
	st = xml_text(item, "status");
	size = xml_text(item, "volumeSize");
	if (!st || !size || !*size ||
	    (f->snap_gib = strtoll(size, &end, 10), *end) || f->snap_gib < 0) {
		xml_release(&root);
		return err_set(err, ERR_HTTP,
			       "ec2 DescribeSnapshots: malformed answer (no "
			       "status or volumeSize)");
	}
	free(f->snap_status);
	f->snap_status = xstrdup(st);
	f->st[PF_SNAPSHOT] = PF_FOUND;
	xml_release(&root);
	return 0;
}

/* all traffic ("-1") with the group itself. Outbound 0.0.0.0/0 is not
 * enough: EFA's setup adds an outbound rule to the group itself (EC2 user
 * guide, "Prepare an EFA-enabled security group"), and the EKS cluster
 * security group carries one "for EFA traffic" beside its 0.0.0.0/0 */
static int self_rule(const struct xnode *perms, const char *sg_id)
{
	for (size_t i = 0; perms && i < perms->nkids; i++) {
		const struct xnode *p = &perms->kids[i];
		const char *proto = xml_text(p, "ipProtocol");
		const struct xnode *g = xml_child(p, "groups");

		if (!proto || strcmp(proto, "-1"))
			continue;
		for (size_t j = 0; g && j < g->nkids; j++) {
			const char *id = xml_text(&g->kids[j], "groupId");
			if (id && !strcmp(id, sg_id))
				return 1;
		}
	}
	return 0;
}

int preflight_parse_efa_sg(struct pf_facts *f, const char *sg_id,
			   const char *xml, size_t len, struct err *err)
{
	struct xnode root;
	const struct xnode *set, *item = NULL;

	if (xml_parse(&root, xml, len, err) < 0)
		return -1;
	set = xml_child(&root, "securityGroupInfo");
	for (size_t i = 0; set && i < set->nkids; i++) {
		const char *id = xml_text(&set->kids[i], "groupId");
		if (id && !strcmp(id, sg_id))
			item = &set->kids[i];
	}
	if (!item) {
		f->st[PF_EFA_SG] = PF_ABSENT;
	} else {
		f->st[PF_EFA_SG] = PF_FOUND;
		f->sg_self_in = self_rule(xml_child(item, "ipPermissions"),
					  sg_id);
		f->sg_self_out = self_rule(
			xml_child(item, "ipPermissionsEgress"), sg_id);
	}
	xml_release(&root);
	return 0;
}

static int ask_ami(struct aws *a, struct pf_facts *f, struct err *err)
{
	for (size_t i = 0; i < f->nparams; i++) {
		cJSON *req = cJSON_CreateObject(), *j;
		struct aws_answer ans;
		char *body;
		int r;

		cJSON_AddStringToObject(req, "Name", f->params[i].name);
		body = cJSON_PrintUnformatted(req);
		cJSON_Delete(req);
		r = aws_call(a, "ssm", AWS_JSON11, "AmazonSSM.GetParameter", body,
			     &ans, err);
		free(body);
		if (r < 0)
			return -1;
		if (ans.status == 200) {
			const cJSON *v;
			j = cJSON_ParseWithLength(buf_cstr(&ans.body),
						  ans.body.len);
			v = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(j, "Parameter"),
				"Value");
			if (!cJSON_IsString(v)) {
				cJSON_Delete(j);
				aws_answer_release(&ans);
				return err_set(err, ERR_HTTP,
					       "ssm GetParameter: malformed "
					       "answer (no Parameter.Value)");
			}
			cJSON_Delete(j);
			f->params[i].st = PF_FOUND;
		} else if (aws_is_denied(ans.code)) {
			f->st[PF_AMI] = PF_DENIED;
			aws_answer_release(&ans);
			return 0;
		} else if (ans.code && !strcmp(ans.code, "ParameterNotFound")) {
			f->params[i].st = PF_ABSENT;
		} else {
			call_failed(err, "ssm", "GetParameter", &ans);
			aws_answer_release(&ans);
			return -1;
		}
		aws_answer_release(&ans);
	}
	f->st[PF_AMI] = PF_FOUND;
	return 0;
}

static int ask_queue(struct aws *a, struct pf_facts *f, struct err *err)
{
	cJSON *req = cJSON_CreateObject(), *j;
	struct aws_answer ans;
	char *body;
	int r, ret = -1;

	cJSON_AddStringToObject(req, "QueueName", f->queue);
	body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	r = aws_call(a, "sqs", AWS_JSON10, "AmazonSQS.GetQueueUrl", body, &ans,
		     err);
	free(body);
	if (r < 0)
		return -1;
	if (ans.status == 200) {
		j = cJSON_ParseWithLength(buf_cstr(&ans.body), ans.body.len);
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j,
								     "QueueUrl"))) {
			err_set(err, ERR_HTTP, "sqs GetQueueUrl: malformed "
				"answer (no QueueUrl)");
			cJSON_Delete(j);
			goto out;
		}
		cJSON_Delete(j);
		f->st[PF_QUEUE] = PF_FOUND;
	} else if (aws_is_denied(ans.code)) {
		f->st[PF_QUEUE] = PF_DENIED;
	} else if (ans.code && (!strcmp(ans.code, "QueueDoesNotExist") ||
				!strcmp(ans.code,
					"AWS.SimpleQueueService.NonExistentQueue"))) {
		f->st[PF_QUEUE] = PF_ABSENT;
	} else {
		call_failed(err, "sqs", "GetQueueUrl", &ans);
		goto out;
	}
	ret = 0;
out:
	aws_answer_release(&ans);
	return ret;
}

/* pages of an EC2 list; cb sees each page's root */
typedef int (*page_fn)(const struct xnode *root, struct pf_facts *f,
		       struct err *err);

static int ec2_pages(struct aws *a, const char *action, const char *params,
		     struct pf_facts *f, enum pf_check c, page_fn cb,
		     struct err *err)
{
	char *token = NULL;
	int ret = -1;

	for (int page = 0; page < MAX_PAGES; page++) {
		struct xnode root;
		struct buf body = BUF_INIT;
		const char *next;
		int st;

		if (ec2(a, action, params, token, f, c, NULL, &body, &st,
			err) < 0) {
			buf_release(&body);
			goto out;
		}
		if (st == PF_DENIED) {
			buf_release(&body);
			ret = 0;
			goto out;
		}
		st = parse_xml(&root, &body, action, err);
		buf_release(&body);
		if (st < 0)
			goto out;
		if (cb(&root, f, err) < 0) {
			xml_release(&root);
			goto out;
		}
		next = xml_text(&root, "nextToken");
		free(token);
		token = next && *next ? xstrdup(next) : NULL;
		xml_release(&root);
		if (!token) {
			f->st[c] = PF_FOUND;
			ret = 0;
			goto out;
		}
	}
	err_set(err, ERR_HTTP, "ec2 %s: more than %d pages", action, MAX_PAGES);
out:
	free(token);
	return ret;
}

static int subnets_page(const struct xnode *root, struct pf_facts *f,
			struct err *err)
{
	const struct xnode *set = xml_child(root, "subnetSet");

	if (!set)
		return err_set(err, ERR_HTTP, "ec2 DescribeSubnets: malformed "
			       "answer (no subnetSet)");
	for (size_t i = 0; i < set->nkids; i++) {
		const char *z = xml_text(&set->kids[i], "availabilityZone");
		if (!z || !*z)
			return err_set(err, ERR_HTTP,
				       "ec2 DescribeSubnets: malformed answer "
				       "(a subnet without availabilityZone)");
		pf_add_zone(f, z);
		f->nsubnets++;
	}
	return 0;
}

static int sgs_page(const struct xnode *root, struct pf_facts *f,
		    struct err *err)
{
	const struct xnode *set = xml_child(root, "securityGroupInfo");

	if (!set)
		return err_set(err, ERR_HTTP, "ec2 DescribeSecurityGroups: "
			       "malformed answer (no securityGroupInfo)");
	f->ndiscovery_sgs += set->nkids;
	return 0;
}

static int offers_page(const struct xnode *root, struct pf_facts *f,
		       struct err *err)
{
	const struct xnode *set = xml_child(root, "instanceTypeOfferingSet");

	if (!set)
		return err_set(err, ERR_HTTP, "ec2 DescribeInstanceTypeOfferings: "
			       "malformed answer (no instanceTypeOfferingSet)");
	for (size_t i = 0; i < set->nkids; i++) {
		const char *t = xml_text(&set->kids[i], "instanceType");
		const char *z = xml_text(&set->kids[i], "location");
		if (!t || !z)
			return err_set(err, ERR_HTTP,
				       "ec2 DescribeInstanceTypeOfferings: "
				       "malformed answer (an offering without "
				       "instanceType or location)");
		pf_add_offer(f, t, z);
	}
	return 0;
}

/* one EC2 call that names a resource; parse(f, text) on 200 */
static int ask_one(struct aws *a, struct pf_facts *f, enum pf_check c,
		   const char *action, const char *params,
		   const char *absent_code, struct err *err, const char *sg)
{
	struct buf body = BUF_INIT;
	int st, ret;

	ret = ec2(a, action, params, NULL, f, c, absent_code, &body, &st, err);
	if (ret == 0 && st == PF_ABSENT)
		f->st[c] = PF_ABSENT;
	else if (ret == 0 && st == PF_FOUND) {
		ret = sg ? preflight_parse_efa_sg(f, sg, buf_cstr(&body),
						  body.len, err)
			 : preflight_parse_snapshot(f, buf_cstr(&body),
						    body.len, err);
		if (ret < 0) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "ec2 %s: %s", action, err_msg(err));
			err_release(err);
			err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
			buf_release(&m);
		}
	}
	buf_release(&body);
	return ret;
}

int preflight_parse_reservations(struct pf_rterm *t, const char *xml,
				 size_t len, char **next, struct err *err)
{
	struct xnode root;
	const struct xnode *set;
	const char *nt;

	*next = NULL;
	if (xml_parse(&root, xml, len, err) < 0)
		return -1;
	set = xml_child(&root, "capacityReservationSet");
	if (!set) {
		xml_release(&root);
		return err_set(err, ERR_HTTP, "malformed answer (no "
			       "capacityReservationSet)");
	}
	for (size_t i = 0; i < set->nkids; i++) {
		const struct xnode *it = &set->kids[i];
		struct pf_resv r;
		const char *total = xml_text(it, "totalInstanceCount");
		const char *end = xml_text(it, "endDate");
		char *e = NULL;

		memset(&r, 0, sizeof(r));
		r.id = (char *)xml_text(it, "capacityReservationId");
		r.type = (char *)xml_text(it, "instanceType");
		r.zone = (char *)xml_text(it, "availabilityZone");
		r.state = (char *)xml_text(it, "state");
		r.rtype = (char *)xml_text(it, "reservationType");
		if (!r.id || !*r.id || !r.type || !*r.type || !r.zone ||
		    !*r.zone || !r.state || !*r.state || !total ||
		    (r.total = strtol(total, &e, 10), *e) || r.total < 0 ||
		    (end && *end && lease_parse_time(end, &r.end) < 0)) {
			xml_release(&root);
			return err_set(err, ERR_HTTP,
				       "malformed answer (a reservation without "
				       "capacityReservationId, instanceType, "
				       "availabilityZone, state or "
				       "totalInstanceCount, or a bad endDate)");
		}
		pf_add_resv(t, &r);
	}
	nt = xml_text(&root, "nextToken");
	if (nt && *nt)
		*next = xstrdup(nt);
	t->st = PF_FOUND;
	xml_release(&root);
	return 0;
}

/* one term: by id (absent when EC2 does not know it), or by tags (active
 * and scheduled ones, of the owner when given), all pages */
static int ask_term(struct aws *a, struct pf_facts *f, struct pf_rterm *t,
		    const struct cap_term *ct, struct err *err)
{
	static const char *const live[] = { "active", "scheduled" };
	struct buf q = BUF_INIT;
	char *token = NULL;
	int ret = -1, n = 0;

	if (ct->id) {
		aws_form_add(&q, "CapacityReservationId.1", ct->id);
	} else {
		for (size_t k = 0; k < ct->ntags; k++) {
			char *v[1];
			if (!strcmp(ct->tag_values[k], "*")) {
				v[0] = ct->tag_keys[k];
				form_filter(&q, ++n, "tag-key", v, 1);
			} else {
				char *name = xasprintf("tag:%s", ct->tag_keys[k]);
				v[0] = ct->tag_values[k];
				form_filter(&q, ++n, name, v, 1);
				free(name);
			}
		}
		if (ct->owner_id) {
			char *v[1];
			v[0] = ct->owner_id;
			form_filter(&q, ++n, "owner-id", v, 1);
		}
		form_filter(&q, ++n, "state", (char *const *)live, 2);
	}
	for (int page = 0; page < MAX_PAGES; page++) {
		struct buf body = BUF_INIT;
		int st;

		if (ec2(a, "DescribeCapacityReservations", buf_cstr(&q), token,
			f, PF_RESERVATIONS,
			ct->id ? "InvalidCapacityReservationId.NotFound" : NULL,
			&body, &st, err) < 0) {
			buf_release(&body);
			goto out;
		}
		free(token);
		token = NULL;
		if (st != PF_FOUND) {
			t->st = st;
			buf_release(&body);
			ret = 0;
			goto out;
		}
		st = preflight_parse_reservations(t, buf_cstr(&body), body.len,
						  &token, err);
		buf_release(&body);
		if (st < 0) {
			struct buf m = BUF_INIT;
			buf_addf(&m, "ec2 DescribeCapacityReservations: %s",
				 err_msg(err));
			err_release(err);
			err_set(err, ERR_HTTP, "%s", buf_cstr(&m));
			buf_release(&m);
			goto out;
		}
		if (!token) {
			ret = 0;
			goto out;
		}
	}
	err_set(err, ERR_HTTP, "ec2 DescribeCapacityReservations: more than "
		"%d pages", MAX_PAGES);
out:
	free(token);
	buf_release(&q);
	return ret;
}

static int ask_reservations(struct aws *a, const struct plan *p,
			    struct pf_facts *f, struct err *err)
{
	for (size_t i = 0; i < f->nrterms; i++) {
		struct pf_rterm *t = &f->rterms[i];
		const struct workload *w = p->pools[t->pool].w;

		if (ask_term(a, f, t, &w->cap_terms[t->term], err) < 0)
			return -1;
		if (f->st[PF_RESERVATIONS] == PF_DENIED)
			return 0;
	}
	f->st[PF_RESERVATIONS] = PF_FOUND;
	return 0;
}

int preflight_ask(struct aws *a, const struct plan *p, struct pf_facts *f,
		  struct err *err)
{
	const struct intent *in = p->in;
	struct buf q = BUF_INIT;
	int ret = -1;
	char *disc[1];

	disc[0] = in->discovery;
	if (f->st[PF_AMI] != PF_NOT_ASKED && ask_ami(a, f, err) < 0)
		goto out;
	if (f->st[PF_SNAPSHOT] != PF_NOT_ASKED) {
		buf_reset(&q);
		aws_form_add(&q, "SnapshotId.1", in->snapshot_id);
		if (ask_one(a, f, PF_SNAPSHOT, "DescribeSnapshots", buf_cstr(&q),
			    "InvalidSnapshot.NotFound", err, NULL) < 0)
			goto out;
	}
	if (f->st[PF_EFA_SG] != PF_NOT_ASKED) {
		buf_reset(&q);
		aws_form_add(&q, "GroupId.1", in->efa_sg);
		if (ask_one(a, f, PF_EFA_SG, "DescribeSecurityGroups",
			    buf_cstr(&q), "InvalidGroup.NotFound", err,
			    in->efa_sg) < 0)
			goto out;
	}
	buf_reset(&q);
	form_filter(&q, 1, "tag:karpenter.sh/discovery", disc, 1);
	if (ec2_pages(a, "DescribeSubnets", buf_cstr(&q), f, PF_SUBNETS,
		      subnets_page, err) < 0 ||
	    ec2_pages(a, "DescribeSecurityGroups", buf_cstr(&q), f,
		      PF_DISCOVERY_SG, sgs_page, err) < 0)
		goto out;
	if (f->st[PF_OFFERINGS] != PF_NOT_ASKED && f->nzones) {
		for (size_t i = 0; i < f->ntypes; i += OFFER_BATCH) {
			size_t n = f->ntypes - i < OFFER_BATCH ? f->ntypes - i
							       : OFFER_BATCH;
			buf_reset(&q);
			aws_form_add(&q, "LocationType", "availability-zone");
			/* every zone of the region: PF005 names where the
			 * types are offered when not in the subnets' zones */
			form_filter(&q, 1, "instance-type", f->types + i, n);
			if (ec2_pages(a, "DescribeInstanceTypeOfferings",
				      buf_cstr(&q), f, PF_OFFERINGS,
				      offers_page, err) < 0)
				goto out;
			if (f->st[PF_OFFERINGS] == PF_DENIED)
				break;
		}
	}
	if (f->st[PF_RESERVATIONS] != PF_NOT_ASKED &&
	    ask_reservations(a, p, f, err) < 0)
		goto out;
	if (f->st[PF_QUEUE] != PF_NOT_ASKED && ask_queue(a, f, err) < 0)
		goto out;
	ret = 0;
out:
	buf_release(&q);
	return ret;
}
