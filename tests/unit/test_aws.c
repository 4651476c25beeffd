/*
 * tests/unit/test_aws.c: the AWS client (aws/aws.c) and the
 * credential chain (aws/awscreds.c) on the in-memory AWS of
 * tests/unit/aws_fake.c: retries on throttling and 5xx, rejected
 * credentials, error codes from XML and JSON answers, timeouts, header
 * injection refused; each link of the chain (environment, profiles, web
 * identity, container / Pod Identity, IMDSv2) and its failures; and
 * preflight's questions (reconcile/preflight.c): the requests in order,
 * pagination, AccessDenied, absent resources and malformed answers.
 * Each case starts from an environment with no AWS_* variable and a HOME
 * without ~/.aws.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, setenv */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "generator/catalog.h"
#include "generator/intent.h"
#include "generator/plan.h"
#include "generator/preflight.h"
#include "generator/validate.h"
#include "aws/aws.h"
#include "aws/awscreds.h"
#include "aws/sigv4.h"
#include "reconcile/preflight.h"
#include "tests/unit/aws_fake.h"
#include "tests/unit/suites.h"
#include "util/buf.h"
#include "util/digest.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/time.h"
#include "util/xalloc.h"

extern char **environ;

static char home[64];

static void clean_env(void)
{
	/* every AWS_* variable goes; HOME is an empty directory */
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, "AWS_", 4)) {
				char *name = xstrndup(*e, strcspn(*e, "="));
				unsetenv(name);
				free(name);
				again = 1;
				break;
			}
	}
	strcpy(home, "/tmp/gpuform-unit-aws.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(home));
	setenv("HOME", home, 1);
}

static void rm_home(void)
{
	char *cmd = xasprintf("rm -rf '%s'", home);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

static char *write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", home, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void setup_aws(struct aws *a, struct aws_fake *f)
{
	aws_init(a);
	aws_fake_init(f, a);
	a->region = xstrdup("us-west-2");
	a->creds.key_id = xstrdup("AKIDEXAMPLE");
	a->creds.secret = xstrdup("secret");
	a->creds.source = xstrdup("environment");
}

/* ---- aws_call ----------------------------------------------------------- */

START_TEST(test_call_ok_and_headers)
{
	struct aws a;
	struct aws_fake f;
	struct aws_answer ans;
	struct err err = ERR_INIT;

	setup_aws(&a, &f);
	a.creds.token = xstrdup("session-token");
	aws_fake_on(&f, "POST", "https://ssm.us-west-2.amazonaws.com", NULL,
		    200, "{\"Parameter\":{\"Value\":\"ami-1\"}}", 0);
	ck_assert_int_eq(aws_call(&a, "ssm", AWS_JSON11, "AmazonSSM.GetParameter",
				  "{}", &ans, &err), 0);
	ck_assert_int_eq(ans.status, 200);
	ck_assert_ptr_nonnull(strstr(buf_cstr(&ans.body), "ami-1"));
	ck_assert_str_eq(buf_cstr(&f.log), "POST https://ssm.us-west-2."
			 "amazonaws.com AmazonSSM.GetParameter\n");
	ck_assert_ptr_nonnull(strstr(buf_cstr(&f.headers),
				     "Content-Type: application/x-amz-json-1.1\n"));
	ck_assert_ptr_nonnull(strstr(buf_cstr(&f.headers),
				     "X-Amz-Security-Token: session-token\n"));
	ck_assert_int_eq(a.requests, 1);
	aws_answer_release(&ans);
	aws_fake_release(&f);
	aws_release(&a);
	err_release(&err);
}
END_TEST

/* throttling and 5xx are retried up to max_retries; other errors are not */
static const struct {
	long status;
	const char *answer;
	int max_retries;
	long want_status, want_requests;
	const char *want_code;
} retry_rows[] = {
	{ 503, "<Response><Errors><Error><Code>Unavailable</Code></Error>"
	       "</Errors></Response>", 4, 200, 3, NULL },
	{ 400, "<Response><Errors><Error><Code>RequestLimitExceeded</Code>"
	       "</Error></Errors></Response>", 4, 200, 3, NULL },
	{ 500, "", 1, 500, 2, NULL }, /* gave up: the last answer */
	{ 400, "<Response><Errors><Error><Code>InvalidParameterValue</Code>"
	       "<Message>bad</Message></Error></Errors></Response>", 4, 400, 1,
	  "InvalidParameterValue" },
	{ 403, "<Response><Errors><Error><Code>UnauthorizedOperation</Code>"
	       "</Error></Errors></Response>", 4, 403, 1,
	  "UnauthorizedOperation" },
	{ 403, "<ErrorResponse><Error><Code>AccessDenied</Code></Error>"
	       "</ErrorResponse>", 4, 403, 1, "AccessDenied" },
};

START_TEST(test_call_retries)
{
	struct aws a;
	struct aws_fake f;
	struct aws_answer ans;
	struct err err = ERR_INIT;

	setup_aws(&a, &f);
	a.max_retries = retry_rows[_i].max_retries;
	aws_fake_on(&f, "POST", "ec2", NULL, retry_rows[_i].status,
		    retry_rows[_i].answer, 2);
	aws_fake_on(&f, "POST", "ec2", NULL, 200, "<ok/>", 0);
	ck_assert_int_eq(aws_call(&a, "ec2", AWS_QUERY, NULL,
				  "Action=DescribeSubnets", &ans, &err), 0);
	ck_assert_int_eq(ans.status, retry_rows[_i].want_status);
	ck_assert_int_eq(a.requests, retry_rows[_i].want_requests);
	ck_assert_int_eq(a.retries, retry_rows[_i].want_requests - 1);
	if (retry_rows[_i].want_code)
		ck_assert_str_eq(ans.code, retry_rows[_i].want_code);
	aws_answer_release(&ans);
	aws_fake_release(&f);
	aws_release(&a);
	err_release(&err);
}
END_TEST

START_TEST(test_call_json_error_and_denied)
{
	struct aws a;
	struct aws_fake f;
	struct aws_answer ans;
	struct err err = ERR_INIT;

	setup_aws(&a, &f);
	aws_fake_on(&f, NULL, "sqs", NULL, 400,
		    "{\"__type\":\"com.amazonaws.sqs#AccessDeniedException\","
		    "\"message\":\"no\"}", 0);
	ck_assert_int_eq(aws_call(&a, "sqs", AWS_JSON10, "AmazonSQS.GetQueueUrl",
				  "{}", &ans, &err), 0);
	ck_assert_str_eq(ans.code, "AccessDeniedException");
	ck_assert_str_eq(ans.message, "no");
	ck_assert(aws_is_denied(ans.code));
	ck_assert(!aws_is_denied("InvalidParameterValue"));
	ck_assert(!aws_is_denied(NULL));
	ck_assert(aws_is_throttle(429, NULL));
	ck_assert(aws_is_throttle(400, "ThrottlingException"));
	ck_assert(!aws_is_throttle(404, "ParameterNotFound"));
	aws_answer_release(&ans);
	aws_fake_release(&f);
	aws_release(&a);
	err_release(&err);
}
END_TEST

static const char *const bad_cred_codes[] = {
	"AuthFailure", "SignatureDoesNotMatch", "InvalidClientTokenId",
	"ExpiredToken",
};

START_TEST(test_call_bad_credentials)
{
	struct aws a;
	struct aws_fake f;
	struct aws_answer ans;
	struct err err = ERR_INIT;
	char *xml = xasprintf("<Response><Errors><Error><Code>%s</Code>"
			      "<Message>nope</Message></Error></Errors>"
			      "</Response>", bad_cred_codes[_i]);

	setup_aws(&a, &f);
	aws_fake_on(&f, NULL, "ec2", NULL, 401, xml, 0);
	ck_assert_int_eq(aws_call(&a, "ec2", AWS_QUERY, NULL, "Action=X", &ans,
				  &err), -1);
	ck_assert_int_eq(err.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "rejected the credentials "
					"from environment"));
	ck_assert_ptr_nonnull(strstr(err_msg(&err), bad_cred_codes[_i]));
	ck_assert_int_eq(a.requests, 1); /* never retried */
	free(xml);
	aws_fake_release(&f);
	aws_release(&a);
	err_release(&err);
}
END_TEST

