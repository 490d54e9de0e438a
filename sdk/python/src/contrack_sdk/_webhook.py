"""Verification of the deliveries contrack POSTs to a webhook."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

DEFAULT_TOLERANCE = 300
"""Seconds webhook-timestamp may be from now, as the Standard Webhooks libraries allow."""


class WebhookVerificationError(Exception):
    """Why a webhook failed verification: ``reason`` is no-signature,
    bad-signature, stale-timestamp or bad-secret."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> dict[str, Any]:
    """Verifies a delivery with its webhook's whsec_… secret and returns the
    parsed body: every signature the headers carry must match the raw body
    (X-Hook-Signature, the lowercase hex HMAC-SHA256 keyed with the secret as
    issued; the Standard Webhooks webhook-signature over "id.timestamp.body",
    keyed with the base64-decoded bytes after whsec_, its timestamp within
    tolerance seconds of now), and at least one must be there. Raises
    WebhookVerificationError. headers may be any case-insensitive mapping
    (a framework's request headers) or a dict."""
    raw = body.encode() if isinstance(body, str) else body
    hook = _header(headers, "x-hook-signature")
    std = _header(headers, "webhook-signature")
    if not hook and not std:
        raise WebhookVerificationError("no-signature", "contrack: webhook has no signature")
    if hook:
        verify_hook_signature(secret, raw, hook)
    if std:
        verify_standard_webhook(
            secret,
            _header(headers, "webhook-id") or "",
            _header(headers, "webhook-timestamp") or "",
            std,
            raw,
            tolerance=tolerance,
            now=now,
        )
    return json.loads(raw)


def verify_hook_signature(secret: str, body: bytes, signature: str) -> None:
    """Checks X-Hook-Signature: the lowercase hex HMAC-SHA256 of body keyed
    with secret exactly as issued."""
    want = hmac.new(secret.encode(), body, hashlib.sha256).digest()
    try:
        got = bytes.fromhex(signature.strip())
    except ValueError:
        got = b""
    if not hmac.compare_digest(got, want):
        raise WebhookVerificationError("bad-signature", "contrack: X-Hook-Signature does not match")


def verify_standard_webhook(
    secret: str,
    msg_id: str,
    timestamp: str,
    signatures: str,
    body: bytes,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> None:
    """Checks a Standard Webhooks signature: signatures is webhook-signature
    (space-separated "v1,<base64>" entries; one match is enough), timestamp
    webhook-timestamp in Unix seconds."""
    if not secret.startswith("whsec_"):
        raise WebhookVerificationError("bad-secret", "contrack: webhook secret is not whsec_<base64>")
    try:
        key = base64.b64decode(secret[len("whsec_") :], validate=True)
    except binascii.Error as err:
        raise WebhookVerificationError("bad-secret", "contrack: webhook secret is not whsec_<base64>") from err
    if not msg_id:
        raise WebhookVerificationError("bad-signature", "contrack: webhook-id missing")
    if not timestamp.strip().isdigit():
        raise WebhookVerificationError("bad-signature", f"contrack: webhook-timestamp {timestamp!r}")
    seconds = int(timestamp.strip())
    off = (time.time() if now is None else now) - seconds
    if abs(off) > tolerance:
        raise WebhookVerificationError("stale-timestamp", f"contrack: webhook timestamp {off:.0f} s from now")
    want = hmac.new(key, f"{msg_id}.{seconds}.".encode() + body, hashlib.sha256).digest()
    for entry in signatures.split():
        version, _, sig = entry.partition(",")
        if version != "v1":
            continue
        try:
            got = base64.b64decode(sig, validate=True)
        except binascii.Error:
            continue
        if hmac.compare_digest(got, want):
            return
    raise WebhookVerificationError("bad-signature", "contrack: webhook-signature does not match")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is not None:
        return value
    for k, v in headers.items():
        if k.lower() == name:
            return v
    return None
