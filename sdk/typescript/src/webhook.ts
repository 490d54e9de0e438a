import type { DcsaEvent, References } from "./client.js";

/** Why a webhook failed verification. */
export class WebhookVerificationError extends Error {
  /** no-signature, bad-signature, stale-timestamp or bad-secret. */
  readonly reason: "no-signature" | "bad-signature" | "stale-timestamp" | "bad-secret";
  constructor(reason: WebhookVerificationError["reason"], message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

/** Headers as fetch, Node's http or a framework give them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Seconds webhook-timestamp may be from now; 300 by default (as Standard Webhooks). */
  toleranceSeconds?: number;
  /** The clock, in milliseconds; Date.now by default. */
  now?: () => number;
}

/** A body contrack POSTs to a webhook: events of one subscription, the verification message, or a test delivery. */
export interface WebhookMessage {
  /** "webhook.verification", "webhook.test", or absent for event deliveries. */
  type?: "webhook.verification" | "webhook.test";
  references?: References;
  events?: DcsaEvent[];
  /** The secret to activate with (verification message only). */
  secret?: string;
  targetUrl?: string;
  env?: string;
  timestamp?: string;
}

const encoder = new TextEncoder();

/**
 * Verifies a delivery to a webhook with its whsec_… secret: every signature
 * the headers carry must match the raw body (X-Hook-Signature, the
 * lowercase hex HMAC-SHA256 keyed with the secret as issued; the Standard
 * Webhooks webhook-signature over "id.timestamp.body", keyed with the
 * base64-decoded bytes after whsec_, with its timestamp within the
 * tolerance), and at least one must be there. Resolves to the parsed
 * message; rejects with a WebhookVerificationError.
 */
export async function verifyWebhook(secret: string, headers: HeaderSource, body: string | Uint8Array, options: VerifyOptions = {}): Promise<WebhookMessage> {
  const raw = typeof body === "string" ? encoder.encode(body) : body;
  const hook = header(headers, "x-hook-signature");
  const std = header(headers, "webhook-signature");
  if (!hook && !std) throw new WebhookVerificationError("no-signature", "contrack: webhook has no signature");
  if (hook) await verifyHookSignature(secret, raw, hook);
  if (std) {
    await verifyStandardWebhook(secret, header(headers, "webhook-id") ?? "", header(headers, "webhook-timestamp") ?? "", std, raw, options);
  }
  return parseWebhook(raw);
}

/** Checks X-Hook-Signature: the lowercase hex HMAC-SHA256 of body keyed with secret exactly as issued. */
export async function verifyHookSignature(secret: string, body: Uint8Array, signature: string): Promise<void> {
  const want = await hmac(encoder.encode(secret), body);
  const got = fromHex(signature.trim());
  if (!got || !equal(got, want)) throw new WebhookVerificationError("bad-signature", "contrack: X-Hook-Signature does not match");
}

/**
 * Checks a Standard Webhooks signature: signatures is webhook-signature
 * (space-separated "v1,<base64>" entries; one match is enough), timestamp
 * webhook-timestamp in Unix seconds.
 */
export async function verifyStandardWebhook(
  secret: string,
  id: string,
  timestamp: string,
  signatures: string,
  body: Uint8Array,
  options: VerifyOptions = {},
): Promise<void> {
  if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("bad-secret", "contrack: webhook secret is not whsec_<base64>");
  let key: Uint8Array;
  try {
    key = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  } catch {
    throw new WebhookVerificationError("bad-secret", "contrack: webhook secret is not whsec_<base64>");
  }
  if (!id) throw new WebhookVerificationError("bad-signature", "contrack: webhook-id missing");
  const seconds = Number(timestamp.trim());
  if (!/^\d+$/.test(timestamp.trim())) throw new WebhookVerificationError("bad-signature", `contrack: webhook-timestamp ${JSON.stringify(timestamp)}`);
  const now = (options.now ?? Date.now)() / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError("stale-timestamp", `contrack: webhook timestamp ${Math.round(now - seconds)} s from now`);
  }
  const signed = new Uint8Array([...encoder.encode(`${id}.${seconds}.`), ...body]);
  const want = await hmac(key, signed);
  for (const entry of signatures.split(" ")) {
    const [version, sig] = entry.split(",", 2);
    if (version !== "v1" || !sig) continue;
    let got: Uint8Array;
    try {
      got = Uint8Array.from(atob(sig), (c) => c.charCodeAt(0));
    } catch {
      continue;
    }
    if (equal(got, want)) return;
  }
  throw new WebhookVerificationError("bad-signature", "contrack: webhook-signature does not match");
}

/** Parses a delivery's body (verify it first). */
export function parseWebhook(body: string | Uint8Array): WebhookMessage {
  return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as WebhookMessage;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(" ") : v;
  }
  return undefined;
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data as BufferSource));
}

function fromHex(s: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F]*$/.test(s) || s.length % 2) return undefined;
  return Uint8Array.from(s.match(/../g) ?? [], (b) => parseInt(b, 16));
}

/** Compares in time that depends on the length only. */
function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
