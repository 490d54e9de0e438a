from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.journeys_response import JourneysResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    equipment_number: str | Unset = UNSET,
    booking_number: str | Unset = UNSET,
    bill_number: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    accept_encoding: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(accept_encoding, Unset):
        headers["Accept-Encoding"] = accept_encoding

    params: dict[str, Any] = {}

    params["equipmentNumber"] = equipment_number

    params["bookingNumber"] = booking_number

    params["billNumber"] = bill_number

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/subscription/equipment",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Body | JourneysResponse | None:
    if response.status_code == 200:
        response_200 = JourneysResponse.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

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
) -> Response[Any | Body | JourneysResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    equipment_number: str | Unset = UNSET,
    booking_number: str | Unset = UNSET,
    bill_number: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    accept_encoding: str | Unset = UNSET,
) -> Response[Any | Body | JourneysResponse]:
    """Tracking data of the account's subscriptions

     One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events
    (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived
    milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD,
    GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll
    be answered 304.

    Args:
        equipment_number (str | Unset):
        booking_number (str | Unset):
        bill_number (str | Unset):
        if_none_match (str | Unset):
        accept_encoding (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Body | JourneysResponse]
    """

    kwargs = _get_kwargs(
        equipment_number=equipment_number,
        booking_number=booking_number,
        bill_number=bill_number,
        if_none_match=if_none_match,
        accept_encoding=accept_encoding,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    equipment_number: str | Unset = UNSET,
    booking_number: str | Unset = UNSET,
    bill_number: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    accept_encoding: str | Unset = UNSET,
) -> Any | Body | JourneysResponse | None:
    """Tracking data of the account's subscriptions

     One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events
    (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived
    milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD,
    GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll
    be answered 304.

    Args:
        equipment_number (str | Unset):
        booking_number (str | Unset):
        bill_number (str | Unset):
        if_none_match (str | Unset):
        accept_encoding (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Body | JourneysResponse
    """

    return sync_detailed(
        client=client,
        equipment_number=equipment_number,
        booking_number=booking_number,
        bill_number=bill_number,
        if_none_match=if_none_match,
        accept_encoding=accept_encoding,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    equipment_number: str | Unset = UNSET,
    booking_number: str | Unset = UNSET,
    bill_number: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    accept_encoding: str | Unset = UNSET,
) -> Response[Any | Body | JourneysResponse]:
    """Tracking data of the account's subscriptions

     One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events
    (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived
    milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD,
    GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll
    be answered 304.

    Args:
        equipment_number (str | Unset):
        booking_number (str | Unset):
        bill_number (str | Unset):
        if_none_match (str | Unset):
        accept_encoding (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Body | JourneysResponse]
    """

    kwargs = _get_kwargs(
        equipment_number=equipment_number,
        booking_number=booking_number,
        bill_number=bill_number,
        if_none_match=if_none_match,
        accept_encoding=accept_encoding,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    equipment_number: str | Unset = UNSET,
    booking_number: str | Unset = UNSET,
    bill_number: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
    accept_encoding: str | Unset = UNSET,
) -> Any | Body | JourneysResponse | None:
    """Tracking data of the account's subscriptions

     One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events
    (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived
    milestones (enhancedEvents: ATD_POL, TRANSSHIPMENT, ETA_REVISION, ETA_POD, ATA_POD, DISCHARGE_POD,
    GATE_OUT_FULL_DESTINATION, EMPTY_RETURN). Served from the journey read model; an ETag lets a re-poll
    be answered 304.

    Args:
        equipment_number (str | Unset):
        booking_number (str | Unset):
        bill_number (str | Unset):
        if_none_match (str | Unset):
        accept_encoding (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Body | JourneysResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            equipment_number=equipment_number,
            booking_number=booking_number,
            bill_number=bill_number,
            if_none_match=if_none_match,
            accept_encoding=accept_encoding,
        )
    ).parsed