START_TEST(test_call_transport_failures)
{
	struct aws a;
	struct aws_fake f;
	struct aws_answer ans;
	struct err err = ERR_INIT;

	setup_aws(&a, &f);
	aws_fake_on(&f, NULL, "ec2", NULL, -2, NULL, 1);
	aws_fake_on(&f, NULL, "ec2", NULL, -1, NULL, 1);
	ck_assert_int_eq(aws_call(&a, "ec2", AWS_QUERY, NULL, "Action=X", &ans,
				  &err), -1);
	ck_assert_int_eq(err.code, ERR_HTTP);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "ec2 did not answer within "
					"10000 ms (endpoint https://ec2."
					"us-west-2.amazonaws.com)"));
	err_clear(&err);
	ck_assert_int_eq(aws_call(&a, "ec2", AWS_QUERY, NULL, "Action=X", &ans,
				  &err), -1);
	ck_assert_ptr_nonnull(strstr(err_msg(&err), "connection refused"));
	err_clear(&err);
	/* a key with a line break never reaches a header */
	free(a.creds.secret);
	a.creds.secret = xstrdup("sec\r\nX-Evil: 1");
	ck_assert_int_eq(aws_call(&a, "ec2", AWS_QUERY, NULL, "Action=X", &ans,
				  &err), -1);
	ck_assert_int_eq(err.code, ERR_INVALID);
	ck_assert_int_eq(f.requests, 2);
	aws_fake_release(&f);
	aws_release(&a);
	err_release(&err);
}
END_TEST

START_TEST(test_endpoint_override)
{
	char *u;

	setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1", 1);
	setenv("AWS_ENDPOINT_URL_EC2", "http://127.0.0.1:2", 1);
	u = aws_endpoint("ec2", "eu-west-1");
	ck_assert_str_eq(u, "http://127.0.0.1:2");
	free(u);
	u = aws_endpoint("ssm", "eu-west-1");
	ck_assert_str_eq(u, "http://127.0.0.1:1");
	free(u);
	setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true", 1);
	u = aws_endpoint("ssm", "eu-west-1");
	ck_assert_str_eq(u, "https://ssm.eu-west-1.amazonaws.com");
	free(u);
}
END_TEST

/* ---- the credential chain ---------------------------------------------- */

struct chain {
	struct aws a;
	struct aws_fake f;
	struct err err;
};

static void chain_init(struct chain *c)
{
	aws_init(&c->a);
	aws_fake_init(&c->f, &c->a);
	c->err = (struct err)ERR_INIT;
}

static void chain_release(struct chain *c)
{
	aws_fake_release(&c->f);
	aws_release(&c->a);
	err_release(&c->err);
}

static int load(struct chain *c, const char *region)
{
	return awscreds_load(&c->a, region, &c->err);
}

START_TEST(test_chain_environment)
{
	struct chain c;

	chain_init(&c);
	setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
	setenv("AWS_SESSION_TOKEN", "t", 1);
	setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
	/* a profile file is there too: the environment wins */
	free(write_file("credentials", "[default]\naws_access_key_id = AKF\n"
				       "aws_secret_access_key = x\n"));
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(c.a.creds.key_id, "AKENV");
	ck_assert_str_eq(c.a.creds.token, "t");
	ck_assert_str_eq(c.a.creds.source, "environment");
	ck_assert_str_eq(c.a.region, "eu-west-1");
	ck_assert_uint_eq(c.f.requests, 0);
	chain_release(&c);
}
END_TEST

