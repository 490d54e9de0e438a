from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.subscription_alerts import SubscriptionAlerts
from ...types import UNSET, Response, Unset


def _get_kwargs(
    subscription_id: str,
    *,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/subscription/{subscription_id}/alerts".format(
            subscription_id=quote(str(subscription_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | SubscriptionAlerts | None:
    if response.status_code == 200:
        response_200 = SubscriptionAlerts.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Body.from_dict(response.json())

        return response_400

    if response.status_code == 403:
        response_403 = Body.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Body.from_dict(response.json())

        return response_404

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
) -> Response[Body | SubscriptionAlerts]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
) -> Response[Body | SubscriptionAlerts]:
    """A subscription's alerts

     The alerts raised for the subscription (docs/alerts.md), newest first, as long as the account event
    feed keeps them (at least 30 days): every kind, ETA_CHANGED only when it moved at least the
    subscription's, else the account's, threshold (default 6 h), whatever a webhook's filters.

    Args:
        subscription_id (str):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscriptionAlerts]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
) -> Body | SubscriptionAlerts | None:
    """A subscription's alerts

     The alerts raised for the subscription (docs/alerts.md), newest first, as long as the account event
    feed keeps them (at least 30 days): every kind, ETA_CHANGED only when it moved at least the
    subscription's, else the account's, threshold (default 6 h), whatever a webhook's filters.

    Args:
        subscription_id (str):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscriptionAlerts
    """

    return sync_detailed(
        subscription_id=subscription_id,
        client=client,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
) -> Response[Body | SubscriptionAlerts]:
    """A subscription's alerts

     The alerts raised for the subscription (docs/alerts.md), newest first, as long as the account event
    feed keeps them (at least 30 days): every kind, ETA_CHANGED only when it moved at least the
    subscription's, else the account's, threshold (default 6 h), whatever a webhook's filters.

    Args:
        subscription_id (str):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscriptionAlerts]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
) -> Body | SubscriptionAlerts | None:
    """A subscription's alerts

     The alerts raised for the subscription (docs/alerts.md), newest first, as long as the account event
    feed keeps them (at least 30 days): every kind, ETA_CHANGED only when it moved at least the
    subscription's, else the account's, threshold (default 6 h), whatever a webhook's filters.

    Args:
        subscription_id (str):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscriptionAlerts
    """

    return (
        await asyncio_detailed(
            subscription_id=subscription_id,
            client=client,
            limit=limit,
        )
    ).parsed
