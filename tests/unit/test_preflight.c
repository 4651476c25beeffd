/*
 * tests/unit/test_preflight.c: `gpuform preflight` without I/O —
 * aws/awsxml.c (the XML of EC2 and STS answers), the INI reader and
 * endpoint rules of aws/awscreds.c and aws.c, the answer parsers of
 * reconcile/preflight.c, and the decisions of generator/preflight.c
 * (which SSM parameters, which findings at which line:column).
 * tests/preflight.sh runs the same paths against a loopback endpoint.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/preflight.h"
#include "generator/validate.h"
#include "aws/aws.h"
#include "aws/awscreds.h"
#include "aws/awsxml.h"
#include "reconcile/preflight.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/err.h"

static int xml_ok(struct xnode *root, const char *s)
{
	struct err e = ERR_INIT;
	int r = xml_parse(root, s, strlen(s), &e);
	err_release(&e);
	return r;
}

START_TEST(test_xml)
{
	struct xnode root;
	const struct xnode *set;

	ck_assert_int_eq(xml_ok(&root,
				"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				"<!-- c --><a:R xmlns:a=\"x\"><s><item><id>1</id>"
				"</item><item><id> 2 </id><d>x &amp; &lt;y&gt; "
				"&#65;&#x42;<![CDATA[<z>]]></d></item></s><e/>"
				"</a:R>\n"), 0);
	ck_assert_str_eq(root.name, "R");
	set = xml_child(&root, "s");
	ck_assert_uint_eq(set->nkids, 2);
	ck_assert_str_eq(xml_text(&set->kids[1], "id"), "2");
	ck_assert_str_eq(xml_text(&set->kids[1], "d"), "x & <y> AB<z>");
	ck_assert_str_eq(xml_text(&root, "e"), "");
	ck_assert_str_eq(xml_text(&root, "s/item/id"), "1");
	ck_assert_ptr_null(xml_text(&root, "s/nope"));
	xml_release(&root);

	/* malformed and truncated answers fail, never half-parse */
	ck_assert_int_eq(xml_ok(&root, ""), -1);
	ck_assert_int_eq(xml_ok(&root, "<a><b></a>"), -1);
	ck_assert_int_eq(xml_ok(&root, "<a><b>text</b"), -1);
	ck_assert_int_eq(xml_ok(&root, "<a><b>te"), -1);
	ck_assert_int_eq(xml_ok(&root, "<a>&bogus;</a>"), -1);
	ck_assert_int_eq(xml_ok(&root, "<a></a><b></b>"), -1);
	ck_assert_int_eq(xml_ok(&root, "<a x=\"1></a>"), -1);
	ck_assert_int_eq(xml_ok(&root, "{\"json\": 1}"), -1);
}
END_TEST

START_TEST(test_xml_depth)
{
	struct buf b = BUF_INIT;
	struct xnode root;

	for (int i = 0; i < 100; i++)
		buf_adds(&b, "<a>");
	for (int i = 0; i < 100; i++)
		buf_adds(&b, "</a>");
	ck_assert_int_eq(xml_ok(&root, buf_cstr(&b)), -1);
	buf_release(&b);
}
END_TEST

START_TEST(test_ini)
{
	const char *t = "# comment\n[default]\nregion = eu-west-1\n"
			"aws_access_key_id=AKID1\n\n[profile ci]\n"
			"  region  =  us-west-2  \n; x\n[ci]\nregion = nope\n";
	char *v;

	v = awscreds_ini_get(t, "default", "region");
	ck_assert_str_eq(v, "eu-west-1");
	free(v);
	v = awscreds_ini_get(t, "profile ci", "region");
	ck_assert_str_eq(v, "us-west-2");
	free(v);
	v = awscreds_ini_get(t, "default", "AWS_ACCESS_KEY_ID");
	ck_assert_str_eq(v, "AKID1");
	free(v);
	ck_assert_ptr_null(awscreds_ini_get(t, "profile ci", "aws_access_key_id"));
	ck_assert_int_eq(awscreds_ini_has(t, "ci"), 1);
	ck_assert_int_eq(awscreds_ini_has(t, "profile nope"), 0);
	ck_assert_ptr_null(awscreds_ini_get("", "default", "region"));
}
END_TEST

