from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.webhook_config import WebhookConfig
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/webhook/configure",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | WebhookConfig | None:
    if response.status_code == 200:
        response_200 = WebhookConfig.from_dict(response.json())

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
) -> Response[Body | WebhookConfig]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[Body | WebhookConfig]:
    """The webhook configuration

     targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters,
    authHeaders); targetUrl is "" and activated false while none is configured. filters: eventTypes and
    classifiers null select every event, alertTypes the alerts delivered beside them. authHeaders: the
    headers sent for the receiver to authenticate, name to value masked as **** and its last four
    characters, **** alone under 16 characters (an Authorization value keeps its scheme: Bearer
    ****abcd); {} when none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | WebhookConfig]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> Body | WebhookConfig | None:
    """The webhook configuration

     targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters,
    authHeaders); targetUrl is "" and activated false while none is configured. filters: eventTypes and
    classifiers null select every event, alertTypes the alerts delivered beside them. authHeaders: the
    headers sent for the receiver to authenticate, name to value masked as **** and its last four
    characters, **** alone under 16 characters (an Authorization value keeps its scheme: Bearer
    ****abcd); {} when none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | WebhookConfig
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[Body | WebhookConfig]:
    """The webhook configuration

     targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters,
    authHeaders); targetUrl is "" and activated false while none is configured. filters: eventTypes and
    classifiers null select every event, alertTypes the alerts delivered beside them. authHeaders: the
    headers sent for the receiver to authenticate, name to value masked as **** and its last four
    characters, **** alone under 16 characters (an Authorization value keeps its scheme: Bearer
    ****abcd); {} when none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | WebhookConfig]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> Body | WebhookConfig | None:
    """The webhook configuration

     targetUrl, whether the webhook is activated and what its deliveries carry (eventFormat, filters,
    authHeaders); targetUrl is "" and activated false while none is configured. filters: eventTypes and
    classifiers null select every event, alertTypes the alerts delivered beside them. authHeaders: the
    headers sent for the receiver to authenticate, name to value masked as **** and its last four
    characters, **** alone under 16 characters (an Authorization value keeps its scheme: Bearer
    ****abcd); {} when none.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | WebhookConfig
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
