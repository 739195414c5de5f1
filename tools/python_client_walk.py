"""Walks every GET and POST operation of the served OpenAPI document through a Python client that
openapi-python-client generated from it (issue 60): real parameters (as the README's curl lines),
a page through a cursor, a jmespath projection, an `as_of`, error answers; every answer must parse
into the generated model the document declares for it, so a field missing, or a value outside a
declared enum, fails the walk (the generated models check each enum; a 200 that does not parse
falls back to plain data, which the walk refuses). At the end every operation of the document
must have been called.

Usage: python_client_walk.py BASE KEY GENERATED_PACKAGE_DIR OPENAPI_JSON
"""

import importlib
import inspect
import json
import pkgutil
import re
import sys
import uuid

base, key, generated, document = sys.argv[1:5]
sys.path.insert(0, generated)
pkg = importlib.import_module("sitrep_data_intelligence_api_client")
from sitrep_data_intelligence_api_client import AuthenticatedClient, models  # noqa: E402

AGENT = "sitrep-client-walk/1.0 (+https://sitrep.example)"
client = AuthenticatedClient(
    base_url=base, token=key, prefix="", auth_header_name="X-Service-Key",
    headers={"User-Agent": AGENT}, raise_on_unexpected_status=True,
)
called = set()


with open(document) as f:
    OPERATIONS = {op["operationId"]: op for ops in json.load(f)["paths"].values() for op in ops.values()}


def operation(operation_id):
    """The generated module of an operation, by its operationId."""
    # The generator's own spelling of the tag's package and the operation's module
    # (GetCo2Monitoring: get_co_2_monitoring).
    def spelled(package, name):
        key = re.sub(r"[^a-z0-9]", "", name.lower())
        found = next(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.replace("_", "") == key)
        return importlib.import_module(f"{package.__name__}.{found}")

    group = spelled(importlib.import_module(f"{pkg.__name__}.api"), OPERATIONS[operation_id]["tags"][0])
    return spelled(group, operation_id)


def expected_model(operation_id):
    """The generated model of the schema the document declares for the operation's 200."""
    content = OPERATIONS[operation_id]["responses"]["200"]["content"]
    schema = next(iter(content.values()))["schema"]
    ref = schema.get("$ref") or next(s["$ref"] for s in schema.get("anyOf", schema.get("oneOf", [])) if "$ref" in s)
    return getattr(models, ref.split("/")[-1])


def call(operation_id, status=200, **params):
    """Calls the operation through its generated function; answers the parsed model."""
    module = operation(operation_id)
    accepted = inspect.signature(module.sync_detailed).parameters
    kwargs = {(k if k in accepted else k + "_"): v for k, v in params.items()}
    answer = module.sync_detailed(client=client, **kwargs)
    called.add(operation_id)
    if answer.status_code != status:
        raise SystemExit(f"{operation_id}: answered {answer.status_code}, not {status}: {answer.content[:400]!r}")
    if status == 200 and "jmespath" not in params:
        model = expected_model(operation_id)
        if not isinstance(answer.parsed, model):
            # The generated parser fell back to plain data: find what the model refused.
            try:
                model.from_dict(json.loads(answer.content))
            except Exception as e:  # noqa: BLE001 — the refusal is what the walk reports
                raise SystemExit(f"{operation_id}: the answer does not parse into {model.__name__}: {e!r}")
            raise SystemExit(f"{operation_id}: parsed as {type(answer.parsed).__name__}, not {model.__name__}")
        # Round trip: what the model holds is what the server sent (no field dropped silently).
        if answer.parsed.to_dict() != json.loads(answer.content):
            raise SystemExit(f"{operation_id}: the model does not hold the whole answer")
    return answer


def body(model_name, value):
    return getattr(models, model_name).from_dict(value)


def page_through(operation_id, rows, **params):
    """Two pages of a cursor-paged listing: the second follows the first's cursor."""
    first = call(operation_id, **params).parsed
    cursor = first.pagination.next_cursor
    if not cursor:
        raise SystemExit(f"{operation_id}: one page only with {params}; the walk needs two")
    second = call(operation_id, cursor=cursor, **params).parsed
    a, b = getattr(first, rows), getattr(second, rows)
    if not a or not b or a[0].to_dict() == b[0].to_dict():
        raise SystemExit(f"{operation_id}: the second page repeats the first")


# --- Aviation ---
call("ListAircraftEmergencies")
call("ListAirportFlights", airport="IST", direction="BOTH", limit=5)
call("GetCarrierOps", airports=["IST"])
call("TrackAircraft", sw_lat=-25, sw_lon=175, ne_lat=-15, ne_lon=-175)
call("SearchFlightPrices", origin="IST", destination="LHR", departure_date="2026-12-10")
call("SearchProviderFlights", origin="IST", destination="LHR", departure_date="2026-12-10")
call("SearchProviderDates", origin="IST", destination="LHR", start_date="2026-12-01", end_date="2027-01-30")
call("GetFlightStatus", flight_number="TK2120", date="2026-11-20")
page_through("ListAirportDelays", "alerts", page_size=2)
call("GetAirportOpsSummary", airports=["IST", "TLV"])
call("ListAviationNews")
call("GetVideoLiveStreamInfo")
# --- Consumer prices ---
call("GetConsumerPriceOverview", market_code="ae")
call("GetConsumerPriceBasketSeries", market_code="sa", range="7d")
call("ListConsumerPriceCategories", range="30d")
call("ListConsumerPriceMovers", limit=3)
# --- Climate ---
call("ListClimateAnomalies", page_size=5)
call("ListClimateDisasters")
call("GetCo2Monitoring")
call("ListAirQualityData")
call("ListClimateNews")
call("GetOceanIceData")
# A jmespath projection: the answer is the projection, not the model (the document declares the
# 200 as the model or any JSON, so the client hands it over as plain data).
projected = call("ListClimateNews", jmespath="items[].title")
if not isinstance(json.loads(projected.content), list):
    raise SystemExit("ListClimateNews: the projection did not answer a list")
