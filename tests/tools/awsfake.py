#!/usr/bin/python3
"""tests/tools/awsfake.py: a loopback stand-in for the AWS endpoints gpuform
preflight talks to, for tests/preflight.sh.

    awsfake.py SCENARIO.json PORTFILE LOGFILE

Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE) and serves:
  - EC2 query API (POST form, Version 2016-11-15): DescribeSnapshots,
    DescribeSecurityGroups, DescribeSubnets, DescribeInstanceTypeOfferings,
    DescribeCapacityReservations;
    XML answers, errors as Response/Errors/Error (EC2 API reference,
    "Error codes" and each action's response elements);
  - SSM awsJson1_1 (X-Amz-Target AmazonSSM.GetParameter);
  - SQS awsJson1_0 (X-Amz-Target AmazonSQS.GetQueueUrl; QueueDoesNotExist);
  - STS AssumeRoleWithWebIdentity (unsigned query call, XML answer);
  - the container credentials endpoint (GET /container-creds, Authorization);
  - IMDSv2 (PUT /latest/api/token, GET /latest/meta-data/...);
  - with "kube_version": a Kubernetes API server's GET /version (for
    reconcile --preflight); other /api paths answer 503.

Every signed request's SigV4 signature is recomputed with botocore (Debian's
python3-botocore), independently of libcurl: the canonical request is built
by botocore from the headers the client listed in SignedHeaders, the
secret is the scenario's for that access key, and the session token must
match. A mismatch is answered as AWS does (403 SignatureDoesNotMatch;
InvalidClientTokenId for an unknown key or token). Each request appends one
line to LOGFILE: "<service> <action> <key-id|-> <sig-ok|sig-bad|unsigned>".

Scenario keys (all optional): keys {id: {secret, token}}, region,
web_identity {token, key, secret, session}, container {auth, key, secret,
session}, imds {role, key, secret, session, region}, params {name: ami},
snapshots {id: {status, size}}, sgs [{id, tags, in_self, out_self,
out_cidr}], subnets [{id, zone, tags}], offerings [[type, zone]],
reservations [{id, type, zone, state, total, available, end, rtype, owner,
tags, match}], queues
[name], deny [action], throttle {action: n}, malformed {action: "garbage" |
"truncated" | "noset"}, delay {action: seconds}, page_size n.
"""
import datetime
import hashlib
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest, HTTPHeaders
from botocore.credentials import Credentials

SC = json.load(open(sys.argv[1]))
PORTFILE, LOGFILE = sys.argv[2], sys.argv[3]
LOCK = threading.Lock()
COUNTS = {}
DEBUG = bool(__import__("os").environ.get("AWSFAKE_DEBUG"))
EC2NS = "http://ec2.amazonaws.com/doc/2016-11-15/"


def log(line):
    with LOCK:
        with open(LOGFILE, "a") as f:
            f.write(line + "\n")


def esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def all_keys():
    keys = dict(SC.get("keys", {}))
    for src in ("web_identity", "container", "imds"):
        s = SC.get(src)
        if s:
            keys[s["key"]] = {"secret": s["secret"], "token": s.get("session")}
    return keys


