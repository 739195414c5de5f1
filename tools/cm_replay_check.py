"""Company monitoring as `make run` + `make cm-scan` leave it (issue 47's goal), checked over REST
after the contract tests' replay scan: at least one impact whose evidence came from SEARCH (GDELT
in replay), one from FILINGS (SEC EDGAR), and one admitted on a shipped authoritative publisher
(INDEPENDENT_AUTHORITATIVE evidence), each provider named in its evidence.

Usage: cm_replay_check.py BASE_URL API_KEY"""

import json
import sys
import urllib.request


def get(base, key, path):
    request = urllib.request.Request(base + path, headers={"X-Service-Key": key})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def main():
    base, key = sys.argv[1], sys.argv[2]
    impacts = get(base, key, "/api/company-monitoring/v1/list-company-event-impacts?page_size=100")["impacts"]
    seen = {"search": 0, "filings": 0, "authoritative": 0}
    for impact in impacts:
        event = get(base, key, f"/api/company-monitoring/v1/get-company-material-event?impact_id={impact['impactId']}")
        providers = {e["provider"] for e in event["evidence"]}
        seen["search"] += "MONITORING_PROVIDER_SEARCH" in providers
        seen["filings"] += "MONITORING_PROVIDER_FILINGS" in providers
        seen["authoritative"] += any(
            e["authorityTier"] == "EVIDENCE_AUTHORITY_TIER_INDEPENDENT_AUTHORITATIVE" and e["provider"] == "MONITORING_PROVIDER_SEARCH"
            for e in event["evidence"]
        )
    missing = [name for name, n in seen.items() if n == 0]
    if missing:
        sys.exit(f"cm replay: no impact from {', '.join(missing)} among {len(impacts)}: {json.dumps(impacts)[:2000]}")
    print(f"company monitoring in replay: {len(impacts)} impacts; from SEARCH (GDELT) {seen['search']}, FILINGS {seen['filings']}, a shipped authoritative publisher {seen['authoritative']}: ok")


if __name__ == "__main__":
    main()
