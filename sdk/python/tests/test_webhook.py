import json
from pathlib import Path

import pytest

from contrack_sdk import WebhookVerificationError, verify_hook_signature, verify_standard_webhook, verify_webhook

# reference/standard-webhooks-vector.json: a delivery signed by the Standard
# Webhooks reference library and Node crypto.
VECTOR = json.loads((Path(__file__).parents[3] / "reference" / "standard-webhooks-vector.json").read_text())
AT = int(VECTOR["webhook-timestamp"])
HEADERS = {
    "X-Hook-Signature": VECTOR["X-Hook-Signature"],
    "webhook-id": VECTOR["webhook-id"],
    "webhook-timestamp": VECTOR["webhook-timestamp"],
    "webhook-signature": VECTOR["webhook-signature"],
}
BODY = VECTOR["body"].encode()


def test_verifies_reference_vector():
    msg = verify_webhook(VECTOR["secret"], HEADERS, BODY, now=AT + 60)
    assert msg["references"]["subscriptionReference"] == "ref-1"
    assert len(msg["events"]) == 1
    verify_hook_signature(VECTOR["secret"], BODY, VECTOR["X-Hook-Signature"])
    verify_standard_webhook(VECTOR["secret"], VECTOR["webhook-id"], VECTOR["webhook-timestamp"], VECTOR["webhook-signature"], BODY, now=AT)
    # Among several signatures one match is enough; header names in any case.
    verify_standard_webhook(
        VECTOR["secret"], VECTOR["webhook-id"], VECTOR["webhook-timestamp"], "v1,AAAA " + VECTOR["webhook-signature"], BODY, now=AT
    )
    verify_webhook(VECTOR["secret"], {k.upper(): v for k, v in HEADERS.items()}, VECTOR["body"], now=AT)


def only(*names):
    return {k: v for k, v in HEADERS.items() if k in names}


TAMPERED = BODY.replace(b"GTIN", b"GTOT")
STANDARD = ("webhook-id", "webhook-timestamp", "webhook-signature")


@pytest.mark.parametrize(
    "name,secret,headers,body,reason,now",
    [
        ("tampered body", VECTOR["secret"], HEADERS, TAMPERED, "bad-signature", AT),
        ("tampered body, X-Hook-Signature only", VECTOR["secret"], only("X-Hook-Signature"), TAMPERED, "bad-signature", AT),
        ("tampered body, Standard Webhooks only", VECTOR["secret"], only(*STANDARD), TAMPERED, "bad-signature", AT),
        ("another secret", "whsec_c2VjcmV0LW9mLWFub3RoZXItYWNjb3VudC0wMDAwMDA=", HEADERS, BODY, "bad-signature", AT),
        ("other webhook-id", VECTOR["secret"], {**HEADERS, "webhook-id": "msg_other"}, BODY, "bad-signature", AT),
        ("wrong X-Hook-Signature", VECTOR["secret"], {**HEADERS, "X-Hook-Signature": VECTOR["X-Hook-Signature"][:63] + "0"}, BODY, "bad-signature", AT),
        ("replayed an hour later", VECTOR["secret"], HEADERS, BODY, "stale-timestamp", AT + 3600),
        ("from the future", VECTOR["secret"], HEADERS, BODY, "stale-timestamp", AT - 600),
        ("no signature", VECTOR["secret"], {}, BODY, "no-signature", AT),
        ("secret not whsec_", "plain", only(*STANDARD), BODY, "bad-secret", AT),
    ],
)
def test_refuses_what_does_not_match(name, secret, headers, body, reason, now):
    with pytest.raises(WebhookVerificationError) as err:
        verify_webhook(secret, headers, body, now=now)
    assert err.value.reason == reason, name
