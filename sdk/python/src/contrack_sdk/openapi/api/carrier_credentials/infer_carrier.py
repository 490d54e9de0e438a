from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.infer_response import InferResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    number: str | Unset = UNSET,
    kind: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["number"] = number

    params["kind"] = kind

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/carrier/infer",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | InferResponse | None:
    if response.status_code == 200:
        response_200 = InferResponse.from_dict(response.json())

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
) -> Response[Body | InferResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    number: str | Unset = UNSET,
    kind: str | Unset = UNSET,
) -> Response[Body | InferResponse]:
    """Which carrier a container, booking or bill belongs to

     Looks the number up in contrack's prefix tables: a container's owner code (e.g. MSKU → MAEU), a bill
    of lading or booking prefix (e.g. MEDU → MSCU). Where the prefix names no single carrier (a leasing
    company's box, an unknown prefix), the carriers this account has credentials for are asked, in
    parallel and within a time limit, with the account's own credentials and environment (sandbox keys
    ask the sandbox carriers): method probe, and probed lists every answer. POST /subscription/equipment
    without scacCode subscribes to the carrier when there is exactly one candidate.

    Args:
        number (str | Unset):
        kind (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | InferResponse]
    """

    kwargs = _get_kwargs(
        number=number,
        kind=kind,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    number: str | Unset = UNSET,
    kind: str | Unset = UNSET,
) -> Body | InferResponse | None:
    """Which carrier a container, booking or bill belongs to

     Looks the number up in contrack's prefix tables: a container's owner code (e.g. MSKU → MAEU), a bill
    of lading or booking prefix (e.g. MEDU → MSCU). Where the prefix names no single carrier (a leasing
    company's box, an unknown prefix), the carriers this account has credentials for are asked, in
    parallel and within a time limit, with the account's own credentials and environment (sandbox keys
    ask the sandbox carriers): method probe, and probed lists every answer. POST /subscription/equipment
    without scacCode subscribes to the carrier when there is exactly one candidate.

    Args:
        number (str | Unset):
        kind (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | InferResponse
    """

    return sync_detailed(
        client=client,
        number=number,
        kind=kind,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    number: str | Unset = UNSET,
    kind: str | Unset = UNSET,
) -> Response[Body | InferResponse]:
    """Which carrier a container, booking or bill belongs to

     Looks the number up in contrack's prefix tables: a container's owner code (e.g. MSKU → MAEU), a bill
    of lading or booking prefix (e.g. MEDU → MSCU). Where the prefix names no single carrier (a leasing
    company's box, an unknown prefix), the carriers this account has credentials for are asked, in
    parallel and within a time limit, with the account's own credentials and environment (sandbox keys
    ask the sandbox carriers): method probe, and probed lists every answer. POST /subscription/equipment
    without scacCode subscribes to the carrier when there is exactly one candidate.

    Args:
        number (str | Unset):
        kind (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | InferResponse]
    """

    kwargs = _get_kwargs(
        number=number,
        kind=kind,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    number: str | Unset = UNSET,
    kind: str | Unset = UNSET,
) -> Body | InferResponse | None:
    """Which carrier a container, booking or bill belongs to

     Looks the number up in contrack's prefix tables: a container's owner code (e.g. MSKU → MAEU), a bill
    of lading or booking prefix (e.g. MEDU → MSCU). Where the prefix names no single carrier (a leasing
    company's box, an unknown prefix), the carriers this account has credentials for are asked, in
    parallel and within a time limit, with the account's own credentials and environment (sandbox keys
    ask the sandbox carriers): method probe, and probed lists every answer. POST /subscription/equipment
    without scacCode subscribes to the carrier when there is exactly one candidate.

    Args:
        number (str | Unset):
        kind (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | InferResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            number=number,
            kind=kind,
        )
    ).parsed
