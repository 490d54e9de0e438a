from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.account_alert_settings_response import AccountAlertSettingsResponse
from ...models.alert_settings import AlertSettings
from ...models.body import Body
from ...types import Response


def _get_kwargs(
    *,
    body: AlertSettings,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/account/alert-settings",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AccountAlertSettingsResponse | Body | None:
    if response.status_code == 200:
        response_200 = AccountAlertSettingsResponse.from_dict(response.json())

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
) -> Response[AccountAlertSettingsResponse | Body]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AlertSettings,
) -> Response[AccountAlertSettingsResponse | Body]:
    """Set the account's alert settings

     etaChangeThresholdHours: the ETA move (hours) an ETA_CHANGED alert needs, unless the subscription
    sets its own (default 6); lfdWarningDays: LFD_APPROACHING is raised this many days before the last
    free day (default 2). null or absent: the default. The answer gives the settings now in force,
    lfdWarningDays always.

    Args:
        body (AlertSettings): AlertSettings schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountAlertSettingsResponse | Body]
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
    body: AlertSettings,
) -> AccountAlertSettingsResponse | Body | None:
    """Set the account's alert settings

     etaChangeThresholdHours: the ETA move (hours) an ETA_CHANGED alert needs, unless the subscription
    sets its own (default 6); lfdWarningDays: LFD_APPROACHING is raised this many days before the last
    free day (default 2). null or absent: the default. The answer gives the settings now in force,
    lfdWarningDays always.

    Args:
        body (AlertSettings): AlertSettings schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountAlertSettingsResponse | Body
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AlertSettings,
) -> Response[AccountAlertSettingsResponse | Body]:
    """Set the account's alert settings

     etaChangeThresholdHours: the ETA move (hours) an ETA_CHANGED alert needs, unless the subscription
    sets its own (default 6); lfdWarningDays: LFD_APPROACHING is raised this many days before the last
    free day (default 2). null or absent: the default. The answer gives the settings now in force,
    lfdWarningDays always.

    Args:
        body (AlertSettings): AlertSettings schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountAlertSettingsResponse | Body]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AlertSettings,
) -> AccountAlertSettingsResponse | Body | None:
    """Set the account's alert settings

     etaChangeThresholdHours: the ETA move (hours) an ETA_CHANGED alert needs, unless the subscription
    sets its own (default 6); lfdWarningDays: LFD_APPROACHING is raised this many days before the last
    free day (default 2). null or absent: the default. The answer gives the settings now in force,
    lfdWarningDays always.

    Args:
        body (AlertSettings): AlertSettings schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountAlertSettingsResponse | Body
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
