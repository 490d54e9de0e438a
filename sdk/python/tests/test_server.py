"""Against a real `contrack all` that `make sdk-test` starts (sdk/harness);
without one these tests skip."""

import json
import os
import secrets
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from contrack_sdk import Contrack, ContrackError, RetryPolicy, WebhookVerificationError, verify_webhook
from contrack_sdk.openapi.api.account import get_account
from contrack_sdk.openapi.api.carrier_credentials import store_carrier_credentials
from contrack_sdk.openapi.api.subscriptions import create_subscription, delete_subscription, get_journeys, get_subscription
from contrack_sdk.openapi.api.webhooks import activate_webhook, configure_webhook, get_webhook
from contrack_sdk.openapi.models import (
    ActivateWebhookBody,
    ConfigureWebhookBody,
    CreateSubscriptionBody,
    StoreCarrierCredentialsBody,
)

URL = os.environ.get("CONTRACK_SDK_TEST_URL")
BIN = os.environ.get("CONTRACK_SDK_TEST_BIN")
pytestmark = pytest.mark.skipif(
    not URL or not BIN,
    reason="CONTRACK_SDK_TEST_URL and CONTRACK_SDK_TEST_BIN are not set: make sdk-test runs this against a real contrack all",
)

# A sandbox container (valid check digit) with a deterministic journey.
CONTAINER = "MSKU9070323"


def admin(*args: str) -> str:
    """Runs `contrack admin args…` and returns the last line it printed."""
    out = subprocess.run([BIN, "admin", *args], check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1].strip()


def unique(prefix: str) -> str:
    return prefix + secrets.token_hex(4)


def eventually(within: float, what: str, probe):
    deadline = time.monotonic() + within
    while True:
        got = probe()
        if got is not None:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {within} s")
        time.sleep(0.2)


# The header value the receiver authenticates contrack with (the webhook's authHeaders).
HOOK_API_KEY = "sdk-hook-key-1234"