START_TEST(test_chain_region_order)
{
	struct chain c;

	chain_init(&c);
	setenv("AWS_ACCESS_KEY_ID", "AK", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "s", 1);
	setenv("AWS_REGION", "ap-south-1", 1);
	setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
	ck_assert_int_eq(load(&c, "us-east-2"), 0);
	ck_assert_str_eq(c.a.region, "us-east-2"); /* the flag first */
	chain_release(&c);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(c.a.region, "ap-south-1");
	chain_release(&c);
	/* none anywhere, IMDS off: a clear error */
	unsetenv("AWS_REGION");
	unsetenv("AWS_DEFAULT_REGION");
	setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "no AWS region"));
	chain_release(&c);
}
END_TEST

START_TEST(test_chain_profiles)
{
	struct chain c;
	char *cfg = write_file("config", "[default]\nregion = us-east-1\n"
					 "[profile ci]\nregion = eu-central-1\n"
					 "aws_access_key_id = AKCFG\n"
					 "aws_secret_access_key = c\n"
					 "[profile sso]\nsso_session = corp\n");
	char *cred = write_file("credentials", "[ci]\naws_access_key_id = AKCI\n"
					       "aws_secret_access_key = k\n"
					       "aws_session_token = tk\n");

	setenv("AWS_CONFIG_FILE", cfg, 1);
	setenv("AWS_SHARED_CREDENTIALS_FILE", cred, 1);
	setenv("AWS_PROFILE", "ci", 1);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), 0);
	/* the credentials file before the config; the config's region */
	ck_assert_str_eq(c.a.creds.key_id, "AKCI");
	ck_assert_str_eq(c.a.creds.token, "tk");
	ck_assert_str_eq(c.a.creds.source, "profile 'ci'");
	ck_assert_str_eq(c.a.region, "eu-central-1");
	chain_release(&c);

	setenv("AWS_PROFILE", "nope", 1);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, ERR_INVALID);
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "AWS_PROFILE names "
					"profile 'nope'"));
	chain_release(&c);

	setenv("AWS_PROFILE", "sso", 1);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "export-credentials"));
	ck_assert_uint_eq(c.f.requests, 0);
	chain_release(&c);
	free(cfg);
	free(cred);
}
END_TEST

#define STS_OK                                                                 \
	"<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>" \
	"<Credentials><AccessKeyId>ASIAWEB</AccessKeyId>"                      \
	"<SecretAccessKey>ws</SecretAccessKey><SessionToken>wt"                \
	"</SessionToken></Credentials></AssumeRoleWithWebIdentityResult>"      \
	"</AssumeRoleWithWebIdentityResponse>"

static const struct {
	long status;
	const char *answer;
	int ok;
	enum err_code code;
	const char *msg;
} sts_rows[] = {
	{ 200, STS_OK, 1, ERR_NONE, NULL },
	{ 403, "<ErrorResponse><Error><Code>AccessDenied</Code><Message>Not "
	       "authorized</Message></Error></ErrorResponse>", 0, ERR_AUTH,
	  "refused (HTTP 403): AccessDenied: Not authorized" },
	{ 200, "<AssumeRoleWithWebIdentityResponse/>", 0, ERR_HTTP,
	  "answered without credentials" },
	{ 200, "not xml", 0, ERR_HTTP, "HTTP 200" },
	{ -1, NULL, 0, ERR_HTTP, "web identity (STS " },
};

START_TEST(test_chain_web_identity)
{
	struct chain c;
	char *tok = write_file("token", "eyJ-the-token\n");

	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", tok, 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::1:role/r", 1);
	setenv("AWS_ROLE_SESSION_NAME", "sess", 1);
	setenv("AWS_REGION", "us-west-2", 1);
	chain_init(&c);
	aws_fake_on(&c.f, "POST", "https://sts.us-west-2.amazonaws.com",
		    "Action=AssumeRoleWithWebIdentity", sts_rows[_i].status,
		    sts_rows[_i].answer, 0);
	if (sts_rows[_i].ok) {
		ck_assert_int_eq(load(&c, NULL), 0);
		ck_assert_str_eq(c.a.creds.key_id, "ASIAWEB");
		ck_assert_str_eq(c.a.creds.token, "wt");
		ck_assert_str_eq(c.a.creds.source,
				 "web identity (AWS_ROLE_ARN)");
	} else {
		ck_assert_int_eq(load(&c, NULL), -1);
		ck_assert_int_eq(c.err.code, sts_rows[_i].code);
		ck_assert_msg(strstr(err_msg(&c.err), sts_rows[_i].msg), "%s",
			      err_msg(&c.err));
		/* the token never appears in a message */
		ck_assert_ptr_null(strstr(err_msg(&c.err), "eyJ-the-token"));
	}
	ck_assert_uint_eq(c.f.requests, 1);
	chain_release(&c);
	free(tok);
}
END_TEST

START_TEST(test_chain_profile_web_identity)
{
	struct chain c;
	char *tok = write_file("token", "tok\n");
	char *cfg = xasprintf("[profile w]\nrole_arn = arn:aws:iam::1:role/w\n"
			      "web_identity_token_file = %s\nregion = "
			      "eu-north-1\n", tok);
	char *cfgp = write_file("config", cfg);

	setenv("AWS_CONFIG_FILE", cfgp, 1);
	setenv("AWS_PROFILE", "w", 1);
	chain_init(&c);
	aws_fake_on(&c.f, "POST", "sts.eu-north-1", "RoleArn=arn%3Aaws%3Aiam",
		    200, STS_OK, 1);
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(c.a.creds.source, "profile 'w' (web identity)");
	chain_release(&c);
	free(tok);
	free(cfg);
	free(cfgp);
}
END_TEST

#define CREDS_JSON \
	"{\"AccessKeyId\":\"ASIAC\",\"SecretAccessKey\":\"cs\",\"Token\":\"ct\"}"

