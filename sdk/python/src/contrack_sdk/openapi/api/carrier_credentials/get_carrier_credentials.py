from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.credentials_response import CredentialsResponse
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/carrier/credentials",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | CredentialsResponse | None:
    if response.status_code == 200:
        response_200 = CredentialsResponse.from_dict(response.json())

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
) -> Response[Body | CredentialsResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[Body | CredentialsResponse]:
    """Stored carrier credentials, secrets masked

     clientId is shown in clear; clientSecret and apiKey only as **** followed by their last four
    characters (**** alone for a secret shorter than 16 characters).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | CredentialsResponse]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> Body | CredentialsResponse | None:
    """Stored carrier credentials, secrets masked

     clientId is shown in clear; clientSecret and apiKey only as **** followed by their last four
    characters (**** alone for a secret shorter than 16 characters).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | CredentialsResponse
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[Body | CredentialsResponse]:
    """Stored carrier credentials, secrets masked

     clientId is shown in clear; clientSecret and apiKey only as **** followed by their last four
    characters (**** alone for a secret shorter than 16 characters).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | CredentialsResponse]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> Body | CredentialsResponse | None:
    """Stored carrier credentials, secrets masked

     clientId is shown in clear; clientSecret and apiKey only as **** followed by their last four
    characters (**** alone for a secret shorter than 16 characters).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | CredentialsResponse
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
