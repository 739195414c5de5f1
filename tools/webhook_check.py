"""Our webhooks verified by the receivers' own library, Python's `standardwebhooks` (issue 59), in
the contract tests: a local receiver gets the company.impact.changed events of a replay company
scan (the command after `--`, run while it listens), one for each impact the scan published; every
delivery verifies with the endpoint's secret; the same delivery with its body or its timestamp
changed is refused by the library; after a rotation a test event verifies with the old secret and
with the new one (two signatures for 24 h).

It writes what the receiver got (each delivery's headers and body, the secrets) to DUMP, for the
npm library's check (tools/webhook_verify.mjs).

Usage: webhook_check.py BASE_URL API_KEY DUMP -- SCAN_COMMAND…"""

import base64
import datetime
import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.request

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


class Receiver(http.server.BaseHTTPRequestHandler):
    received = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        headers = {name: self.headers[name] for name in ("webhook-id", "webhook-timestamp", "webhook-signature")}
        with self.lock:
            self.received.append((headers, body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_):
        pass


def call(base, key, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, headers={"X-Service-Key": key, "Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with Receiver.lock:
            if predicate(list(Receiver.received)):
                return list(Receiver.received)
        time.sleep(0.1)
    sys.exit(f"webhooks: {what} within {seconds} s; received {len(Receiver.received)}")


def refused(secret, body, headers):
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return True
    return False


def main():
    base, key, dump = sys.argv[1], sys.argv[2], sys.argv[3]
    scan = sys.argv[sys.argv.index("--") + 1 :]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    created = call(base, key, "/api/webhooks/v1/create-webhook-endpoint",
                   {"url": url, "description": "contract tests", "eventTypes": ["company.impact.changed"]})
    endpoint, secret = created["endpoint"]["endpointId"], created["secret"]
    subprocess.run(scan, check=True, stdout=subprocess.DEVNULL)
    impacts = call(base, key, "/api/company-monitoring/v1/list-company-event-impacts?page_size=100")["impacts"]
    if not impacts:
        sys.exit("webhooks: the scan published no impact")
    wanted = {i["impactId"] for i in impacts}

    def delivered_ids(received):
        return {json.loads(body)["data"]["impact"]["impactId"] for _, body in received}

    received = wait_for(lambda r: wanted <= delivered_ids(r), 30, f"events for the {len(wanted)} impacts")
    for headers, body in received:
        event = Webhook(secret).verify(body, headers)
        if event["type"] != "company.impact.changed" or not event["data"]["materialEventUrl"].startswith(base):
            sys.exit(f"webhooks: unexpected event {event}")
    ids = [h["webhook-id"] for h, _ in received]
    if len(set(ids)) != len(ids):
        sys.exit(f"webhooks: a delivery arrived twice: {ids}")
    headers, body = received[0]
    if not refused(secret, body.replace(b"IMPACT", b"impact"), headers):
        sys.exit("webhooks: a tampered body verified")
    old = str(int(time.time()) - 600)
    if not refused(secret, body, {**headers, "webhook-timestamp": old}):
        sys.exit("webhooks: a delivery ten minutes old verified")
    # A rotation: both secrets sign for a day.
    rotated = call(base, key, "/api/webhooks/v1/rotate-webhook-endpoint-secret", {"endpointId": endpoint})
    call(base, key, "/api/webhooks/v1/send-webhook-test-event", {"endpointId": endpoint})
    received = wait_for(lambda r: any(json.loads(b)["type"] == "webhook.test" for _, b in r), 15, "the test event")
    headers, body = next((h, b) for h, b in received if json.loads(b)["type"] == "webhook.test")
    for which in (secret, rotated["secret"]):
        Webhook(which).verify(body, headers)
    deliveries = call(base, key, f"/api/webhooks/v1/list-webhook-deliveries?endpoint_id={endpoint}&page_size=100")
    with Receiver.lock:
        delivered = [{"headers": h, "body": base64.b64encode(b).decode()} for h, b in Receiver.received]
    with open(dump, "w") as out:
        json.dump({"secret": secret, "rotatedSecret": rotated["secret"], "deliveries": delivered}, out)
    states = {d["state"] for d in deliveries["deliveries"]}
    if states != {"delivered"}:
        sys.exit(f"webhooks: deliveries not all delivered: {states}")
    server.shutdown()
    # The endpoint goes: the demo account is what make run shows, not a test's receiver.
    call(base, key, "/api/webhooks/v1/delete-webhook-endpoint", {"endpointId": endpoint})
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    print(f"webhooks ({stamp}): {len(wanted)} impact events and a test event verified by standardwebhooks "
          "(across a rotation); a tampered body and an old timestamp refused: ok")


if __name__ == "__main__":
    main()