START_TEST(test_chain_container)
{
	struct chain c;
	char *tok = write_file("pod-token", "pod-identity-token\n");

	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI",
	       "http://169.254.170.23/v1/credentials", 1);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", tok, 1);
	setenv("AWS_REGION", "us-west-2", 1);
	chain_init(&c);
	aws_fake_on(&c.f, "GET", "http://169.254.170.23/v1/credentials", NULL,
		    200, CREDS_JSON, 0);
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(c.a.creds.key_id, "ASIAC");
	ck_assert_str_eq(c.a.creds.token, "ct");
	ck_assert_str_eq(c.a.creds.source,
			 "container credentials (EKS Pod Identity / ECS)");
	ck_assert_str_eq(buf_cstr(&c.f.headers),
			 "Authorization: pod-identity-token\n");
	chain_release(&c);

	/* ECS: the relative URI on 169.254.170.2, token from the variable */
	unsetenv("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	unsetenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/creds/x", 1);
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "envtok", 1);
	chain_init(&c);
	aws_fake_on(&c.f, "GET", "http://169.254.170.2/v2/creds/x", NULL, 200,
		    CREDS_JSON, 0);
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(buf_cstr(&c.f.headers), "Authorization: envtok\n");
	chain_release(&c);
	free(tok);
}
END_TEST

static const struct {
	const char *url, *token;
	long status;
	const char *answer;
	enum err_code code;
	const char *msg;
} container_bad[] = {
	{ "http://example.com/creds", NULL, 200, CREDS_JSON, ERR_INVALID,
	  "must be https://" },
	{ "http://127.0.0.1.evil.example/creds", NULL, 200, CREDS_JSON,
	  ERR_INVALID, "must be https://" },
	{ "http://127.0.0.1:9/c", "a\nb", 200, CREDS_JSON, ERR_INVALID,
	  "line break" },
	{ "http://127.0.0.1:9/c", NULL, 403, "", ERR_AUTH, "answered HTTP 403" },
	{ "http://127.0.0.1:9/c", NULL, 500, "", ERR_HTTP, "answered HTTP 500" },
	{ "http://[::1]:9/c", NULL, 200, "{\"AccessKeyId\":\"\"}", ERR_HTTP,
	  "answered without credentials" },
	{ "https://creds.example/c", NULL, -1, NULL, ERR_HTTP,
	  "container credentials endpoint: " },
};

START_TEST(test_chain_container_failures)
{
	struct chain c;

	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", container_bad[_i].url, 1);
	if (container_bad[_i].token)
		setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN",
		       container_bad[_i].token, 1);
	setenv("AWS_REGION", "us-west-2", 1);
	chain_init(&c);
	aws_fake_on(&c.f, "GET", "/c", NULL, container_bad[_i].status,
		    container_bad[_i].answer, 0);
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, container_bad[_i].code);
	ck_assert_msg(strstr(err_msg(&c.err), container_bad[_i].msg), "%s",
		      err_msg(&c.err));
	chain_release(&c);
}
END_TEST

#define IMDS "http://127.0.0.1:1"

static void imds_rules(struct aws_fake *f, const char *token,
		       const char *roles, const char *creds)
{
	aws_fake_on(f, "PUT", IMDS "/latest/api/token", NULL, 200, token, 0);
	aws_fake_on(f, "GET", "/latest/meta-data/placement/region", NULL, 200,
		    "ca-central-1", 0);
	aws_fake_on(f, "GET", "/latest/meta-data/iam/security-credentials/node",
		    NULL, 200, creds, 0);
	aws_fake_on(f, "GET", "/latest/meta-data/iam/security-credentials/",
		    NULL, roles ? 200 : 404, roles, 0);
}

START_TEST(test_chain_imds)
{
	struct chain c;

	setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", IMDS "/", 1);
	chain_init(&c);
	imds_rules(&c.f, "imds-token\n", "node\n", CREDS_JSON);
	ck_assert_int_eq(load(&c, NULL), 0);
	ck_assert_str_eq(c.a.creds.source, "instance role (IMDSv2)");
	ck_assert_str_eq(c.a.region, "ca-central-1");
	/* IMDSv2: the token first, then every GET carries it */
	ck_assert_str_eq(buf_cstr(&c.f.log),
			 "PUT " IMDS "/latest/api/token -\n"
			 "GET " IMDS "/latest/meta-data/placement/region -\n"
			 "GET " IMDS "/latest/meta-data/iam/security-credentials/ -\n"
			 "GET " IMDS "/latest/meta-data/iam/security-credentials/node -\n");
	ck_assert_str_eq(buf_cstr(&c.f.headers),
			 "X-aws-ec2-metadata-token-ttl-seconds: 300\n"
			 "X-aws-ec2-metadata-token: imds-token\n"
			 "X-aws-ec2-metadata-token: imds-token\n"
			 "X-aws-ec2-metadata-token: imds-token\n");
	chain_release(&c);
}
END_TEST

static const struct {
	const char *token, *roles;
} imds_bad[] = {
	{ "", "node" },             /* no token */
	{ "a\rb", "node" },         /* a token with a line break */
	{ "tok", NULL },            /* no role (404) */
	{ "tok", "../../x" },       /* a role that is not a name */
};

START_TEST(test_chain_imds_failures)
{
	struct chain c;

	setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", IMDS, 1);
	setenv("AWS_REGION", "us-west-2", 1);
	chain_init(&c);
	imds_rules(&c.f, imds_bad[_i].token, imds_bad[_i].roles, CREDS_JSON);
	/* IMDS failing ends the chain with the list of what was tried */
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "no AWS credentials: "
					"tried the environment"));
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "IMDSv2"));
	chain_release(&c);
}
END_TEST

START_TEST(test_chain_nothing)
{
	struct chain c;

	setenv("AWS_EC2_METADATA_DISABLED", "TRUE", 1);
	setenv("AWS_REGION", "us-west-2", 1);
	chain_init(&c);
	ck_assert_int_eq(load(&c, NULL), -1);
	ck_assert_int_eq(c.err.code, ERR_AUTH);
	ck_assert_ptr_nonnull(strstr(err_msg(&c.err), "profile 'default'"));
	ck_assert_uint_eq(c.f.requests, 0); /* IMDS disabled: not asked */
	chain_release(&c);
}
END_TEST

/* ---- preflight's questions ------------------------------------------------ */

