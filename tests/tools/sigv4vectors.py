#!/usr/bin/python3
"""tests/tools/sigv4vectors.py: sign the AWS SigV4 test-suite vectors
(tests/fixtures/sigv4/, from awslabs/aws-c-auth) with libcurl's SigV4 — the
curl tool of the same libcurl gpuform links — and compare the signature.

    sigv4vectors.py VECTORS-DIR

Each request goes to a capturing server on 127.0.0.1 through --connect-to,
so the Host header is the vector's; the
timestamp is given as an X-Amz-Date header, which libcurl then signs with.
Prints "ok NAME" or "FAIL NAME: why" per vector.
"""
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

SEEN = []


class Capture(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self):
        SEEN.append(self.headers.get("Authorization", ""))
        n = int(self.headers.get("Content-Length", "0") or 0)
        if n:
            self.rfile.read(n)
        self.send_response(204)
        self.end_headers()

    do_GET = do_POST = do_PUT = answer


srv = HTTPServer(("127.0.0.1", 0), Capture)
threading.Thread(target=srv.serve_forever, daemon=True).start()
base, port = sys.argv[1], srv.server_address[1]
for name in sorted(os.listdir(base)):
    d = os.path.join(base, name)
    ctx = json.load(open(os.path.join(d, "context.json")))
    raw = open(os.path.join(d, "request.txt"), "rb").read().decode()
    head, _, body = raw.partition("\n\n")
    lines = head.split("\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = []
    for ln in lines[1:]:
        if not ln.strip():
            continue
        if ln.startswith((" ", "\t")) and headers:
            headers[-1] = headers[-1] + "," + ln.strip()
            continue
        k, _, v = ln.partition(":")
        headers.append("%s: %s" % (k, v))
    want = open(os.path.join(d, "header-signature.txt")).read().strip()
    c = ctx["credentials"]
    ts = ctx["timestamp"].replace("-", "").replace(":", "")
    args = ["curl", "-s", "-o", "/dev/null", "--max-time", "5",
            "--path-as-is",
            "--connect-to", "example.amazonaws.com:80:127.0.0.1:%s" % port,
            "--aws-sigv4", "aws:amz:%s:%s" % (ctx["region"], ctx["service"]),
            "--user", "%s:%s" % (c["access_key_id"], c["secret_access_key"]),
            "-X", method, "-H", "X-Amz-Date: %s" % ts]
    for h in headers:
        if h.lower().startswith("host:"):
            continue
        args += ["-H", h]
    if c.get("token") and not ctx.get("omit_session_token"):
        args += ["-H", "X-Amz-Security-Token: %s" % c["token"]]
    if body:
        args += ["--data-binary", body]
    args.append("http://example.amazonaws.com" + target)
    del SEEN[:]
    subprocess.run(args, capture_output=True)
    out = "Authorization: " + SEEN[0] if SEEN else ""
    m = re.search(r"Authorization: AWS4-HMAC-SHA256 .*Signature=([0-9a-f]+)", out)
    if not m:
        print("FAIL %s: no Authorization header sent" % name)
    elif m.group(1) != want:
        sh = re.search(r"SignedHeaders=([^,]*)", out)
        print("FAIL %s: signature %s, want %s (signed %s)" % (
            name, m.group(1)[:12], want[:12], sh.group(1) if sh else "?"))
    else:
        print("ok   %s" % name)
