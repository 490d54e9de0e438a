from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.added_response import AddedResponse
from ...models.body import Body
from ...models.push_events_body_type_0 import PushEventsBodyType0
from ...models.push_events_body_type_1_item import PushEventsBodyType1Item
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: list[PushEventsBodyType1Item] | PushEventsBodyType0,
    notification_signature: str | Unset = UNSET,
    webhook_id: str | Unset = UNSET,
    webhook_timestamp: str | Unset = UNSET,
    webhook_signature: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(notification_signature, Unset):
        headers["Notification-Signature"] = notification_signature

    if not isinstance(webhook_id, Unset):
        headers["webhook-id"] = webhook_id

    if not isinstance(webhook_timestamp, Unset):
        headers["webhook-timestamp"] = webhook_timestamp

    if not isinstance(webhook_signature, Unset):
        headers["webhook-signature"] = webhook_signature

    if not isinstance(api_version, Unset):
        headers["API-Version"] = api_version

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/events",
    }

    if isinstance(body, PushEventsBodyType0):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = []
        for body_type_1_item_data in body:
            body_type_1_item = body_type_1_item_data.to_dict()
            _kwargs["json"].append(body_type_1_item)

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AddedResponse | Body | None:
    if response.status_code == 200:
        response_200 = AddedResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Body.from_dict(response.json())

        return response_400

    if response.status_code == 403:
        response_403 = Body.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = Body.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Body.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Body.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AddedResponse | Body]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: list[PushEventsBodyType1Item] | PushEventsBodyType0,
    notification_signature: str | Unset = UNSET,
    webhook_id: str | Unset = UNSET,
    webhook_timestamp: str | Unset = UNSET,
    webhook_signature: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[AddedResponse | Body]:
    """Push carrier events (carriers only)

     For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them, bare or
    as {"events": [...]} (each checked; nothing is stored when any fails, and the answer names the
    element that failed: "[3].equipmentReference is required"), at most 737280 bytes (413 beyond). The
    events reach only subscriptions to the carrier key's own SCAC. The raw body is acknowledged by Kafka
    before 200 is answered. When the carrier key has a shared secret (always, for live keys) the body is
    signed: with the Standard Webhooks headers webhook-id, webhook-timestamp (Unix seconds, within 5
    minutes of the server's time) and webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">,
    keyed with the bytes after whsec_), where a webhook-id accepted in the last 10 minutes is
    acknowledged without being processed again; or, unless the key requires the timestamped scheme, with
    Notification-Signature: sha256=<hex HMAC-SHA256 of the body>. DCSA Track & Trace 3.0 (API-Version
    3.x, or a body {"events": [...]} of 3.0 events) is answered as 3.0's Event Consumer: each event on
    its own, feedbackElements naming those not processed as sent (ERROR refused, WARN not forwarded),
    400 when none could be, API-Version 3.0.0 on every answer.

    Args:
        notification_signature (str | Unset):
        webhook_id (str | Unset):
        webhook_timestamp (str | Unset):
        webhook_signature (str | Unset):
        api_version (str | Unset):
        body (list[PushEventsBodyType1Item] | PushEventsBodyType0):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AddedResponse | Body]
    """

    kwargs = _get_kwargs(
        body=body,
        notification_signature=notification_signature,
        webhook_id=webhook_id,
        webhook_timestamp=webhook_timestamp,
        webhook_signature=webhook_signature,
        api_version=api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: list[PushEventsBodyType1Item] | PushEventsBodyType0,
    notification_signature: str | Unset = UNSET,
    webhook_id: str | Unset = UNSET,
    webhook_timestamp: str | Unset = UNSET,
    webhook_signature: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> AddedResponse | Body | None:
    """Push carrier events (carriers only)

     For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them, bare or
    as {"events": [...]} (each checked; nothing is stored when any fails, and the answer names the
    element that failed: "[3].equipmentReference is required"), at most 737280 bytes (413 beyond). The
    events reach only subscriptions to the carrier key's own SCAC. The raw body is acknowledged by Kafka
    before 200 is answered. When the carrier key has a shared secret (always, for live keys) the body is
    signed: with the Standard Webhooks headers webhook-id, webhook-timestamp (Unix seconds, within 5
    minutes of the server's time) and webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">,
    keyed with the bytes after whsec_), where a webhook-id accepted in the last 10 minutes is
    acknowledged without being processed again; or, unless the key requires the timestamped scheme, with
    Notification-Signature: sha256=<hex HMAC-SHA256 of the body>. DCSA Track & Trace 3.0 (API-Version
    3.x, or a body {"events": [...]} of 3.0 events) is answered as 3.0's Event Consumer: each event on
    its own, feedbackElements naming those not processed as sent (ERROR refused, WARN not forwarded),
    400 when none could be, API-Version 3.0.0 on every answer.

    Args:
        notification_signature (str | Unset):
        webhook_id (str | Unset):
        webhook_timestamp (str | Unset):
        webhook_signature (str | Unset):
        api_version (str | Unset):
        body (list[PushEventsBodyType1Item] | PushEventsBodyType0):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AddedResponse | Body
    """

    return sync_detailed(
        client=client,
        body=body,
        notification_signature=notification_signature,
        webhook_id=webhook_id,
        webhook_timestamp=webhook_timestamp,
        webhook_signature=webhook_signature,
        api_version=api_version,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: list[PushEventsBodyType1Item] | PushEventsBodyType0,
    notification_signature: str | Unset = UNSET,
    webhook_id: str | Unset = UNSET,
    webhook_timestamp: str | Unset = UNSET,
    webhook_signature: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[AddedResponse | Body]:
    """Push carrier events (carriers only)

     For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them, bare or
    as {"events": [...]} (each checked; nothing is stored when any fails, and the answer names the
    element that failed: "[3].equipmentReference is required"), at most 737280 bytes (413 beyond). The
    events reach only subscriptions to the carrier key's own SCAC. The raw body is acknowledged by Kafka
    before 200 is answered. When the carrier key has a shared secret (always, for live keys) the body is
    signed: with the Standard Webhooks headers webhook-id, webhook-timestamp (Unix seconds, within 5
    minutes of the server's time) and webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">,
    keyed with the bytes after whsec_), where a webhook-id accepted in the last 10 minutes is
    acknowledged without being processed again; or, unless the key requires the timestamped scheme, with
    Notification-Signature: sha256=<hex HMAC-SHA256 of the body>. DCSA Track & Trace 3.0 (API-Version
    3.x, or a body {"events": [...]} of 3.0 events) is answered as 3.0's Event Consumer: each event on
    its own, feedbackElements naming those not processed as sent (ERROR refused, WARN not forwarded),
    400 when none could be, API-Version 3.0.0 on every answer.

    Args:
        notification_signature (str | Unset):
        webhook_id (str | Unset):
        webhook_timestamp (str | Unset):
        webhook_signature (str | Unset):
        api_version (str | Unset):
        body (list[PushEventsBodyType1Item] | PushEventsBodyType0):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AddedResponse | Body]
    """

    kwargs = _get_kwargs(
        body=body,
        notification_signature=notification_signature,
        webhook_id=webhook_id,
        webhook_timestamp=webhook_timestamp,
        webhook_signature=webhook_signature,
        api_version=api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: list[PushEventsBodyType1Item] | PushEventsBodyType0,
    notification_signature: str | Unset = UNSET,
    webhook_id: str | Unset = UNSET,
    webhook_timestamp: str | Unset = UNSET,
    webhook_signature: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> AddedResponse | Body | None:
    """Push carrier events (carriers only)

     For carrier keys only. Body: one DCSA equipment or transport event, or a JSON array of them, bare or
    as {"events": [...]} (each checked; nothing is stored when any fails, and the answer names the
    element that failed: "[3].equipmentReference is required"), at most 737280 bytes (413 beyond). The
    events reach only subscriptions to the carrier key's own SCAC. The raw body is acknowledged by Kafka
    before 200 is answered. When the carrier key has a shared secret (always, for live keys) the body is
    signed: with the Standard Webhooks headers webhook-id, webhook-timestamp (Unix seconds, within 5
    minutes of the server's time) and webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body">,
    keyed with the bytes after whsec_), where a webhook-id accepted in the last 10 minutes is
    acknowledged without being processed again; or, unless the key requires the timestamped scheme, with
    Notification-Signature: sha256=<hex HMAC-SHA256 of the body>. DCSA Track & Trace 3.0 (API-Version
    3.x, or a body {"events": [...]} of 3.0 events) is answered as 3.0's Event Consumer: each event on
    its own, feedbackElements naming those not processed as sent (ERROR refused, WARN not forwarded),
    400 when none could be, API-Version 3.0.0 on every answer.

    Args:
        notification_signature (str | Unset):
        webhook_id (str | Unset):
        webhook_timestamp (str | Unset):
        webhook_signature (str | Unset):
        api_version (str | Unset):
        body (list[PushEventsBodyType1Item] | PushEventsBodyType0):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AddedResponse | Body
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            notification_signature=notification_signature,
            webhook_id=webhook_id,
            webhook_timestamp=webhook_timestamp,
            webhook_signature=webhook_signature,
            api_version=api_version,
        )
    ).parsed
