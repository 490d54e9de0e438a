from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.metrics_response import MetricsResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    window: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["window"] = window

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/carrier/metrics",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | MetricsResponse | None:
    if response.status_code == 200:
        response_200 = MetricsResponse.from_dict(response.json())

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
) -> Response[Body | MetricsResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    window: int | Unset = UNSET,
) -> Response[Body | MetricsResponse]:
    """Carrier polling metrics of the calling account

     Per-carrier rollups of the account's polls over the window, worst first (highest error rate):
    attempts, success, noData, errors, errorRate, average and p95 latency, last attempt; and
    dataQuality: the events read from the carrier's answers, the deviations from its standard repaired
    by kind, the elements refused (dead-lettered) and the latest refusal's reason.

    Args:
        window (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | MetricsResponse]
    """

    kwargs = _get_kwargs(
        window=window,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    window: int | Unset = UNSET,
) -> Body | MetricsResponse | None:
    """Carrier polling metrics of the calling account

     Per-carrier rollups of the account's polls over the window, worst first (highest error rate):
    attempts, success, noData, errors, errorRate, average and p95 latency, last attempt; and
    dataQuality: the events read from the carrier's answers, the deviations from its standard repaired
    by kind, the elements refused (dead-lettered) and the latest refusal's reason.

    Args:
        window (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | MetricsResponse
    """

    return sync_detailed(
        client=client,
        window=window,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    window: int | Unset = UNSET,
) -> Response[Body | MetricsResponse]:
    """Carrier polling metrics of the calling account

     Per-carrier rollups of the account's polls over the window, worst first (highest error rate):
    attempts, success, noData, errors, errorRate, average and p95 latency, last attempt; and
    dataQuality: the events read from the carrier's answers, the deviations from its standard repaired
    by kind, the elements refused (dead-lettered) and the latest refusal's reason.

    Args:
        window (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | MetricsResponse]
    """

    kwargs = _get_kwargs(
        window=window,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    window: int | Unset = UNSET,
) -> Body | MetricsResponse | None:
    """Carrier polling metrics of the calling account

     Per-carrier rollups of the account's polls over the window, worst first (highest error rate):
    attempts, success, noData, errors, errorRate, average and p95 latency, last attempt; and
    dataQuality: the events read from the carrier's answers, the deviations from its standard repaired
    by kind, the elements refused (dead-lettered) and the latest refusal's reason.

    Args:
        window (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | MetricsResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            window=window,
        )
    ).parsed
