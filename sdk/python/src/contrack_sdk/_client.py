"""The client: the generated one (contrack_sdk.openapi) with the API key, typed
errors, retries of 429 and 503, and helpers for paging, the feed and bulk
subscribe."""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from .openapi import AuthenticatedClient
from .openapi.api.subscriptions import list_subscriptions, read_feed
from .openapi.models import CreateSubscriptionBody, References, SubscriptionList, SubscriptionRecord
from .openapi.types import UNSET

MAX_BULK_ITEMS = 1000
"""The most subscriptions one POST /subscriptions/equipment takes."""


class ContrackError(Exception):
    """An answer of the API with a status of 400 or more. ``message`` is the
    API's own message, word for word (e.g. "Subscription not found")."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        date_of_request: str | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        method: str = "",
        path: str = "",
    ) -> None:
        super().__init__(f"contrack: {method} {path}: {status} {message}")
        self.status = status
        self.message = message
        self.date_of_request = date_of_request
        """The answer's dateOfRequest, when it has one."""
        self.retry_after = retry_after
        """Seconds to wait before trying again (Retry-After of a 429 or 503)."""
        self.request_id = request_id
        """X-Request-Id of the answer, for support."""
        self.method = method
        self.path = path

    @classmethod
    def from_response(cls, response: httpx.Response) -> ContrackError:
        message = response.reason_phrase or f"HTTP {response.status_code}"
        date = None
        text = response.text.strip()
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
            message = body["message"]
            date = body.get("dateOfRequest") if isinstance(body.get("dateOfRequest"), str) else None
        elif text:
            # Not the API's own answer (a proxy's page, say): keep a little of it.
            message += ": " + text[:200]
        return cls(
            response.status_code,
            message,
            date_of_request=date,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
            request_id=response.headers.get("x-request-id"),
            method=response.request.method,
            path=response.request.url.path,
        )


@dataclass(frozen=True)
class RetryPolicy:
    """How 429 (rate limited) and 503 (a store briefly out of reach; nothing
    was recorded) answers are retried. Both mean the request was not carried
    out, so every method is retried."""

    max_retries: int = 4
    """How many times one request is sent again; 0 never."""
    base_delay: float = 0.5
    """First backoff (seconds) when the answer says nothing about when to
    come back; doubles per retry, with full jitter."""
    max_delay: float = 30.0
    """Cap of that backoff."""
    max_wait: float = 60.0
    """Longest Retry-After (or RateLimit-Reset) honoured; a longer one (a
    used-up daily quota) raises at once."""

    def wait(self, attempt: int, headers: httpx.Headers) -> float | None:
        """Seconds before retry number attempt+1, or None when the answer
        asks for more than max_wait."""
        seconds = parse_retry_after(headers.get("retry-after"))
        if seconds is None and headers.get("ratelimit-remaining", "").strip() == "0":
            try:
                reset = float(headers.get("ratelimit-reset", ""))
            except ValueError:
                reset = 0
            if reset > 0:
                seconds = reset
        if seconds is not None:
            return seconds if seconds <= self.max_wait else None
        return self.backoff(attempt)

    def backoff(self, attempt: int) -> float:
        return random.uniform(0, min(self.base_delay * 2**attempt, self.max_delay)) + 0.001


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds, from seconds or an HTTP date."""
    if not value or not value.strip():
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


class _RetryTransport(httpx.BaseTransport):
    """Sends a request again after a 429 or 503, as the policy says."""

    def __init__(self, inner: httpx.BaseTransport, policy: RetryPolicy) -> None:
        self.inner = inner
        self.policy = policy

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            response = self.inner.handle_request(request)
            if response.status_code not in (429, 503) or attempt >= self.policy.max_retries:
                return response
            wait = self.policy.wait(attempt, response.headers)
            if wait is None:
                return response
            response.close()
            time.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self.inner.close()


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code >= 400:
        response.read()
        raise ContrackError.from_response(response)


@dataclass(frozen=True)
class FeedEvent:
    """One event of the account event feed (GET /subscriptions/events)."""

    references: References
    """The event's subscription's references, as in a webhook delivery."""
    event: dict[str, Any]
    """The DCSA EVENT_DOMAIN 2.0.2 event."""
    cursor: str
    """Where to resume once this event is handled: store it, and pass it to
    feed() after a restart. It never skips an event; unless the event was
    the last of its page, the rest of that page is read again."""


@dataclass(frozen=True)
class BulkItemResult:
    """The outcome of one item of subscribe_bulk."""

    index: int
    """The item's position in the list given to subscribe_bulk."""
    subscription_reference: str
    status: str
    """CREATED, EXISTS (the reference was already taken: sending a batch
    again is safe) or INVALID (message says why)."""
    message: str
    scac_code: str | None = None
    """The carrier subscribed to (inferred when the item had none); None for
    an INVALID item."""