START_TEST(test_endpoint_and_form)
{
	struct buf f = BUF_INIT;
	char *e;

	unsetenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
	unsetenv("AWS_ENDPOINT_URL");
	unsetenv("AWS_ENDPOINT_URL_EC2");
	e = aws_endpoint("ec2", "eu-central-1");
	ck_assert_str_eq(e, "https://ec2.eu-central-1.amazonaws.com");
	free(e);
	setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1", 1);
	setenv("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:2", 1);
	e = aws_endpoint("ec2", "r");
	ck_assert_str_eq(e, "http://127.0.0.1:2");
	free(e);
	e = aws_endpoint("ssm", "r");
	ck_assert_str_eq(e, "http://127.0.0.1:1");
	free(e);
	setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true", 1);
	e = aws_endpoint("ec2", "r");
	ck_assert_str_eq(e, "https://ec2.r.amazonaws.com");
	free(e);
	unsetenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
	unsetenv("AWS_ENDPOINT_URL");
	unsetenv("AWS_ENDPOINT_URL_EC2");
	/* a signed request: https, or plain http only to loopback */
	{
		struct err er = ERR_INIT;
		ck_assert_int_eq(aws_endpoint_check("https://ec2.r.amazonaws.com", "ec2", &er), 0);
		ck_assert_int_eq(aws_endpoint_check("http://127.0.0.1:2", "ec2", &er), 0);
		ck_assert_int_eq(aws_endpoint_check("http://u:pw@ec2.example:80", "ec2", &er), -1);
		ck_assert_int_eq(er.code, ERR_INVALID);
		ck_assert_ptr_nonnull(strstr(err_msg(&er), "AWS_ENDPOINT_URL_EC2"));
		ck_assert_ptr_null(strstr(err_msg(&er), "pw")); /* user info not shown */
		err_release(&er);
	}

	aws_form_add(&f, "Action", "DescribeSubnets");
	aws_form_add(&f, "Filter.1.Name", "tag:karpenter.sh/discovery");
	aws_form_add(&f, "Filter.1.Value.1", "a b+c~");
	ck_assert_str_eq(buf_cstr(&f),
			 "Action=DescribeSubnets&Filter.1.Name=tag%3Akarpenter"
			 ".sh%2Fdiscovery&Filter.1.Value.1=a%20b%2Bc~");
	buf_release(&f);

	ck_assert(aws_is_denied("UnauthorizedOperation"));
	ck_assert(aws_is_denied("AccessDeniedException"));
	ck_assert(!aws_is_denied("InvalidSnapshot.NotFound"));
	ck_assert(!aws_is_denied(NULL));
	ck_assert(aws_is_throttle(400, "ThrottlingException"));
	ck_assert(aws_is_throttle(503, NULL));
	ck_assert(!aws_is_throttle(400, "ParameterNotFound"));
}
END_TEST

/* ---- the decisions, on a real intent and plan ---- */

struct fix {
	struct intent in;
	struct plan p;
	struct diags d;
};

static void fix_load(struct fix *x, const char *yaml)
{
	struct err e = ERR_INIT;

	x->d = (struct diags)DIAGS_INIT;
	ck_assert_int_eq(intent_read(&x->in, "i.yaml", yaml, strlen(yaml),
				     &x->d), 0);
	validate_intent(&x->in, catalog_builtin(), &x->d);
	ck_assert_uint_eq(x->d.errors, 0);
	ck_assert_int_eq(plan_build(&x->p, &x->in, catalog_builtin(), &x->d,
				    &e), 0);
	err_release(&e);
}

static void fix_release(struct fix *x)
{
	plan_release(&x->p);
	intent_release(&x->in);
	diags_release(&x->d);
}

static const char *const br =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: c1\n"
	"spec:\n"
	"  nodeRole: R\n"
	"  ami: bottlerocket@v1.28.0\n"
	"  imageCache:\n"
	"    snapshotID: snap-0123456789abcdef0\n"
	"    size: 200Gi\n"
	"  network:\n"
	"    efaSecurityGroup: sg-0123456789abcdef0\n"
	"  workloads:\n"
	"    - name: train\n"
	"      type: training\n"
	"      gpu: h100\n"
	"      gpusPerPod: 8\n"
	"      gang: 2\n"
	"      interruption: none\n"
	"      efa: true\n"
	"      maxGpus: 16\n";

