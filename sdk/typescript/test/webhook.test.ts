import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { verifyHookSignature, verifyStandardWebhook, verifyWebhook, WebhookVerificationError } from "../src/index.js";

// reference/standard-webhooks-vector.json: a delivery signed by the
// Standard Webhooks reference library and Node crypto.
const vector = JSON.parse(readFileSync("../../reference/standard-webhooks-vector.json", "utf8")) as Record<string, string>;
const at = Number(vector["webhook-timestamp"]) * 1000;
const headers = {
  "x-hook-signature": vector["X-Hook-Signature"],
  "webhook-id": vector["webhook-id"],
  "webhook-timestamp": vector["webhook-timestamp"],
  "webhook-signature": vector["webhook-signature"],
};
const body = vector.body;
const bytes = new TextEncoder().encode(body);

test("verifies the reference vector, both schemes", async () => {
  const msg = await verifyWebhook(vector.secret, headers, body, { now: () => at + 60_000 });
  assert.equal(msg.references?.subscriptionReference, "ref-1");
  assert.equal(msg.events?.length, 1);
  await verifyHookSignature(vector.secret, bytes, vector["X-Hook-Signature"]);
  await verifyStandardWebhook(vector.secret, vector["webhook-id"], vector["webhook-timestamp"], vector["webhook-signature"], bytes, { now: () => at });
  // Among several signatures, one match is enough; Headers work as well as objects.
  await verifyStandardWebhook(vector.secret, vector["webhook-id"], vector["webhook-timestamp"], "v1,AAAA " + vector["webhook-signature"], bytes, { now: () => at });
  await verifyWebhook(vector.secret, new Headers(headers), bytes, { now: () => at });
});

test("refuses what does not match", async () => {
  const tampered = body.replace("GTIN", "GTOT");
  const only = (...keep: (keyof typeof headers)[]) => Object.fromEntries(keep.map((k) => [k, headers[k]]));
  const now = () => at;
  const cases: [string, string, Record<string, string>, string, WebhookVerificationError["reason"], (() => number)?][] = [
    ["tampered body", vector.secret, headers, tampered, "bad-signature"],
    ["tampered body, X-Hook-Signature only", vector.secret, only("x-hook-signature"), tampered, "bad-signature"],
    ["tampered body, Standard Webhooks only", vector.secret, only("webhook-id", "webhook-timestamp", "webhook-signature"), tampered, "bad-signature"],
    ["another secret", "whsec_c2VjcmV0LW9mLWFub3RoZXItYWNjb3VudC0wMDAwMDA=", headers, body, "bad-signature"],
    ["other webhook-id", vector.secret, { ...headers, "webhook-id": "msg_other" }, body, "bad-signature"],
    ["wrong X-Hook-Signature", vector.secret, { ...headers, "x-hook-signature": vector["X-Hook-Signature"].slice(0, 63) + "0" }, body, "bad-signature"],
    ["replayed an hour later", vector.secret, headers, body, "stale-timestamp", () => at + 3_600_000],
    ["from the future", vector.secret, headers, body, "stale-timestamp", () => at - 600_000],
    ["no signature", vector.secret, {}, body, "no-signature"],
    ["secret not whsec_", "plain", only("webhook-id", "webhook-timestamp", "webhook-signature"), body, "bad-secret"],
  ];
  for (const [name, secret, h, b, reason, clock] of cases) {
    await assert.rejects(verifyWebhook(secret, h, b, { now: clock ?? now }), (err: unknown) => {
      assert.ok(err instanceof WebhookVerificationError, name);
      assert.equal(err.reason, reason, name);
      return true;
    });
  }
});
