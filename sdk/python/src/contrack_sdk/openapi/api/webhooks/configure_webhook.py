from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.configure_webhook_body import ConfigureWebhookBody
from ...models.message_response import MessageResponse
from ...types import Response


def _get_kwargs(
    *,
    body: ConfigureWebhookBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/webhook/configure",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | MessageResponse | None:
    if response.status_code == 200:
        response_200 = MessageResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Body.from_dict(response.json())

        return response_400

    if response.status_code == 403:
        response_403 = Body.from_dict(response.json())

        return response_403

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
) -> Response[Body | MessageResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ConfigureWebhookBody,
) -> Response[Body | MessageResponse]:
    """Configure the webhook

     Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the
    webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message
    {"type":"webhook.verification","secret":...}. Send that secret to POST /webhook/activate. The
    verification is a delivery like any other: retried on the delivery schedule if targetUrl does not
    answer 2xx, and sent after a restart. eventFormat (optional) chooses what deliveries carry:
    EVENT_DOMAIN_2.0.2 (default) or TNT_3.0.0 (DCSA Track & Trace 3.0 POST /events requests, API-Version
    3.0.0). filters (optional) choose what is delivered: eventTypes (EQUIPMENT, TRANSPORT and milestone
    kinds; absent: all, []: none), classifiers (ACT, PLN, EST; absent: all), milestonesOnly (only events
    milestones are derived from) and alertTypes (the alerts to receive beside the events; absent: none).
    Events filtered out are never delivered and never counted as failed; configuring again replaces the
    filters. authHeaders (optional, name to value, at most 5) are headers the receiver authenticates
    with — an API-key header of any name (X-API-Key: ...), Authorization: Bearer <token> or
    Authorization: Basic <base64 of user:password> — sent on every delivery attempt (the verification
    and test messages too), stored encrypted and shown masked by GET /webhook/configure. Hop-by-hop and
    framing headers, and the headers contrack sets itself (X-Hook-Signature, webhook-id, webhook-
    timestamp, webhook-signature, User-Agent, API-Version, traceparent), are refused. Absent or null:
    the stored headers are kept (refused when targetUrl moves to another host: send them again); {}:
    none.

    Args:
        body (ConfigureWebhookBody): ConfigureWebhookBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | MessageResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ConfigureWebhookBody,
) -> Body | MessageResponse | None:
    """Configure the webhook

     Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the
    webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message
    {"type":"webhook.verification","secret":...}. Send that secret to POST /webhook/activate. The
    verification is a delivery like any other: retried on the delivery schedule if targetUrl does not
    answer 2xx, and sent after a restart. eventFormat (optional) chooses what deliveries carry:
    EVENT_DOMAIN_2.0.2 (default) or TNT_3.0.0 (DCSA Track & Trace 3.0 POST /events requests, API-Version
    3.0.0). filters (optional) choose what is delivered: eventTypes (EQUIPMENT, TRANSPORT and milestone
    kinds; absent: all, []: none), classifiers (ACT, PLN, EST; absent: all), milestonesOnly (only events
    milestones are derived from) and alertTypes (the alerts to receive beside the events; absent: none).
    Events filtered out are never delivered and never counted as failed; configuring again replaces the
    filters. authHeaders (optional, name to value, at most 5) are headers the receiver authenticates
    with — an API-key header of any name (X-API-Key: ...), Authorization: Bearer <token> or
    Authorization: Basic <base64 of user:password> — sent on every delivery attempt (the verification
    and test messages too), stored encrypted and shown masked by GET /webhook/configure. Hop-by-hop and
    framing headers, and the headers contrack sets itself (X-Hook-Signature, webhook-id, webhook-
    timestamp, webhook-signature, User-Agent, API-Version, traceparent), are refused. Absent or null:
    the stored headers are kept (refused when targetUrl moves to another host: send them again); {}:
    none.

    Args:
        body (ConfigureWebhookBody): ConfigureWebhookBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | MessageResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ConfigureWebhookBody,
) -> Response[Body | MessageResponse]:
    """Configure the webhook

     Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the
    webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message
    {"type":"webhook.verification","secret":...}. Send that secret to POST /webhook/activate. The
    verification is a delivery like any other: retried on the delivery schedule if targetUrl does not
    answer 2xx, and sent after a restart. eventFormat (optional) chooses what deliveries carry:
    EVENT_DOMAIN_2.0.2 (default) or TNT_3.0.0 (DCSA Track & Trace 3.0 POST /events requests, API-Version
    3.0.0). filters (optional) choose what is delivered: eventTypes (EQUIPMENT, TRANSPORT and milestone
    kinds; absent: all, []: none), classifiers (ACT, PLN, EST; absent: all), milestonesOnly (only events
    milestones are derived from) and alertTypes (the alerts to receive beside the events; absent: none).
    Events filtered out are never delivered and never counted as failed; configuring again replaces the
    filters. authHeaders (optional, name to value, at most 5) are headers the receiver authenticates
    with — an API-key header of any name (X-API-Key: ...), Authorization: Bearer <token> or
    Authorization: Basic <base64 of user:password> — sent on every delivery attempt (the verification
    and test messages too), stored encrypted and shown masked by GET /webhook/configure. Hop-by-hop and
    framing headers, and the headers contrack sets itself (X-Hook-Signature, webhook-id, webhook-
    timestamp, webhook-signature, User-Agent, API-Version, traceparent), are refused. Absent or null:
    the stored headers are kept (refused when targetUrl moves to another host: send them again); {}:
    none.

    Args:
        body (ConfigureWebhookBody): ConfigureWebhookBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | MessageResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ConfigureWebhookBody,
) -> Body | MessageResponse | None:
    """Configure the webhook

     Stores targetUrl (https for live keys; no loopback, private or link-local hosts), deactivates the
    webhook and issues a new secret, which is POSTed to targetUrl in a signed verification message
    {"type":"webhook.verification","secret":...}. Send that secret to POST /webhook/activate. The
    verification is a delivery like any other: retried on the delivery schedule if targetUrl does not
    answer 2xx, and sent after a restart. eventFormat (optional) chooses what deliveries carry:
    EVENT_DOMAIN_2.0.2 (default) or TNT_3.0.0 (DCSA Track & Trace 3.0 POST /events requests, API-Version
    3.0.0). filters (optional) choose what is delivered: eventTypes (EQUIPMENT, TRANSPORT and milestone
    kinds; absent: all, []: none), classifiers (ACT, PLN, EST; absent: all), milestonesOnly (only events
    milestones are derived from) and alertTypes (the alerts to receive beside the events; absent: none).
    Events filtered out are never delivered and never counted as failed; configuring again replaces the
    filters. authHeaders (optional, name to value, at most 5) are headers the receiver authenticates
    with — an API-key header of any name (X-API-Key: ...), Authorization: Bearer <token> or
    Authorization: Basic <base64 of user:password> — sent on every delivery attempt (the verification
    and test messages too), stored encrypted and shown masked by GET /webhook/configure. Hop-by-hop and
    framing headers, and the headers contrack sets itself (X-Hook-Signature, webhook-id, webhook-
    timestamp, webhook-signature, User-Agent, API-Version, traceparent), are refused. Absent or null:
    the stored headers are kept (refused when targetUrl moves to another host: send them again); {}:
    none.

    Args:
        body (ConfigureWebhookBody): ConfigureWebhookBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | MessageResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
