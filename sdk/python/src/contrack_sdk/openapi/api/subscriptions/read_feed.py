from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.feed_page import FeedPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    wait: int | Unset = UNSET,
    event_types: str | Unset = UNSET,
    classifiers: str | Unset = UNSET,
    milestones_only: bool | Unset = UNSET,
    alert_types: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(api_version, Unset):
        headers["API-Version"] = api_version

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    params["limit"] = limit

    params["wait"] = wait

    params["eventTypes"] = event_types

    params["classifiers"] = classifiers

    params["milestonesOnly"] = milestones_only

    params["alertTypes"] = alert_types

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/subscriptions/events",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | FeedPage | None:
    if response.status_code == 200:
        response_200 = FeedPage.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = Body.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Body | FeedPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    wait: int | Unset = UNSET,
    event_types: str | Unset = UNSET,
    classifiers: str | Unset = UNSET,
    milestones_only: bool | Unset = UNSET,
    alert_types: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[Body | FeedPage]:
    """Read the account event feed

     Every event of the account's subscriptions, whether or not a webhook is configured, in the order the
    webhook gets them per subscription. Each item has the webhook payload's shape; consecutive events of
    one subscription share an item. Resume from nextCursor, which is always present. A subscription
    opted in with PUT /subscription/{subscription_id}/vessel-positions also gets, while its shipment is
    at sea, items {"type":"VESSEL_POSITION","references":{…},"events":[],"vesselPosition":{…}} at most
    every intervalMinutes; event items have no type.

    Args:
        cursor (str | Unset):
        limit (int | Unset):
        wait (int | Unset):
        event_types (str | Unset):
        classifiers (str | Unset):
        milestones_only (bool | Unset):
        alert_types (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | FeedPage]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        limit=limit,
        wait=wait,
        event_types=event_types,
        classifiers=classifiers,
        milestones_only=milestones_only,
        alert_types=alert_types,
        api_version=api_version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    wait: int | Unset = UNSET,
    event_types: str | Unset = UNSET,
    classifiers: str | Unset = UNSET,
    milestones_only: bool | Unset = UNSET,
    alert_types: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Body | FeedPage | None:
    """Read the account event feed

     Every event of the account's subscriptions, whether or not a webhook is configured, in the order the
    webhook gets them per subscription. Each item has the webhook payload's shape; consecutive events of
    one subscription share an item. Resume from nextCursor, which is always present. A subscription
    opted in with PUT /subscription/{subscription_id}/vessel-positions also gets, while its shipment is
    at sea, items {"type":"VESSEL_POSITION","references":{…},"events":[],"vesselPosition":{…}} at most
    every intervalMinutes; event items have no type.

    Args:
        cursor (str | Unset):
        limit (int | Unset):
        wait (int | Unset):
        event_types (str | Unset):
        classifiers (str | Unset):
        milestones_only (bool | Unset):
        alert_types (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | FeedPage
    """

    return sync_detailed(
        client=client,
        cursor=cursor,
        limit=limit,
        wait=wait,
        event_types=event_types,
        classifiers=classifiers,
        milestones_only=milestones_only,
        alert_types=alert_types,
        api_version=api_version,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    wait: int | Unset = UNSET,
    event_types: str | Unset = UNSET,
    classifiers: str | Unset = UNSET,
    milestones_only: bool | Unset = UNSET,
    alert_types: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Response[Body | FeedPage]:
    """Read the account event feed

     Every event of the account's subscriptions, whether or not a webhook is configured, in the order the
    webhook gets them per subscription. Each item has the webhook payload's shape; consecutive events of
    one subscription share an item. Resume from nextCursor, which is always present. A subscription
    opted in with PUT /subscription/{subscription_id}/vessel-positions also gets, while its shipment is
    at sea, items {"type":"VESSEL_POSITION","references":{…},"events":[],"vesselPosition":{…}} at most
    every intervalMinutes; event items have no type.

    Args:
        cursor (str | Unset):
        limit (int | Unset):
        wait (int | Unset):
        event_types (str | Unset):
        classifiers (str | Unset):
        milestones_only (bool | Unset):
        alert_types (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | FeedPage]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        limit=limit,
        wait=wait,
        event_types=event_types,
        classifiers=classifiers,
        milestones_only=milestones_only,
        alert_types=alert_types,
        api_version=api_version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    wait: int | Unset = UNSET,
    event_types: str | Unset = UNSET,
    classifiers: str | Unset = UNSET,
    milestones_only: bool | Unset = UNSET,
    alert_types: str | Unset = UNSET,
    api_version: str | Unset = UNSET,
) -> Body | FeedPage | None:
    """Read the account event feed

     Every event of the account's subscriptions, whether or not a webhook is configured, in the order the
    webhook gets them per subscription. Each item has the webhook payload's shape; consecutive events of
    one subscription share an item. Resume from nextCursor, which is always present. A subscription
    opted in with PUT /subscription/{subscription_id}/vessel-positions also gets, while its shipment is
    at sea, items {"type":"VESSEL_POSITION","references":{…},"events":[],"vesselPosition":{…}} at most
    every intervalMinutes; event items have no type.

    Args:
        cursor (str | Unset):
        limit (int | Unset):
        wait (int | Unset):
        event_types (str | Unset):
        classifiers (str | Unset):
        milestones_only (bool | Unset):
        alert_types (str | Unset):
        api_version (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | FeedPage
    """

    return (
        await asyncio_detailed(
            client=client,
            cursor=cursor,
            limit=limit,
            wait=wait,
            event_types=event_types,
            classifiers=classifiers,
            milestones_only=milestones_only,
            alert_types=alert_types,
            api_version=api_version,
        )
    ).parsed
