from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.retry_delivery_response import RetryDeliveryResponse
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/webhook/deliveries/{id}/retry".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | RetryDeliveryResponse | None:
    if response.status_code == 200:
        response_200 = RetryDeliveryResponse.from_dict(response.json())

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
) -> Response[Body | RetryDeliveryResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Body | RetryDeliveryResponse]:
    """Send a dead-lettered delivery again

     Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its
    earlier attempts stay in its history and the attempt count goes on. It is sent with the same body
    and webhook-id as before, outside its subscription's ordered stream (later events were delivered
    after it died). If the webhook is deactivated, it waits for activation.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | RetryDeliveryResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Body | RetryDeliveryResponse | None:
    """Send a dead-lettered delivery again

     Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its
    earlier attempts stay in its history and the attempt count goes on. It is sent with the same body
    and webhook-id as before, outside its subscription's ordered stream (later events were delivered
    after it died). If the webhook is deactivated, it waits for activation.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | RetryDeliveryResponse
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Body | RetryDeliveryResponse]:
    """Send a dead-lettered delivery again

     Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its
    earlier attempts stay in its history and the attempt count goes on. It is sent with the same body
    and webhook-id as before, outside its subscription's ordered stream (later events were delivered
    after it died). If the webhook is deactivated, it waits for activation.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | RetryDeliveryResponse]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
) -> Body | RetryDeliveryResponse | None:
    """Send a dead-lettered delivery again

     Puts a DEAD delivery back in the queue: PENDING, due at once, with a fresh retry schedule; its
    earlier attempts stay in its history and the attempt count goes on. It is sent with the same body
    and webhook-id as before, outside its subscription's ordered stream (later events were delivered
    after it died). If the webhook is deactivated, it waits for activation.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | RetryDeliveryResponse
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
