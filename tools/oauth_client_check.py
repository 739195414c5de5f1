"""A standard OAuth client library (authlib) against the real server's authorization server:
dynamic client registration → authorize (approving the consent form as the person would, with an
API key) → PKCE code exchange → refresh → replaying the spent refresh token revokes the family →
the access token is refused on REST and on /mcp. Exits non-zero on the first failed expectation.

usage: python oauth_client_check.py <base url> <api key>
"""

import re
import sys

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

CALLBACK = "http://127.0.0.1:9/callback"
AGENT = {"User-Agent": "sitrep-contract-tests/1.0 (+https://sitrep.example)"}


def expect(condition, what):
    if not condition:
        raise SystemExit(f"oauth client check failed: {what}")


def main(base, key):
    meta = requests.get(f"{base}/.well-known/oauth-authorization-server", headers=AGENT, timeout=10).json()
    reg = requests.post(meta["registration_endpoint"], json={"client_name": "authlib check", "redirect_uris": [CALLBACK]},
                        headers=AGENT, timeout=10)
    expect(reg.status_code == 201, f"registration answered {reg.status_code}: {reg.text}")
    client_id = reg.json()["client_id"]

    session = OAuth2Session(client_id, redirect_uri=CALLBACK, scope="mcp", code_challenge_method="S256",
                            token_endpoint_auth_method="none")
    session.headers.update(AGENT)
    verifier = generate_token(64)
    url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier)

    # The person: the consent page, signed in with an API key, approved.
    browser = requests.Session()
    browser.headers.update(AGENT)
    page = browser.get(url, allow_redirects=False, timeout=10)
    expect(page.status_code == 200 and "authlib check" in page.text, f"consent page {page.status_code}")
    nonce = re.search(r'name="nonce" value="([^"]+)"', page.text).group(1)
    answer = browser.post(meta["authorization_endpoint"], data={"nonce": nonce, "api_key": key, "decision": "approve"},
                          allow_redirects=False, timeout=10)
    expect(answer.status_code == 302, f"approval answered {answer.status_code}")
    location = answer.headers["Location"]
    expect(f"iss={requests.utils.quote(meta['issuer'], safe='')}" in location, "iss on the redirect (RFC 9207)")

    token = session.fetch_token(meta["token_endpoint"], authorization_response=location, code_verifier=verifier)
    expect(token["token_type"] == "Bearer" and token["expires_in"] == 3600, f"token response {token}")
    api = f"{base}/api/conflict/v1/list-iran-events"
    expect(session.get(api, timeout=10).status_code == 200, "the access token works on REST")

    spent = token["refresh_token"]
    rotated = session.refresh_token(meta["token_endpoint"], refresh_token=spent, client_id=client_id)
    expect(rotated["refresh_token"] != spent, "refresh tokens rotate")
    expect(session.get(api, timeout=10).status_code == 200, "the rotated access token works")

    replay = requests.post(meta["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": spent,
                                                         "client_id": client_id}, headers=AGENT, timeout=10)
    expect(replay.status_code == 400 and replay.json()["error"] == "invalid_grant", f"replay answered {replay.text}")
    expect(session.get(api, timeout=10).status_code == 401, "after a replay the family's access token is refused")
    mcp = session.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                            "params": {"name": "list_iran_events"}}, timeout=10)
    expect(mcp.status_code == 401 and mcp.json()["error"]["code"] == -32001, f"/mcp answered {mcp.status_code}")
    print("oauth (authlib): register, consent, PKCE exchange, refresh rotation, replay revokes the family: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