static const char *const al =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: c2\n"
	"spec:\n"
	"  nodeRole: R\n"
	"  ami: al2023@v20250505\n"
	"  workloads:\n"
	"    - name: serve\n"
	"      type: inference\n"
	"      gpu: l4\n"
	"      gpusPerPod: 1\n"
	"      interruption: tolerant\n"
	"      maxGpus: 4\n";

START_TEST(test_questions)
{
	struct fix x;
	struct pf_facts f;

	fix_load(&x, br);
	pf_questions(&f, &x.p, "1.32");
	ck_assert_uint_eq(f.nparams, 1);
	/* Karpenter v1.14.1 bottlerocket.go: the 'v' trimmed */
	ck_assert_str_eq(f.params[0].name, "/aws/service/bottlerocket/"
			 "aws-k8s-1.32-nvidia/x86_64/1.28.0/image_id");
	ck_assert_int_eq(f.st[PF_SNAPSHOT], PF_ABSENT);
	ck_assert_int_eq(f.st[PF_EFA_SG], PF_ABSENT);
	ck_assert_str_eq(f.queue, "c1");
	ck_assert_uint_gt(f.ntypes, 0);
	for (size_t i = 0; i < f.ntypes; i++)
		ck_assert(!strncmp(f.types[i], "p5", 2));
	pf_facts_release(&f);
	pf_questions(&f, &x.p, NULL);
	ck_assert_int_eq(f.st[PF_AMI], PF_NOT_ASKED);
	pf_facts_release(&f);
	fix_release(&x);

	fix_load(&x, al);
	pf_questions(&f, &x.p, "1.31");
	ck_assert_uint_ge(f.nparams, 1);
	/* al2023.go resolvePath */
	ck_assert_str_eq(f.params[0].name,
			 "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/"
			 "x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-"
			 "1.31-v20250505/"
			 "image_id");
	ck_assert_int_eq(f.st[PF_SNAPSHOT], PF_NOT_ASKED);
	ck_assert_int_eq(f.st[PF_EFA_SG], PF_NOT_ASKED);
	pf_facts_release(&f);
	fix_release(&x);
}
END_TEST

static const struct lint_finding *find(const struct lint_findings *o,
				       const char *rule, int line)
{
	for (size_t i = 0; i < o->nr; i++)
		if (!strcmp(o->items[i].rule->id, rule) &&
		    o->items[i].line == line)
			return &o->items[i];
	return NULL;
}

START_TEST(test_evaluate)
{
	struct fix x;
	struct pf_facts f;
	struct lint_findings o = LINT_FINDINGS_INIT;
	const struct lint_finding *g;

	fix_load(&x, br);
	pf_questions(&f, &x.p, "1.32");
	/* everything fine */
	f.params[0].st = PF_FOUND;
	f.st[PF_AMI] = f.st[PF_SNAPSHOT] = f.st[PF_EFA_SG] = PF_FOUND;
	f.st[PF_SUBNETS] = f.st[PF_DISCOVERY_SG] = PF_FOUND;
	f.st[PF_OFFERINGS] = f.st[PF_QUEUE] = PF_FOUND;
	f.snap_status = strdup("completed");
	f.snap_gib = 200;
	f.sg_self_in = f.sg_self_out = 1;
	f.nsubnets = f.ndiscovery_sgs = 1;
	pf_add_zone(&f, "us-east-1b");
	pf_add_zone(&f, "us-east-1a");
	pf_add_zone(&f, "us-east-1a");
	ck_assert_uint_eq(f.nzones, 2);
	ck_assert_str_eq(f.zones[0], "us-east-1a");
	pf_add_offer(&f, "p5.48xlarge", "us-east-1b");
	pf_evaluate(&o, &x.p, &f, "i.yaml", "1.32");
	ck_assert_uint_eq(o.nr, 0);

	/* each failing, at its line:column */
	f.params[0].st = PF_ABSENT;
	free(f.snap_status);
	f.snap_status = strdup("pending");
	f.snap_gib = 201;
	f.sg_self_out = 0;
	f.st[PF_QUEUE] = PF_ABSENT;
	free(f.offers[0].type);
	f.offers[0].type = strdup("p4d.24xlarge");
	pf_evaluate(&o, &x.p, &f, "i.yaml", "1.32");
	ck_assert_ptr_nonnull(find(&o, "PF001", 7));
	ck_assert_int_eq(find(&o, "PF001", 7)->col, 8);
	ck_assert_ptr_nonnull(find(&o, "PF002", 9));
	g = find(&o, "PF002", 10);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(strstr(g->msg, "201 GiB, larger than the volume "
					     "(200Gi = 200 GiB)"));
	g = find(&o, "PF003", 12);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(strstr(g->msg, "all traffic to itself"));
	ck_assert_ptr_nonnull(find(&o, "PF005", 16));
	ck_assert_ptr_nonnull(find(&o, "PF006", 4));
	ck_assert_uint_eq(o.counts[LINT_ERROR], 6);
	lint_findings_release(&o);

	/* AccessDenied: warnings naming the action, no errors */
	for (int c = 0; c < PF_NCHECKS; c++)
		f.st[c] = PF_DENIED;
	pf_evaluate(&o, &x.p, &f, "i.yaml", "1.32");
	ck_assert_uint_eq(o.counts[LINT_ERROR], 0);
	/* one per check but PF_RESERVATIONS (this intent names no
	 * reservation: no workload to point at), and the offerings once more
	 * for the subnets */
	ck_assert_uint_eq(o.counts[LINT_WARNING], (PF_NCHECKS - 1) + 1);
	g = find(&o, "PF000", 9);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->msg, "could not check the image-cache snapshot: "
				 "needs ec2:DescribeSnapshots");
	lint_findings_release(&o);
	pf_facts_release(&f);
	fix_release(&x);
}
END_TEST