# --- History, and an as_of from it ---
versions = call("ListDatasetVersions", dataset="violence-events").parsed.versions
oldest = versions[-1]
call("ListDatasetChanges", dataset="violence-events", since=str(oldest.published_at))
as_of = call("ListViolenceEvents", country="ML", page_size=3, as_of=str(oldest.published_at))
if as_of.headers.get("x-snapshot-generation") is None:
    raise SystemExit("ListViolenceEvents: no X-Snapshot-Generation header")
# --- Conflict ---
page_through("ListArmedEvents", "events", country="UA", page_size=2)
call("GetHumanitarianSummary", country_code="SD")
call("ListIranEvents")
call("GetHumanitarianSummaryBatch", body=body("GetHumanitarianSummaryBatchBody", {"countryCodes": ["SD", "UA"]}))
# --- Intelligence ---
call("ComputeEnergyShockScenario", country_code="DE", disruption_pct=50, fuel_mode="both")
# --- Company monitoring ---
run = uuid.uuid4().hex[:8]
company = {"name": f"Walk Holdings {run}", "domicileCountry": "GB", "domains": [f"walk-{run}.example"]}
created = call("CreateMonitoredCompany", body=body("CreateMonitoredCompanyBody",
               {"clientRequestId": f"walk-{run}", "company": company})).parsed.company
company_id = created.company_id
call("UpdateMonitoredCompany", body=body("UpdateMonitoredCompanyBody",
     {"companyId": company_id, "patch": {"customerReference": f"ref-{run}"}}))
call("ImportMonitoredCompanyBatch", body=body("ImportMonitoredCompanyBatchBody", {
    "contractVersion": "cm-import-v1", "clientImportId": f"walk-import-{run}",
    "rows": [{"ordinal": 0, "company": {"name": f"Walk Imports {run}", "domicileCountry": "US"}}]}))
listed = call("ListMonitoredCompanies", page_size=10).parsed
call("GetCompanyCoverage", company_id=company_id)
impacts = call("ListCompanyEventImpacts", page_size=5).parsed
call("ListCompanyEventChanges", cursor=listed.snapshot.poll_cursor)
if not impacts.impacts:
    raise SystemExit("ListCompanyEventImpacts: the scanned company has no impact to read")
call("GetCompanyMaterialEvent", impact_id=impacts.impacts[0].impact_id)
call("GetCompanyMonitoringStatus")
call("SetMonitoredCompanyState", body=body("SetMonitoredCompanyStateBody",
     {"companyId": company_id, "targetLifecycle": "MONITORED_COMPANY_LIFECYCLE_REMOVED"}))
# --- Webhooks (a receiver that is not listening: the test event's attempt fails) ---
secret = call("CreateWebhookEndpoint", body=body("CreateWebhookEndpointBody", {
    "url": "http://127.0.0.1:9/walk", "eventTypes": ["dataset.version.published"], "datasets": ["violence-events"]}))
endpoint_id = secret.parsed.endpoint.endpoint_id
if not secret.parsed.secret.startswith("whsec_"):
    raise SystemExit("CreateWebhookEndpoint: no whsec_ secret")
call("ListWebhookEndpoints")
call("UpdateWebhookEndpoint", body=body("UpdateWebhookEndpointBody", {"endpointId": endpoint_id, "description": "walk"}))
call("RotateWebhookEndpointSecret", body=body("RotateWebhookEndpointSecretBody", {"endpointId": endpoint_id}))
test = call("SendWebhookTestEvent", body=body("SendWebhookTestEventBody", {"endpointId": endpoint_id})).parsed
call("ListWebhookDeliveries", endpoint_id=endpoint_id)
call("RedeliverWebhookDeliveries", body=body("RedeliverWebhookDeliveriesBody",
     {"endpointId": endpoint_id, "deliveryId": test.delivery.delivery_id}))
call("DeleteWebhookEndpoint", body=body("DeleteWebhookEndpointBody", {"endpointId": endpoint_id}))
# --- Batch ---
batch = call("ExecuteBatch", body=body("ExecuteBatchBody", {"operations": [
    {"id": "a", "path": "/api/conflict/v1/get-humanitarian-summary?country_code=SD"},
    {"id": "b", "path": "/api/climate/v1/get-co2-monitoring"}]})).parsed
if (batch.succeeded, [r.status for r in batch.results]) != (2, [200, 200]):
    raise SystemExit(f"ExecuteBatch: {batch.to_dict()}")
# --- Errors, parsed into the declared error models ---
refused = call("ListArmedEvents", status=400, page_size=500).parsed
if not isinstance(refused, models.ValidationError) or not refused.violations:
    raise SystemExit(f"ListArmedEvents page_size=500: not a ValidationError: {refused!r}")
unknown = call("GetCompanyCoverage", status=404, company_id="cm_company_" + "0" * 26).parsed
if not isinstance(unknown, models.Error):
    raise SystemExit(f"GetCompanyCoverage of an unknown company: not an Error: {unknown!r}")

missed = sorted(set(OPERATIONS) - called)
if missed:
    raise SystemExit(f"operations the walk did not call: {missed}")
print(f"python client (openapi-python-client): {len(called)} operations, every answer parsed into its model: ok")