static const char *const intent_yaml =
	"apiVersion: gpuform.io/v1alpha1\n"
	"kind: ClusterIntent\n"
	"metadata:\n"
	"  name: c1\n"
	"spec:\n"
	"  nodeRole: R\n"
	/* EFA needs Bottlerocket >= v1.28.0 (issue 23 item 5) */
	"  ami: bottlerocket@v1.38.0\n"
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

struct ask {
	struct intent in;
	struct plan p;
	struct diags d;
	struct pf_facts f;
	struct aws a;
	struct aws_fake fake;
	struct err err;
};

static void ask_init(struct ask *x)
{
	struct err e = ERR_INIT;

	x->d = (struct diags)DIAGS_INIT;
	x->err = (struct err)ERR_INIT;
	ck_assert_int_eq(intent_read(&x->in, "i.yaml", intent_yaml,
				     strlen(intent_yaml), &x->d), 0);
	validate_intent(&x->in, catalog_builtin(), &x->d);
	ck_assert_uint_eq(x->d.errors, 0);
	ck_assert_int_eq(plan_build(&x->p, &x->in, catalog_builtin(), &x->d,
				    &e), 0);
	err_release(&e);
	pf_questions(&x->f, &x->p, "1.32");
	setup_aws(&x->a, &x->fake);
}

static void ask_release(struct ask *x)
{
	pf_facts_release(&x->f);
	plan_release(&x->p);
	intent_release(&x->in);
	diags_release(&x->d);
	aws_fake_release(&x->fake);
	aws_release(&x->a);
	err_release(&x->err);
}

#define SG_SELF                                                               \
	"<DescribeSecurityGroupsResponse><securityGroupInfo><item>"           \
	"<groupId>sg-0123456789abcdef0</groupId><ipPermissions><item>"        \
	"<ipProtocol>-1</ipProtocol><groups><item><groupId>"                  \
	"sg-0123456789abcdef0</groupId></item></groups></item>"               \
	"</ipPermissions><ipPermissionsEgress><item><ipProtocol>-1"           \
	"</ipProtocol><groups><item><groupId>sg-0123456789abcdef0</groupId>"  \
	"</item></groups></item></ipPermissionsEgress></item>"                \
	"</securityGroupInfo></DescribeSecurityGroupsResponse>"
#define SUBNETS(zone, tok)                                                    \
	"<DescribeSubnetsResponse><subnetSet><item><availabilityZone>" zone   \
	"</availabilityZone></item></subnetSet>" tok                          \
	"</DescribeSubnetsResponse>"

/* everything found; the subnets come in two pages */
static void happy_rules(struct aws_fake *f)
{
	aws_fake_on(f, NULL, "ssm", NULL, 200,
		    "{\"Parameter\":{\"Value\":\"ami-0abc\"}}", 0);
	aws_fake_on(f, NULL, "ec2", "Action=DescribeSnapshots", 200,
		    "<DescribeSnapshotsResponse><snapshotSet><item><status>"
		    "completed</status><volumeSize>200</volumeSize></item>"
		    "</snapshotSet></DescribeSnapshotsResponse>", 0);
	aws_fake_on(f, NULL, "ec2", "GroupId.1=sg-", 200, SG_SELF, 0);
	aws_fake_on(f, NULL, "ec2", "NextToken=page2", 200,
		    SUBNETS("us-west-2b", ""), 0);
	aws_fake_on(f, NULL, "ec2", "Action=DescribeSubnets", 200,
		    SUBNETS("us-west-2a", "<nextToken>page2</nextToken>"), 0);
	aws_fake_on(f, NULL, "ec2", "Action=DescribeSecurityGroups", 200,
		    "<DescribeSecurityGroupsResponse><securityGroupInfo><item/>"
		    "</securityGroupInfo></DescribeSecurityGroupsResponse>", 0);
	aws_fake_on(f, NULL, "ec2", "Action=DescribeInstanceTypeOfferings", 200,
		    "<DescribeInstanceTypeOfferingsResponse>"
		    "<instanceTypeOfferingSet><item><instanceType>p5.48xlarge"
		    "</instanceType><location>us-west-2a</location></item>"
		    "</instanceTypeOfferingSet>"
		    "</DescribeInstanceTypeOfferingsResponse>", 0);
	aws_fake_on(f, NULL, "sqs", NULL, 200,
		    "{\"QueueUrl\":\"https://sqs/1/c1\"}", 0);
}

START_TEST(test_ask_all_found)
{
	struct ask x;

	ask_init(&x);
	happy_rules(&x.fake);
	ck_assert_msg(preflight_ask(&x.a, &x.p, &x.f, &x.err) == 0, "%s",
		      err_msg(&x.err));
	ck_assert_str_eq(buf_cstr(&x.fake.log),
			 "POST https://ssm.us-west-2.amazonaws.com AmazonSSM.GetParameter\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeSnapshots\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeSecurityGroups\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeSubnets\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeSubnets\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeSecurityGroups\n"
			 "POST https://ec2.us-west-2.amazonaws.com DescribeInstanceTypeOfferings\n"
			 "POST https://sqs.us-west-2.amazonaws.com AmazonSQS.GetQueueUrl\n");
	ck_assert_int_eq(x.f.st[PF_AMI], PF_FOUND);
	ck_assert_int_eq(x.f.params[0].st, PF_FOUND);
	ck_assert_int_eq(x.f.st[PF_SNAPSHOT], PF_FOUND);
	ck_assert_int_eq(x.f.snap_gib, 200);
	ck_assert_int_eq(x.f.st[PF_EFA_SG], PF_FOUND);
	ck_assert_int_eq(x.f.st[PF_SUBNETS], PF_FOUND);
	ck_assert_uint_eq(x.f.nsubnets, 2); /* both pages */
	ck_assert_uint_eq(x.f.nzones, 2);
	ck_assert_uint_eq(x.f.ndiscovery_sgs, 1);
	ck_assert_int_eq(x.f.st[PF_OFFERINGS], PF_FOUND);
	ck_assert_uint_eq(x.f.noffers, 1);
	ck_assert_int_eq(x.f.st[PF_QUEUE], PF_FOUND);
	ask_release(&x);
}
END_TEST

