from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.delivery_list import DeliveryList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: str | Unset = UNSET,
    subscription_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["status"] = status

    params["subscriptionReference"] = subscription_reference

    params["limit"] = limit

    params["nextToken"] = next_token

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/webhook/deliveries",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | DeliveryList | None:
    if response.status_code == 200:
        response_200 = DeliveryList.from_dict(response.json())

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
) -> Response[Body | DeliveryList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    subscription_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Response[Body | DeliveryList]:
    """List webhook deliveries

     The calling account's webhook deliveries, newest first, a page at a time. A delivery is one signed
    POST of one or more events to the webhook; its id is the webhook-id header of every attempt. DEAD
    deliveries can be sent again with POST /webhook/deliveries/{id}/retry.

    Args:
        status (str | Unset):
        subscription_reference (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | DeliveryList]
    """

    kwargs = _get_kwargs(
        status=status,
        subscription_reference=subscription_reference,
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
    status: str | Unset = UNSET,
    subscription_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Body | DeliveryList | None:
    """List webhook deliveries

     The calling account's webhook deliveries, newest first, a page at a time. A delivery is one signed
    POST of one or more events to the webhook; its id is the webhook-id header of every attempt. DEAD
    deliveries can be sent again with POST /webhook/deliveries/{id}/retry.

    Args:
        status (str | Unset):
        subscription_reference (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | DeliveryList
    """

    return sync_detailed(
        client=client,
        status=status,
        subscription_reference=subscription_reference,
        limit=limit,
        next_token=next_token,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    subscription_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Response[Body | DeliveryList]:
    """List webhook deliveries

     The calling account's webhook deliveries, newest first, a page at a time. A delivery is one signed
    POST of one or more events to the webhook; its id is the webhook-id header of every attempt. DEAD
    deliveries can be sent again with POST /webhook/deliveries/{id}/retry.

    Args:
        status (str | Unset):
        subscription_reference (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | DeliveryList]
    """

    kwargs = _get_kwargs(
        status=status,
        subscription_reference=subscription_reference,
        limit=limit,
        next_token=next_token,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    subscription_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    next_token: str | Unset = UNSET,
) -> Body | DeliveryList | None:
    """List webhook deliveries

     The calling account's webhook deliveries, newest first, a page at a time. A delivery is one signed
    POST of one or more events to the webhook; its id is the webhook-id header of every attempt. DEAD
    deliveries can be sent again with POST /webhook/deliveries/{id}/retry.

    Args:
        status (str | Unset):
        subscription_reference (str | Unset):
        limit (int | Unset):
        next_token (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | DeliveryList
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            subscription_reference=subscription_reference,
            limit=limit,
            next_token=next_token,
        )
    ).parsed
