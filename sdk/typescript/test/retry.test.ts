import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { Contrack, ContrackError, parseRetryAfter } from "../src/index.js";

type Answer = (res: ServerResponse) => void;
interface Received {
  at: number;
  key?: string;
  body: string;
}

const servers: { close(): void }[] = [];
after(() => servers.forEach((s) => s.close()));

/** An HTTP server answering each request with the next answer (the last repeats). */
async function serve(...answers: Answer[]): Promise<{ client: Contrack; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ at: Date.now(), key: req.headers["x-api-key"] as string | undefined, body });
      answers[Math.min(received.length - 1, answers.length - 1)](res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  const client = new Contrack({
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: "key-1",
    retry: { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 50, maxWaitMs: 5000 },
  });
  return { client, received };
}

const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body);
  };

const account = JSON.stringify({ clientName: "acme", displayName: "Acme", environment: "sandbox", authMethod: "api-key", usagePlan: null });

test("a 429 is sent again after its Retry-After, with the same body and key", async () => {
  const { client, received } = await serve(
    answer(429, '{"message":"Too Many Requests"}', { "retry-after": "1" }),
    answer(200, '{"message":"Successfully Subscribed","subscriptionReference":"r1","dateOfRequest":"2026-11-22T20:13:50.870Z"}'),
  );
  const { data } = await client.api.POST("/subscription/equipment", {
    body: { scacCode: "MAEU", containerNumber: "MSKU9070323", subscriptionReference: "r1" },
  });
  assert.equal(data?.subscriptionReference, "r1");
  assert.equal(received.length, 2);
  assert.ok(received[1].at - received[0].at >= 1000, `sent again after ${received[1].at - received[0].at} ms; Retry-After said 1 s`);
  assert.equal(received[1].body, received[0].body);
  assert.notEqual(received[1].body, "");
  assert.equal(received[1].key, "key-1");
});

test("without Retry-After, a 429 with no request left waits for RateLimit-Reset", async () => {
  const { client, received } = await serve(
    answer(429, '{"message":"Too Many Requests"}', { "ratelimit-limit": "1", "ratelimit-remaining": "0", "ratelimit-reset": "1" }),
    answer(200, account),
  );
  await client.api.GET("/account");
  assert.ok(received[1].at - received[0].at >= 1000, `sent again after ${received[1].at - received[0].at} ms`);
});

test("a 503 is retried with backoff", async () => {
  const { client, received } = await serve(answer(503, '{"message":"Service Unavailable"}'), answer(503, '{"message":"Service Unavailable"}'), answer(200, account));
  const { data } = await client.api.GET("/account");
  assert.equal(data?.environment, "sandbox");
  assert.equal(received.length, 3);
});

test("retries end with a typed error: after maxRetries, and at once beyond maxWait", async () => {
  let s = await serve(answer(429, '{"message":"Too Many Requests"}', { "retry-after": "3600" }));
  await assert.rejects(s.client.api.GET("/account"), (err: unknown) => {
    assert.ok(err instanceof ContrackError);
    assert.equal(err.status, 429);
    assert.equal(err.message, "Too Many Requests");
    assert.equal(err.retryAfter, 3600);
    return true;
  });
  assert.equal(s.received.length, 1);
  s = await serve(answer(503, '{"message":"Service Unavailable"}'));
  await assert.rejects(s.client.api.GET("/account"), (err: unknown) => err instanceof ContrackError && err.status === 503);
  assert.equal(s.received.length, 4);
});

test("other errors are not retried and carry the API's message", async () => {
  const { client, received } = await serve(
    answer(404, '{"message":"Subscription not found","dateOfRequest":"2026-11-22T20:13:50.870Z"}', { "x-request-id": "req-7" }),
  );
  await assert.rejects(client.api.DELETE("/subscription/{subscription_id}", { params: { path: { subscription_id: "nope" } } }), (err: unknown) => {
    assert.ok(err instanceof ContrackError);
    assert.equal(err.status, 404);
    assert.equal(err.message, "Subscription not found");
    assert.equal(err.dateOfRequest, "2026-11-22T20:13:50.870Z");
    assert.equal(err.requestId, "req-7");
    assert.equal(err.method, "DELETE");
    assert.equal(err.path, "/subscription/nope");
    return true;
  });
  assert.equal(received.length, 1);
  const proxy = await serve((res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end("<html>bad gateway</html>");
  });
  await assert.rejects(proxy.client.api.GET("/account"), (err: unknown) => err instanceof ContrackError && err.message === "Bad Gateway: <html>bad gateway</html>");
});

test("Retry-After as seconds or an HTTP date", () => {
  const now = Date.UTC(2026, 10, 22, 20, 0, 0);
  assert.equal(parseRetryAfter(new Date(now + 90_000).toUTCString(), now), 90);
  assert.equal(parseRetryAfter("7", now), 7);
  assert.equal(parseRetryAfter(null, now), undefined);
});
