#!/usr/bin/env python3
"""A real HTTP sink for the webhook tests and the README. `webhook_sink.py --log FILE` prints
its port on the first line of stdout, then appends one JSON line per request to FILE: method,
target (path and query as sent), path, n (how many times this path was hit), headers, body
(base64), the arrival time, and which secrets verify its Standard Webhooks signature —
computed here with Python's hmac, independently of buttond's OpenSSL code: `verified` for the
secret in --secret-file (null when there is none), `verifiedBy` for the files in --secrets-dir
(named after handlers). Secrets are read at request time.

Paths choose the answer: /fail-twice (500, 500, then 200 per path), /fail-first… (500 the
first time that exact path is hit), /gone (410), /hang (sleeps 30 s), /redirect (302 to /ok),
/busy (503 Retry-After: 1 once, then 200), /busy/N (503 Retry-After: N once), /status/NNN (always NNN), /hold/NAME (waits until
a file release-NAME exists in --release-dir, at most 120 s), /echo… (200 with the request's target, headers and body as
the answer, as some receivers do), anything else 200."""
import argparse, base64, hashlib, hmac, json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--log", required=True)
parser.add_argument("--secret-file", default="")
parser.add_argument("--secrets-dir", default="")
parser.add_argument("--release-dir", default="")
args = parser.parse_args()
log_path = args.log
secrets_dir = args.secrets_dir
counts = {}
lock = threading.Lock()


def verifies(secret, headers, body):
    secret = secret.strip()
    if not secret.startswith("whsec_"):
        return False
    key = base64.b64decode(secret[len("whsec_"):])
    signed = f"{headers.get('webhook-id')}.{headers.get('webhook-timestamp')}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, s) for s in headers.get("webhook-signature", "").split(" "))


def verified(headers, body):
    path = args.secret_file
    return verifies(open(path).read(), headers, body) if path and os.path.exists(path) else None


def verified_by(headers, body):
    if not secrets_dir or not os.path.isdir(secrets_dir):
        return []
    return [name for name in sorted(os.listdir(secrets_dir))
            if verifies(open(os.path.join(secrets_dir, name)).read(), headers, body)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def handle_any(self):
        length = int(self.headers.get("content-length", "0") or "0")
        body = self.rfile.read(length) if length > 0 else b""
        path = self.path.split("?")[0]
        headers = {}
        for k, v in self.headers.items():  # a header sent twice reads as "first, second"
            headers[k.lower()] = f"{headers[k.lower()]}, {v}" if k.lower() in headers else v
        with lock:
            counts[path] = counts.get(path, 0) + 1
            n = counts[path]
            with open(log_path, "a") as f:
                f.write(json.dumps({"method": self.command, "target": self.path, "path": path, "n": n,
                                    "headers": headers, "body": base64.b64encode(body).decode(), "at": time.time(),
                                    "verified": verified(headers, body),
                                    "verifiedBy": verified_by(headers, body)}) + "\n")
        status, extra = 200, {}
        if path == "/fail-twice" and n <= 2:
            status = 500
        elif path.startswith("/fail-first") and n == 1:
            status = 500
        elif path == "/gone":
            status = 410
        elif path == "/hang":
            time.sleep(30)
        elif path == "/redirect":
            status, extra = 302, {"Location": "/ok"}
        elif path == "/busy" and n == 1:
            status, extra = 503, {"Retry-After": "1"}
        elif path.startswith("/busy/") and n == 1:
            status, extra = 503, {"Retry-After": path.split("/")[2]}
        elif path.startswith("/status/"):
            status = int(path.split("/")[2])
        elif path.startswith("/hold/"):
            release = os.path.join(args.release_dir or ".", "release-" + path.split("/")[2])
            deadline = time.time() + 120
            while not os.path.exists(release) and time.time() < deadline:
                time.sleep(0.02)
        reply = b'{"received": true}'
        if path.startswith("/echo"):
            reply = json.dumps({"target": self.path, "headers": headers, "body": body.decode("utf-8", "replace")}).encode()
        self.send_response(status)
        for k, v in extra.items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