static const char *const sg_xml =
	"<DescribeSecurityGroupsResponse xmlns=\"http://ec2.amazonaws.com/doc/"
	"2016-11-15/\"><requestId>r</requestId><securityGroupInfo><item>"
	"<groupId>sg-1</groupId><ipPermissions><item><ipProtocol>tcp"
	"</ipProtocol><fromPort>0</fromPort><toPort>65535</toPort><groups><item>"
	"<groupId>sg-1</groupId></item></groups></item><item><ipProtocol>-1"
	"</ipProtocol><groups><item><groupId>sg-other</groupId></item></groups>"
	"</item></ipPermissions><ipPermissionsEgress><item><ipProtocol>-1"
	"</ipProtocol><groups/><ipRanges><item><cidrIp>0.0.0.0/0</cidrIp>"
	"</item></ipRanges></item></ipPermissionsEgress></item>"
	"</securityGroupInfo></DescribeSecurityGroupsResponse>";

START_TEST(test_parse_answers)
{
	struct pf_facts f;
	struct err e = ERR_INIT;
	const char *snap =
		"<DescribeSnapshotsResponse><snapshotSet><item><snapshotId>"
		"snap-1</snapshotId><status>completed</status><volumeSize>"
		"150</volumeSize></item></snapshotSet>"
		"</DescribeSnapshotsResponse>";

	memset(&f, 0, sizeof(f));
	/* tcp only, or all traffic from another group: not enough */
	ck_assert_int_eq(preflight_parse_efa_sg(&f, "sg-1", sg_xml,
						strlen(sg_xml), &e), 0);
	ck_assert_int_eq(f.st[PF_EFA_SG], PF_FOUND);
	ck_assert_int_eq(f.sg_self_in, 0);
	/* Fixed bug (reconcile/preflight.c self_rule): outbound 0.0.0.0/0
	 * was counted as the self rule EFA needs */
	ck_assert_int_eq(f.sg_self_out, 0);
	ck_assert_int_eq(preflight_parse_efa_sg(&f, "sg-2", sg_xml,
						strlen(sg_xml), &e), 0);
	ck_assert_int_eq(f.st[PF_EFA_SG], PF_ABSENT);
	ck_assert_int_eq(preflight_parse_efa_sg(&f, "sg-1", sg_xml, 40, &e),
			 -1);
	err_release(&e);

	ck_assert_int_eq(preflight_parse_snapshot(&f, snap, strlen(snap), &e),
			 0);
	ck_assert_int_eq(f.st[PF_SNAPSHOT], PF_FOUND);
	ck_assert_str_eq(f.snap_status, "completed");
	ck_assert_int_eq(f.snap_gib, 150);
	ck_assert_int_eq(preflight_parse_snapshot(
				 &f, "<R><snapshotSet/></R>", 21, &e), 0);
	ck_assert_int_eq(preflight_parse_snapshot(
				 &f, "<R><snapshotSet/></R>", 20, &e), -1);
	err_release(&e);
	ck_assert_int_eq(f.st[PF_SNAPSHOT], PF_ABSENT);
	ck_assert_int_eq(preflight_parse_snapshot(
				 &f, "<R><snapshotSet><item><status>x</status>"
				     "</item></snapshotSet></R>", 65, &e), -1);
	err_release(&e);
	pf_facts_release(&f);
}
END_TEST