/* one answer changed from the happy path: what each check becomes */
static const struct {
	const char *url, *body;
	long status;
	const char *answer;
	enum pf_check check;
	int want_state; /* -1: preflight_ask fails */
	const char *msg;
} ask_rows[] = {
	{ "ssm", NULL, 400,
	  "{\"__type\":\"AccessDeniedException\",\"message\":\"no\"}", PF_AMI,
	  PF_DENIED, NULL },
	{ "ssm", NULL, 400, "{\"__type\":\"ParameterNotFound\"}", PF_AMI,
	  PF_FOUND, NULL }, /* the check ran; the parameter is absent */
	{ "ssm", NULL, 200, "{}", PF_AMI, -1, "no Parameter.Value" },
	{ "ssm", NULL, 400, "{\"__type\":\"ValidationException\"}", PF_AMI, -1,
	  "ssm GetParameter failed: HTTP 400: ValidationException" },
	{ "ec2", "Action=DescribeSnapshots", 400,
	  "<Response><Errors><Error><Code>InvalidSnapshot.NotFound</Code>"
	  "</Error></Errors></Response>", PF_SNAPSHOT, PF_ABSENT, NULL },
	{ "ec2", "Action=DescribeSnapshots", 200, "<x/>", PF_SNAPSHOT,
	  PF_ABSENT, NULL },
	{ "ec2", "Action=DescribeSnapshots", 200,
	  "<r><snapshotSet><item><status>x</status></item></snapshotSet></r>",
	  PF_SNAPSHOT, -1, "ec2 DescribeSnapshots: " },
	{ "ec2", "GroupId.1=sg-", 400,
	  "<Response><Errors><Error><Code>InvalidGroup.NotFound</Code>"
	  "</Error></Errors></Response>", PF_EFA_SG, PF_ABSENT, NULL },
	{ "ec2", "Action=DescribeSubnets", 403,
	  "<Response><Errors><Error><Code>UnauthorizedOperation</Code>"
	  "</Error></Errors></Response>", PF_SUBNETS, PF_DENIED, NULL },
	{ "ec2", "Action=DescribeSubnets", 200, "<r/>", PF_SUBNETS, -1,
	  "no subnetSet" },
	{ "ec2", "Action=DescribeSubnets", 200,
	  "<r><subnetSet><item/></subnetSet></r>", PF_SUBNETS, -1,
	  "a subnet without availabilityZone" },
	{ "ec2", "Action=DescribeSubnets", 200, "not xml", PF_SUBNETS, -1,
	  "ec2 DescribeSubnets: " },
	{ "ec2", "Action=DescribeSubnets", 200,
	  SUBNETS("us-west-2a", "<nextToken>again</nextToken>"), PF_SUBNETS,
	  -1, "more than 50 pages" },
	{ "ec2", "Action=DescribeInstanceTypeOfferings", 200,
	  "<r><instanceTypeOfferingSet><item/></instanceTypeOfferingSet></r>",
	  PF_OFFERINGS, -1, "an offering without instanceType" },
	{ "ec2", "Action=DescribeInstanceTypeOfferings", 403,
	  "<Response><Errors><Error><Code>UnauthorizedOperation</Code>"
	  "</Error></Errors></Response>", PF_OFFERINGS, PF_DENIED, NULL },
	{ "sqs", NULL, 400,
	  "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\"}", PF_QUEUE,
	  PF_ABSENT, NULL },
	{ "sqs", NULL, 400, "{\"__type\":\"AccessDenied\"}", PF_QUEUE,
	  PF_DENIED, NULL },
	{ "sqs", NULL, 200, "{}", PF_QUEUE, -1, "no QueueUrl" },
	{ "sqs", NULL, 400, "{\"__type\":\"KmsAccessDenied\"}", PF_QUEUE, -1,
	  "sqs GetQueueUrl failed" },
	{ "ec2", "Action=DescribeSubnets", -1, NULL, PF_SUBNETS, -1,
	  "connection refused" },
};

START_TEST(test_ask_rows)
{
	struct ask x;
	int r;

	ask_init(&x);
	/* the row's rule first: it wins over the happy path's */
	aws_fake_on(&x.fake, NULL, ask_rows[_i].url, ask_rows[_i].body,
		    ask_rows[_i].status, ask_rows[_i].answer, 0);
	happy_rules(&x.fake);
	r = preflight_ask(&x.a, &x.p, &x.f, &x.err);
	if (ask_rows[_i].want_state < 0) {
		ck_assert_int_eq(r, -1);
		ck_assert_msg(strstr(err_msg(&x.err), ask_rows[_i].msg),
			      "row %d: %s", _i, err_msg(&x.err));
	} else {
		ck_assert_msg(r == 0, "row %d: %s", _i, err_msg(&x.err));
		ck_assert_int_eq(x.f.st[ask_rows[_i].check],
				 ask_rows[_i].want_state);
	}
	ask_release(&x);
}
END_TEST

/* AWS's SigV4 test suite (tests/fixtures/sigv4/v4/<name>/: request.txt,
 * context.json, header-signature.txt), the vectors of the shapes gpuform
 * sends and a few more: aws/sigv4.c must give the same signatures */
