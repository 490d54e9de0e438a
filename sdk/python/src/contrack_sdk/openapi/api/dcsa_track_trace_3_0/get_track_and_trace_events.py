from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.v3_error import V3Error
from ...models.v3_events import V3Events
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    carrier_booking_reference: str | Unset = UNSET,
    transport_document_reference: str | Unset = UNSET,
    equipment_reference: str | Unset = UNSET,
    event_types: str | Unset = UNSET,
    event_updated_date_time_min: str | Unset = UNSET,
    event_updated_date_time_max: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(api_version, Unset):
        headers["API-Version"] = api_version

    params: dict[str, Any] = {}

    params["carrierBookingReference"] = carrier_booking_reference

    params["transportDocumentReference"] = transport_document_reference

    params["equipmentReference"] = equipment_reference

    params["eventTypes"] = event_types

    params["eventUpdatedDateTimeMin"] = event_updated_date_time_min

    params["eventUpdatedDateTimeMax"] = event_updated_date_time_max

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v3/events",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | V3Error | V3Events | None:
    if response.status_code == 200:
        response_200 = V3Events.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = V3Error.from_dict(response.json())

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
) -> Response[Body | V3Error | V3Events]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    carrier_booking_reference: str | Unset = UNSET,
    transport_document_reference: str | Unset = UNSET,
    equipment_reference: str | Unset = UNSET,
    event_types: str | Unset = UNSET,
    event_updated_date_time_min: str | Unset = UNSET,
    event_updated_date_time_max: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[Body | V3Error | V3Events]:
    """The account's events as a DCSA Track & Trace 3.0 producer

     GET /events of DCSA Track & Trace 3.0.0 (the producer role): the latest version of every event of
    the account's trackings, each mapped from EVENT_DOMAIN 2.0.2 to 3.0 (SHIPMENT, IOT and REEFER
    events, which 2.0.2 has no form for, with their 3.0 codes and details), a withdrawn one as 3.0's
    retraction (isRetracted, same eventID). Filters combine: carrierBookingReference or
    transportDocumentReference, each with or without equipmentReference, or equipmentReference alone (an
    event matches a reference it names, or that a tracking it belongs to follows); eventTypes
    (EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER); eventUpdatedDateTimeMin and Max (inclusive). Ordered
    by eventUpdatedDateTime. limit is lowered to at most 1000 (default 100); while more remain the
    answer has Next-Page-Cursor, sent back as cursor with the same filters. Every answer has API-Version
    3.0.0; errors are 3.0's GetEventsError with contrack's message.

    Args:
        carrier_booking_reference (str | Unset):
        transport_document_reference (str | Unset):
        equipment_reference (str | Unset):
        event_types (str | Unset):
        event_updated_date_time_min (str | Unset):
        event_updated_date_time_max (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | V3Error | V3Events]
    """

    kwargs = _get_kwargs(
        carrier_booking_reference=carrier_booking_reference,
        transport_document_reference=transport_document_reference,
        equipment_reference=equipment_reference,
        event_types=event_types,
        event_updated_date_time_min=event_updated_date_time_min,
        event_updated_date_time_max=event_updated_date_time_max,
        limit=limit,
        cursor=cursor,
        api_version=api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    carrier_booking_reference: str | Unset = UNSET,
    transport_document_reference: str | Unset = UNSET,
    equipment_reference: str | Unset = UNSET,
    event_types: str | Unset = UNSET,
    event_updated_date_time_min: str | Unset = UNSET,
    event_updated_date_time_max: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Body | V3Error | V3Events | None:
    """The account's events as a DCSA Track & Trace 3.0 producer

     GET /events of DCSA Track & Trace 3.0.0 (the producer role): the latest version of every event of
    the account's trackings, each mapped from EVENT_DOMAIN 2.0.2 to 3.0 (SHIPMENT, IOT and REEFER
    events, which 2.0.2 has no form for, with their 3.0 codes and details), a withdrawn one as 3.0's
    retraction (isRetracted, same eventID). Filters combine: carrierBookingReference or
    transportDocumentReference, each with or without equipmentReference, or equipmentReference alone (an
    event matches a reference it names, or that a tracking it belongs to follows); eventTypes
    (EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER); eventUpdatedDateTimeMin and Max (inclusive). Ordered
    by eventUpdatedDateTime. limit is lowered to at most 1000 (default 100); while more remain the
    answer has Next-Page-Cursor, sent back as cursor with the same filters. Every answer has API-Version
    3.0.0; errors are 3.0's GetEventsError with contrack's message.

    Args:
        carrier_booking_reference (str | Unset):
        transport_document_reference (str | Unset):
        equipment_reference (str | Unset):
        event_types (str | Unset):
        event_updated_date_time_min (str | Unset):
        event_updated_date_time_max (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | V3Error | V3Events
    """

    return sync_detailed(
        client=client,
        carrier_booking_reference=carrier_booking_reference,
        transport_document_reference=transport_document_reference,
        equipment_reference=equipment_reference,
        event_types=event_types,
        event_updated_date_time_min=event_updated_date_time_min,
        event_updated_date_time_max=event_updated_date_time_max,
        limit=limit,
        cursor=cursor,
        api_version=api_version,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    carrier_booking_reference: str | Unset = UNSET,
    transport_document_reference: str | Unset = UNSET,
    equipment_reference: str | Unset = UNSET,
    event_types: str | Unset = UNSET,
    event_updated_date_time_min: str | Unset = UNSET,
    event_updated_date_time_max: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[Body | V3Error | V3Events]:
    """The account's events as a DCSA Track & Trace 3.0 producer

     GET /events of DCSA Track & Trace 3.0.0 (the producer role): the latest version of every event of
    the account's trackings, each mapped from EVENT_DOMAIN 2.0.2 to 3.0 (SHIPMENT, IOT and REEFER
    events, which 2.0.2 has no form for, with their 3.0 codes and details), a withdrawn one as 3.0's
    retraction (isRetracted, same eventID). Filters combine: carrierBookingReference or
    transportDocumentReference, each with or without equipmentReference, or equipmentReference alone (an
    event matches a reference it names, or that a tracking it belongs to follows); eventTypes
    (EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER); eventUpdatedDateTimeMin and Max (inclusive). Ordered
    by eventUpdatedDateTime. limit is lowered to at most 1000 (default 100); while more remain the
    answer has Next-Page-Cursor, sent back as cursor with the same filters. Every answer has API-Version
    3.0.0; errors are 3.0's GetEventsError with contrack's message.

    Args:
        carrier_booking_reference (str | Unset):
        transport_document_reference (str | Unset):
        equipment_reference (str | Unset):
        event_types (str | Unset):
        event_updated_date_time_min (str | Unset):
        event_updated_date_time_max (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | V3Error | V3Events]
    """

    kwargs = _get_kwargs(
        carrier_booking_reference=carrier_booking_reference,
        transport_document_reference=transport_document_reference,
        equipment_reference=equipment_reference,
        event_types=event_types,
        event_updated_date_time_min=event_updated_date_time_min,
        event_updated_date_time_max=event_updated_date_time_max,
        limit=limit,
        cursor=cursor,
        api_version=api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    carrier_booking_reference: str | Unset = UNSET,
    transport_document_reference: str | Unset = UNSET,
    equipment_reference: str | Unset = UNSET,
    event_types: str | Unset = UNSET,
    event_updated_date_time_min: str | Unset = UNSET,
    event_updated_date_time_max: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Body | V3Error | V3Events | None:
    """The account's events as a DCSA Track & Trace 3.0 producer

     GET /events of DCSA Track & Trace 3.0.0 (the producer role): the latest version of every event of
    the account's trackings, each mapped from EVENT_DOMAIN 2.0.2 to 3.0 (SHIPMENT, IOT and REEFER
    events, which 2.0.2 has no form for, with their 3.0 codes and details), a withdrawn one as 3.0's
    retraction (isRetracted, same eventID). Filters combine: carrierBookingReference or
    transportDocumentReference, each with or without equipmentReference, or equipmentReference alone (an
    event matches a reference it names, or that a tracking it belongs to follows); eventTypes
    (EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER); eventUpdatedDateTimeMin and Max (inclusive). Ordered
    by eventUpdatedDateTime. limit is lowered to at most 1000 (default 100); while more remain the
    answer has Next-Page-Cursor, sent back as cursor with the same filters. Every answer has API-Version
    3.0.0; errors are 3.0's GetEventsError with contrack's message.

    Args:
        carrier_booking_reference (str | Unset):
        transport_document_reference (str | Unset):
        equipment_reference (str | Unset):
        event_types (str | Unset):
        event_updated_date_time_min (str | Unset):
        event_updated_date_time_max (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | V3Error | V3Events
    """

    return (
        await asyncio_detailed(
            client=client,
            carrier_booking_reference=carrier_booking_reference,
            transport_document_reference=transport_document_reference,
            equipment_reference=equipment_reference,
            event_types=event_types,
            event_updated_date_time_min=event_updated_date_time_min,
            event_updated_date_time_max=event_updated_date_time_max,
            limit=limit,
            cursor=cursor,
            api_version=api_version,
        )
    ).parsed
