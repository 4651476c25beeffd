#!/usr/bin/python3
"""tests/tools/promfake.py: a loopback stand-in for the faults a real
Prometheus does not produce on demand (tests/advise.sh).

    promfake.py DIR MODE

Listens on 127.0.0.1 (a free port), writes the port to DIR/port and counts
requests in DIR/requests. Every POST /api/v1/query is answered by MODE:
  error     HTTP 400 {"status":"error","errorType":"bad_data",...}
  warnings  a success answer with "warnings" (a partial answer)
  series    two series where one is asked for
  huge      a 2 MiB body
  notjson   HTTP 502 with an HTML page from a proxy
  escape    HTTP 422 whose error message carries terminal escapes
  slow      no answer for 30 s
  auth      HTTP 401 unless "Authorization: Bearer TOKEN" with TOKEN the
            content of DIR/token; otherwise one sample
Every request's Authorization header (or "-") goes to DIR/auth.
Exits after 120 s.
"""
import http.server
import json
import os
import sys
import threading
import time

out, mode = sys.argv[1], sys.argv[2]


class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        with open(os.path.join(out, "requests"), "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
        auth = self.headers.get("Authorization")
        with open(os.path.join(out, "auth"), "a") as f:
            f.write("%s\n" % (auth or "-"))
        status, ctype = 200, "application/json"
        ok = {"status": "success",
              "data": {"resultType": "vector",
                       "result": [{"metric": {}, "value": [1, "1"]}]}}
        if mode == "auth":
            with open(os.path.join(out, "token")) as f:
                want = "Bearer " + f.read().strip()
            if auth == want:
                body = ok
            else:
                status, body = 401, {"status": "error",
                                     "errorType": "unauthorized",
                                     "error": "missing or wrong bearer token"}
        elif mode == "error":
            status, body = 400, {"status": "error", "errorType": "bad_data",
                                 "error": "invalid parameter \"query\""}
        elif mode == "warnings":
            body = dict(ok, warnings=["store 10.0.0.1 unreachable: partial result"])
        elif mode == "series":
            body = {"status": "success",
                    "data": {"resultType": "vector",
                             "result": [{"metric": {"a": "1"}, "value": [1, "1"]},
                                        {"metric": {"a": "2"}, "value": [1, "2"]}]}}
        elif mode == "huge":
            body = dict(ok, pad="x" * (2 << 20))
        elif mode == "escape":
            status, body = 422, {"status": "error", "errorType": "execution",
                                 "error": "\x1b]0;owned\x07\x1b[2Jall checks passed"}
        elif mode == "slow":
            time.sleep(30)
            body = ok
        else:  # notjson
            status, ctype = 502, "text/html"
            body = None
        data = (json.dumps(body).encode() if body is not None
                else b"<html><body>502 Bad Gateway</body></html>\n")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
threading.Timer(120, lambda: os._exit(0)).start()
srv.serve_forever()