static const struct {
	const char *name, *method, *url, *header, *token, *signature;
} sigv4_rows[] = {
	{ "get-vanilla", "GET", "https://example.amazonaws.com/", NULL, NULL,
	  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "post-vanilla", "POST", "https://example.amazonaws.com", NULL, NULL,
	  "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
	{ "post-header-key-sort", "POST", "https://example.amazonaws.com/",
	  "My-Header1:value1", NULL,
	  "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c" },
	{ "post-vanilla-query", "POST",
	  "https://example.amazonaws.com/?Param1=value1", NULL, NULL,
	  "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11" },
	{ "get-vanilla-query-unreserved", "GET",
	  "https://example.amazonaws.com/?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	  "abcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	  "abcdefghijklmnopqrstuvwxyz", NULL, NULL,
	  "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197" },
	/* the session token signed (omit_session_token: false) */
	{ "post-sts-header-before", "POST", "https://example.amazonaws.com/",
	  NULL,
	  "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQ"
	  "WLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcG"
	  "dQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75Y"
	  "U9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBA"
	  "z+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==",
	  "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead" },
};

START_TEST(test_sigv4_vectors)
{
	struct buf lines = BUF_INIT, tok = BUF_INIT, want = BUF_INIT;
	const char *hdr[3] = { NULL, NULL, NULL };
	struct sigv4_req r = { 0 };
	size_t n = 0, at[3];

	if (sigv4_rows[_i].header)
		hdr[n++] = sigv4_rows[_i].header;
	if (sigv4_rows[_i].token) {
		buf_addf(&tok, "X-Amz-Security-Token: %s", sigv4_rows[_i].token);
		hdr[n++] = buf_cstr(&tok);
	}
	r.method = sigv4_rows[_i].method;
	r.url = sigv4_rows[_i].url;
	r.headers = hdr;
	r.region = "us-east-1";
	r.service = "service";
	r.key_id = "AKIDEXAMPLE";
	r.secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
	r.now = 1440938160; /* 2015-08-30T12:36:00Z */
	sigv4_sign(&r, &lines, at);
	ck_assert_str_eq(lines.ptr + at[0], "Host: example.amazonaws.com");
	ck_assert_str_eq(lines.ptr + at[1], "X-Amz-Date: 20150830T123600Z");
	buf_addf(&want, "Signature=%s", sigv4_rows[_i].signature);
	ck_assert_msg(strstr(lines.ptr + at[2], buf_cstr(&want)) != NULL,
		      "%s: %s", sigv4_rows[_i].name, lines.ptr + at[2]);
	ck_assert_ptr_nonnull(strstr(lines.ptr + at[2],
				     "Credential=AKIDEXAMPLE/20150830/us-east-1/"
				     "service/aws4_request, SignedHeaders="));
	buf_release(&lines);
	buf_release(&tok);
	buf_release(&want);
}
END_TEST

/* sign_vector: the signature aws/sigv4.c gives for the vector in dir
 * (request.txt: request line, "Name:value" headers with continuation
 * lines folded in, a blank line, the body; context.json: keys, region,
 * service, time, whether the session token and the body hash are signed),
 * appended to out */
static void sign_vector(const char *dir, struct buf *out)
{
	struct buf req = BUF_INIT, ctx = BUF_INIT, lines = BUF_INIT;
	struct buf url = BUF_INIT, hb = BUF_INIT, tok = BUF_INIT;
	struct sigv4_req r = { 0 };
	struct err e = ERR_INIT;
	const char *hdr[16], *sig;
	size_t nh = 0, at[3], off[16];
	char *path, *body, *line, *save = NULL, *sp;
	cJSON *j, *cred;
	long long secs;
	double frac;

	path = xasprintf("%s/request.txt", dir);
	ck_assert_int_eq(fs_read_file(&req, path, 1 << 16, &e), 0);
	free(path);
	path = xasprintf("%s/context.json", dir);
	ck_assert_int_eq(fs_read_file(&ctx, path, 1 << 16, &e), 0);
	free(path);
	body = strstr(req.ptr, "\n\n");
	if (body) {
		*body = '\0';
		body += 2;
	}
	line = strtok_r(req.ptr, "\n", &save);
	sp = strchr(line, ' ');
	ck_assert_ptr_nonnull(sp);
	*sp = '\0';
	r.method = line;
	*strstr(sp + 1, " HTTP/1.1") = '\0';
	buf_addf(&url, "https://example.amazonaws.com%s", sp + 1);
	while ((line = strtok_r(NULL, "\n", &save))) {
		if ((*line == ' ' || *line == '\t') && hb.len) {
			while (*line == ' ' || *line == '\t')
				line++;
			hb.len--; /* the NUL of the previous line */
			buf_addf(&hb, ",%s", line);
			buf_addc(&hb, '\0');
			continue;
		}
		if (!strncasecmp(line, "Host:", 5))
			continue;
		ck_assert_uint_lt(nh, 12);
		off[nh++] = hb.len;
		buf_adds(&hb, line);
		buf_addc(&hb, '\0');
	}
	j = cJSON_Parse(ctx.ptr);
	cred = cJSON_GetObjectItem(j, "credentials");
	if (cJSON_GetObjectItem(cred, "token") &&
	    !cJSON_IsTrue(cJSON_GetObjectItem(j, "omit_session_token"))) {
		off[nh++] = hb.len;
		buf_addf(&hb, "X-Amz-Security-Token: %s",
			 cJSON_GetObjectItem(cred, "token")->valuestring);
		buf_addc(&hb, '\0');
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(j, "sign_body"))) {
		off[nh++] = hb.len;
		buf_adds(&hb, "X-Amz-Content-Sha256: ");
		digest_sha256_hex(body ? body : "", body ? strlen(body) : 0, &hb);
		buf_addc(&hb, '\0');
	}
	for (size_t i = 0; i < nh; i++)
		hdr[i] = hb.ptr + off[i];
	hdr[nh] = NULL;
	r.url = buf_cstr(&url);
	r.headers = hdr;
	r.body = body;
	r.len = body ? strlen(body) : 0;
	r.region = cJSON_GetObjectItem(j, "region")->valuestring;
	r.service = cJSON_GetObjectItem(j, "service")->valuestring;
	r.key_id = cJSON_GetObjectItem(cred, "access_key_id")->valuestring;
	r.secret = cJSON_GetObjectItem(cred, "secret_access_key")->valuestring;
	ck_assert_int_eq(time_parse_rfc3339(cJSON_GetObjectItem(j, "timestamp")->valuestring,
					    &secs, &frac), 0);
	r.now = secs;
	sigv4_sign(&r, &lines, at);
	sig = strstr(lines.ptr + at[2], "Signature=");
	ck_assert_ptr_nonnull(sig);
	buf_adds(out, sig + 10);
	cJSON_Delete(j);
	buf_release(&req);
	buf_release(&ctx);
	buf_release(&lines);
	buf_release(&url);
	buf_release(&hb);
	buf_release(&tok);
	err_release(&e);
}

