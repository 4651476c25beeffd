#!/bin/sh
# tests/preflight.sh: `gpuform preflight` against tests/tools/awsfake.py, a
# loopback AWS endpoint that checks every request's SigV4 signature with
# botocore (Debian's python3-botocore) and answers in the services' wire
# formats. Every credential source, session tokens, each check passing
# and failing, AccessDenied, throttling, malformed and truncated answers,
# a timeout, the output formats, and that no secret is ever printed.
#
#   GPUFORM=path/to/gpuform sh tests/preflight.sh
#
# The fake and gpuform only talk to 127.0.0.1; IMDS is disabled or pointed
# at the fake in every run.

# word splitting of $ENVKEYS and $(ok_env) (assignments for env) is
# intended; t_pass and t_fail always succeed, so A && B || C is safe here
# shellcheck disable=SC2086,SC2046,SC2015
set -u

GPUFORM=${GPUFORM:-./gpuform}
case $GPUFORM in
/*) ;;
*/*) GPUFORM=$(pwd)/$GPUFORM ;;
esac
cd "$(dirname "$0")/.." || exit 1
LC_ALL=C
export LC_ALL
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# shellcheck source=tests/lib.sh
. tests/lib.sh
t_tmpdir T
INTENT=tests/preflight/ml-prod.yaml
BASE=tests/preflight/base.json
FAKE_PID=''
P=''

if ! $PY -c 'import botocore.auth' 2>/dev/null; then
	t_fail "python3-botocore is missing (tests/deps.sh installs it)"
	t_summary
	exit 1
fi

stop_fake() {
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
		FAKE_PID=''
	fi
}
t_on_exit stop_fake

# start_fake JQ-FILTER: the base scenario changed by a jq filter
start_fake() {
	stop_fake
	jq "$1" "$BASE" >"$T/sc.json" || return 1
	rm -f "$T/port" "$T/log"
	: >"$T/log"
	$PY tests/tools/awsfake.py "$T/sc.json" "$T/port" "$T/log" 2>"$T/fake.err" &
	FAKE_PID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	P=$(cat "$T/port" 2>/dev/null)
	[ -n "$P" ]
}

