from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.connector_response import ConnectorResponse
from ...models.patch_connector_body import PatchConnectorBody
from ...types import Response


def _get_kwargs(
    code: str,
    *,
    body: PatchConnectorBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/carrier/connectors/{code}".format(
            code=quote(str(code), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | ConnectorResponse | None:
    if response.status_code == 200:
        response_200 = ConnectorResponse.from_dict(response.json())

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
) -> Response[Body | ConnectorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    code: str,
    *,
    client: AuthenticatedClient,
    body: PatchConnectorBody,
) -> Response[Body | ConnectorResponse]:
    """Change a carrier connector

     The fields present replace the stored ones; auth is replaced as a whole. An auth without its secret
    keeps the stored one only while the scheme, the base URL's host and the token URL's host stay the
    same.

    Args:
        code (str):
        body (PatchConnectorBody): PatchConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorResponse]
    """

    kwargs = _get_kwargs(
        code=code,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code: str,
    *,
    client: AuthenticatedClient,
    body: PatchConnectorBody,
) -> Body | ConnectorResponse | None:
    """Change a carrier connector

     The fields present replace the stored ones; auth is replaced as a whole. An auth without its secret
    keeps the stored one only while the scheme, the base URL's host and the token URL's host stay the
    same.

    Args:
        code (str):
        body (PatchConnectorBody): PatchConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorResponse
    """

    return sync_detailed(
        code=code,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    code: str,
    *,
    client: AuthenticatedClient,
    body: PatchConnectorBody,
) -> Response[Body | ConnectorResponse]:
    """Change a carrier connector

     The fields present replace the stored ones; auth is replaced as a whole. An auth without its secret
    keeps the stored one only while the scheme, the base URL's host and the token URL's host stay the
    same.

    Args:
        code (str):
        body (PatchConnectorBody): PatchConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorResponse]
    """

    kwargs = _get_kwargs(
        code=code,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code: str,
    *,
    client: AuthenticatedClient,
    body: PatchConnectorBody,
) -> Body | ConnectorResponse | None:
    """Change a carrier connector

     The fields present replace the stored ones; auth is replaced as a whole. An auth without its secret
    keeps the stored one only while the scheme, the base URL's host and the token URL's host stay the
    same.

    Args:
        code (str):
        body (PatchConnectorBody): PatchConnectorBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorResponse
    """

    return (
        await asyncio_detailed(
            code=code,
            client=client,
            body=body,
        )
    ).parsed