/* every vector of tests/fixtures/sigv4/v4 but those known-divergent
 * lists (each with the reason, none a shape aws/aws.c sends) */
START_TEST(test_sigv4_suite)
{
	struct buf known = BUF_INIT, names = BUF_INIT;
	struct err e = ERR_INIT;
	DIR *d = opendir("tests/fixtures/sigv4/v4");
	struct dirent *de;
	int ok = 0, divergent = 0;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(fs_read_file(&known, "tests/fixtures/sigv4/known-divergent",
				      1 << 16, &e), 0);
	while ((de = readdir(d))) {
		struct buf got = BUF_INIT, want = BUF_INIT, key = BUF_INIT;
		char *dir, *p;

		if (de->d_name[0] == '.')
			continue;
		dir = xasprintf("tests/fixtures/sigv4/v4/%s", de->d_name);
		p = xasprintf("%s/header-signature.txt", dir);
		ck_assert_int_eq(fs_read_file(&want, p, 4096, &e), 0);
		while (want.len && (want.ptr[want.len - 1] == '\n' ||
				    want.ptr[want.len - 1] == ' '))
			want.ptr[--want.len] = '\0';
		sign_vector(dir, &got);
		buf_addf(&key, "\n%s\t", de->d_name);
		if (strstr(buf_cstr(&known), buf_cstr(&key))) {
			divergent++;
			/* a vector listed as divergent that matches: take it
			 * off the list */
			if (!strcmp(buf_cstr(&got), buf_cstr(&want)))
				buf_addf(&names, " %s (matches: not divergent)",
					 de->d_name);
		} else if (strcmp(buf_cstr(&got), buf_cstr(&want))) {
			buf_addf(&names, " %s", de->d_name);
		} else {
			ok++;
		}
		buf_release(&got);
		buf_release(&want);
		buf_release(&key);
		free(p);
		free(dir);
	}
	closedir(d);
	ck_assert_msg(!names.len, "SigV4 vectors that differ:%s",
		      buf_cstr(&names));
	ck_assert_int_ge(ok, 25);
	ck_assert_int_ge(divergent, 1);
	buf_release(&known);
	buf_release(&names);
	err_release(&e);
}
END_TEST

/* Host: what the URL names, without user info or the scheme's default
 * port (what libcurl would send; the signature covers it) */
START_TEST(test_sigv4_host)
{
	static const char *const rows[][2] = {
		{ "https://ec2.us-east-1.amazonaws.com", "ec2.us-east-1.amazonaws.com" },
		{ "https://ec2.us-east-1.amazonaws.com:443/", "ec2.us-east-1.amazonaws.com" },
		{ "http://127.0.0.1:8080/", "127.0.0.1:8080" },
		{ "http://u:p@[::1]:80/x", "[::1]" },
		{ "https://h:8443?a=b", "h:8443" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sigv4_req r = { 0 };
		struct buf lines = BUF_INIT;
		size_t at[3];

		r.method = "POST";
		r.url = rows[i][0];
		r.region = "us-east-1";
		r.service = "ec2";
		r.key_id = "AK";
		r.secret = "s";
		sigv4_sign(&r, &lines, at);
		ck_assert_ptr_nonnull(strstr(lines.ptr + at[0], rows[i][1]));
		ck_assert_uint_eq(strlen(lines.ptr + at[0]),
				  strlen("Host: ") + strlen(rows[i][1]));
		ck_assert_ptr_nonnull(strstr(lines.ptr + at[2],
					     "SignedHeaders=host;x-amz-date,"));
		buf_release(&lines);
	}
}
END_TEST

Suite *aws_suite(void)
{
	Suite *s = suite_create("aws");
	TCase *tc = tcase_create("call");
	TCase *tch = tcase_create("chain");
	TCase *ta = tcase_create("ask");
	TCase *tsig = tcase_create("sigv4");

	tcase_add_checked_fixture(tc, clean_env, rm_home);
	tcase_add_test(tc, test_call_ok_and_headers);
	tcase_add_loop_test(tc, test_call_retries, 0,
			    sizeof(retry_rows) / sizeof(retry_rows[0]));
	tcase_add_test(tc, test_call_json_error_and_denied);
	tcase_add_loop_test(tc, test_call_bad_credentials, 0,
			    sizeof(bad_cred_codes) / sizeof(bad_cred_codes[0]));
	tcase_add_test(tc, test_call_transport_failures);
	tcase_add_test(tc, test_endpoint_override);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tch, clean_env, rm_home);
	tcase_add_test(tch, test_chain_environment);
	tcase_add_test(tch, test_chain_region_order);
	tcase_add_test(tch, test_chain_profiles);
	tcase_add_loop_test(tch, test_chain_web_identity, 0,
			    sizeof(sts_rows) / sizeof(sts_rows[0]));
	tcase_add_test(tch, test_chain_profile_web_identity);
	tcase_add_test(tch, test_chain_container);
	tcase_add_loop_test(tch, test_chain_container_failures, 0,
			    sizeof(container_bad) / sizeof(container_bad[0]));
	tcase_add_test(tch, test_chain_imds);
	tcase_add_loop_test(tch, test_chain_imds_failures, 0,
			    sizeof(imds_bad) / sizeof(imds_bad[0]));
	tcase_add_test(tch, test_chain_nothing);
	suite_add_tcase(s, tch);
	tcase_add_checked_fixture(ta, clean_env, rm_home);
	tcase_add_test(ta, test_ask_all_found);
	tcase_add_loop_test(ta, test_ask_rows, 0,
			    sizeof(ask_rows) / sizeof(ask_rows[0]));
	suite_add_tcase(s, ta);
	tcase_add_loop_test(tsig, test_sigv4_vectors, 0,
			    sizeof(sigv4_rows) / sizeof(sigv4_rows[0]));
	tcase_add_test(tsig, test_sigv4_host);
	tcase_add_test(tsig, test_sigv4_suite);
	suite_add_tcase(s, tsig);
	return s;
}
