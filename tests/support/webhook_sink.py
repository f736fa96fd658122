#!/usr/bin/env python3
"""A real HTTP sink for webhook tests. Prints its port on the first line of stdout, then
appends one JSON line per request to --log: path, headers, body (base64), and whether the
Standard Webhooks signature verifies with --secret-file's secret (read at request time),
computed here with Python's hmac, independently of buttond's OpenSSL code.

Paths choose the behaviour: /ok, /fail-twice (500, 500, then 200 per path), /gone (410),
/hang (sleeps 30 s), /redirect (302 to /ok), /busy (503 Retry-After: 1 once, then 200)."""
import argparse, base64, hashlib, hmac, json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--secret-file", default="")
args = parser.parse_args()
counts = {}
lock = threading.Lock()


def verify(headers, body):
    if not args.secret_file or not os.path.exists(args.secret_file):
        return None
    secret = open(args.secret_file).read().strip()
    if not secret.startswith("whsec_"):
        return False
    key = base64.b64decode(secret[len("whsec_"):])
    signed = f"{headers.get('webhook-id')}.{headers.get('webhook-timestamp')}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, s) for s in headers.get("webhook-signature", "").split(" "))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        path = self.path.split("?")[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        with lock:
            counts[path] = counts.get(path, 0) + 1
            n = counts[path]
            with open(args.log, "a") as f:
                f.write(json.dumps({"path": path, "n": n, "headers": headers, "body": base64.b64encode(body).decode(),
                                    "verified": verify(headers, body), "at": time.time()}) + "\n")
        status, extra = 200, {}
        if path == "/fail-twice" and n <= 2:
            status = 500
        elif path == "/gone":
            status = 410
        elif path == "/hang":
            time.sleep(30)
        elif path == "/redirect":
            status, extra = 302, {"Location": "/ok"}
        elif path == "/busy" and n == 1:
            status, extra = 503, {"Retry-After": "1"}
        reply = b'{"received": true}'
        self.send_response(status)
        for k, v in extra.items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
