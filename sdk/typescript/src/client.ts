import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type References = Schemas["References"];
export type SubscriptionRecord = Schemas["SubscriptionRecord"];
export type SubscriptionList = Schemas["SubscriptionList"];
export type CreateSubscriptionBody = Schemas["CreateSubscriptionBody"];
export type ListSubscriptionsQuery = NonNullable<paths["/subscriptions"]["get"]["parameters"]["query"]>;

/** A DCSA EVENT_DOMAIN 2.0.2 event, as JSON. */
export type DcsaEvent = { eventID?: string; eventType?: string; [field: string]: unknown };

/**
 * An answer of the API with a status of 400 or more. `message` is the API's
 * own message, word for word (e.g. "Subscription not found").
 */
export class ContrackError extends Error {
  readonly status: number;
  /** The answer's dateOfRequest, when it has one. */
  readonly dateOfRequest?: string;
  /** Seconds to wait before trying again (Retry-After of a 429 or 503). */
  readonly retryAfter?: number;
  /** X-Request-Id of the answer, for support. */
  readonly requestId?: string;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    message: string;
    dateOfRequest?: string;
    retryAfter?: number;
    requestId?: string;
    method: string;
    path: string;
  }) {
    super(init.message);
    this.name = "ContrackError";
    this.status = init.status;
    this.dateOfRequest = init.dateOfRequest;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
  }
}

/**
 * How 429 (rate limited) and 503 (a store briefly out of reach; nothing was
 * recorded) answers are retried. Both mean the request was not carried out,
 * so every method is retried.
 */
export interface RetryPolicy {
  /** How many times one request is sent again; 0 never. */
  maxRetries: number;
  /** First backoff when the answer says nothing about when to come back; doubles per retry, with full jitter. */
  baseDelayMs: number;
  /** Cap of that backoff. */
  maxDelayMs: number;
  /** Longest Retry-After (or RateLimit-Reset) honoured; a longer one (a used-up daily quota) throws at once. */
  maxWaitMs: number;
}

export const defaultRetry: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxWaitMs: 60_000 };

export interface ContrackOptions {
  /** The API's base URL, e.g. "http://127.0.0.1:8080". */
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  /** The fetch to send requests with; globalThis.fetch by default. */
  fetch?: (input: Request) => Promise<Response>;
  userAgent?: string;
}

/** One event of the account event feed. */
export interface FeedEvent {
  /** The event's subscription's references, as in a webhook delivery. */
  references: References;
  event: DcsaEvent;
  /**
   * Where to resume once this event is handled: store it and pass it to
   * feed() after a restart. It never skips an event; unless the event was
   * the last of its page, the rest of that page is read again.
   */
  cursor: string;
}

export interface FeedOptions {
  /** Events per request, 1-1000; the API's default (100) when absent. */
  limit?: number;
  /** Seconds one request waits for a new event, 0-20; 20 by default. */
  waitSeconds?: number;
  /** End when a read finds nothing new, instead of waiting for more. */
  untilCaughtUp?: boolean;
  /** Ends the feed, also during a long-poll. */
  signal?: AbortSignal;
}

/** The outcome of one item of subscribeBulk. */
export interface BulkItemResult {
  /** The item's position in the array given to subscribeBulk. */
  index: number;
  subscriptionReference: string;
  /** CREATED, EXISTS (the reference was already taken: sending a batch again is safe) or INVALID (message says why). */
  status: "CREATED" | "EXISTS" | "INVALID";
  message: string;
  /** The carrier subscribed to (inferred when the item had none); absent for an INVALID item. */
  scacCode?: string;
}

/** The most subscriptions one POST /subscriptions/equipment takes. */
export const maxBulkItems = 1000;

/**
 * A client of the contrack API. `api` is the typed client generated from
 * the API's OpenAPI document (openapi-fetch: `api.GET("/account")`,
 * `api.POST("/subscription/equipment", { body })`, …); every answer of 400
 * or more throws a ContrackError, and 429 and 503 are retried first.
 */
export class Contrack {
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly policy: RetryPolicy;
  private readonly send: (input: Request) => Promise<Response>;

