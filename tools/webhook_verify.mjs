// Our webhooks verified by the npm `standardwebhooks` package (the receivers' library, pinned in
// tools/npm), from what tools/webhook_check.py's receiver got: every company.impact.changed
// delivery verifies with the endpoint's secret; the same delivery with its body or its timestamp
// changed throws; the test event sent after a rotation verifies with the old secret and the new.
// usage: node webhook_verify.mjs <dump.json> <node_modules>
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [dumpPath, modules] = process.argv.slice(2);
const require = createRequire(path.join(modules, "noop.js"));
const { Webhook } = require("standardwebhooks");
const dump = JSON.parse(readFileSync(dumpPath, "utf8"));
const fail = (message) => {
  console.error(`webhooks (npm standardwebhooks): ${message}`);
  process.exit(1);
};
const throws = (secret, body, headers) => {
  try {
    new Webhook(secret).verify(body, headers);
    return false;
  } catch {
    return true;
  }
};

const deliveries = dump.deliveries.map((d) => ({ headers: d.headers, body: Buffer.from(d.body, "base64").toString("utf8") }));
const impacts = deliveries.filter((d) => JSON.parse(d.body).type === "company.impact.changed");
const tests = deliveries.filter((d) => JSON.parse(d.body).type === "webhook.test");
if (impacts.length === 0 || tests.length === 0) fail(`expected impact and test deliveries, got ${deliveries.length}`);
for (const d of impacts) {
  const event = new Webhook(dump.secret).verify(d.body, d.headers);
  if (event.type !== "company.impact.changed") fail(`unexpected event ${JSON.stringify(event)}`);
}
const [first] = impacts;
if (!throws(dump.secret, first.body.replace("IMPACT", "impact"), first.headers)) fail("a tampered body verified");
const old = String(Math.floor(Date.now() / 1000) - 600);
if (!throws(dump.secret, first.body, { ...first.headers, "webhook-timestamp": old })) fail("a delivery ten minutes old verified");
for (const secret of [dump.secret, dump.rotatedSecret]) new Webhook(secret).verify(tests[0].body, tests[0].headers);
console.log(`webhooks (npm standardwebhooks): ${impacts.length} impact events and a test event verified (across a rotation); a tampered body and an old timestamp refused: ok`);
