#!/usr/bin/python3
"""tests/tools/httpsink.py: a loopback HTTP receiver standing in for a
Prometheus Pushgateway in tests/incluster.sh.

    httpsink.py DIR [STATUS]

Listens on 127.0.0.1 (a free port), writes the port to DIR/port, and for every
request appends "METHOD PATH CONTENT-TYPE" to DIR/requests and stores the body
of the last one in DIR/body; answers STATUS (default 200). Exits after 120 s.
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
        with open(os.path.join(out, "body"), "wb") as f:
            f.write(body)
        self.send_response(status)
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
