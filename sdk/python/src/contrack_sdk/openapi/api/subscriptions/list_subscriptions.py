from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.subscription_list import SubscriptionList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    subscription_status: str | Unset = UNSET,
    reference_prefix: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["subscriptionStatus"] = subscription_status

    params["referencePrefix"] = reference_prefix

    params["limit"] = limit

    params["nextToken"] = next_token

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/subscriptions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | SubscriptionList | None:
    if response.status_code == 200:
        response_200 = SubscriptionList.from_dict(response.json())

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
) -> Response[Body | SubscriptionList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    subscription_status: str | Unset = UNSET,
    reference_prefix: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Response[Body | SubscriptionList]:
    """List subscriptions

     The calling account's subscriptions in creation order. Without limit and nextToken the whole list is
    streamed as it is read (1,000 at a time), so it is not a snapshot: a subscription created or closed
    while it is written may or may not appear as such.

    Args:
        subscription_status (str | Unset):
        reference_prefix (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscriptionList]
    """

    kwargs = _get_kwargs(
        subscription_status=subscription_status,
        reference_prefix=reference_prefix,
        limit=limit,
        next_token=next_token,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    subscription_status: str | Unset = UNSET,
    reference_prefix: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Body | SubscriptionList | None:
    """List subscriptions

     The calling account's subscriptions in creation order. Without limit and nextToken the whole list is
    streamed as it is read (1,000 at a time), so it is not a snapshot: a subscription created or closed
    while it is written may or may not appear as such.

    Args:
        subscription_status (str | Unset):
        reference_prefix (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscriptionList
    """

    return sync_detailed(
        client=client,
        subscription_status=subscription_status,
        reference_prefix=reference_prefix,
        limit=limit,
        next_token=next_token,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    subscription_status: str | Unset = UNSET,
    reference_prefix: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Response[Body | SubscriptionList]:
    """List subscriptions

     The calling account's subscriptions in creation order. Without limit and nextToken the whole list is
    streamed as it is read (1,000 at a time), so it is not a snapshot: a subscription created or closed
    while it is written may or may not appear as such.

    Args:
        subscription_status (str | Unset):
        reference_prefix (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscriptionList]
    """

    kwargs = _get_kwargs(
        subscription_status=subscription_status,
        reference_prefix=reference_prefix,
        limit=limit,
        next_token=next_token,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    subscription_status: str | Unset = UNSET,
    reference_prefix: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Body | SubscriptionList | None:
    """List subscriptions

     The calling account's subscriptions in creation order. Without limit and nextToken the whole list is
    streamed as it is read (1,000 at a time), so it is not a snapshot: a subscription created or closed
    while it is written may or may not appear as such.

    Args:
        subscription_status (str | Unset):
        reference_prefix (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscriptionList
    """

    return (
        await asyncio_detailed(
            client=client,
            subscription_status=subscription_status,
            reference_prefix=reference_prefix,
            limit=limit,
            next_token=next_token,
        )
    ).parsed
