from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.create_subscription_body import CreateSubscriptionBody
from ...models.subscribe_response import SubscribeResponse
from ...types import Response


def _get_kwargs(
    *,
    body: CreateSubscriptionBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/subscription/equipment",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | SubscribeResponse | None:
    if response.status_code == 200:
        response_200 = SubscribeResponse.from_dict(response.json())

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
) -> Response[Body | SubscribeResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateSubscriptionBody,
) -> Response[Body | SubscribeResponse]:
    """Subscribe to a shipment

     Track a container, booking or bill of lading of a carrier. subscriptionReference and exactly one of
    containerNumber, bookingNumber, billNumber are required. scacCode is optional: without it the
    carrier is inferred as GET /carrier/infer does (owner code, bill prefix, else asking the carriers
    the account has credentials for), and exactly one candidate must result, else 400 "Could not
    determine the carrier for '<value>'; provide scacCode"; the subscription then shows the inferred
    scacCode. Container numbers must carry a valid ISO 6346 check digit. Subscribing before storing the
    carrier's credentials is allowed: connectionStatus is NO_CREDENTIALS until they are stored. A
    carrier not on the supported list that pushes its events (it has a carrier key in this environment)
    is accepted with connectionStatus PUSH_ONLY: never polled, fed by its pushed events.

    Args:
        body (CreateSubscriptionBody): CreateSubscriptionBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscribeResponse]
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
    body: CreateSubscriptionBody,
) -> Body | SubscribeResponse | None:
    """Subscribe to a shipment

     Track a container, booking or bill of lading of a carrier. subscriptionReference and exactly one of
    containerNumber, bookingNumber, billNumber are required. scacCode is optional: without it the
    carrier is inferred as GET /carrier/infer does (owner code, bill prefix, else asking the carriers
    the account has credentials for), and exactly one candidate must result, else 400 "Could not
    determine the carrier for '<value>'; provide scacCode"; the subscription then shows the inferred
    scacCode. Container numbers must carry a valid ISO 6346 check digit. Subscribing before storing the
    carrier's credentials is allowed: connectionStatus is NO_CREDENTIALS until they are stored. A
    carrier not on the supported list that pushes its events (it has a carrier key in this environment)
    is accepted with connectionStatus PUSH_ONLY: never polled, fed by its pushed events.

    Args:
        body (CreateSubscriptionBody): CreateSubscriptionBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscribeResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateSubscriptionBody,
) -> Response[Body | SubscribeResponse]:
    """Subscribe to a shipment

     Track a container, booking or bill of lading of a carrier. subscriptionReference and exactly one of
    containerNumber, bookingNumber, billNumber are required. scacCode is optional: without it the
    carrier is inferred as GET /carrier/infer does (owner code, bill prefix, else asking the carriers
    the account has credentials for), and exactly one candidate must result, else 400 "Could not
    determine the carrier for '<value>'; provide scacCode"; the subscription then shows the inferred
    scacCode. Container numbers must carry a valid ISO 6346 check digit. Subscribing before storing the
    carrier's credentials is allowed: connectionStatus is NO_CREDENTIALS until they are stored. A
    carrier not on the supported list that pushes its events (it has a carrier key in this environment)
    is accepted with connectionStatus PUSH_ONLY: never polled, fed by its pushed events.

    Args:
        body (CreateSubscriptionBody): CreateSubscriptionBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | SubscribeResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateSubscriptionBody,
) -> Body | SubscribeResponse | None:
    """Subscribe to a shipment

     Track a container, booking or bill of lading of a carrier. subscriptionReference and exactly one of
    containerNumber, bookingNumber, billNumber are required. scacCode is optional: without it the
    carrier is inferred as GET /carrier/infer does (owner code, bill prefix, else asking the carriers
    the account has credentials for), and exactly one candidate must result, else 400 "Could not
    determine the carrier for '<value>'; provide scacCode"; the subscription then shows the inferred
    scacCode. Container numbers must carry a valid ISO 6346 check digit. Subscribing before storing the
    carrier's credentials is allowed: connectionStatus is NO_CREDENTIALS until they are stored. A
    carrier not on the supported list that pushes its events (it has a carrier key in this environment)
    is accepted with connectionStatus PUSH_ONLY: never polled, fed by its pushed events.

    Args:
        body (CreateSubscriptionBody): CreateSubscriptionBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | SubscribeResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
