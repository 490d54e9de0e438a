from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.connector_body import ConnectorBody
from ...models.connector_response import ConnectorResponse
from ...types import Response


def _get_kwargs(
    *,
    body: ConnectorBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/carrier/connectors",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | ConnectorResponse | None:
    if response.status_code == 200:
        response_200 = ConnectorResponse.from_dict(response.json())

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
) -> Response[Body | ConnectorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ConnectorBody,
) -> Response[Body | ConnectorResponse]:
    """Register a DCSA Track & Trace producer as a carrier of this account

     Any DCSA Track & Trace 2.2 or 3.0 producer, by base URL (contrack GETs <baseUrl>/events), format
    (TNT_2.2.0 or TNT_3.0.0) and auth scheme: NONE, API_KEY (headerName, apiKey),
    OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId, clientSecret, scope) or BASIC (username, password).
    Its code (2-4 letters, as a SCAC; not a supported carrier's) is then a scacCode of this account's
    subscriptions, polled as the supported carriers are. The URLs follow the webhook-target rules (https
    for live keys, no loopback, private or link-local addresses). The secret is stored encrypted and
    shown masked.

    Args:
        body (ConnectorBody): ConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorResponse]
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
    body: ConnectorBody,
) -> Body | ConnectorResponse | None:
    """Register a DCSA Track & Trace producer as a carrier of this account

     Any DCSA Track & Trace 2.2 or 3.0 producer, by base URL (contrack GETs <baseUrl>/events), format
    (TNT_2.2.0 or TNT_3.0.0) and auth scheme: NONE, API_KEY (headerName, apiKey),
    OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId, clientSecret, scope) or BASIC (username, password).
    Its code (2-4 letters, as a SCAC; not a supported carrier's) is then a scacCode of this account's
    subscriptions, polled as the supported carriers are. The URLs follow the webhook-target rules (https
    for live keys, no loopback, private or link-local addresses). The secret is stored encrypted and
    shown masked.

    Args:
        body (ConnectorBody): ConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ConnectorBody,
) -> Response[Body | ConnectorResponse]:
    """Register a DCSA Track & Trace producer as a carrier of this account

     Any DCSA Track & Trace 2.2 or 3.0 producer, by base URL (contrack GETs <baseUrl>/events), format
    (TNT_2.2.0 or TNT_3.0.0) and auth scheme: NONE, API_KEY (headerName, apiKey),
    OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId, clientSecret, scope) or BASIC (username, password).
    Its code (2-4 letters, as a SCAC; not a supported carrier's) is then a scacCode of this account's
    subscriptions, polled as the supported carriers are. The URLs follow the webhook-target rules (https
    for live keys, no loopback, private or link-local addresses). The secret is stored encrypted and
    shown masked.

    Args:
        body (ConnectorBody): ConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ConnectorBody,
) -> Body | ConnectorResponse | None:
    """Register a DCSA Track & Trace producer as a carrier of this account

     Any DCSA Track & Trace 2.2 or 3.0 producer, by base URL (contrack GETs <baseUrl>/events), format
    (TNT_2.2.0 or TNT_3.0.0) and auth scheme: NONE, API_KEY (headerName, apiKey),
    OAUTH2_CLIENT_CREDENTIALS (tokenUrl, clientId, clientSecret, scope) or BASIC (username, password).
    Its code (2-4 letters, as a SCAC; not a supported carrier's) is then a scacCode of this account's
    subscriptions, polled as the supported carriers are. The URLs follow the webhook-target rules (https
    for live keys, no loopback, private or link-local addresses). The secret is stored encrypted and
    shown masked.

    Args:
        body (ConnectorBody): ConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