/* DescribeCapacityReservations: the fields PF007 reads, the end date,
 * nextToken, and malformed items */
START_TEST(test_parse_reservations)
{
	struct pf_rterm t;
	struct err e = ERR_INIT;
	char *next = NULL;
	const char *ok =
		"<DescribeCapacityReservationsResponse><capacityReservationSet>"
		"<item><capacityReservationId>cr-0b10c000000000001"
		"</capacityReservationId><instanceType>p5.48xlarge</instanceType>"
		"<availabilityZone>us-west-2a</availabilityZone><state>active"
		"</state><totalInstanceCount>4</totalInstanceCount><endDate>"
		"2026-12-08T11:30:00.000Z</endDate><reservationType>"
		"capacity-block</reservationType></item>"
		"<item><capacityReservationId>cr-0c4a7000000000002"
		"</capacityReservationId><instanceType>g6.xlarge</instanceType>"
		"<availabilityZone>us-west-2b</availabilityZone><state>scheduled"
		"</state><totalInstanceCount>2</totalInstanceCount></item>"
		"</capacityReservationSet><nextToken>abc</nextToken>"
		"</DescribeCapacityReservationsResponse>";
	const char *bad =
		"<R><capacityReservationSet><item><capacityReservationId>cr-1"
		"</capacityReservationId><instanceType>p5.48xlarge</instanceType>"
		"<availabilityZone>a</availabilityZone><state>active</state>"
		"<totalInstanceCount>four</totalInstanceCount></item>"
		"</capacityReservationSet></R>";

	memset(&t, 0, sizeof(t));
	t.st = PF_ABSENT;
	ck_assert_int_eq(preflight_parse_reservations(&t, ok, strlen(ok),
						      &next, &e), 0);
	ck_assert_int_eq(t.st, PF_FOUND);
	ck_assert_uint_eq(t.nr, 2);
	ck_assert_str_eq(t.r[0].type, "p5.48xlarge");
	ck_assert_str_eq(t.r[0].rtype, "capacity-block");
	ck_assert_int_eq(t.r[0].total, 4);
	/* 2026-12-08T11:30:00Z */
	ck_assert(t.r[0].end == 1796729400.0);
	ck_assert_str_eq(t.r[1].rtype, "default"); /* absent: default */
	ck_assert(t.r[1].end == 0);
	ck_assert_str_eq(next, "abc");
	free(next);
	/* the same page again: no duplicates */
	ck_assert_int_eq(preflight_parse_reservations(&t, ok, strlen(ok),
						      &next, &e), 0);
	ck_assert_uint_eq(t.nr, 2);
	free(next);
	ck_assert_int_eq(preflight_parse_reservations(&t, bad, strlen(bad),
						      &next, &e), -1);
	ck_assert_ptr_null(next);
	err_release(&e);
	ck_assert_int_eq(preflight_parse_reservations(
				 &t, "<R></R>", 7, &next, &e), -1);
	err_release(&e);
	for (size_t i = 0; i < t.nr; i++) {
		free(t.r[i].id);
		free(t.r[i].type);
		free(t.r[i].zone);
		free(t.r[i].state);
		free(t.r[i].rtype);
	}
	free(t.r);
}
END_TEST

Suite *preflight_suite(void)
{
	Suite *s = suite_create("preflight");
	TCase *tc = tcase_create("aws");

	tcase_add_test(tc, test_xml);
	tcase_add_test(tc, test_xml_depth);
	tcase_add_test(tc, test_ini);
	tcase_add_test(tc, test_endpoint_and_form);
	suite_add_tcase(s, tc);
	tc = tcase_create("decide");
	tcase_add_test(tc, test_questions);
	tcase_add_test(tc, test_evaluate);
	tcase_add_test(tc, test_parse_answers);
	tcase_add_test(tc, test_parse_reservations);
	suite_add_tcase(s, tc);
	return s;
}