def verify(method, path, headers, body):
    """(ok, key_id, service, region, why)"""
    auth = headers.get("Authorization", "")
    if DEBUG:
        sys.stderr.write("awsfake: %s\n" % dict(headers.items()))
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return False, "-", None, None, "MissingAuthenticationToken"
    parts = {}
    for kv in auth[len("AWS4-HMAC-SHA256 "):].split(","):
        k, _, v = kv.strip().partition("=")
        parts[k] = v
    try:
        key_id, date, region, service, term = parts["Credential"].split("/")
        signed = parts["SignedHeaders"].split(";")
        sig = parts["Signature"]
    except (KeyError, ValueError):
        return False, "-", None, None, "IncompleteSignature"
    keys = all_keys()
    if key_id not in keys or term != "aws4_request":
        return False, key_id, service, region, "InvalidClientTokenId"
    k = keys[key_id]
    tok = headers.get("X-Amz-Security-Token")
    if (k.get("token") or None) != (tok or None):
        return False, key_id, service, region, "InvalidClientTokenId"
    amzdate = headers.get("X-Amz-Date", "")
    if not amzdate.startswith(date):
        return False, key_id, service, region, "SignatureDoesNotMatch"
    try:
        when = datetime.datetime.strptime(amzdate, "%Y%m%dT%H%M%SZ")
    except ValueError:
        return False, key_id, service, region, "IncompleteSignature"
    if abs((datetime.datetime.utcnow() - when).total_seconds()) > 900:
        return False, key_id, service, region, "RequestTimeTooSkewed"
    if "host" not in signed or "x-amz-date" not in signed:
        return False, key_id, service, region, "SignatureDoesNotMatch"
    hdrs = {}
    for h in signed:
        v = headers.get(h)
        if v is None:
            return False, key_id, service, region, "SignatureDoesNotMatch"
        hdrs[h] = v
    url = "http://" + headers.get("Host", "") + path
    req = AWSRequest(method=method, url=url, data=body, headers=hdrs)
    req.context["timestamp"] = amzdate
    signer = Verifier(Credentials(key_id, k["secret"], k.get("token")),
                      service, region)
    signer.signed = signed
    canonical = signer.canonical_request(req)
    want = signer.signature(signer.string_to_sign(req, canonical), req)
    if want != sig:
        if DEBUG:
            sys.stderr.write("awsfake: signed %r\ncanonical:\n%s\n" % (signed, canonical))
        return False, key_id, service, region, "SignatureDoesNotMatch"
    return True, key_id, service, region, ""


class Verifier(SigV4Auth):
    """botocore's SigV4 over exactly the headers the client listed in
    SignedHeaders, as AWS verifies (botocore's signer would choose its own
    set and leave out expect and user-agent)."""
    signed = ()

    def headers_to_sign(self, request):
        out = HTTPHeaders()
        for h in self.signed:
            out[h] = request.headers[h]
        return out


def xml_ok(action, inner):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<%sResponse xmlns="%s">'
            "<requestId>8f7f0f9e-0000-4000-8000-000000000001</requestId>%s"
            "</%sResponse>" % (action, EC2NS, inner, action))


def ec2_error(code, msg):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>'
            "<Code>%s</Code><Message>%s</Message></Error></Errors>"
            "<RequestID>8f7f0f9e-0000-4000-8000-000000000002</RequestID>"
            "</Response>" % (esc(code), esc(msg)))


def tagset(tags):
    return "<tagSet>%s</tagSet>" % "".join(
        "<item><key>%s</key><value>%s</value></item>" % (esc(k), esc(v))
        for k, v in sorted(tags.items()))


def filters(form):
    out = {}
    n = 1
    while "Filter.%d.Name" % n in form:
        vals, m = [], 1
        while "Filter.%d.Value.%d" % (n, m) in form:
            vals.append(form["Filter.%d.Value.%d" % (n, m)])
            m += 1
        out[form["Filter.%d.Name" % n]] = vals
        n += 1
    return out


def tag_match(obj, flt):
    for name, vals in flt.items():
        if name.startswith("tag:"):
            if obj.get("tags", {}).get(name[4:]) not in vals:
                return False
    return True


def page(items, form):
    size = SC.get("page_size")
    start = int(form.get("NextToken", "0") or 0)
    if not size:
        return items, None
    nxt = start + size
    return items[start:nxt], (str(nxt) if nxt < len(items) else None)


def perm(sg_id, self_ref, cidr=None):
    groups = ("<groups><item><userId>111122223333</userId><groupId>%s</groupId>"
              "</item></groups>" % sg_id) if self_ref else "<groups/>"
    ranges = ("<ipRanges><item><cidrIp>%s</cidrIp></item></ipRanges>" % cidr
              if cidr else "<ipRanges/>")
    return ("<item><ipProtocol>-1</ipProtocol>%s%s<ipv6Ranges/>"
            "<prefixListIds/></item>" % (groups, ranges))


