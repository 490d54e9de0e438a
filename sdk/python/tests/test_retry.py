import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from contrack_sdk import Contrack, ContrackError, RetryPolicy, parse_retry_after
from contrack_sdk.openapi.api.account import get_account
from contrack_sdk.openapi.api.subscriptions import create_subscription, delete_subscription
from contrack_sdk.openapi.models import CreateSubscriptionBody

ACCOUNT = '{"clientName":"acme","displayName":"Acme","environment":"sandbox","authMethod":"api-key","usagePlan":null}'


def answer(status, body, **headers):
    return (status, body, {k.replace("_", "-"): v for k, v in headers.items()})


@pytest.fixture
def serve():
    """An HTTP server answering each request with the next answer (the last repeats)."""
    servers = []

    def start(*answers):
        received = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def handle_any(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode()
                received.append({"at": time.monotonic(), "key": self.headers.get("x-api-key"), "body": body})
                status, text, headers = answers[min(len(received), len(answers)) - 1]
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                data = text.encode()
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = handle_any

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        client = Contrack(
            f"http://127.0.0.1:{server.server_address[1]}",
            "key-1",
            retry=RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05, max_wait=5),
        )
        return client, received

    yield start
    for s in servers:
        s.shutdown()


def test_429_sent_again_after_retry_after(serve):
    client, received = serve(
        answer(429, '{"message":"Too Many Requests"}', retry_after="1"),
        answer(200, '{"message":"Successfully Subscribed","subscriptionReference":"r1","dateOfRequest":"2026-11-22T20:13:50.870Z"}'),
    )
    body = CreateSubscriptionBody(subscription_reference="r1", scac_code="MAEU", container_number="MSKU9070323")
    resp = create_subscription.sync(client=client.api, body=body)
    assert resp.subscription_reference == "r1"
    assert len(received) == 2
    assert received[1]["at"] - received[0]["at"] >= 1, "sent again before Retry-After"
    assert received[1]["body"] == received[0]["body"] != ""
    assert received[1]["key"] == "key-1"


def test_ratelimit_reset_when_no_request_left(serve):
    client, received = serve(
        answer(429, '{"message":"Too Many Requests"}', RateLimit_Limit="1", RateLimit_Remaining="0", RateLimit_Reset="1"),
        answer(200, ACCOUNT),
    )
    get_account.sync(client=client.api)
    assert received[1]["at"] - received[0]["at"] >= 1


def test_503_retried_with_backoff(serve):
    client, received = serve(answer(503, '{"message":"Service Unavailable"}'), answer(503, '{"message":"Service Unavailable"}'), answer(200, ACCOUNT))
    assert get_account.sync(client=client.api).environment == "sandbox"
    assert len(received) == 3


def test_retries_end_with_typed_error(serve):
    client, received = serve(answer(429, '{"message":"Too Many Requests"}', retry_after="3600"))
    with pytest.raises(ContrackError) as err:
        get_account.sync(client=client.api)
    assert (err.value.status, err.value.message, err.value.retry_after) == (429, "Too Many Requests", 3600)
    assert len(received) == 1, "waited for a Retry-After of an hour"
    client, received = serve(answer(503, '{"message":"Service Unavailable"}'))
    with pytest.raises(ContrackError) as err:
        get_account.sync(client=client.api)
    assert err.value.status == 503
    assert len(received) == 4


def test_other_errors_carry_the_message(serve):
    client, received = serve(
        answer(404, '{"message":"Subscription not found","dateOfRequest":"2026-11-22T20:13:50.870Z"}', X_Request_Id="req-7")
    )
    with pytest.raises(ContrackError) as err:
        delete_subscription.sync(client=client.api, subscription_id="nope")
    e = err.value
    assert (e.status, e.message, e.date_of_request, e.request_id, e.method, e.path) == (
        404,
        "Subscription not found",
        "2026-11-22T20:13:50.870Z",
        "req-7",
        "DELETE",
        "/subscription/nope",
    )
    assert len(received) == 1
    client, _ = serve(answer(502, "<html>bad gateway</html>"))
    with pytest.raises(ContrackError) as err:
        get_account.sync(client=client.api)
    assert err.value.message == "Bad Gateway: <html>bad gateway</html>"


def test_retry_after_formats():
    now = 1_795_000_000
    assert parse_retry_after(formatdate(now + 90, usegmt=True), now=now) == 90
    assert parse_retry_after("7") == 7
    assert parse_retry_after(None) is None