class Receiver:
    """A webhook endpoint verifying every delivery with the SDK (the
    verification message with the secret it carries)."""

    def __init__(self):
        self.secret = ""
        self.messages = []
        self.refused = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    unverified = json.loads(body)
                    secret = unverified["secret"] if unverified.get("type") == "webhook.verification" else receiver.secret
                    # The receiver authenticates contrack with the header it was given.
                    if self.headers.get("X-API-Key") != HOOK_API_KEY:
                        raise WebhookVerificationError("no-api-key", "the API key is missing")
                    # Both schemes must be there: verify_webhook passes with either alone.
                    if not self.headers.get("X-Hook-Signature") or not self.headers.get("webhook-signature"):
                        raise WebhookVerificationError("no-signature", "a signature is missing")
                    receiver.messages.append(verify_webhook(secret, self.headers, body))
                    self.send_response(200)
                except (ValueError, KeyError, WebhookVerificationError):
                    receiver.refused += 1
                    self.send_response(401)
                self.send_header("content-length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def next(self, what, match):
        return eventually(60, f"webhook {what} ({self.refused} deliveries refused)", lambda: next((m for m in self.messages if match(m)), None))


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.server.shutdown()


def test_a_users_journey(receiver):
    key = admin("create-key", "--client", unique("sdk-py-"), "--env", "sandbox")
    c = Contrack(URL, key)
    assert get_account.sync(client=c.api).environment == "sandbox"

    # Typed errors carry the API's message.
    with pytest.raises(ContrackError) as err:
        get_subscription.sync(client=c.api, subscription_id="no-such-reference")
    assert (err.value.status, err.value.message) == (404, "Subscription not found")
    with pytest.raises(ContrackError) as err:
        get_account.sync(client=Contrack(URL, "not-a-key").api)
    assert (err.value.status, err.value.message) == (403, "Forbidden")

    # Webhook: configure, take the secret from the verification message, activate.
    body = ConfigureWebhookBody.from_dict({"targetUrl": receiver.url, "authHeaders": {"X-API-Key": HOOK_API_KEY}})
    assert configure_webhook.sync(client=c.api, body=body).message == "Successful Configuration"
    assert get_webhook.sync(client=c.api).auth_headers["X-API-Key"] == "****1234"
    verification = receiver.next("verification message", lambda m: m.get("type") == "webhook.verification")
    assert verification["secret"].startswith("whsec_") and verification["targetUrl"] == receiver.url
    receiver.secret = verification["secret"]
    assert activate_webhook.sync(client=c.api, body=ActivateWebhookBody(secret=verification["secret"])).message == "Successful Activation"

    creds = StoreCarrierCredentialsBody.from_dict({"MAEU": {"apiKey": "sandbox-any"}})
    assert store_carrier_credentials.sync(client=c.api, body=creds).message == "Successful Configuration"

    refs = [f"py-{i}" for i in range(5)]
    for ref in refs:
        body = CreateSubscriptionBody(subscription_reference=ref, scac_code="MAEU", container_number=CONTAINER)
        assert create_subscription.sync(client=c.api, body=body).message == "Successfully Subscribed"
    with pytest.raises(ContrackError) as err:
        create_subscription.sync(client=c.api, body=CreateSubscriptionBody(subscription_reference="py-0", scac_code="MAEU", container_number=CONTAINER))
    assert (err.value.status, err.value.message) == (400, "Subscription Reference Already Exists") and err.value.date_of_request

    # Paging: two a page is three pages, in creation order.
    pages = [[s.subscription_reference for s in page.subscriptions] for page in c.subscription_pages(limit=2)]
    assert pages == [["py-0", "py-1"], ["py-2", "py-3"], ["py-4"]]
    listed = list(c.subscriptions(reference_prefix="py-", limit=3))
    assert [s.subscription_reference for s in listed] == refs
    assert all(s.subscription_status == "OPEN" and s.equipment_number == CONTAINER for s in listed)

    # The journey, pulled.
    def journey():
        results = get_journeys.sync(client=c.api, equipment_number=CONTAINER).results
        return results[0] if results and results[0].source_events else None

    j = eventually(60, "a journey with events", journey)
    assert (j.equipment_number, j.scac_code) == (CONTAINER, "MAEU")

    # The feed, read to the end, then resumed from a stored cursor.
    def read_all():
        events = list(c.feed(limit=7, until_caught_up=True))
        return events if any(e.references.subscription_reference == "py-0" for e in events) else None

    events = eventually(60, "feed events of py-0", read_all)
    assert all(e.event["eventID"] and e.event["equipmentReference"] == CONTAINER for e in events)
    assert events[-1].cursor, "the last event read has no cursor"
    k = len(events) // 2
    resumed = list(c.feed(events[k].cursor, limit=7, until_caught_up=True))
    want = [(e.references.to_dict(), e.event) for e in events[k + 1 :]]
    got = iter((e.references.to_dict(), e.event) for e in resumed)
    assert all(w in got for w in want), f"resumed after event {k} of {len(events)}: the events after it are not all there in order"
    # Long-polling: the feed returns an event.
    first = next(c.feed(limit=1, wait=2))
    assert first.event["eventID"]
    with pytest.raises(ContrackError) as err:
        next(c.feed("forged-cursor"))
    assert (err.value.status, err.value.message) == (400, "Invalid cursor")

    # A delivered webhook, verified by the receiver with the SDK.
    delivered = receiver.next("event delivery", lambda m: not m.get("type") and m.get("events"))
    assert delivered["references"]["subscriptionReference"].startswith("py-")
    assert delivered["references"]["equipmentNumber"] == CONTAINER

    assert delete_subscription.sync(client=c.api, subscription_id="py-4").message == "Subscription deleted"


class Counting(httpx.HTTPTransport):
    too_many = 0

    def handle_request(self, request):
        response = super().handle_request(request)
        if response.status_code == 429:
            self.too_many += 1
        return response


def test_retries_against_a_plan_of_one_request_a_second():
    plan = unique("sdkpy")
    admin("plan", "create", plan, "--rate", "1", "--burst", "1")
    key = admin("create-key", "--client", unique("sdk-py-slow-"), "--env", "sandbox", "--plan", plan)
    once = Contrack(URL, key, retry=RetryPolicy(max_retries=0))

    def refused():
        try:
            get_account.sync(client=once.api)
        except ContrackError as e:
            if e.status == 429:
                return e
            raise
        return None

    e = eventually(10, "a 429", refused)
    assert e.message == "Too Many Requests" and e.retry_after and e.retry_after > 0

    counting = Counting()
    c = Contrack(URL, key, transport=counting)
    for _ in range(4):
        assert get_account.sync(client=c.api).environment == "sandbox"
    assert counting.too_many > 0, "four calls at once on a plan of 1/s met no 429: the retries were not exercised"


def test_bulk_subscribe():
    """subscribe_bulk against POST /subscriptions/equipment: one result per
    item in order, EXISTS when sent again, more than 1,000 items over two
    requests. It skips while the server has no such endpoint."""
    c = Contrack(URL, admin("create-key", "--client", unique("sdk-py-bulk-"), "--env", "sandbox"))
    items = [
        CreateSubscriptionBody(subscription_reference="bulk-0", scac_code="MAEU", container_number=CONTAINER),
        CreateSubscriptionBody(subscription_reference="bulk-1", scac_code="MAEU", container_number="MSKU9070324"),  # wrong check digit
        {"scacCode": "MAEU", "bookingNumber": "BKG4711", "subscriptionReference": "bulk-2"},
    ]
    try:
        results = c.subscribe_bulk(items)
    except ContrackError as e:
        if (e.status, e.message) == (404, "Not Found"):
            pytest.skip("this server has no POST /subscriptions/equipment (bulk subscribe, issue 29)")
        raise
    assert [(r.index, r.subscription_reference, r.status, r.message) for r in results] == [
        (0, "bulk-0", "CREATED", "Successfully Subscribed"),
        (1, "bulk-1", "INVALID", "Invalid container number 'MSKU9070324': wrong check digit (the last digit is 4; ISO 6346 gives 3 for MSKU907032)"),
        (2, "bulk-2", "CREATED", "Successfully Subscribed"),
    ]
    assert results[0].scac_code == "MAEU"
    assert [r.status for r in c.subscribe_bulk(items)] == ["EXISTS", "INVALID", "EXISTS"]
    many = [{"scacCode": "MAEU", "containerNumber": "MSKU9070324", "subscriptionReference": f"many-{i}"} for i in range(1001)]
    results = c.subscribe_bulk(many)
    assert [(r.index, r.subscription_reference, r.status) for r in results] == [(i, f"many-{i}", "INVALID") for i in range(1001)]