def ec2(action, form):
    if action == "DescribeSnapshots":
        sid = form.get("SnapshotId.1")
        s = SC.get("snapshots", {}).get(sid)
        if s is None:
            return 400, ec2_error("InvalidSnapshot.NotFound",
                                  "The snapshot '%s' does not exist." % sid)
        return 200, xml_ok(action, (
            "<snapshotSet><item><snapshotId>%s</snapshotId>"
            "<volumeId>vol-0123456789abcdef0</volumeId><status>%s</status>"
            "<startTime>2026-11-01T10:00:00.000Z</startTime>"
            "<progress>100%%</progress><ownerId>111122223333</ownerId>"
            "<volumeSize>%d</volumeSize><description>images &amp; models"
            "</description><encrypted>false</encrypted></item></snapshotSet>"
            % (esc(sid), esc(s["status"]), s["size"])))
    if action == "DescribeSecurityGroups":
        flt = filters(form)
        ids = [v for k, v in sorted(form.items()) if k.startswith("GroupId.")]
        sgs = SC.get("sgs", [])
        if ids:
            found = [g for g in sgs if g["id"] in ids]
            if len(found) != len(ids):
                return 400, ec2_error("InvalidGroup.NotFound",
                                      "The security group '%s' does not "
                                      "exist" % ids[0])
        else:
            found = [g for g in sgs if tag_match(g, flt)]
        found, nxt = page(found, form)
        items = ""
        for g in found:
            egress = ""
            if g.get("out_self"):
                egress += perm(g["id"], True)
            if g.get("out_cidr"):
                egress += perm(g["id"], False, g["out_cidr"])
            items += ("<item><ownerId>111122223333</ownerId><groupId>%s</groupId>"
                      "<groupName>%s</groupName><groupDescription>test"
                      "</groupDescription><vpcId>vpc-0abc</vpcId>"
                      "<ipPermissions>%s</ipPermissions>"
                      "<ipPermissionsEgress>%s</ipPermissionsEgress>%s</item>"
                      % (g["id"], g["id"], perm(g["id"], True)
                         if g.get("in_self") else "", egress,
                         tagset(g.get("tags", {}))))
        return 200, xml_ok(action, "<securityGroupInfo>%s</securityGroupInfo>%s"
                           % (items, "<nextToken>%s</nextToken>" % nxt
                              if nxt else ""))
    if action == "DescribeSubnets":
        flt = filters(form)
        found = [s for s in SC.get("subnets", []) if tag_match(s, flt)]
        found, nxt = page(found, form)
        items = "".join(
            "<item><subnetId>%s</subnetId><state>available</state>"
            "<vpcId>vpc-0abc</vpcId><cidrBlock>10.0.0.0/20</cidrBlock>"
            "<availabilityZone>%s</availabilityZone>"
            "<availabilityZoneId>usw2-az1</availabilityZoneId>%s</item>"
            % (s["id"], s["zone"], tagset(s.get("tags", {}))) for s in found)
        return 200, xml_ok(action, "<subnetSet>%s</subnetSet>%s" % (
            items, "<nextToken>%s</nextToken>" % nxt if nxt else ""))
    if action == "DescribeInstanceTypeOfferings":
        if form.get("LocationType") != "availability-zone":
            return 400, ec2_error("InvalidParameterValue", "LocationType")
        flt = filters(form)
        types = set(flt.get("instance-type", []))
        zones = set(flt.get("location", []))
        found = [o for o in SC.get("offerings", [])
                 if o[0] in types and (not zones or o[1] in zones)]
        found, nxt = page(found, form)
        items = "".join(
            "<item><instanceType>%s</instanceType><locationType>"
            "availability-zone</locationType><location>%s</location></item>"
            % (t, z) for t, z in found)
        return 200, xml_ok(action, "<instanceTypeOfferingSet>%s"
                           "</instanceTypeOfferingSet>%s" % (
                               items, "<nextToken>%s</nextToken>" % nxt
                               if nxt else ""))
    if action == "DescribeCapacityReservations":
        # EC2 API reference, DescribeCapacityReservations: CapacityReservationId.N
        # or Filter.N (tag:KEY, tag-key, owner-id, state, ...); an unknown id is
        # InvalidCapacityReservationId.NotFound; capacityReservationSet/item
        flt = filters(form)
        ids = [v for k, v in sorted(form.items())
               if k.startswith("CapacityReservationId.")]
        crs = SC.get("reservations", [])
        if ids:
            found = [c for c in crs if c["id"] in ids]
            missing = [i for i in ids if i not in [c["id"] for c in found]]
            if missing:
                return 400, ec2_error("InvalidCapacityReservationId.NotFound",
                                      "The capacityReservation ID '%s' does "
                                      "not exist" % missing[0])
        else:
            found = [c for c in crs if tag_match(c, flt)
                     and all(k in c.get("tags", {}) for k in flt.get("tag-key", []))
                     and ("owner-id" not in flt or
                          c.get("owner", "111122223333") in flt["owner-id"])
                     and ("state" not in flt or c.get("state", "active") in flt["state"])]
        found, nxt = page(found, form)
        items = ""
        for c in found:
            end = ("<endDate>%s</endDate><endDateType>limited</endDateType>"
                   % c["end"]) if c.get("end") else "<endDateType>unlimited</endDateType>"
            items += (
                "<item><capacityReservationId>%s</capacityReservationId>"
                "<ownerId>%s</ownerId><capacityReservationArn>arn:aws:ec2:us-west-2:"
                "%s:capacity-reservation/%s</capacityReservationArn>"
                "<availabilityZoneId>usw2-az1</availabilityZoneId>"
                "<instanceType>%s</instanceType><instancePlatform>Linux/UNIX"
                "</instancePlatform><availabilityZone>%s</availabilityZone>"
                "<tenancy>default</tenancy><totalInstanceCount>%d"
                "</totalInstanceCount><availableInstanceCount>%d"
                "</availableInstanceCount><ebsOptimized>true</ebsOptimized>"
                "<ephemeralStorage>false</ephemeralStorage><state>%s</state>"
                "<startDate>2026-11-01T11:30:00.000Z</startDate>%s"
                "<instanceMatchCriteria>%s</instanceMatchCriteria>"
                "<createDate>2026-10-01T09:00:00.000Z</createDate>%s"
                "<reservationType>%s</reservationType></item>"
                % (esc(c["id"]), c.get("owner", "111122223333"),
                   c.get("owner", "111122223333"), esc(c["id"]),
                   esc(c["type"]), esc(c["zone"]), c.get("total", 1),
                   c.get("available", c.get("total", 1)),
                   esc(c.get("state", "active")), end,
                   c.get("match", "targeted"), tagset(c.get("tags", {})),
                   c.get("rtype", "default")))
        return 200, xml_ok(action, "<capacityReservationSet>%s"
                           "</capacityReservationSet>%s" % (
                               items, "<nextToken>%s</nextToken>" % nxt
                               if nxt else ""))
    return 400, ec2_error("InvalidAction", "The action %s is not valid" % action)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, ctype, extra=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(n) if n else b""

    def do_PUT(self):
        self.body()
        im = SC.get("imds")
        if self.path == "/latest/api/token" and im and \
                self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            log("imds token - unsigned")
            return self.send(200, "imds-session-token", "text/plain")
        self.send(404, "not found", "text/plain")

    def do_GET(self):
        if self.path == "/version" and SC.get("kube_version"):
            # kube-apiserver's version.Info, as EKS reports it
            log("kube version - %s" % self.headers.get("Authorization", "-")[:6])
            major, minor = SC["kube_version"].split(".")
            return self.send(200, json.dumps({
                "major": major, "minor": minor + "+",
                "gitVersion": "v%s.%s.3-eks-abcdef0" % (major, minor),
                "platform": "linux/amd64"}), "application/json")
        if self.path.startswith(("/api", "/apis")):
            log("kube %s - -" % self.path.split("?")[0])
            return self.send(503, '{"kind":"Status","message":"fake"}',
                             "application/json")
        if self.path == "/container-creds":
            c = SC.get("container")
            ok = c and self.headers.get("Authorization") == c["auth"]
            log("container creds - %s" % ("auth-ok" if ok else "auth-bad"))
            if not ok:
                return self.send(401, '{"Message":"bad token"}',
                                 "application/json")
            return self.send(200, json.dumps({
                "AccessKeyId": c["key"], "SecretAccessKey": c["secret"],
                "Token": c["session"], "AccountId": "111122223333",
                "Expiration": "2099-01-01T00:00:00Z"}), "application/json")
        im = SC.get("imds")
        if self.path.startswith("/latest/meta-data/") and im:
            if self.headers.get("X-aws-ec2-metadata-token") != "imds-session-token":
                log("imds get - token-bad")
                return self.send(401, "", "text/plain")
            rest = self.path[len("/latest/meta-data/"):]
            log("imds %s - unsigned" % rest)
            if rest == "placement/region":
                return self.send(200, im.get("region", "us-west-2"),
                                 "text/plain")
            if rest == "iam/security-credentials/":
                return self.send(200, im["role"], "text/plain")
            if rest == "iam/security-credentials/" + im["role"]:
                return self.send(200, json.dumps({
                    "Code": "Success", "Type": "AWS-HMAC",
                    "AccessKeyId": im["key"], "SecretAccessKey": im["secret"],
                    "Token": im["session"],
                    "Expiration": "2099-01-01T00:00:00Z"}), "text/plain")
        self.send(404, "not found", "text/plain")

    def do_POST(self):
        raw = self.body()
        target = self.headers.get("X-Amz-Target")
        form = {}
        if not target:
            form = dict(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))
        action = target.split(".")[-1] if target else form.get("Action", "?")

        # STS web identity: unsigned by design
        if action == "AssumeRoleWithWebIdentity":
            w = SC.get("web_identity")
            ok = w and form.get("WebIdentityToken") == w["token"] and \
                form.get("RoleArn", "").startswith("arn:aws:iam::") and \
                form.get("RoleSessionName")
            log("sts %s - %s" % (action, "token-ok" if ok else "token-bad"))
            if not ok:
                return self.send(400, (
                    "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
                    "<Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>"
                    "<Message>Incorrect token audience</Message></Error>"
                    "<RequestId>r-1</RequestId></ErrorResponse>"), "text/xml")
            return self.send(200, (
                "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
                "<AssumeRoleWithWebIdentityResult>"
                "<SubjectFromWebIdentityToken>system:serviceaccount:gpuform-system:gpuform"
                "</SubjectFromWebIdentityToken><Audience>sts.amazonaws.com</Audience>"
                "<AssumedRoleUser><Arn>%s/%s</Arn><AssumedRoleId>AROA:x</AssumedRoleId>"
                "</AssumedRoleUser><Credentials><SessionToken>%s</SessionToken>"
                "<SecretAccessKey>%s</SecretAccessKey>"
                "<Expiration>2099-01-01T00:00:00Z</Expiration>"
                "<AccessKeyId>%s</AccessKeyId></Credentials>"
                "<Provider>oidc.eks.us-west-2.amazonaws.com</Provider>"
                "</AssumeRoleWithWebIdentityResult><ResponseMetadata>"
                "<RequestId>r-2</RequestId></ResponseMetadata>"
                "</AssumeRoleWithWebIdentityResponse>" % (
                    esc(form["RoleArn"]), esc(form["RoleSessionName"]),
                    esc(w["session"]), esc(w["secret"]), esc(w["key"]))),
                "text/xml")

        ok, key_id, service, region, why = verify(
            "POST", self.path, self.headers, raw)
        if service is None:
            service = "ssm" if target and target.startswith("AmazonSSM") else \
                "sqs" if target else "ec2"
        log("%s %s %s %s" % (service, action, key_id,
                             "sig-ok" if ok else "sig-bad:" + why))
        proto = "json" if target else "query"
        if ok and region != SC.get("region", "us-west-2"):
            ok, why = False, "SignatureDoesNotMatch"
        if not ok:
            msg = ("The request signature we calculated does not match the "
                   "signature you provided.")
            if proto == "json":
                t = "InvalidSignatureException" if service == "ssm" and \
                    why == "SignatureDoesNotMatch" else why
                return self.send(403 if why != "InvalidClientTokenId" or service != "ssm" else 400,
                                 json.dumps({"__type": t, "message": msg}),
                                 "application/x-amz-json-1.0")
            return self.send(403 if why != "InvalidClientTokenId" else 401,
                             ec2_error(why if service == "ec2" or why != "SignatureDoesNotMatch"
                                       else why, msg), "text/xml")

        delay = SC.get("delay", {}).get(action)
        if delay:
            time.sleep(delay)
        with LOCK:
            COUNTS[action] = COUNTS.get(action, 0) + 1
            n = COUNTS[action]
        if n <= SC.get("throttle", {}).get(action, 0):
            if proto == "json":
                return self.send(400, json.dumps({
                    "__type": "ThrottlingException", "message": "Rate exceeded"}),
                    "application/x-amz-json-1.1")
            return self.send(503, ec2_error("RequestLimitExceeded",
                                            "Request limit exceeded."), "text/xml")
        if action in SC.get("deny", []):
            if service == "ec2":
                return self.send(403, ec2_error(
                    "UnauthorizedOperation",
                    "You are not authorized to perform this operation. User: "
                    "arn:aws:iam::111122223333:user/ci is not authorized to "
                    "perform: ec2:%s" % action), "text/xml")
            return self.send(400, json.dumps({
                "__type": SC.get("deny_code") or
                "com.amazon.coral.service#AccessDeniedException"
                if service == "sqs" else SC.get("deny_code") or "AccessDeniedException",
                "message": SC.get("deny_message") or
                "User is not authorized to perform: %s:%s"
                % (service, action)}), "application/x-amz-json-1.1")
        bad = SC.get("malformed", {}).get(action)

        if service == "ssm" and action == "GetParameter":
            name = json.loads(raw or b"{}").get("Name")
            v = SC.get("params", {}).get(name)
            if v is None:
                status, out = 400, json.dumps({"__type": "ParameterNotFound"})
            else:
                status, out = 200, json.dumps({"Parameter": {
                    "ARN": "arn:aws:ssm:us-west-2::parameter" + name,
                    "DataType": "aws:ec2:image", "LastModifiedDate": 1.7e9,
                    "Name": name, "Type": "String", "Value": v, "Version": 3}})
            ctype = "application/x-amz-json-1.1"
        elif service == "sqs" and action == "GetQueueUrl":
            name = json.loads(raw or b"{}").get("QueueName")
            if name in SC.get("queues", []):
                status, out = 200, json.dumps({
                    "QueueUrl": "https://sqs.us-west-2.amazonaws.com/111122223333/" + name})
            else:
                status, out = 400, json.dumps({
                    "__type": "com.amazonaws.sqs#QueueDoesNotExist",
                    "message": "The specified queue does not exist."})
            ctype = "application/x-amz-json-1.0"
        elif service == "ec2":
            status, out = ec2(action, form)
            ctype = "text/xml;charset=UTF-8"
        else:
            status, out, ctype = 400, "{}", "application/json"
        if bad == "garbage":
            out = "<<<not a document" if proto == "query" else "{not json"
        elif bad == "truncated":
            out = out[: len(out) // 2]
        elif bad == "noset":
            out = xml_ok(action, "") if proto == "query" else "{}"
        self.send(status, out, ctype)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
