"""Python client of the contrack container-tracking API.

``Contrack(base_url, api_key)`` wraps the client generated from the API's
OpenAPI document (``contrack_sdk.openapi``: one module per operation under
``contrack_sdk.openapi.api``, models under ``contrack_sdk.openapi.models``) with the
API key, ContrackError for every answer of 400 or more, retries of 429 and
503 honouring Retry-After, and helpers: subscriptions() and
subscription_pages() (GET /subscriptions), feed() (the account event feed),
subscribe_bulk(). verify_webhook() checks both signatures of a delivery.
"""

from ._client import (
    MAX_BULK_ITEMS,
    BulkItemResult,
    Contrack,
    ContrackError,
    FeedEvent,
    RetryPolicy,
    parse_retry_after,
)
from ._webhook import (
    DEFAULT_TOLERANCE,
    WebhookVerificationError,
    verify_hook_signature,
    verify_standard_webhook,
    verify_webhook,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "MAX_BULK_ITEMS",
    "BulkItemResult",
    "Contrack",
    "ContrackError",
    "FeedEvent",
    "RetryPolicy",
    "WebhookVerificationError",
    "parse_retry_after",
    "verify_hook_signature",
    "verify_standard_webhook",
    "verify_webhook",
]
