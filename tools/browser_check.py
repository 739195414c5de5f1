"""A real browser (Debian's chromium driven by Playwright) through every web page: sign in to the
dashboard, create a key and see its secret once, revoke it; approve an assistant's consent page
and exchange the code; see the assistant under Connected MCP Clients, revoke it and see its token
refused; the data status page. Screenshots of each page go to <output dir>.

usage: python browser_check.py <base url> <api key> <chromium path> <output dir>
"""

import base64
import hashlib
import http.server
import os
import secrets
import sys
import threading
import time

import requests
from playwright.sync_api import sync_playwright

AGENT = "sitrep-contract-tests/1.0 (+https://sitrep.example)"


def assistant_callback():
    """The assistant's side of the redirect: a local server that records where the browser landed."""
    landed = {}

    class Callback(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            # Only the redirect itself: the browser's own /favicon.ico request must not overwrite it.
            if self.path.startswith("/callback"):
                landed["url"] = f"http://127.0.0.1:{self.server.server_port}{self.path}"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<p>back at the assistant</p>")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}/callback", landed


def expect(condition, what):
    if not condition:
        raise SystemExit(f"browser check failed: {what}")


def submit(page, locator):
    """Clicks a button that posts a form and waits for the page it leads to."""
    with page.expect_navigation():
        (page.locator(locator) if isinstance(locator, str) else locator).click()


def fits(page, what):
    """Nothing on the page is wider than the 390 px phone screen, and every button is on it."""
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    expect(overflow <= 0, f"{what} fits a phone screen (overflows by {overflow} px)")
    for box in [b.bounding_box() for b in page.locator("button").all()]:
        expect(box is None or box["x"] + box["width"] <= 390, f"{what}: a button is cut off at {box}")


def labelled(page, what):
    """At phone width every table row is a card: each cell with a value shows its column's label
    (the stylesheet writes `data-label` before the value), so no value stands bare. Cells that
    hold only a button (Revoke) need none."""
    bare = page.evaluate("""() => [...document.querySelectorAll('.table td')]
        .filter(td => td.textContent.trim() && !td.querySelector('button, form'))
        .filter(td => !td.dataset.label || getComputedStyle(td, '::before').content.indexOf(td.dataset.label) < 0)
        .map(td => td.textContent.trim())""")
    cells = page.locator(".table td").count()
    expect(cells > 0 and not bare, f"{what}: every value at 390 px has its label ({len(bare)} of {cells} bare: {bare[:5]})")


def main(base, key, chromium, out):
    os.makedirs(out, exist_ok=True)
    shot = lambda page, name: page.screenshot(path=os.path.join(out, f"{name}.png"), full_page=True)
    with sync_playwright() as p:
        # No background networking: this machine reaches no host but its own, and Chromium's
        # component and sync requests would only fail (many at a time) beside the pages under test.
        browser = p.chromium.launch(
            executable_path=chromium,
            args=["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        version = browser.version
        page = browser.new_context(user_agent=AGENT, viewport={"width": 390, "height": 844}).new_page()

        # Dashboard: sign in, create a key (shown once), revoke it.
        page.goto(f"{base}/dashboard")
        shot(page, "01-sign-in")
        page.fill("#api_key", key)
        submit(page, "button[type=submit]")
        expect(page.locator("h2", has_text="API Keys").count() == 1, f"signed in to the dashboard: {page.url} {page.content()[:600]}")
        shot(page, "02-dashboard")
        fits(page, "the dashboard")
        labelled(page, "the dashboard")
        page.fill("#key-name", "browser key")
        submit(page, "text=Create key")
        secret = page.locator("#new-key").inner_text().strip()
        expect(secret.count("_") == 1 and len(secret) > 40, "the new key's secret is shown")
        shot(page, "03-key-created")
        api = f"{base}/api/conflict/v1/list-iran-events"
        expect(requests.get(api, headers={"X-Service-Key": secret, "User-Agent": AGENT}).status_code == 200, "new key works")
        page.goto(f"{base}/dashboard")
        expect(secret not in page.content(), "the secret is shown only once")
        submit(page, page.locator("tr", has_text="browser key").locator("button", has_text="Revoke"))
        expect(page.locator("tr", has_text="browser key").count() == 0, "the revoked key is gone from the list")
        expect(requests.get(api, headers={"X-Service-Key": secret, "User-Agent": AGENT}).status_code == 401, "revoked key refused")
        shot(page, "04-key-revoked")

        # Company monitoring (a business key with its scopes; the contract tests scanned its two
        # companies).
        page.goto(f"{base}/dashboard/companies")
        expect(page.locator("h2", has_text="Companies").count() == 1, f"the company-monitoring page: {page.content()[:600]}")
        for name in ("Ashgrove Pharma", "Kestrel Avionics"):
            expect(page.locator("td", has_text=name).count() >= 1, f"the scanned company {name} is listed")
        expect(page.locator("a", has_text="source").count() >= 1, "its impact links to its evidence")
        fits(page, "the company-monitoring page")
        labelled(page, "the company-monitoring page")
        shot(page, "04b-company-monitoring")

        # Webhooks, managed on the page: an endpoint added with the form (its secret shown once), a
        # test event sent with its button (the receiver is not listening: a failed attempt), then
        # disabled and deleted with theirs.
        hooks = f"{base}/api/webhooks/v1"
        headers = {"X-Service-Key": key, "User-Agent": AGENT}
        page.goto(f"{base}/dashboard/webhooks")
        expect(page.locator("h1", has_text="Webhooks").count() == 1, f"the webhooks page: {page.content()[:600]}")
        page.fill("#new-url", "http://127.0.0.1:9/hook")
        page.fill("#new-description", "browser check")
        page.locator("section", has_text="Add an endpoint").locator("input[value='company.impact.changed']").check()
        submit(page, "text=Add the endpoint")
        hook_secret = page.locator("#new-secret").inner_text().strip()
        expect(hook_secret.startswith("whsec_"), f"the new endpoint's secret is shown: {page.content()[:1500]}")
        shot(page, "04c-webhook-added")
        endpoint = requests.get(f"{hooks}/list-webhook-endpoints", headers=headers).json()["endpoints"][0]["endpointId"]
        section = lambda: page.locator("section", has=page.locator("h2 code", has_text="http://127.0.0.1:9/hook"))
        submit(page, section().locator("button", has_text="Send a test event"))
        for _ in range(100):
            listed = requests.get(f"{hooks}/list-webhook-deliveries?endpoint_id={endpoint}", headers=headers).json()
            if listed["deliveries"] and listed["deliveries"][0]["attempts"]:
                break
            time.sleep(0.1)
        page.goto(f"{base}/dashboard/webhooks")
        expect(section().count() == 1, "the endpoint is listed")
        expect(page.locator("td", has_text="connection failed").count() >= 1, f"its failed attempt is shown: {page.content()[:2000]}")
        expect("whsec_" not in page.content(), "the page shows no secret again")
        fits(page, "the webhooks page")
        labelled(page, "the webhooks page")
        shot(page, "04d-webhooks")
        submit(page, section().locator("button", has_text="Disable"))
        expect(section().locator("button", has_text="Enable").count() == 1, "the endpoint is disabled")
        expect(requests.get(f"{hooks}/list-webhook-endpoints", headers=headers).json()["endpoints"][0]["enabled"] is False,
               "disabled over REST too")
        submit(page, section().locator("button", has_text="Delete"))
        expect(section().count() == 0 and page.locator("[role=status]", has_text="Endpoint deleted").count() == 1,
               f"the endpoint is deleted: {page.content()[:1500]}")
        expect(requests.get(f"{hooks}/list-webhook-endpoints", headers=headers).json()["endpoints"] == [], "deleted over REST too")

        # An assistant: registration, the consent page approved in the browser, the code exchanged.
        callback_url, landed = assistant_callback()
        client_id = requests.post(f"{base}/oauth/register", json={"client_name": "Browser Assistant", "redirect_uris": [callback_url]},
                                  headers={"User-Agent": AGENT}).json()["client_id"]
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        page.goto(f"{base}/oauth/authorize?response_type=code&client_id={client_id}&code_challenge={challenge}"
                  f"&code_challenge_method=S256&scope=mcp&state=s1")
        expect(page.locator("h1", has_text="Browser Assistant").count() == 1, "the consent page names the client")
        shot(page, "05-consent")
        page.fill("#api_key", key)
        submit(page, "text=Approve")
        expect("code=" in landed.get("url", ""), f"redirected back with a code: {landed}")
        code = requests.utils.urlparse(landed["url"]).query.split("code=")[1].split("&")[0]
        token = requests.post(f"{base}/oauth/token", data={"grant_type": "authorization_code", "code": requests.utils.unquote(code),
                                                           "code_verifier": verifier, "client_id": client_id},
                              headers={"User-Agent": AGENT}).json()
        bearer = {"Authorization": f"Bearer {token['access_token']}", "User-Agent": AGENT}
        expect(requests.get(api, headers=bearer).status_code == 200, "the assistant's token works")

        # Connected MCP Clients: the assistant is listed; revoking it refuses its token.
        page.goto(f"{base}/dashboard")
        row = page.locator("tr", has_text="Browser Assistant")
        expect(row.count() == 1, "the assistant is listed under Connected MCP Clients")
        shot(page, "06-connected-clients")
        fits(page, "the dashboard with a connected client")
        labelled(page, "the dashboard with a connected client")
        submit(page, row.locator("button", has_text="Revoke"))
        expect(page.locator("tr", has_text="Browser Assistant").count() == 0, "the revoked assistant is gone")
        expect(requests.get(api, headers=bearer).status_code == 401, "the revoked assistant's token is refused")

        page.goto(f"{base}/status")
        expect(page.locator("svg[aria-label^='Age of each dataset']").count() == 0, "no chart repeating the table's ages")
        rows = page.locator(".table tbody tr").count()
        expect(page.locator("svg.history").count() == rows and rows > 0, f"each of the {rows} datasets has its history picture")
        expect(page.locator("svg.history line.current").count() >= 1, "a history picture highlights the current version")
        co2 = page.locator("tr", has_text="co2-monitoring")
        expect("stale (frozen upstream)" in co2.inner_text(), "the replayed frozen upstream is named on the status page")
        fits(page, "the status page")
        labelled(page, "the status page")
        shot(page, "07-status")
        submit(page, "text=Dashboard")
        submit(page, "text=Sign out")
        expect(page.locator("h1", has_text="Sign in").count() == 1, "signed out")
        page.goto(f"{base}/docs/mcp")
        fits(page, "the MCP tools page")
        labelled(page, "the MCP tools page")

        # The status page on a laptop screen too (the README shows this one).
        wide = browser.new_context(user_agent=AGENT, viewport={"width": 1280, "height": 1000}).new_page()
        wide.goto(f"{base}/status")
        expect(wide.locator("svg.history").count() == rows, "the history pictures at 1280 px")
        # Each date on one line (the number of line boxes of its text), each picture wide enough to
        # tell its versions apart, and the table as wide as the page allows.
        wrapped = wide.evaluate("""() => [...document.querySelectorAll('td[data-label="As of"]')]
            .filter(td => { const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1; })
            .map(td => td.innerText)""")
        expect(wrapped == [], f"no date cell wraps at 1280 px: {wrapped}")
        narrowest = wide.evaluate("() => Math.min(...[...document.querySelectorAll('svg.history')].map(s => s.getBoundingClientRect().width))")
        expect(narrowest >= 300, f"each history picture at least 300 px wide at 1280 px ({narrowest})")
        table = wide.evaluate("() => document.querySelector('.table table').getBoundingClientRect().width")
        expect(table >= 1100, f"the table takes the page's width at 1280 px ({table} px)")
        shot(wide, "08-status-1280")
        browser.close()
    print(f"browser (chromium {version}): dashboard, keys, company monitoring, webhooks, consent, connected clients, status, MCP tools (all fit 390 px, every value labelled): ok; screenshots in {out}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
