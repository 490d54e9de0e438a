from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.body import Body
from ...models.connector_fetch_body import ConnectorFetchBody
from ...models.connector_fetch_response import ConnectorFetchResponse
from ...types import Response


def _get_kwargs(
    code: str,
    *,
    body: ConnectorFetchBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/carrier/connectors/{code}/fetch".format(
            code=quote(str(code), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Body | ConnectorFetchResponse | None:
    if response.status_code == 200:
        response_200 = ConnectorFetchResponse.from_dict(response.json())

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
) -> Response[Body | ConnectorFetchResponse]:
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
    body: ConnectorFetchBody,
) -> Response[Body | ConnectorFetchResponse]:
    """Send one GET /events to a connector's producer with the filters given

     Exactly the filters given are sent, as given (eventTypes joined with commas in their order, the
    date-times as spelled, limit and cursor only when given), with the connector's auth; maxPages
    (default 1) pages are followed. The answer lists the requests made, the events received and, when it
    stopped at maxPages, nextCursor. The events are not ingested (subscriptions' polls are). Counts
    against the account's carrier probe budget.

    Args:
        code (str):
        body (ConnectorFetchBody): ConnectorFetchBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorFetchResponse]
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
    body: ConnectorFetchBody,
) -> Body | ConnectorFetchResponse | None:
    """Send one GET /events to a connector's producer with the filters given

     Exactly the filters given are sent, as given (eventTypes joined with commas in their order, the
    date-times as spelled, limit and cursor only when given), with the connector's auth; maxPages
    (default 1) pages are followed. The answer lists the requests made, the events received and, when it
    stopped at maxPages, nextCursor. The events are not ingested (subscriptions' polls are). Counts
    against the account's carrier probe budget.

    Args:
        code (str):
        body (ConnectorFetchBody): ConnectorFetchBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorFetchResponse
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
    body: ConnectorFetchBody,
) -> Response[Body | ConnectorFetchResponse]:
    """Send one GET /events to a connector's producer with the filters given

     Exactly the filters given are sent, as given (eventTypes joined with commas in their order, the
    date-times as spelled, limit and cursor only when given), with the connector's auth; maxPages
    (default 1) pages are followed. The answer lists the requests made, the events received and, when it
    stopped at maxPages, nextCursor. The events are not ingested (subscriptions' polls are). Counts
    against the account's carrier probe budget.

    Args:
        code (str):
        body (ConnectorFetchBody): ConnectorFetchBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Body | ConnectorFetchResponse]
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
    body: ConnectorFetchBody,
) -> Body | ConnectorFetchResponse | None:
    """Send one GET /events to a connector's producer with the filters given

     Exactly the filters given are sent, as given (eventTypes joined with commas in their order, the
    date-times as spelled, limit and cursor only when given), with the connector's auth; maxPages
    (default 1) pages are followed. The answer lists the requests made, the events received and, when it
    stopped at maxPages, nextCursor. The events are not ingested (subscriptions' polls are). Counts
    against the account's carrier probe budget.

    Args:
        code (str):
        body (ConnectorFetchBody): ConnectorFetchBody schema

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Body | ConnectorFetchResponse
    """

    return (
        await asyncio_detailed(
            code=code,
            client=client,
            body=body,
        )
    ).parsed
