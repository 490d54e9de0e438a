from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.vessel_positions_body import VesselPositionsBody
from ...models.vessel_positions_response import VesselPositionsResponse
from ...types import Response


def _get_kwargs(
    subscription_id: str,
    *,
    body: VesselPositionsBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/subscription/{subscription_id}/vessel-positions".format(
            subscription_id=quote(str(subscription_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | VesselPositionsResponse | None:
    if response.status_code == 200:
        response_200 = VesselPositionsResponse.from_dict(response.json())

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
) -> Response[Body | VesselPositionsResponse]:
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
    body: VesselPositionsBody,
) -> Response[Body | VesselPositionsResponse]:
    """Receive the vessel's positions in the event feed

     Opts the subscription in to VESSEL_POSITION items in GET /subscriptions/events: while its shipment
    is at sea, the vessel's reported position at most every intervalMinutes (5-1440, default 60;
    measured on the positions' times). Setting it again changes the interval. Items start within a
    minute or so (CONTRACK_FEED_POSITIONS_REFRESH) of the opt-in or the vessel's departure.

    Args:
        subscription_id (str):
        body (VesselPositionsBody): VesselPositionsBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | VesselPositionsResponse]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: VesselPositionsBody,
) -> Body | VesselPositionsResponse | None:
    """Receive the vessel's positions in the event feed

     Opts the subscription in to VESSEL_POSITION items in GET /subscriptions/events: while its shipment
    is at sea, the vessel's reported position at most every intervalMinutes (5-1440, default 60;
    measured on the positions' times). Setting it again changes the interval. Items start within a
    minute or so (CONTRACK_FEED_POSITIONS_REFRESH) of the opt-in or the vessel's departure.

    Args:
        subscription_id (str):
        body (VesselPositionsBody): VesselPositionsBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | VesselPositionsResponse
    """

    return sync_detailed(
        subscription_id=subscription_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: VesselPositionsBody,
) -> Response[Body | VesselPositionsResponse]:
    """Receive the vessel's positions in the event feed

     Opts the subscription in to VESSEL_POSITION items in GET /subscriptions/events: while its shipment
    is at sea, the vessel's reported position at most every intervalMinutes (5-1440, default 60;
    measured on the positions' times). Setting it again changes the interval. Items start within a
    minute or so (CONTRACK_FEED_POSITIONS_REFRESH) of the opt-in or the vessel's departure.

    Args:
        subscription_id (str):
        body (VesselPositionsBody): VesselPositionsBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | VesselPositionsResponse]
    """

    kwargs = _get_kwargs(
        subscription_id=subscription_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    subscription_id: str,
    *,
    client: AuthenticatedClient,
    body: VesselPositionsBody,
) -> Body | VesselPositionsResponse | None:
    """Receive the vessel's positions in the event feed

     Opts the subscription in to VESSEL_POSITION items in GET /subscriptions/events: while its shipment
    is at sea, the vessel's reported position at most every intervalMinutes (5-1440, default 60;
    measured on the positions' times). Setting it again changes the interval. Items start within a
    minute or so (CONTRACK_FEED_POSITIONS_REFRESH) of the opt-in or the vessel's departure.

    Args:
        subscription_id (str):
        body (VesselPositionsBody): VesselPositionsBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | VesselPositionsResponse
    """

    return (
        await asyncio_detailed(
            subscription_id=subscription_id,
            client=client,
            body=body,
        )
    ).parsed
