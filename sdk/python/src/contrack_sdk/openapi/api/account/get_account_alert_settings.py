from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.account_alert_settings import AccountAlertSettings
from ...models.body import Body
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/account/alert-settings",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AccountAlertSettings | Body | None:
    if response.status_code == 200:
        response_200 = AccountAlertSettings.from_dict(response.json())

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
) -> Response[AccountAlertSettings | Body]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[AccountAlertSettings | Body]:
    """The account's alert settings

     etaChangeThresholdHours null: the default (6). lfdWarningDays: the days before the last free day
    LFD_APPROACHING is raised, the default (2) until the account sets its own.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountAlertSettings | Body]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> AccountAlertSettings | Body | None:
    """The account's alert settings

     etaChangeThresholdHours null: the default (6). lfdWarningDays: the days before the last free day
    LFD_APPROACHING is raised, the default (2) until the account sets its own.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountAlertSettings | Body
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[AccountAlertSettings | Body]:
    """The account's alert settings

     etaChangeThresholdHours null: the default (6). lfdWarningDays: the days before the last free day
    LFD_APPROACHING is raised, the default (2) until the account sets its own.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountAlertSettings | Body]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> AccountAlertSettings | Body | None:
    """The account's alert settings

     etaChangeThresholdHours null: the default (6). lfdWarningDays: the days before the last free day
    LFD_APPROACHING is raised, the default (2) until the account sets its own.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountAlertSettings | Body
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
