// Walks every GET and POST operation of the served OpenAPI document through openapi-fetch with the
// types openapi-typescript generated from that document (issue 60), as tools/python_client_walk.py
// does in Python: real parameters, a page through a cursor, a jmespath projection, an `as_of`,
// error answers. `tsc --strict --noEmit` checks every call against the generated types (paths,
// parameter names and types, enum values, bodies); run with Node, every answer is then checked
// against the document's schema of its status (required fields, enums, types), since TypeScript
// types vanish at run time. At the end every path of the document must have been called.
//
// Usage: node ts_client_walk.mjs BASE KEY OPENAPI_JSON

import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const [base, key, documentPath] = process.argv.slice(2);
const document = JSON.parse(readFileSync(documentPath, "utf8"));
const AGENT = "sitrep-client-walk/1.0 (+https://sitrep.example)";
const client = createClient<paths>({ baseUrl: base, headers: { "X-Service-Key": key, "User-Agent": AGENT } });
const called = new Set<string>();

/** Where `value` breaks `schema` (a document schema), or null. */
function broken(value: Json | undefined, schema: any, at: string): string | null {
  if (schema.$ref) return broken(value, document.components.schemas[schema.$ref.split("/").pop()], at);
  for (const key of ["anyOf", "oneOf"]) {
    if (schema[key]) {
      const found = schema[key].map((s: any) => broken(value, s, at));
      return found.some((f: string | null) => f === null) ? null : found[0];
    }
  }
  if (schema.enum && !schema.enum.includes(value)) return `${at}: ${JSON.stringify(value)} is not one of ${schema.enum}`;
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${at}: not an object`;
      for (const name of schema.required ?? []) if (!(name in value)) return `${at}.${name}: missing`;
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (name in value) {
          const found = broken(value[name], property, `${at}.${name}`);
          if (found) return found;
        }
      }
      return null;
    }
    case "array":
      if (!Array.isArray(value)) return `${at}: not an array`;
      for (const [i, item] of value.entries()) {
        const found = broken(item, schema.items ?? {}, `${at}[${i}]`);
        if (found) return found;
      }
      return null;
    case "string":
      return typeof value === "string" ? null : `${at}: not a string`;
    case "integer":
    case "number":
      return typeof value === "number" ? null : `${at}: not a number`;
    case "boolean":
      return typeof value === "boolean" ? null : `${at}: not a boolean`;
    default:
      return null;
  }
}

/** The answer of a call, checked: its status, and its body against the document's schema for it. */
function answered<T>(
  call: { data?: unknown; error?: unknown; response: Response },
  status = 200,
  projected = false,
): T {
  const { response } = call;
  const path = new URL(response.url).pathname;
  called.add(path);
  const body = (status === 200 ? call.data : call.error) as Json;
  if (response.status !== status) throw new Error(`${path}: answered ${response.status}, not ${status}: ${JSON.stringify(body)}`);
  if (!projected) {
    const operation: any = Object.values(document.paths[path])[0];
    const declared = operation.responses[String(status)] ?? operation.responses.default;
    const content: any = Object.values(declared.content)[0];
    // The 200 is the model, or with `jmespath` any JSON: the model is what a plain call must match.
    const schema = content.schema.anyOf ? content.schema.anyOf[0] : content.schema;
    const found = broken(body, schema, path);
    if (found) throw new Error(`the answer breaks its schema: ${found}`);
  }
  return body as T;
}

async function pageThrough(first: Schemas["ListArmedEventsResponse"], next: (cursor: string) => Promise<Schemas["ListArmedEventsResponse"]>) {
  if (!first.pagination.nextCursor) throw new Error("one page only; the walk needs two");
  const second = await next(first.pagination.nextCursor);
  if (first.events[0]?.id === second.events[0]?.id) throw new Error("the second page repeats the first");
}

// --- Aviation ---
answered(await client.GET("/api/aviation/v1/list-aircraft-emergencies"));
answered(await client.GET("/api/aviation/v1/list-airport-flights", { params: { query: { airport: "IST", direction: "BOTH", limit: 5 } } }));
answered(await client.GET("/api/aviation/v1/get-carrier-ops", { params: { query: { airports: ["IST"] } } }));
answered(await client.GET("/api/aviation/v1/track-aircraft", { params: { query: { sw_lat: -25, sw_lon: 175, ne_lat: -15, ne_lon: -175 } } }));
answered(await client.GET("/api/aviation/v1/search-flight-prices", { params: { query: { origin: "IST", destination: "LHR", departure_date: "2026-12-10" } } }));
answered(await client.GET("/api/aviation/v1/search-provider-flights", { params: { query: { origin: "IST", destination: "LHR", departure_date: "2026-12-10" } } }));
answered(await client.GET("/api/aviation/v1/search-provider-dates", { params: { query: { origin: "IST", destination: "LHR", start_date: "2026-12-01", end_date: "2027-01-30" } } }));
answered(await client.GET("/api/aviation/v1/get-flight-status", { params: { query: { flight_number: "TK2120", date: "2026-11-20" } } }));
const delays = answered<Schemas["ListAirportDelaysResponse"]>(await client.GET("/api/aviation/v1/list-airport-delays", { params: { query: { page_size: 2 } } }));
answered(await client.GET("/api/aviation/v1/list-airport-delays", { params: { query: { page_size: 2, cursor: delays.pagination.nextCursor } } }));
answered(await client.GET("/api/aviation/v1/get-airport-ops-summary", { params: { query: { airports: ["IST", "TLV"] } } }));
answered(await client.GET("/api/aviation/v1/list-aviation-news"));
answered(await client.GET("/api/aviation/v1/get-video-live-stream-info"));
// --- Consumer prices ---
answered(await client.GET("/api/consumer-prices/v1/get-consumer-price-overview", { params: { query: { market_code: "ae" } } }));
answered(await client.GET("/api/consumer-prices/v1/get-consumer-price-basket-series", { params: { query: { market_code: "sa", range: "7d" } } }));
answered(await client.GET("/api/consumer-prices/v1/list-consumer-price-categories", { params: { query: { range: "30d" } } }));
answered(await client.GET("/api/consumer-prices/v1/list-consumer-price-movers", { params: { query: { limit: 3 } } }));
// --- Climate ---
answered(await client.GET("/api/climate/v1/list-climate-anomalies", { params: { query: { page_size: 5 } } }));
answered(await client.GET("/api/climate/v1/list-climate-disasters"));
answered(await client.GET("/api/climate/v1/get-co2-monitoring"));
answered(await client.GET("/api/climate/v1/list-air-quality-data"));
answered(await client.GET("/api/climate/v1/get-ocean-ice-data"));
answered(await client.GET("/api/climate/v1/list-climate-news"));
// A jmespath projection answers the projection (the document's 200 allows any JSON with it).
const titles = answered<Json>(await client.GET("/api/climate/v1/list-climate-news", { params: { query: { jmespath: "items[].title" } } }), 200, true);
if (!Array.isArray(titles)) throw new Error("the projection did not answer a list");
// --- History, and an as_of from it ---
const versions = answered<Schemas["ListDatasetVersionsResponse"]>(await client.GET("/api/history/v1/list-dataset-versions", { params: { query: { dataset: "violence-events" } } }));
const oldest = versions.versions[versions.versions.length - 1];
answered(await client.GET("/api/history/v1/list-dataset-changes", { params: { query: { dataset: "violence-events", since: String(oldest.publishedAt) } } }));
const asOf = await client.GET("/api/conflict/v1/list-violence-events", { params: { query: { country: "ML", page_size: 3, as_of: String(oldest.publishedAt) } } });
answered(asOf);
if (!asOf.response.headers.get("x-snapshot-generation")) throw new Error("no X-Snapshot-Generation header");
// --- Conflict ---
const armed = (cursor?: string) => client.GET("/api/conflict/v1/list-armed-events", { params: { query: { country: "UA", page_size: 2, cursor } } });
await pageThrough(answered(await armed()), async (cursor) => answered(await armed(cursor)));
answered(await client.GET("/api/conflict/v1/get-humanitarian-summary", { params: { query: { country_code: "SD" } } }));
answered(await client.GET("/api/conflict/v1/list-iran-events"));
answered(await client.POST("/api/conflict/v1/get-humanitarian-summary-batch", { body: { countryCodes: ["SD", "UA"] } }));
// --- Intelligence ---
answered(await client.GET("/api/intelligence/v1/compute-energy-shock", { params: { query: { country_code: "DE", disruption_pct: 50, fuel_mode: "both" } } }));
// --- Company monitoring ---
const run = Math.random().toString(36).slice(2, 10);
const created = answered<Schemas["CompanyResponse"]>(await client.POST("/api/company-monitoring/v1/create-monitored-company", {
  body: { clientRequestId: `ts-walk-${run}`, company: { name: `Walk Typed ${run}`, domicileCountry: "GB", domains: [`ts-walk-${run}.example`] } },
}));
const companyId = created.company.companyId;
answered(await client.POST("/api/company-monitoring/v1/update-monitored-company", { body: { companyId, patch: { customerReference: `ref-${run}` } } }));
answered(await client.POST("/api/company-monitoring/v1/import-monitored-company-batch", {
  body: { contractVersion: "cm-import-v1", clientImportId: `ts-walk-import-${run}`, rows: [{ ordinal: 0, company: { name: `Walk Typed Imports ${run}`, domicileCountry: "US" } }] },
}));
const companies = answered<Schemas["ListMonitoredCompaniesResponse"]>(await client.GET("/api/company-monitoring/v1/list-monitored-companies", { params: { query: { page_size: 10 } } }));
answered(await client.GET("/api/company-monitoring/v1/get-company-coverage", { params: { query: { company_id: companyId } } }));
const impacts = answered<Schemas["ListCompanyEventImpactsResponse"]>(await client.GET("/api/company-monitoring/v1/list-company-event-impacts", { params: { query: { page_size: 5 } } }));
answered(await client.GET("/api/company-monitoring/v1/list-company-event-changes", { params: { query: { cursor: companies.snapshot.pollCursor } } }));
const impact = impacts.impacts[0];
if (!impact) throw new Error("the scanned company has no impact to read");
// Typed as the declared enum: assigning another string would not compile.
const direction: Schemas["MaterialImpactDirection"] = impact.direction;
answered(await client.GET("/api/company-monitoring/v1/get-company-material-event", { params: { query: { impact_id: impact.impactId } } }));
answered(await client.GET("/api/company-monitoring/v1/get-company-monitoring-status"));
answered(await client.POST("/api/company-monitoring/v1/set-monitored-company-state", { body: { companyId, targetLifecycle: "MONITORED_COMPANY_LIFECYCLE_REMOVED" } }));
// --- Webhooks (a receiver that is not listening) ---
const endpoint = answered<Schemas["WebhookEndpointSecretResponse"]>(await client.POST("/api/webhooks/v1/create-webhook-endpoint", {
  body: { url: "http://127.0.0.1:9/ts-walk", eventTypes: ["dataset.version.published"], datasets: ["violence-events"] },
}));
const endpointId = endpoint.endpoint.endpointId;
if (!endpoint.secret.startsWith("whsec_")) throw new Error("no whsec_ secret");
answered(await client.GET("/api/webhooks/v1/list-webhook-endpoints"));
answered(await client.POST("/api/webhooks/v1/update-webhook-endpoint", { body: { endpointId, description: "ts walk" } }));
answered(await client.POST("/api/webhooks/v1/rotate-webhook-endpoint-secret", { body: { endpointId } }));
const test = answered<Schemas["WebhookDeliveryResponse"]>(await client.POST("/api/webhooks/v1/send-webhook-test-event", { body: { endpointId } }));
answered(await client.GET("/api/webhooks/v1/list-webhook-deliveries", { params: { query: { endpoint_id: endpointId } } }));
answered(await client.POST("/api/webhooks/v1/redeliver-webhook-deliveries", { body: { endpointId, deliveryId: test.delivery.deliveryId } }));
answered(await client.POST("/api/webhooks/v1/delete-webhook-endpoint", { body: { endpointId } }));
// --- Batch ---
answered(await client.POST("/api/batch/v1/execute", { body: { operations: [
  { id: "a", path: "/api/conflict/v1/get-humanitarian-summary?country_code=SD" },
  { id: "b", path: "/api/climate/v1/get-co2-monitoring" },
] } }));
// --- Errors, checked against the declared error bodies ---
const refused = answered<Schemas["ValidationError"]>(await client.GET("/api/conflict/v1/list-armed-events", { params: { query: { page_size: 500 } } }), 400);
if (!refused.violations.length) throw new Error("a refused page size names no violation");
answered<Schemas["Error"]>(await client.GET("/api/company-monitoring/v1/get-company-coverage", { params: { query: { company_id: `cm_company_${"0".repeat(26)}` } } }), 404);

const missed = Object.keys(document.paths).filter((path) => !called.has(path));
if (missed.length) throw new Error(`paths the walk did not call: ${missed}`);
console.log(`typescript client (openapi-typescript + openapi-fetch, tsc --strict): ${called.size} operations, every answer matches its schema (an impact's direction: ${direction}): ok`);
