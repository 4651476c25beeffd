#!/usr/bin/python3
"""tests/tools/httpsink.py: a loopback HTTP receiver standing in for a
Prometheus Pushgateway in tests/incluster.sh, and for a proxy or a plain-http
server that must never see a credential (the capture tests of tests/git.sh,
tests/preflight.sh, tests/faults.sh).

    httpsink.py DIR [STATUS]

Listens on 127.0.0.1 (a free port), writes the port to DIR/port, and for every
request appends "METHOD PATH CONTENT-TYPE" to DIR/requests (PATH is the whole
URL when it is used as a proxy), appends the request line and every header to
DIR/headers and stores the body of the last one in DIR/body; answers STATUS
(default 200; 401 comes with "WWW-Authenticate: Basic", so that a client that
would send a password sends it). Exits after 120 s.
"""
import http.server
import os
import sys
import threading

out = sys.argv[1]
status = int(sys.argv[2]) if len(sys.argv) > 2 else 200


class H(http.server.BaseHTTPRequestHandler):
    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with open(os.path.join(out, "requests"), "a") as f:
            f.write(f"{self.command} {self.path} {self.headers.get('Content-Type')}\n")
        with open(os.path.join(out, "headers"), "a") as f:
            f.write(f"{self.command} {self.path}\n{self.headers}")
        with open(os.path.join(out, "body"), "wb") as f:
            f.write(body)
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="sink"')
        msg = b"ok\n" if status < 300 else b"push rejected by the test\n"
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)

    do_PUT = do_POST = do_GET = handle_any

    def log_message(self, *a):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
threading.Timer(120, lambda: os._exit(0)).start()
srv.serve_forever()