class Contrack:
    """A client of the contrack API.

    ``api`` is the client generated from the API's OpenAPI document: pass it
    to the generated operations, e.g.
    ``get_account.sync(client=c.api)`` (``contrack_sdk.openapi.api``). Every
    answer of 400 or more raises ContrackError; 429 and 503 are retried
    first.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retry: RetryPolicy | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """timeout (seconds) bounds each request; the feed long-polls for up
        to 20 s, so it must be longer. transport replaces httpx's."""
        if not api_key:
            raise ValueError("contrack: an API key is required")
        self.retry = retry or RetryPolicy()
        self.api = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=api_key,
            prefix="",
            auth_header_name="x-api-key",
            timeout=httpx.Timeout(timeout),
            raise_on_unexpected_status=True,
            httpx_args={
                "transport": _RetryTransport(transport or httpx.HTTPTransport(), self.retry),
                "event_hooks": {"response": [_raise_for_status]},
            },
        )

    def __enter__(self) -> Contrack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def subscription_pages(
        self,
        *,
        subscription_status: str | None = None,
        reference_prefix: str | None = None,
        limit: int = 200,
        next_token: str | None = None,
    ) -> Iterator[SubscriptionList]:
        """GET /subscriptions a page at a time (limit: page size, 1-200),
        following nextToken to the last page."""
        token = next_token
        while True:
            page = list_subscriptions.sync(
                client=self.api,
                subscription_status=subscription_status if subscription_status is not None else UNSET,
                reference_prefix=reference_prefix if reference_prefix is not None else UNSET,
                limit=limit,
                next_token=token if token else UNSET,
            )
            if not isinstance(page, SubscriptionList):
                raise ContrackError(0, "GET /subscriptions answered without a list", method="GET", path="/subscriptions")
            yield page
            if not page.next_token:
                return
            token = page.next_token

    def subscriptions(self, **filters: Any) -> Iterator[SubscriptionRecord]:
        """Every subscription the filters (as subscription_pages) select."""
        for page in self.subscription_pages(**filters):
            yield from page.subscriptions or []

    def feed(
        self,
        cursor: str | None = None,
        *,
        limit: int | None = None,
        wait: int = 20,
        until_caught_up: bool = False,
    ) -> Iterator[FeedEvent]:
        """The account's events from cursor (None: the oldest kept, 30 days at
        least), long-polling up to wait seconds (0-20) a request for new
        ones, until the loop breaks or (until_caught_up) there is nothing
        new. Network errors and server faults are retried as the retry
        policy says; an invalid cursor raises ContrackError "Invalid cursor"."""
        current = cursor or ""
        wait = 0 if until_caught_up else max(0, min(wait, 20))
        failures = 0
        while True:
            try:
                page = read_feed.sync(
                    client=self.api,
                    cursor=current or UNSET,
                    limit=limit if limit else UNSET,
                    wait=wait,
                )
            except (httpx.TransportError, ContrackError) as err:
                transient = not isinstance(err, ContrackError) or err.status >= 500
                if transient and failures < self.retry.max_retries:
                    time.sleep(self.retry.backoff(failures))
                    failures += 1
                    continue
                raise
            if page is None or not getattr(page, "next_cursor", ""):
                raise ContrackError(0, "GET /subscriptions/events answered without nextCursor", method="GET", path="/subscriptions/events")
            failures = 0
            items = page.items or []
            total = sum(len(item.events or []) for item in items)
            seen = 0
            for item in items:
                for event in item.events or []:
                    seen += 1
                    yield FeedEvent(item.references, event, page.next_cursor if seen == total else current)
            current = page.next_cursor
            if total == 0 and until_caught_up:
                return

    def subscribe_bulk(self, items: Iterable[CreateSubscriptionBody | dict[str, Any]]) -> list[BulkItemResult]:
        """Subscribes to many shipments with POST /subscriptions/equipment,
        1,000 per request, and returns one result per item, in order. An item
        that is INVALID or EXISTS is a result; a failed request raises."""
        bodies = [i.to_dict() if isinstance(i, CreateSubscriptionBody) else dict(i) for i in items]
        out: list[BulkItemResult] = []
        http = self.api.get_httpx_client()
        for start in range(0, len(bodies), MAX_BULK_ITEMS):
            chunk = bodies[start : start + MAX_BULK_ITEMS]
            results = http.post("/subscriptions/equipment", json=chunk).json().get("results") or []
            if len(results) != len(chunk):
                raise ContrackError(
                    0,
                    f"POST /subscriptions/equipment answered {len(results)} results for {len(chunk)} items",
                    method="POST",
                    path="/subscriptions/equipment",
                )
            for i, r in enumerate(results):
                out.append(
                    BulkItemResult(
                        index=start + i,
                        subscription_reference=r.get("subscriptionReference", ""),
                        status=r.get("status", ""),
                        message=r.get("message", ""),
                        scac_code=r.get("scacCode"),
                    )
                )
        return out
