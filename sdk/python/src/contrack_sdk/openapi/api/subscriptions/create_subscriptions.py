from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.bulk_subscribe_response import BulkSubscribeResponse
from ...models.create_subscription_body import CreateSubscriptionBody
from ...types import UNSET, Response


def _get_kwargs(
    *,
    body: list[CreateSubscriptionBody] | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/subscriptions/equipment",
    }

    if isinstance(body, list[CreateSubscriptionBody]):
        _kwargs["json"] = []
        for body_item_data in body:
            body_item = body_item_data.to_dict()
            _kwargs["json"].append(body_item)

        headers["Content-Type"] = "application/json"
    if isinstance(body, list[CreateSubscriptionBody]):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "text/csv"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | BulkSubscribeResponse | None:
    if response.status_code == 200:
        response_200 = BulkSubscribeResponse.from_dict(response.json())

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
) -> Response[Body | BulkSubscribeResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: list[CreateSubscriptionBody] | Unset = UNSET,
) -> Response[Body | BulkSubscribeResponse]:
    """Subscribe to many shipments at once

     Up to 1000 create bodies of POST /subscription/equipment in one request: a JSON array of them, or
    text/csv with a header row naming the same columns (scacCode, containerNumber, bookingNumber,
    billNumber, subscriptionReference; in any order, unknown columns ignored). Each item is checked
    exactly as the single endpoint checks its body, and answered on its own, in order: CREATED (message
    "Successfully Subscribed"), EXISTS (the subscriptionReference is already taken, by an earlier
    request or an earlier item of this one: message "Subscription Reference Already Exists", or
    "Subscription Reference Already Exists for another shipment" when it names a different shipment), or
    INVALID (message: the single endpoint's 400 message; an item beyond the plan's open subscriptions
    gets its 429 message, "Subscription limit reached for this plan: …"). One bad item never fails the
    others, and sending the same batch again is safe. More than 1000 items: 413 "Too many subscriptions
    in one request: the limit is 1000".

    Args:
        body (list[CreateSubscriptionBody]):
        body (list[CreateSubscriptionBody]):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | BulkSubscribeResponse]
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
    body: list[CreateSubscriptionBody] | Unset = UNSET,
) -> Body | BulkSubscribeResponse | None:
    """Subscribe to many shipments at once

     Up to 1000 create bodies of POST /subscription/equipment in one request: a JSON array of them, or
    text/csv with a header row naming the same columns (scacCode, containerNumber, bookingNumber,
    billNumber, subscriptionReference; in any order, unknown columns ignored). Each item is checked
    exactly as the single endpoint checks its body, and answered on its own, in order: CREATED (message
    "Successfully Subscribed"), EXISTS (the subscriptionReference is already taken, by an earlier
    request or an earlier item of this one: message "Subscription Reference Already Exists", or
    "Subscription Reference Already Exists for another shipment" when it names a different shipment), or
    INVALID (message: the single endpoint's 400 message; an item beyond the plan's open subscriptions
    gets its 429 message, "Subscription limit reached for this plan: …"). One bad item never fails the
    others, and sending the same batch again is safe. More than 1000 items: 413 "Too many subscriptions
    in one request: the limit is 1000".

    Args:
        body (list[CreateSubscriptionBody]):
        body (list[CreateSubscriptionBody]):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | BulkSubscribeResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: list[CreateSubscriptionBody] | Unset = UNSET,
) -> Response[Body | BulkSubscribeResponse]:
    """Subscribe to many shipments at once

     Up to 1000 create bodies of POST /subscription/equipment in one request: a JSON array of them, or
    text/csv with a header row naming the same columns (scacCode, containerNumber, bookingNumber,
    billNumber, subscriptionReference; in any order, unknown columns ignored). Each item is checked
    exactly as the single endpoint checks its body, and answered on its own, in order: CREATED (message
    "Successfully Subscribed"), EXISTS (the subscriptionReference is already taken, by an earlier
    request or an earlier item of this one: message "Subscription Reference Already Exists", or
    "Subscription Reference Already Exists for another shipment" when it names a different shipment), or
    INVALID (message: the single endpoint's 400 message; an item beyond the plan's open subscriptions
    gets its 429 message, "Subscription limit reached for this plan: …"). One bad item never fails the
    others, and sending the same batch again is safe. More than 1000 items: 413 "Too many subscriptions
    in one request: the limit is 1000".

    Args:
        body (list[CreateSubscriptionBody]):
        body (list[CreateSubscriptionBody]):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | BulkSubscribeResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: list[CreateSubscriptionBody] | Unset = UNSET,
) -> Body | BulkSubscribeResponse | None:
    """Subscribe to many shipments at once

     Up to 1000 create bodies of POST /subscription/equipment in one request: a JSON array of them, or
    text/csv with a header row naming the same columns (scacCode, containerNumber, bookingNumber,
    billNumber, subscriptionReference; in any order, unknown columns ignored). Each item is checked
    exactly as the single endpoint checks its body, and answered on its own, in order: CREATED (message
    "Successfully Subscribed"), EXISTS (the subscriptionReference is already taken, by an earlier
    request or an earlier item of this one: message "Subscription Reference Already Exists", or
    "Subscription Reference Already Exists for another shipment" when it names a different shipment), or
    INVALID (message: the single endpoint's 400 message; an item beyond the plan's open subscriptions
    gets its 429 message, "Subscription limit reached for this plan: …"). One bad item never fails the
    others, and sending the same batch again is safe. More than 1000 items: 413 "Too many subscriptions
    in one request: the limit is 1000".

    Args:
        body (list[CreateSubscriptionBody]):
        body (list[CreateSubscriptionBody]):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | BulkSubscribeResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