# pf ENV... -- ARGS...: gpuform preflight in a clean environment
pf() {
	envs=''
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	# shellcheck disable=SC2086 # word splitting of envs intended
	env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_DISABLED=true \
		$envs "$GPUFORM" preflight "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

ENVKEYS="AWS_ACCESS_KEY_ID=AKIDENVIRONMENT01 AWS_SECRET_ACCESS_KEY=envSECRET/with+chars=="
ok_env() { echo "AWS_ENDPOINT_URL=http://127.0.0.1:$P AWS_REGION=us-west-2"; }

# expect NAME RC [PATTERN-IN-OUT-OR-ERR...]
expect() {
	name=$1 want=$2
	shift 2
	if [ "$rc" -ne "$want" ]; then
		t_fail "$name: exit $rc, want $want" "$(cat "$T/out" "$T/err" "$T/log")"
		return
	fi
	for pat in "$@"; do
		if ! grep -qF -e "$pat" "$T/out" "$T/err"; then
			t_fail "$name: no '$pat'" "$(cat "$T/out" "$T/err")"
			return
		fi
	done
	t_pass "$name"
}

# log_has NAME PATTERN...: the fake's request log has each line
log_has() {
	name=$1
	shift
	for pat in "$@"; do
		if ! grep -qxF -e "$pat" "$T/log"; then
			t_fail "$name: fake log lacks '$pat'" "$(cat "$T/log")"
			return
		fi
	done
	t_pass "$name"
}

no_secrets() {
	for s in envSECRET sessionSECRET SESSIONTOKEN0001 profileSECRET \
		configSECRET WEBIDENTITYJWT webSECRET WEBSESSIONTOKEN PODIDENTITYAUTH \
		containerSECRET CONTAINERSESSION imdsSECRET IMDSSESSIONTOKEN \
		wrongSECRET imds-session-token; do
		if grep -qF "$s" "$T/out" "$T/err"; then
			t_fail "$1: a secret ($s) was printed" "$(cat "$T/out" "$T/err")"
			return
		fi
	done
	t_pass "$1: no secret printed"
}

mkdir -p "$T/home/.aws"

# --- 0. the verifier itself: botocore-signed requests pass, tampered fail
start_fake '.' || t_fail "fake endpoint did not start" "$(cat "$T/fake.err")"
if $PY - "$P" <<'PYEOF' >"$T/py" 2>&1; then
import sys, urllib.request, urllib.error
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
url = "http://127.0.0.1:%s/" % sys.argv[1]
def send(secret, tamper=False, token=None, key="AKIDENVIRONMENT01"):
    body = "Action=DescribeSubnets&Version=2016-11-15&Filter.1.Name=tag%3Akarpenter.sh%2Fdiscovery&Filter.1.Value.1=ml-prod"
    r = AWSRequest("POST", url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(Credentials(key, secret, token), "ec2", "us-west-2").add_auth(r)
    h = dict(r.headers.items())
    if tamper:
        body = body.replace("ml-prod", "ml-dev")
    req = urllib.request.Request(url, data=body.encode(), headers=h, method="POST")
    try:
        return urllib.request.urlopen(req, timeout=5).status, ""
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
s, _ = send("envSECRET/with+chars==")
assert s == 200, s
s, b = send("envSECRET/with+chars==", tamper=True)
assert s == 403 and "SignatureDoesNotMatch" in b, (s, b)
s, b = send("sessionSECRET0001", token="SESSIONTOKEN0001/+=", key="ASIASESSION000001")
assert s == 200, (s, b)
s, b = send("sessionSECRET0001", token="forged", key="ASIASESSION000001")
assert s >= 400 and "InvalidClientTokenId" in b, (s, b)
print("ok")
PYEOF
	t_note "setup: the fake accepts botocore-signed requests, rejects a tampered body and a forged session token"
else
	t_fail "fake: verifier self-test" "$(cat "$T/py")"
fi

# --- 1. everything present: exit 0, every request signed correctly
: >"$T/log"
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "all checks pass (environment credentials)" 0 \
	"1 file, region us-west-2, credentials from environment, 7 requests: 0 errors, 0 warnings"
[ -s "$T/out" ] && t_fail "all pass: findings printed" "$(cat "$T/out")" || t_pass "all pass: no finding"
log_has "each check's action, signed and verified" \
	"ssm GetParameter AKIDENVIRONMENT01 sig-ok" \
	"ec2 DescribeSnapshots AKIDENVIRONMENT01 sig-ok" \
	"ec2 DescribeSecurityGroups AKIDENVIRONMENT01 sig-ok" \
	"ec2 DescribeSubnets AKIDENVIRONMENT01 sig-ok" \
	"ec2 DescribeInstanceTypeOfferings AKIDENVIRONMENT01 sig-ok" \
	"sqs GetQueueUrl AKIDENVIRONMENT01 sig-ok"
[ "$(grep -c 'sig-ok' "$T/log")" -eq 7 ] && t_pass "7 signed requests" ||
	t_fail "7 signed requests" "$(cat "$T/log")"
no_secrets "environment"
cp "$T/log" "$T/log-all"

# --- 1b. reserved capacity: DescribeCapacityReservations by id and by tags
RES=tests/preflight/reserved.yaml
: >"$T/log"
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: the block by id and the shared ones by tags match: exit 0" 0 \
	"8 requests: 0 errors, 0 warnings"
[ "$(grep -c '^ec2 DescribeCapacityReservations AKIDENVIRONMENT01 sig-ok$' "$T/log")" -eq 2 ] &&
	t_pass "reservations: one signed DescribeCapacityReservations per term" ||
	t_fail "reservations: one signed DescribeCapacityReservations per term" "$(cat "$T/log")"
cat "$T/log" >>"$T/log-all"
start_fake '.reservations[0].id = "cr-0ffff000000000000"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: an id EC2 does not know (InvalidCapacityReservationId.NotFound)" 1 \
	"reserved.yaml:30:13: error: capacity reservation cr-0b10c000000000001 does not exist in this account and region (or is not shared with it) [PF007 capacity-reservation]"
start_fake '.reservations[0].state = "expired"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: an expired block, and then it cannot hold the gang" 1 \
	"30:13: error: capacity reservation cr-0b10c000000000001 is expired: Karpenter launches only into active reservations" \
	"28:20: error: workload 'block' needs 2 instances (capacity.instances), but its usable reservations hold 0"
start_fake '.reservations[0].end = "2020-01-01T00:00:00.000Z"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: an end date in the past" 1 \
	"30:13: error: capacity reservation cr-0b10c000000000001 has ended"
start_fake '.reservations[0].type = "p4d.24xlarge" | .reservations[0].zone = "us-west-2c" | .reservations[0].rtype = "default"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: another instance type, a zone without subnets, not a Capacity Block" 1 \
	"30:13: error: capacity reservation cr-0b10c000000000001 is for p4d.24xlarge, which workload 'block' does not launch" \
	"30:13: error: capacity reservation cr-0b10c000000000001 is in us-west-2c, where no discovered subnet is (us-west-2a, us-west-2b)" \
	"27:15: error: capacity reservation cr-0b10c000000000001 is an On-Demand Capacity Reservation, not a Capacity Block"
start_fake '.reservations[0].total = 1'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: a block smaller than the gang" 1 \
	"28:20: error: workload 'block' needs 2 instances (capacity.instances), but its usable reservations hold 1"
start_fake '.reservations[1].owner = "777788889999"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: the tags match only another owner's reservation (owner-id filter)" 1 \
	"38:13: error: no active or scheduled capacity reservation carries the tags team=chat (owner 444455556666)"
start_fake '.reservations[1].state = "cancelled"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: tags match only cancelled and expired ones (state filter)" 1 \
	"38:13: error: no active or scheduled capacity reservation carries the tags team=chat"
start_fake '.page_size = 1 | .reservations[2].state = "scheduled"'
: >"$T/log"
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: paged answers (nextToken) are followed" 0 "0 errors, 0 warnings"
[ "$(grep -c '^ec2 DescribeCapacityReservations' "$T/log")" -eq 3 ] &&
	t_pass "reservations: 3 requests for 2 terms with 2 pages" ||
	t_fail "reservations: 3 requests for 2 terms with 2 pages" "$(cat "$T/log")"
start_fake '.deny = ["DescribeCapacityReservations"]'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: AccessDenied is a warning naming the permission, at each reserved workload" 0 \
	"27:9: warning: could not check the capacity reservations: needs ec2:DescribeCapacityReservations [PF000 not-checked]" \
	"37:9: warning: could not check the capacity reservations: needs ec2:DescribeCapacityReservations"
start_fake '.malformed = {"DescribeCapacityReservations": "truncated"}'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: a truncated answer: exit 4 naming the action" 4 \
	"cannot check: ec2 DescribeCapacityReservations: malformed XML answer"
start_fake '.malformed = {"DescribeCapacityReservations": "noset"}'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$RES"
expect "reservations: an answer without capacityReservationSet: exit 4" 4 \
	"ec2 DescribeCapacityReservations: malformed answer (no capacityReservationSet)"
start_fake '.'

# session token (temporary credentials)
pf AWS_ACCESS_KEY_ID=ASIASESSION000001 AWS_SECRET_ACCESS_KEY=sessionSECRET0001 \
	AWS_SESSION_TOKEN=SESSIONTOKEN0001/+= "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "session token: signed with X-Amz-Security-Token" 0 "0 errors"
no_secrets "session token"
pf AWS_ACCESS_KEY_ID=ASIASESSION000001 AWS_SECRET_ACCESS_KEY=sessionSECRET0001 \
	"$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "session key without its token: rejected, exit 4" 4 "rejected the credentials from environment: InvalidClientTokenId"
: >"$T/log"
env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_DISABLED=true AWS_ACCESS_KEY_ID=ASIASESSION000001 \
	AWS_SECRET_ACCESS_KEY=sessionSECRET0001 "AWS_SESSION_TOKEN=SESSIONTOKEN0001/+=
X-Injected: 1" $(ok_env) "$GPUFORM" preflight "$INTENT" >"$T/out" 2>"$T/err"
rc=$?
expect "a session token with a line break: refused before any request, exit 4" 4 \
	"the credentials from environment contain a control character"
[ -s "$T/log" ] && t_fail "token with a line break: a request was sent" "$(cat "$T/log")"
no_secrets "session token with a line break"
pf AWS_ACCESS_KEY_ID=AKIDENVIRONMENT01 AWS_SECRET_ACCESS_KEY=wrongSECRET \
	"$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "wrong secret: rejected as AWS does (SSM: InvalidSignatureException), exit 4" 4 \
	"rejected the credentials from environment: InvalidSignatureException: The request signature we calculated does not match"
log_has "wrong secret: the fake saw a bad signature" "ssm GetParameter AKIDENVIRONMENT01 sig-bad:SignatureDoesNotMatch"
no_secrets "wrong secret"

# --- 2. shared files and AWS_PROFILE
cat >"$T/home/.aws/credentials" <<'CRED'
[default]
aws_access_key_id = AKIDBROKEN0000001
aws_secret_access_key = brokenSECRET

[ci]
aws_access_key_id = AKIDPROFILECI0001
aws_secret_access_key = profileSECRETci
CRED
cat >"$T/home/.aws/config" <<'CONF'
[default]
region = eu-west-1

[profile ci]
region = us-west-2
CONF
pf AWS_PROFILE=ci "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- --kubernetes-version 1.32 "$INTENT"
expect "AWS_PROFILE=ci: keys from credentials, region from config" 0 "region us-west-2, credentials from profile 'ci'"
log_has "profile keys signed" "sqs GetQueueUrl AKIDPROFILECI0001 sig-ok"
no_secrets "profile"
pf $ENVKEYS AWS_PROFILE=ci "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- --kubernetes-version 1.32 "$INTENT"
expect "environment keys win over the profile" 0 "credentials from environment"
pf AWS_PROFILE=nosuch "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- "$INTENT"
expect "AWS_PROFILE naming a missing profile: exit 4" 4 "AWS_PROFILE names profile 'nosuch'"
pf "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- --region us-west-2 --kubernetes-version 1.32 "$INTENT"
expect "default profile, --region over the profile's region" 4 "rejected the credentials from profile 'default': InvalidClientTokenId"
cat >"$T/home/.aws/config2" <<'CONF'
[default]
region = us-west-2
aws_access_key_id = AKIDCONFIGDEF0001
aws_secret_access_key = configSECRETdefault
CONF
pf AWS_CONFIG_FILE="$T/home/.aws/config2" AWS_SHARED_CREDENTIALS_FILE="$T/none" \
	"AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- --kubernetes-version 1.32 "$INTENT"
expect "keys in the config file (AWS_CONFIG_FILE), region from it" 0 "region us-west-2, credentials from profile 'default'"
rm -f "$T/home/.aws/credentials" "$T/home/.aws/config"

# --- 3. web identity (IRSA)
printf 'eyJ.WEBIDENTITYJWT.sig\n' >"$T/wi-token"
pf AWS_WEB_IDENTITY_TOKEN_FILE="$T/wi-token" AWS_ROLE_ARN=arn:aws:iam::111122223333:role/gpuform \
	"$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "web identity: STS AssumeRoleWithWebIdentity, then signed with its session" 0 "credentials from web identity"
log_has "web identity requests" "sts AssumeRoleWithWebIdentity - token-ok" \
	"ec2 DescribeSubnets ASIAWEBIDENTITY01 sig-ok"
no_secrets "web identity"
printf 'eyJ.OTHER.sig\n' >"$T/wi-bad"
pf AWS_WEB_IDENTITY_TOKEN_FILE="$T/wi-bad" AWS_ROLE_ARN=arn:aws:iam::111122223333:role/gpuform \
	"$(ok_env)" -- "$INTENT"
expect "web identity refused: exit 4 with STS's code" 4 "InvalidIdentityToken"
pf AWS_WEB_IDENTITY_TOKEN_FILE="$T/missing" AWS_ROLE_ARN=arn:aws:iam::111122223333:role/gpuform \
	"$(ok_env)" -- "$INTENT"
expect "web identity token file missing: exit 4" 4 "web identity token file"

# --- 4. container credentials (EKS Pod Identity)
printf 'PODIDENTITYAUTH01' >"$T/pod-token"
pf AWS_CONTAINER_CREDENTIALS_FULL_URI="http://127.0.0.1:$P/container-creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$T/pod-token" "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "Pod Identity: container credentials with the token file" 0 "credentials from container credentials"
log_has "container requests" "container creds - auth-ok" "sqs GetQueueUrl ASIACONTAINER0001 sig-ok"
no_secrets "container"
printf 'WRONG' >"$T/pod-bad"
pf AWS_CONTAINER_CREDENTIALS_FULL_URI="http://127.0.0.1:$P/container-creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$T/pod-bad" "$(ok_env)" -- "$INTENT"
expect "Pod Identity with a wrong token: exit 4" 4 "container credentials endpoint" "HTTP 401"

pf AWS_CONTAINER_CREDENTIALS_FULL_URI="http://127.0.0.1:$P/container-creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN=PODIDENTITYAUTH01 "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "container credentials with AWS_CONTAINER_AUTHORIZATION_TOKEN" 0 "credentials from container credentials"
pf AWS_CONTAINER_CREDENTIALS_FULL_URI="http://192.0.2.1/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN=PODIDENTITYAUTH01 "$(ok_env)" -- "$INTENT"
expect "container credentials over plain http to another host: refused (the token would leak)" 4 \
	"AWS_CONTAINER_CREDENTIALS_FULL_URI must be https://"
no_secrets "container token in the environment"

# web identity from a profile (role_arn + web_identity_token_file)
printf '[profile irsa]\nregion = us-west-2\nrole_arn = arn:aws:iam::111122223333:role/gpuform\nweb_identity_token_file = %s\n' \
	"$T/wi-token" >"$T/home/.aws/config"
pf AWS_PROFILE=irsa "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- --kubernetes-version 1.32 "$INTENT"
expect "profile with role_arn + web_identity_token_file" 0 "credentials from profile 'irsa' (web identity)"
printf '[profile sso]\nregion = us-west-2\nsso_session = corp\n' >"$T/home/.aws/config"
pf AWS_PROFILE=sso "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- "$INTENT"
expect "an SSO profile: exit 4, says how to export credentials" 4 "aws configure export-credentials"
rm -f "$T/home/.aws/config"

# --- 5. IMDSv2 (credentials and region)
env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$P" \
	AWS_ENDPOINT_URL="http://127.0.0.1:$P" "$GPUFORM" preflight --kubernetes-version 1.32 "$INTENT" >"$T/out" 2>"$T/err"
rc=$?
expect "IMDSv2: token, role, credentials and region" 0 "region us-west-2, credentials from instance role (IMDSv2)"
log_has "IMDSv2 requests" "imds token - unsigned" "imds iam/security-credentials/ - unsigned" \
	"imds placement/region - unsigned" "ec2 DescribeSnapshots ASIAIMDSROLE00001 sig-ok"
no_secrets "IMDS"

# --- 6. nothing found
pf -- "$INTENT"
expect "no credentials anywhere: exit 4, says what was tried" 4 "no AWS credentials: tried the environment"
pf $ENVKEYS "AWS_ENDPOINT_URL=http://127.0.0.1:$P" -- "$INTENT"
expect "no region: exit 4" 4 "no AWS region"

# --- 7. endpoints: AWS_ENDPOINT_URL_<SERVICE> over AWS_ENDPOINT_URL
pf $ENVKEYS AWS_REGION=us-west-2 AWS_ENDPOINT_URL=http://127.0.0.1:9 \
	"AWS_ENDPOINT_URL_EC2=http://127.0.0.1:$P" "AWS_ENDPOINT_URL_SSM=http://127.0.0.1:$P" \
	"AWS_ENDPOINT_URL_SQS=http://127.0.0.1:$P" -- --kubernetes-version 1.32 "$INTENT"
expect "AWS_ENDPOINT_URL_EC2/SSM/SQS win over AWS_ENDPOINT_URL" 0 "0 errors"
pf $ENVKEYS AWS_REGION=us-west-2 AWS_ENDPOINT_URL=http://127.0.0.1:9 -- "$INTENT"
expect "an endpoint that refuses connections: exit 4 naming it" 4 "http://127.0.0.1:9"

# --- 7b. signed requests never in clear to another host, never through a proxy to loopback
# (issue 21 item 9): a loopback sink stands in for http_proxy and records what arrives
mkdir -p "$T/sink"
$PY tests/tools/httpsink.py "$T/sink" 2>/dev/null &
SINK_PID=$!
t_on_exit "kill $SINK_PID 2>/dev/null"
i=0
while [ ! -s "$T/sink/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
SINK=http://127.0.0.1:$(cat "$T/sink/port" 2>/dev/null)
curl -s --noproxy '' -x "$SINK" -o /dev/null http://ec2.example.invalid/ || true
if [ -s "$T/sink/requests" ]; then t_note "setup: a loopback sink answering as a proxy"; else
	t_abort "the sink answers as a proxy (curl -x $SINK)"; fi
: >"$T/sink/requests"; : >"$T/sink/headers"
pf $ENVKEYS AWS_SESSION_TOKEN=SESSIONTOKEN0001 AWS_REGION=us-west-2 \
	AWS_ENDPOINT_URL=http://ec2.example.invalid http_proxy="$SINK" HTTP_PROXY="$SINK" -- "$INTENT"
expect "aws_signature_never_in_clear_to_non_loopback_endpoint: AWS_ENDPOINT_URL=http://<not loopback> refused" 4 \
	"endpoint 'http://ec2.example.invalid'" "is not https://"
if [ -s "$T/sink/headers" ]; then t_fail "  ... and nothing was sent (the proxy saw a request)" "$(cat "$T/sink/headers")"
else t_pass "  ... and nothing was sent (the proxy saw no request)"; fi
no_secrets "plain http endpoint"
pf AWS_WEB_IDENTITY_TOKEN_FILE="$T/wi-token" AWS_ROLE_ARN=arn:aws:iam::111122223333:role/gpuform \
	AWS_REGION=us-west-2 AWS_ENDPOINT_URL_STS=http://sts.example.invalid http_proxy="$SINK" -- "$INTENT"
expect "  ... nor the web identity token to STS over plain http" 4 "the sts endpoint 'http://sts.example.invalid'"
pf $ENVKEYS "$(ok_env)" http_proxy="$SINK" HTTP_PROXY="$SINK" \
	ALL_PROXY="$SINK" -- --kubernetes-version 1.32 "$INTENT"
expect "aws_loopback_endpoint_never_through_http_proxy: signed requests to a loopback endpoint go straight to it" 0 "0 errors"
if [ -s "$T/sink/requests" ]; then t_fail "  ... the proxy saw none of them" "$(cat "$T/sink/headers")"
else t_pass "  ... the proxy saw none of them"; fi
kill "$SINK_PID" 2>/dev/null

# --- 8. each check failing
start_fake '.params = {} | .snapshots["snap-0123456789abcdef0"] = {"status": "pending", "size": 250}
	| .sgs[0].out_self = false | .offerings = [["p5.48xlarge", "us-west-2c"]] | .queues = []'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
cat >"$T/want" <<'WANT'
tests/preflight/ml-prod.yaml:9:8: error: AMI release bottlerocket@v1.38.0 has no NVIDIA x86_64 image for Kubernetes 1.32: SSM parameter /aws/service/bottlerocket/aws-k8s-1.32-nvidia/x86_64/1.38.0/image_id does not exist [PF001 ami-release-missing]
tests/preflight/ml-prod.yaml:12:17: error: image-cache snapshot snap-0123456789abcdef0 is pending, not completed [PF002 image-cache-snapshot]
tests/preflight/ml-prod.yaml:13:11: error: image-cache snapshot snap-0123456789abcdef0 is 250 GiB, larger than the volume (200Gi = 200 GiB): set imageCache.size to at least 250Gi [PF002 image-cache-snapshot]
tests/preflight/ml-prod.yaml:16:23: error: EFA security group sg-0123456789abcdef0 does not allow all traffic to itself (EFA needs all-traffic rules from and to the group itself, inbound and outbound; outbound 0.0.0.0/0 is not enough) [PF003 efa-security-group]
WANT
expect "failing checks: exit 1" 1
grep -c 'PF005' "$T/out" | grep -qx 2 && t_pass "PF005 for both GPU pools (offered only outside the subnets' zones)" ||
	t_fail "PF005 for both pools" "$(cat "$T/out")"
# issue 23 item 12: the type and the zones where it is offered
grep -qF "error: workload 'llm-pretrain': none of its 1 instance type (p5.48xlarge) is offered in the zones of the discovered subnets (us-west-2a, us-west-2b); offered in us-west-2c [PF005" "$T/out" &&
	t_pass "PF005 names the type and the zone where it is offered" ||
	t_fail "PF005 names the type and the zone where it is offered" "$(cat "$T/out")"
grep -qF "error: workload 'chat-serving': none of its 25 instance types (g6.xlarge, g6.2xlarge, g6.4xlarge, g6.8xlarge and 21 more) is offered in the zones of the discovered subnets (us-west-2a, us-west-2b); offered in us-west-2c [PF005" "$T/out" &&
	t_pass "PF005 with many types names the first four" ||
	t_fail "PF005 with many types names the first four" "$(cat "$T/out")"
grep -q "^tests/preflight/ml-prod.yaml:6:9: error: Karpenter's interruption queue 'ml-prod' does not exist" "$T/out" &&
	t_pass "PF006 at metadata.name" || t_fail "PF006" "$(cat "$T/out")"
if grep -v 'PF00[56]' "$T/out" | diff -u "$T/want" - >"$T/diff"; then
	t_pass "PF001-PF003 exact findings at the intent's line:column"
else
	t_fail "PF001-PF003 exact findings" "$(cat "$T/diff")"
fi
start_fake '.offerings = []'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "PF005 with no offering in the region says so" 1 \
	"error: workload 'llm-pretrain': none of its 1 instance type (p5.48xlarge) is offered in the zones of the discovered subnets (us-west-2a, us-west-2b); offered in no zone of the region [PF005"
start_fake '.snapshots = {} | .sgs = [] | .subnets = []'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "missing snapshot, security group, discovery-tagged subnets and SGs" 1 \
	"12:17: error: image-cache snapshot snap-0123456789abcdef0 does not exist" \
	"16:23: error: EFA security group sg-0123456789abcdef0 does not exist" \
	"10:14: error: no subnet carries the tag karpenter.sh/discovery=ml-prod" \
	"10:14: error: no security group carries the tag karpenter.sh/discovery=ml-prod"
start_fake '.sgs[0].in_self = false | .sgs[0].out_self = false | .sgs[0].out_cidr = "0.0.0.0/0"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "EFA group without self rules (outbound 0.0.0.0/0 is not one)" 1 \
	"does not allow all traffic to and from itself"
# issue 23 item 11: inbound from itself, outbound only 0.0.0.0/0 (the
# default egress): EFA's setup adds an outbound rule to the group itself
start_fake '.sgs[0].out_self = false | .sgs[0].out_cidr = "0.0.0.0/0"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "EFA group with the default 0.0.0.0/0 egress but no outbound self rule" 1 \
	"does not allow all traffic to itself"

# issue 23 item 13: placement.zone where no discovered subnet is (PF100)
sed 's/^      efa: true$/      efa: true\n      placement: {zone: us-west-2c}/' "$INTENT" >"$T/zone.yaml"
start_fake '.'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$T/zone.yaml"
expect "placement.zone without a discovered subnet: PF100" 1 \
	"zone.yaml:30:25: error: workload 'llm-pretrain' is pinned to zone us-west-2c, but no discovered subnet is there (subnets in us-west-2a, us-west-2b): Karpenter never launches its nodes [PF100 zone-without-subnet]"
sed 's/^      efa: true$/      efa: true\n      placement: {zone: us-west-2a}/' "$INTENT" >"$T/zone.yaml"
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$T/zone.yaml"
expect "placement.zone with a discovered subnet: no PF100" 0 "0 errors"

# --- 9. AccessDenied: warnings naming the permission, never intent errors
start_fake '.deny = ["GetParameter", "DescribeSnapshots", "DescribeSecurityGroups", "DescribeSubnets", "GetQueueUrl"]'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "AccessDenied everywhere: exit 0, warnings only" 0 \
	"9:8: warning: could not check the AMI release: needs ssm:GetParameter [PF000 not-checked]" \
	"12:17: warning: could not check the image-cache snapshot: needs ec2:DescribeSnapshots" \
	"16:23: warning: could not check the EFA security group: needs ec2:DescribeSecurityGroups" \
	"10:14: warning: could not check the discovery-tagged subnets: needs ec2:DescribeSubnets" \
	"10:14: warning: could not check the instance type offerings: needs ec2:DescribeSubnets (for the subnets' zones)" \
	"6:9: warning: could not check the interruption queue: needs sqs:GetQueueUrl"
start_fake '.deny = ["DescribeInstanceTypeOfferings"]'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "AccessDenied on DescribeInstanceTypeOfferings" 0 \
	"could not check the instance type offerings: needs ec2:DescribeInstanceTypeOfferings"
# a hostile endpoint's message with terminal escapes (set the title, clear the screen, a
# fake line of output): printed with its control characters escaped, never raw
start_fake '.deny = ["GetParameter"] | .deny_code = "InternalFailure" | .deny_message = "\u001b]0;pwned\u0007\u001b[2J\r\nall checks passed\u009b"'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "aws_error_text_escaped: a server message with terminal escapes is printed escaped" 4 \
	'\x1b]0;pwned\x07\x1b[2J\r\nall checks passed'
if LC_ALL=C grep -q "$(printf '\033')" "$T/out" "$T/err" || grep -q '^all checks passed' "$T/out" "$T/err"; then
	t_fail "  ... no raw ESC byte, no line of its own" "$(od -c "$T/err" | head -20)"
else t_pass "  ... no raw ESC byte, no line of its own"; fi

# --- 10. throttling: retried with backoff, then success; bounded
start_fake '.throttle = {"DescribeSubnets": 2, "GetParameter": 1, "GetQueueUrl": 2}'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "throttled (EC2 RequestLimitExceeded, SSM/SQS ThrottlingException), then success" 0 "0 errors" "12 requests"
[ "$(grep -c '^ec2 DescribeSubnets' "$T/log")" -eq 3 ] && t_pass "DescribeSubnets: 2 throttled + 1 answered" ||
	t_fail "DescribeSubnets retries" "$(cat "$T/log")"
start_fake '.throttle = {"DescribeSnapshots": 99}'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "throttled forever: exit 4 after bounded retries" 4 "ec2 DescribeSnapshots failed: HTTP 503: RequestLimitExceeded"
[ "$(grep -c '^ec2 DescribeSnapshots' "$T/log")" -eq 5 ] && t_pass "5 attempts, no more" ||
	t_fail "bounded retries" "$(cat "$T/log")"

# --- 11. malformed and truncated answers: exit 4, never a finding
for m in "DescribeSnapshots garbage" "DescribeSnapshots truncated" "DescribeSubnets truncated" \
	"DescribeSubnets noset" "DescribeInstanceTypeOfferings noset" "GetParameter garbage" \
	"GetQueueUrl truncated" "DescribeSecurityGroups garbage"; do
	set -- $m
	start_fake ".malformed = {\"$1\": \"$2\"}"
	pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
	expect "$2 answer to $1: exit 4" 4 "cannot check"
	[ -s "$T/out" ] && t_fail "$2 $1: findings printed" "$(cat "$T/out")"
done

# --- 12. a timeout: exit 4 naming the endpoint
start_fake '.delay = {"DescribeSnapshots": 4}'
pf $ENVKEYS "$(ok_env)" -- --timeout 1 --kubernetes-version 1.32 "$INTENT"
expect "an endpoint that does not answer in time: exit 4 naming it" 4 \
	"ec2 did not answer within 1000 ms (endpoint http://127.0.0.1:$P)"

# --- 13. paginated lists
start_fake '.page_size = 1 | .subnets += [{"id": "subnet-0ddd", "zone": "us-west-2d", "tags": {"karpenter.sh/discovery": "ml-prod"}}] | .offerings = [["p5.48xlarge", "us-west-2d"], ["g6.xlarge", "us-west-2d"]]'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "nextToken pages followed (zone of the third subnet page)" 0 "0 errors"

# a request body over 1 KiB (2.5 KB: 40 zones in the location filter) is
# signed correctly too
start_fake '.subnets += [range(40) | {"id": "subnet-x\(.)", "zone": "us-west-2-lax-1-zone\(.)", "tags": {"karpenter.sh/discovery": "ml-prod"}}]'
pf $ENVKEYS "$(ok_env)" -- --kubernetes-version 1.32 "$INTENT"
expect "a 2.5 KB request body is signed correctly" 0 "0 errors"
log_has "large body verified" "ec2 DescribeInstanceTypeOfferings AKIDENVIRONMENT01 sig-ok"

# --- 14. formats, inputs, exit codes
start_fake '.queues = []'
pf $ENVKEYS "$(ok_env)" -- -o json --kubernetes-version 1.32 "$INTENT"
if [ $rc -eq 1 ] && jq -e '.errors == 1 and .findings[0].rule == "PF006" and .findings[0].line == 6 and .region == "us-west-2"' "$T/out" >/dev/null; then
	t_pass "-o json"
else
	t_fail "-o json: exit $rc" "$(cat "$T/out" "$T/err")"
fi
pf $ENVKEYS "$(ok_env)" -- -o sarif --kubernetes-version 1.32 "$INTENT"
if [ $rc -eq 1 ] && $PY - tests/fixtures/sarif/sarif-schema-2.1.0.json "$T/out" <<'PYEOF' >"$T/py" 2>&1; then
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)
root = dict(schema, **{"$ref": "#/definitions/Root"})
errs = list(cls(root).iter_errors(log))
assert not errs, errs[:3]
r = log["runs"][0]["results"]
assert len(r) == 1 and r[0]["ruleId"] == "PF006", r
PYEOF
	t_pass "-o sarif validates against the SARIF 2.1.0 schema"
else
	t_fail "-o sarif: exit $rc" "$(cat "$T/py" "$T/err")"
fi
pf $ENVKEYS "$(ok_env)" -- "$INTENT"
expect "no --kubernetes-version: AMI not checked (warning), the rest checked" 1 \
	"9:8: warning: could not check the AMI release bottlerocket@v1.38.0: give --kubernetes-version"
: >"$T/log"
printf 'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata:\n  name: x\nspec:\n  ami: al2023@v1\n  workloads: 3\n' >"$T/bad.yaml"
pf $ENVKEYS "$(ok_env)" -- "$T/bad.yaml"
expect "invalid intent: exit 3" 3
[ -s "$T/log" ] && t_fail "invalid intent: AWS was asked" "$(cat "$T/log")" || t_pass "invalid intent: nothing asked"
pf -- --output yaml "$INTENT"
expect "unknown format: exit 2" 2 "unknown output format 'yaml' (text, json or sarif)"
pf -- --kubernetes-version 1.x "$INTENT"
expect "bad --kubernetes-version: exit 2" 2 "MAJOR.MINOR"
pf -- --help
expect "--help" 0 "--kubernetes-version X.Y" "4 cannot check"

# --- 15. the IAM policy: exactly the actions the checks used
pf -- --iam-policy
sed -n 's/^\([a-z0-9]*\) \([A-Za-z]*\) .*/\1:\2/p' "$T/log-all" | sort -u >"$T/used"
if [ $rc -eq 0 ] && jq -r '.Statement[].Action[]' "$T/out" | sort -u | diff -u "$T/used" - >"$T/diff"; then
	t_pass "--iam-policy allows exactly the actions preflight uses"
else
	t_fail "--iam-policy: exit $rc" "$(cat "$T/diff" "$T/out")"
fi
jq -c . "$T/out" >"$T/policy"
"$GPUFORM" install --git https://example.com/r.git --cluster ml-prod --aws-iam-policy -o json >"$T/inst" 2>"$T/err"
if jq -c 'if type == "array" then .[] elif .items then .items[] else . end | select(.kind == "ConfigMap" and .metadata.name == "gpuform-aws-iam-policy") | .data["policy.json"] | fromjson' "$T/inst" 2>/dev/null | diff -u "$T/policy" - >"$T/diff"; then
	t_pass "install --aws-iam-policy adds ConfigMap gpuform-aws-iam-policy with that document"
else
	t_fail "install --aws-iam-policy" "$(cat "$T/diff" "$T/err"; head -c 600 "$T/inst")"
fi
"$GPUFORM" install --git https://example.com/r.git --cluster ml-prod -o json >"$T/inst" 2>"$T/err"
grep -q gpuform-aws-iam-policy "$T/inst" && t_fail "install without --aws-iam-policy has the policy" ||
	t_pass "install without --aws-iam-policy: no policy"

# --- 16. reconcile --preflight: the version from the cluster, a gate before applying
cat >"$T/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: http://127.0.0.1:PORT
users:
- name: u
  user:
    token: kube-token-0001
contexts:
- name: fake
  context: {cluster: fake, user: u}
current-context: fake
KC
start_fake '.kube_version = "1.32" | .queues = []'
sed -i "s/PORT/$P/" "$T/kubeconfig"
env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_DISABLED=true $ENVKEYS $(ok_env) \
	"$GPUFORM" reconcile --preflight --kubeconfig "$T/kubeconfig" --insecure-loopback-http --timeout 20s "$INTENT" >"$T/out" 2>"$T/err"
rc=$?
expect "reconcile --preflight: an error finding stops it before anything is applied (exit 3)" 3 \
	"6:9: error: Karpenter's interruption queue 'ml-prod' does not exist" \
	"gpuform reconcile: preflight (Kubernetes 1.32, region us-west-2, credentials from environment): 1 error, 0 warnings" \
	"preflight found errors; nothing applied"
log_has "reconcile --preflight asked the cluster's version, then AWS (SSM path for 1.32)" \
	"kube version - Bearer" "ssm GetParameter AKIDENVIRONMENT01 sig-ok"
grep -q '^kube /api' "$T/log" && t_fail "reconcile --preflight: talked to the API beyond /version" "$(cat "$T/log")" ||
	t_pass "reconcile --preflight: no API request beyond /version"
start_fake '.kube_version = "1.32"'
sed -i "s|http://127.0.0.1:[0-9]*|http://127.0.0.1:$P|" "$T/kubeconfig"
env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_DISABLED=true $ENVKEYS $(ok_env) \
	"$GPUFORM" reconcile --preflight --kubeconfig "$T/kubeconfig" --insecure-loopback-http --timeout 5s "$INTENT" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 3 ] && grep -qF "preflight (Kubernetes 1.32, region us-west-2, credentials from environment): 0 errors" "$T/err" &&
	grep -q '^kube /api' "$T/log"; then
	t_pass "reconcile --preflight: a clean preflight goes on to reconcile (the fake API then fails it)"
else
	t_fail "reconcile --preflight clean: exit $rc" "$(cat "$T/err" "$T/log")"
fi
start_fake '.kube_version = "1.31"'
sed -i "s|http://127.0.0.1:[0-9]*|http://127.0.0.1:$P|" "$T/kubeconfig"
pf $ENVKEYS "$(ok_env)" -- --kubeconfig "$T/kubeconfig" --insecure-loopback-http "$INTENT"
expect "preflight --kubeconfig: the Kubernetes version from the cluster (1.31 has no such release here)" 1 \
	"has no NVIDIA x86_64 image for Kubernetes 1.31: SSM parameter /aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/1.38.0/image_id does not exist"
pf $ENVKEYS "$(ok_env)" -- --kubeconfig "$T/kubeconfig" --insecure-loopback-http --kubernetes-version 1.32 "$INTENT"
expect "--kubernetes-version wins over the cluster's" 0 "0 errors"
pf $ENVKEYS "$(ok_env)" -- --kubeconfig "$T/kubeconfig" "$INTENT"
expect "preflight --kubeconfig to a plain http:// server with a token, without --insecure-loopback-http: refused, exit 4" 4 \
	"refusing to send them in clear"
pf $ENVKEYS "$(ok_env)" -- --kubeconfig "$T/nokubeconfig" "$INTENT"
expect "preflight --kubeconfig that cannot be read: exit 4" 4 "cannot read the cluster's Kubernetes version"
"$GPUFORM" reconcile --preflight --git https://example.com/r.git --path clusters/x >"$T/out" 2>"$T/err"
rc=$?
expect "reconcile --preflight with --git but no --preflight-intent: usage error" 2 \
	"--preflight with --git needs --preflight-intent PATH"
"$GPUFORM" reconcile --preflight-intent specs/x.yaml --git https://example.com/r.git --cluster x >"$T/out" 2>"$T/err"
rc=$?
expect "reconcile --preflight-intent without --preflight: usage error" 2 \
	"--preflight-intent goes with --git and --preflight"
"$GPUFORM" reconcile --preflight --preflight-intent specs/x.yaml "$INTENT" >"$T/out" 2>"$T/err"
rc=$?
expect "reconcile --preflight-intent without --git: usage error" 2 \
	"--preflight-intent goes with --git and --preflight"

# --- 16b. reconcile --git --preflight: the intent file of the same commit
# (the in-cluster job: Git holds rendered manifests, which carry no intent)
R=$T/repo
mkdir -p "$R/specs"
cp "$INTENT" "$R/specs/ml-prod.yaml"
sed 's/^  name: ml-prod$/  name: other/' "$INTENT" >"$R/specs/other.yaml"
"$GPUFORM" render --output-dir "$R/clusters/ml-prod" "$R/specs/ml-prod.yaml" >/dev/null 2>&1
git -C "$R" init -q -b main && git -C "$R" add -A &&
	git -C "$R" -c user.name=t -c user.email=t@example.com commit -q -m one ||
	t_fail "16b: setting up the repository"
rgit() { # ARGS...: reconcile --git of $R for ml-prod against the fake
	# libgit2's PCRE2 leak: tests/git-servers/lsan.supp (as tests/git.sh)
	env -i PATH="$PATH" HOME="$T/home" AWS_EC2_METADATA_DISABLED=true $ENVKEYS $(ok_env) \
		LSAN_OPTIONS="suppressions=$(pwd)/tests/git-servers/lsan.supp" \
		"$GPUFORM" reconcile --git "$R" --cluster ml-prod --git-cache "$T/gitcache" \
		--kubeconfig "$T/kubeconfig" --insecure-loopback-http --timeout 5s "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
start_fake '.kube_version = "1.32" | .queues = []'
sed -i "s|http://127.0.0.1:[0-9]*|http://127.0.0.1:$P|" "$T/kubeconfig"
rgit --preflight --preflight-intent specs/ml-prod.yaml
expect "reconcile --git --preflight: the intent of the commit is checked; an error stops it (exit 3)" 3 \
	"specs/ml-prod.yaml:6:9: error: Karpenter's interruption queue 'ml-prod' does not exist" \
	"preflight found errors; nothing applied"
grep -q '^kube /api' "$T/log" && t_fail "reconcile --git --preflight: talked to the API beyond /version" "$(cat "$T/log")" ||
	t_pass "reconcile --git --preflight: no API request beyond /version before the findings"
start_fake '.kube_version = "1.32"'
sed -i "s|http://127.0.0.1:[0-9]*|http://127.0.0.1:$P|" "$T/kubeconfig"
rgit --preflight --preflight-intent ./specs/ml-prod.yaml
if [ $rc -ne 0 ] && [ $rc -ne 3 ] && grep -qF "preflight (Kubernetes 1.32, region us-west-2, credentials from environment): 0 errors" "$T/err" &&
	grep -q '^kube /api' "$T/log"; then
	t_pass "reconcile --git --preflight: a clean preflight goes on to reconcile (the fake API then fails it)"
else
	t_fail "reconcile --git --preflight clean: exit $rc" "$(cat "$T/err" "$T/log")"
fi
rgit --preflight --preflight-intent specs/nope.yaml
expect "reconcile --git --preflight-intent naming no file of the commit: exit 4, nothing asked" 4 \
	"has no intent file 'specs/nope.yaml' (--preflight-intent)"
rgit --preflight --preflight-intent specs/other.yaml
expect "reconcile --git --preflight-intent naming another cluster's intent: exit 3" 3 \
	"specs/other.yaml:6:9: error: this intent describes cluster 'other', not 'ml-prod' (the cluster being reconciled)"
"$GPUFORM" install --git https://example.com/r.git --cluster ml-prod --preflight-intent specs/ml-prod.yaml -o json >"$T/inst" 2>"$T/err"
if jq -e '[.. | objects | select(.kind? == "CronJob")][0].spec.jobTemplate.spec.template.spec.containers[0].args |
	index(["--preflight", "--preflight-intent", "specs/ml-prod.yaml"])' "$T/inst" >/dev/null 2>&1; then
	t_pass "install --preflight-intent: the CronJob runs reconcile --preflight --preflight-intent PATH"
else
	t_fail "install --preflight-intent" "$(cat "$T/err"; head -c 800 "$T/inst")"
fi
"$GPUFORM" install --git https://example.com/r.git --cluster ml-prod -o json >"$T/inst" 2>"$T/err"
grep -q -- '--preflight' "$T/inst" && t_fail "install without --preflight-intent runs preflight" ||
	t_pass "install without --preflight-intent: no preflight in the job"
"$GPUFORM" reconcile --preflight tests/preflight >"$T/out" 2>"$T/err"
rc=$?
expect "reconcile --preflight of a directory: usage error" 2 "--preflight needs intent files"

# --- 17. the AWS SigV4 test-suite vectors: aws/sigv4.c signs them in the unit
# suite (tests/unit/test_aws.c, test_sigv4_suite); here every signed request
# above was verified by botocore (tests/tools/awsfake.py)

stop_fake
t_summary
