#!/usr/bin/env python3
"""A remote cache that fails on purpose, for the faults a real server does not make on demand.

    fault_server.py MODE [RECORD_FILE]

Prints its port on the first line, then serves on 127.0.0.1 until killed. Every GET of /ac/...
answers RECORD_FILE's bytes (a record document naming the contents the test wants fetched);
HEAD of /cas/... is 404 and PUT is 201, unless MODE says otherwise:

    error     every request answers 500
    silent    every request is read and never answered
    truncate  GET /cas/... promises 1,000,000 bytes and sends 10, then closes
    wrong     GET /cas/... sends content that is not what its digest says
    serve     GET /cas/... sends what the test put in the directory beside RECORD_FILE
              (cas/DIGEST), so that a record's other faults (paths) are the only ones
"""
import http.server
import os
import sys
import threading
import time

MODE = sys.argv[1]
RECORD = open(sys.argv[2], "rb").read() if len(sys.argv) > 2 else b""
BASE = os.path.dirname(sys.argv[2]) if len(sys.argv) > 2 else "."


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", length=None):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def fault(self):
        if MODE == "error":
            self.answer(500, b"broken")
            return True
        if MODE == "silent":
            time.sleep(3600)
            return True
        return False

    def do_HEAD(self):
        if not self.fault():
            self.answer(404)

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if not self.fault():
            self.answer(201)

    def do_GET(self):
        if self.fault():
            return
        if self.path.startswith("/ac/"):
            self.answer(200, RECORD)
        elif MODE == "truncate":
            self.answer(200, b"0123456789", length=1_000_000)
            self.close_connection = True
        elif MODE == "wrong":
            self.answer(200, b"not the content its digest names\n")
        else:
            path = os.path.join(BASE, "cas", os.path.basename(self.path))
            if os.path.exists(path):
                self.answer(200, open(path, "rb").read())
            else:
                self.answer(404)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
try:
    while True:
        time.sleep(3600)
except KeyboardInterrupt:
    pass
