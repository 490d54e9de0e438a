from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.free_time import FreeTime
from ...models.free_time_response import FreeTimeResponse
from ...types import Response


def _get_kwargs(
    *,
    body: FreeTime,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/account/free-time",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | FreeTimeResponse | None:
    if response.status_code == 200:
        response_200 = FreeTimeResponse.from_dict(response.json())

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
) -> Response[Body | FreeTimeResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: FreeTime,
) -> Response[Body | FreeTimeResponse]:
    """Set the account's free-time rules

     Replaces every rule. A rule gives the demurrage and detention free days (and optional daily rates,
    with their currency) at a port (UN/LOCODE or *) for a carrier (SCAC or *); the most specific rule
    applies (port and carrier, then port, then carrier, then * and *). excludeWeekends: Saturdays and
    Sundays are not free days. Journeys show the last free day, the days accrued and the estimated cost
    under them (readiness); [] removes every rule.

    Args:
        body (FreeTime): FreeTime schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | FreeTimeResponse]
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
    body: FreeTime,
) -> Body | FreeTimeResponse | None:
    """Set the account's free-time rules

     Replaces every rule. A rule gives the demurrage and detention free days (and optional daily rates,
    with their currency) at a port (UN/LOCODE or *) for a carrier (SCAC or *); the most specific rule
    applies (port and carrier, then port, then carrier, then * and *). excludeWeekends: Saturdays and
    Sundays are not free days. Journeys show the last free day, the days accrued and the estimated cost
    under them (readiness); [] removes every rule.

    Args:
        body (FreeTime): FreeTime schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | FreeTimeResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: FreeTime,
) -> Response[Body | FreeTimeResponse]:
    """Set the account's free-time rules

     Replaces every rule. A rule gives the demurrage and detention free days (and optional daily rates,
    with their currency) at a port (UN/LOCODE or *) for a carrier (SCAC or *); the most specific rule
    applies (port and carrier, then port, then carrier, then * and *). excludeWeekends: Saturdays and
    Sundays are not free days. Journeys show the last free day, the days accrued and the estimated cost
    under them (readiness); [] removes every rule.

    Args:
        body (FreeTime): FreeTime schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | FreeTimeResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: FreeTime,
) -> Body | FreeTimeResponse | None:
    """Set the account's free-time rules

     Replaces every rule. A rule gives the demurrage and detention free days (and optional daily rates,
    with their currency) at a port (UN/LOCODE or *) for a carrier (SCAC or *); the most specific rule
    applies (port and carrier, then port, then carrier, then * and *). excludeWeekends: Saturdays and
    Sundays are not free days. Journeys show the last free day, the days accrued and the estimated cost
    under them (readiness); [] removes every rule.

    Args:
        body (FreeTime): FreeTime schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | FreeTimeResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