  constructor(options: ContrackOptions) {
    if (!options.apiKey) throw new Error("contrack: an API key is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const policy = (this.policy = { ...defaultRetry, ...options.retry });
    const inner = options.fetch ?? ((r: Request) => globalThis.fetch(r));
    const headers: Record<string, string> = { "x-api-key": options.apiKey };
    if (options.userAgent) headers["user-agent"] = options.userAgent;
    this.headers = headers;
    this.send = (request) => sendWithRetry(inner, request, policy);
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.send, headers });
  }

  /**
   * GET /subscriptions a page at a time, following nextToken to the last
   * page. query filters as the endpoint does; limit is the page size
   * (1-200), 200 when absent.
   */
  async *subscriptionPages(query: ListSubscriptionsQuery = {}): AsyncGenerator<SubscriptionList> {
    const q = { ...query, limit: query.limit ?? 200 };
    for (;;) {
      const { data } = await this.api.GET("/subscriptions", { params: { query: q } });
      if (!data) throw new Error("contrack: GET /subscriptions answered without a list");
      yield data;
      if (!data.nextToken) return;
      q.nextToken = data.nextToken;
    }
  }

  /** Every subscription query selects, read a page at a time. */
  async *subscriptions(query: ListSubscriptionsQuery = {}): AsyncGenerator<SubscriptionRecord> {
    for await (const page of this.subscriptionPages(query)) {
      yield* page.subscriptions ?? [];
    }
  }

  /**
   * The account's events from cursor (absent: the oldest kept, 30 days at
   * least), long-polling for new ones until the loop breaks, the signal
   * aborts, or (untilCaughtUp) there is nothing new. Network errors and
   * server faults are retried as the retry policy says; an invalid cursor
   * throws ContrackError "Invalid cursor".
   */
  async *feed(cursor?: string, options: FeedOptions = {}): AsyncGenerator<FeedEvent> {
    const policy = this.policy;
    const wait = options.untilCaughtUp ? 0 : Math.min(options.waitSeconds ?? 20, 20);
    let failures = 0;
    let current = cursor ?? "";
    while (!options.signal?.aborted) {
      let page: Schemas["FeedPage"] | undefined;
      try {
        const query: { cursor?: string; limit?: number; wait: number } = { wait };
        if (current) query.cursor = current;
        if (options.limit) query.limit = options.limit;
        ({ data: page } = await this.api.GET("/subscriptions/events", { params: { query }, signal: options.signal }));
      } catch (err) {
        if (options.signal?.aborted) return;
        const transient = !(err instanceof ContrackError) || err.status >= 500;
        if (transient && failures < policy.maxRetries) {
          await delay(backoff(policy, failures++), options.signal);
          continue;
        }
        throw err;
      }
      if (!page?.nextCursor) throw new Error("contrack: GET /subscriptions/events answered without nextCursor");
      failures = 0;
      const items = page.items ?? [];
      const total = items.reduce((n, item) => n + (item.events?.length ?? 0), 0);
      let seen = 0;
      for (const item of items) {
        for (const event of item.events ?? []) {
          seen++;
          yield { references: item.references, event: event as DcsaEvent, cursor: seen === total ? page.nextCursor : current };
        }
      }
      current = page.nextCursor;
      if (total === 0 && options.untilCaughtUp) return;
    }
  }

  /**
   * Subscribes to many shipments with POST /subscriptions/equipment,
   * 1,000 per request, and returns one result per item, in order. An item
   * that is INVALID or EXISTS is a result; a failed request throws.
   */
  async subscribeBulk(items: CreateSubscriptionBody[]): Promise<BulkItemResult[]> {
    const out: BulkItemResult[] = [];
    for (let start = 0; start < items.length; start += maxBulkItems) {
      const chunk = items.slice(start, start + maxBulkItems);
      const request = new Request(this.baseUrl + "/subscriptions/equipment", {
        method: "POST",
        headers: { ...this.headers, "content-type": "application/json" },
        body: JSON.stringify(chunk),
      });
      const answer = (await (await this.send(request)).json()) as { results?: BulkItemResult[] };
      const results = answer.results ?? [];
      if (results.length !== chunk.length) {
        throw new Error(`contrack: POST /subscriptions/equipment answered ${results.length} results for ${chunk.length} items`);
      }
      results.forEach((r, i) => out.push({ ...r, index: start + i }));
    }
    return out;
  }
}

/** Sends request, retrying 429 and 503; throws ContrackError for answers of 400 or more. */
async function sendWithRetry(inner: (r: Request) => Promise<Response>, request: Request, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await inner(request.clone());
    if (response.status < 400) return response;
    const error = await toError(request, response);
    const retryable = response.status === 429 || response.status === 503;
    if (!retryable || attempt >= policy.maxRetries) throw error;
    let waitMs = error.retryAfter !== undefined ? error.retryAfter * 1000 : undefined;
    if (waitMs === undefined && response.headers.get("ratelimit-remaining")?.trim() === "0") {
      const reset = Number(response.headers.get("ratelimit-reset"));
      if (reset > 0) waitMs = reset * 1000;
    }
    if (waitMs !== undefined && waitMs > policy.maxWaitMs) throw error;
    await delay(waitMs ?? backoff(policy, attempt), request.signal);
  }
}

async function toError(request: Request, response: Response): Promise<ContrackError> {
  const text = await response.text();
  let message = response.statusText || `HTTP ${response.status}`;
  let dateOfRequest: string | undefined;
  try {
    const body = JSON.parse(text) as { message?: unknown; dateOfRequest?: unknown };
    if (typeof body.message === "string" && body.message) {
      message = body.message;
      if (typeof body.dateOfRequest === "string") dateOfRequest = body.dateOfRequest;
    } else if (text.trim()) {
      message += ": " + text.trim().slice(0, 200);
    }
  } catch {
    // Not the API's own answer (a proxy's page, say): keep a little of it.
    if (text.trim()) message += ": " + text.trim().slice(0, 200);
  }
  return new ContrackError({
    status: response.status,
    message,
    dateOfRequest,
    retryAfter: parseRetryAfter(response.headers.get("retry-after")),
    requestId: response.headers.get("x-request-id") ?? undefined,
    method: request.method,
    path: new URL(request.url).pathname,
  });
}

/** Retry-After in seconds, from seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const cap = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  return Math.random() * cap + 1;
}

function delay(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
