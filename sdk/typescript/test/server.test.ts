import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Contrack, ContrackError, parseWebhook, verifyWebhook, type FeedEvent, type WebhookMessage } from "../src/index.js";

// These tests run against a real `contrack all` that `make sdk-test`
// starts (sdk/harness); without one they skip.
const url = process.env.CONTRACK_SDK_TEST_URL;
const bin = process.env.CONTRACK_SDK_TEST_BIN;
const skip = !url || !bin ? "CONTRACK_SDK_TEST_URL and CONTRACK_SDK_TEST_BIN are not set: make sdk-test runs this against a real contrack all" : false;

// A sandbox container (valid check digit) with a deterministic journey.
const container = "MSKU9070323";

/** Runs `contrack admin args…` and returns the last line it printed (the key, for create-key). */
function admin(...args: string[]): string {
  const out = execFileSync(bin!, ["admin", ...args], { encoding: "utf8" });
  return out.trim().split("\n").pop()!.trim();
}

const unique = (prefix: string) => prefix + randomBytes(4).toString("hex");

async function eventually<T>(withinMs: number, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The header value the receiver authenticates contrack with (the webhook's authHeaders). */
const hookApiKey = "sdk-hook-key-1234";

/** A webhook endpoint verifying every delivery with the SDK (the verification message with the secret it carries). */
async function receiver() {
  const messages: WebhookMessage[] = [];
  let refused = 0;
  const state = { secret: "" };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      try {
        const unverified = parseWebhook(body);
        const secret = unverified.type === "webhook.verification" ? unverified.secret! : state.secret;
        // The receiver authenticates contrack with the header it was given.
        if (req.headers["x-api-key"] !== hookApiKey) throw new Error("the API key is missing");
        // Both schemes must be there: verifyWebhook passes with either alone.
        if (!req.headers["x-hook-signature"] || !req.headers["webhook-signature"]) throw new Error("a signature is missing");
        messages.push(await verifyWebhook(secret, req.headers, body));
        res.writeHead(200).end();
      } catch {
        refused++;
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const next = (what: string, match: (m: WebhookMessage) => boolean) =>
    eventually(60_000, `webhook ${what} (${refused} deliveries refused)`, async () => messages.find(match));
  return { url: `http://127.0.0.1:${port}/hook`, state, next, close: () => server.close() };
}

test("a user's journey against the server", { skip }, async () => {
  const key = admin("create-key", "--client", unique("sdk-ts-"), "--env", "sandbox");
  const c = new Contrack({ baseUrl: url!, apiKey: key });

  const { data: account } = await c.api.GET("/account");
  assert.equal(account?.environment, "sandbox");

  // Typed errors carry the API's message.
  await assert.rejects(c.api.GET("/subscription/{subscription_id}", { params: { path: { subscription_id: "no-such-reference" } } }), (err: unknown) => {
    return err instanceof ContrackError && err.status === 404 && err.message === "Subscription not found";
  });
  const bad = new Contrack({ baseUrl: url!, apiKey: "not-a-key" });
  await assert.rejects(bad.api.GET("/account"), (err: unknown) => err instanceof ContrackError && err.status === 403 && err.message === "Forbidden");

  // Webhook: configure, take the secret from the verification message, activate.
  const hook = await receiver();
  try {
    const { data: configured } = await c.api.POST("/webhook/configure", {
      body: { targetUrl: hook.url, authHeaders: { "X-API-Key": hookApiKey } },
    });
    assert.equal(configured?.message, "Successful Configuration");
    const { data: webhook } = await c.api.GET("/webhook/configure");
    assert.equal(webhook?.authHeaders?.["X-API-Key"], "****1234");
    const verification = await hook.next("verification message", (m) => m.type === "webhook.verification");
    assert.match(verification.secret!, /^whsec_/);
    assert.equal(verification.targetUrl, hook.url);
    hook.state.secret = verification.secret!;
    const { data: activated } = await c.api.POST("/webhook/activate", { body: { secret: verification.secret! } });
    assert.equal(activated?.message, "Successful Activation");

    const { data: stored } = await c.api.POST("/carrier/credentials", { body: { MAEU: { apiKey: "sandbox-any" } } });
    assert.equal(stored?.message, "Successful Configuration");

    const refs = [0, 1, 2, 3, 4].map((i) => `ts-${i}`);
    for (const ref of refs) {
      const { data } = await c.api.POST("/subscription/equipment", { body: { scacCode: "MAEU", containerNumber: container, subscriptionReference: ref } });
      assert.equal(data?.message, "Successfully Subscribed");
    }
    await assert.rejects(
      c.api.POST("/subscription/equipment", { body: { scacCode: "MAEU", containerNumber: container, subscriptionReference: "ts-0" } }),
      (err: unknown) => err instanceof ContrackError && err.status === 400 && err.message === "Subscription Reference Already Exists" && !!err.dateOfRequest,
    );

    // Paging: two a page is three pages, in creation order.
    const pages: string[][] = [];
    for await (const page of c.subscriptionPages({ limit: 2 })) pages.push((page.subscriptions ?? []).map((s) => s.subscriptionReference));
    assert.deepEqual(pages, [["ts-0", "ts-1"], ["ts-2", "ts-3"], ["ts-4"]]);
    const listed: string[] = [];
    for await (const s of c.subscriptions({ referencePrefix: "ts-", limit: 3 })) {
      assert.equal(s.subscriptionStatus, "OPEN");
      listed.push(s.subscriptionReference);
    }
    assert.deepEqual(listed, refs);

    // The journey, pulled.
    const journey = await eventually(60_000, "a journey with events", async () => {
      const { data } = await c.api.GET("/subscription/equipment", { params: { query: { equipmentNumber: container } } });
      const r = data?.results?.[0];
      return r && (r.sourceEvents?.length ?? 0) > 0 ? r : undefined;
    });
    assert.equal(journey.equipmentNumber, container);
    assert.equal(journey.scacCode, "MAEU");

    // The feed, read to the end, then resumed from a stored cursor.
    const all = await eventually(60_000, "feed events of ts-0", async () => {
      const read: FeedEvent[] = [];
      for await (const ev of c.feed(undefined, { limit: 7, untilCaughtUp: true })) read.push(ev);
      return read.some((e) => e.references.subscriptionReference === "ts-0") ? read : undefined;
    });
    for (const ev of all) {
      assert.ok(ev.event.eventID, "an event without eventID");
      assert.equal(ev.event.equipmentReference, container);
    }
    assert.ok(all[all.length - 1].cursor, "the last event read has no cursor");
    const k = Math.floor(all.length / 2);
    const resumed: FeedEvent[] = [];
    for await (const ev of c.feed(all[k].cursor, { limit: 7, untilCaughtUp: true })) resumed.push(ev);
    let i = k + 1;
    for (const ev of resumed) {
      if (i < all.length && JSON.stringify([ev.references, ev.event]) === JSON.stringify([all[i].references, all[i].event])) i++;
    }
    assert.equal(i, all.length, `resumed after event ${k} of ${all.length}: the events after it are not all there in order`);
    // Long-polling: the feed returns an event; aborting ends it.
    const abort = new AbortController();
    for await (const ev of c.feed(undefined, { limit: 1, waitSeconds: 2, signal: abort.signal })) {
      assert.ok(ev.event.eventID);
      abort.abort();
    }
    await assert.rejects(
      (async () => {
        for await (const _ of c.feed("forged-cursor")) void _;
      })(),
      (err: unknown) => err instanceof ContrackError && err.status === 400 && err.message === "Invalid cursor",
    );

    // A delivered webhook, verified by the receiver with the SDK.
    const delivered = await hook.next("event delivery", (m) => !m.type && (m.events?.length ?? 0) > 0);
    assert.match(delivered.references!.subscriptionReference, /^ts-/);
    assert.equal(delivered.references!.equipmentNumber, container);

    const { data: deleted } = await c.api.DELETE("/subscription/{subscription_id}", { params: { path: { subscription_id: "ts-4" } } });
    assert.equal(deleted?.message, "Subscription deleted");
  } finally {
    hook.close();
  }
});

test("retries against a plan of one request a second", { skip }, async () => {
  const plan = unique("sdkts");
  admin("plan", "create", plan, "--rate", "1", "--burst", "1");
  const key = admin("create-key", "--client", unique("sdk-ts-slow-"), "--env", "sandbox", "--plan", plan);
  const once = new Contrack({ baseUrl: url!, apiKey: key, retry: { maxRetries: 0 } });
  const refused = await eventually(10_000, "a 429", async () => {
    try {
      await once.api.GET("/account");
      return undefined;
    } catch (err) {
      if (err instanceof ContrackError && err.status === 429) return err;
      throw err;
    }
  });
  assert.equal(refused.message, "Too Many Requests");
  assert.ok((refused.retryAfter ?? 0) > 0, "a 429 without Retry-After");

  let tooMany = 0;
  const counting = async (r: Request) => {
    const res = await fetch(r);
    if (res.status === 429) tooMany++;
    return res;
  };
  const c = new Contrack({ baseUrl: url!, apiKey: key, fetch: counting });
  for (let i = 0; i < 4; i++) {
    const { data } = await c.api.GET("/account");
    assert.equal(data?.environment, "sandbox");
  }
  assert.ok(tooMany > 0, "four calls at once on a plan of 1/s met no 429: the retries were not exercised");
});

// subscribeBulk against POST /subscriptions/equipment: one result per item
// in order, EXISTS when sent again, more than 1,000 items over two
// requests. It skips while the server has no such endpoint.
test("bulk subscribe against the server", { skip }, async (t) => {
  const c = new Contrack({ baseUrl: url!, apiKey: admin("create-key", "--client", unique("sdk-ts-bulk-"), "--env", "sandbox") });
  const items = [
    { scacCode: "MAEU", containerNumber: container, subscriptionReference: "bulk-0" },
    { scacCode: "MAEU", containerNumber: "MSKU9070324", subscriptionReference: "bulk-1" }, // wrong check digit
    { scacCode: "MAEU", bookingNumber: "BKG4711", subscriptionReference: "bulk-2" },
  ];
  let results;
  try {
    results = await c.subscribeBulk(items);
  } catch (err) {
    if (err instanceof ContrackError && err.status === 404 && err.message === "Not Found") {
      t.skip("this server has no POST /subscriptions/equipment (bulk subscribe, issue 29)");
      return;
    }
    throw err;
  }
  const summary = (rs: typeof results) => rs.map((r) => `${r.index} ${r.subscriptionReference} ${r.status} ${r.message}`);
  assert.deepEqual(summary(results), [
    "0 bulk-0 CREATED Successfully Subscribed",
    "1 bulk-1 INVALID Invalid container number 'MSKU9070324': wrong check digit (the last digit is 4; ISO 6346 gives 3 for MSKU907032)",
    "2 bulk-2 CREATED Successfully Subscribed",
  ]);
  assert.equal(results[0].scacCode, "MAEU");
  assert.deepEqual((await c.subscribeBulk(items)).map((r) => r.status), ["EXISTS", "INVALID", "EXISTS"]);
  const many = Array.from({ length: 1001 }, (_, i) => ({ scacCode: "MAEU", containerNumber: "MSKU9070324", subscriptionReference: `many-${i}` }));
  const all = await c.subscribeBulk(many);
  assert.equal(all.length, 1001);
  all.forEach((r, i) => assert.deepEqual([r.index, r.subscriptionReference, r.status], [i, `many-${i}`, "INVALID"]));
});
