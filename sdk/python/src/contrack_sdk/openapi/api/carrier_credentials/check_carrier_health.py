from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.health_check_body import HealthCheckBody
from ...models.health_check_response import HealthCheckResponse
from ...types import Response


def _get_kwargs(
    *,
    body: HealthCheckBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/carrier/health-check",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | HealthCheckResponse | None:
    if response.status_code == 200:
        response_200 = HealthCheckResponse.from_dict(response.json())

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
) -> Response[Body | HealthCheckResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: HealthCheckBody,
) -> Response[Body | HealthCheckResponse]:
    """Test connectivity to a carrier's API with the stored credentials

     status: OK (the carrier answered and accepted the credentials), UNAUTHORIZED, UNREACHABLE (nothing
    answered, or the carrier is failing for every account; httpCode 0) or ERROR (the carrier answered
    with an error). The call goes through the same limits as the account's polls of that carrier, and
    counts against the account's carrier probe budget (default 30 a minute).

    Args:
        body (HealthCheckBody): HealthCheckBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | HealthCheckResponse]
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
    body: HealthCheckBody,
) -> Body | HealthCheckResponse | None:
    """Test connectivity to a carrier's API with the stored credentials

     status: OK (the carrier answered and accepted the credentials), UNAUTHORIZED, UNREACHABLE (nothing
    answered, or the carrier is failing for every account; httpCode 0) or ERROR (the carrier answered
    with an error). The call goes through the same limits as the account's polls of that carrier, and
    counts against the account's carrier probe budget (default 30 a minute).

    Args:
        body (HealthCheckBody): HealthCheckBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | HealthCheckResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: HealthCheckBody,
) -> Response[Body | HealthCheckResponse]:
    """Test connectivity to a carrier's API with the stored credentials

     status: OK (the carrier answered and accepted the credentials), UNAUTHORIZED, UNREACHABLE (nothing
    answered, or the carrier is failing for every account; httpCode 0) or ERROR (the carrier answered
    with an error). The call goes through the same limits as the account's polls of that carrier, and
    counts against the account's carrier probe budget (default 30 a minute).

    Args:
        body (HealthCheckBody): HealthCheckBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | HealthCheckResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: HealthCheckBody,
) -> Body | HealthCheckResponse | None:
    """Test connectivity to a carrier's API with the stored credentials

     status: OK (the carrier answered and accepted the credentials), UNAUTHORIZED, UNREACHABLE (nothing
    answered, or the carrier is failing for every account; httpCode 0) or ERROR (the carrier answered
    with an error). The call goes through the same limits as the account's polls of that carrier, and
    counts against the account's carrier probe budget (default 30 a minute).

    Args:
        body (HealthCheckBody): HealthCheckBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | HealthCheckResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
