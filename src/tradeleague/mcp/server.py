"""The generic MCP kit: whom a tool call acts for, strict tools, service errors as tool errors.

A format's MCP tools are built on these (the scenario benchmark's loop:
`tradeleague.league.scenario.mcp_tools`). A tool acts for the account of an
API key: over stdio the one the server was started with, hosted at ``/mcp``
the request's Bearer key (`tradeleague.mcp.hosted`).

A tool is as strict as the REST route it mirrors (`strict_tool`): its
arguments are validated by the same pydantic model as the REST body (unknown
fields refused, with the REST API's words), its input and output schemas are
generated from the same models as the OpenAPI document, and its answer is
checked against the output model. A `ServiceError` comes back as a tool error
whose text starts with the stable code (``run_not_found: ...``) and whose
structured content is the REST API's error body, every field included
(``checkout_url``, ``resets_at``). A refused key (401) is a protocol error
(`MCPError`, code `AUTH_ERROR`) with the REST API's sentence, as the hosted
server answers before any tool runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

from tradeleague import __version__
from tradeleague.accounts import Account
from tradeleague.errors import ServiceError, validation_message

__all__ = [
    "AUTH_ERROR",
    "AccountOf",
    "BuildServer",
    "acting_for",
    "auth_error",
    "new_server",
    "strict_tool",
    "tool_error",
]

AUTH_ERROR: Final = -32001
"""The JSON-RPC error code of a refused API key (a server-defined code, as JSON-RPC allows)."""

AccountOf = Callable[[], Account]
"""Return the account a tool call acts for (raises ``ServiceError`` 401 when there is none)."""

BuildServer = Callable[[AccountOf], MCPServer]
"""Return a format's MCP server whose tools act for the account the function returns."""


def acting_for(account: Account | AccountOf) -> AccountOf:
    """Return the function a tool calls for its account.

    ``account`` is the account itself (stdio) or a function that returns the
    account of the request being served (hosted), called on every tool call.
    """

    def who() -> Account:
        return account if isinstance(account, Account) else account()

    return who


def auth_error(exc: ServiceError) -> MCPError:
    """Return the protocol error of a refused key: the REST sentence, the REST error as data."""
    return MCPError(AUTH_ERROR, exc.message, exc.body()["error"])


def tool_error(exc: ServiceError) -> CallToolResult:
    """Return a service error as a tool error: ``code: sentence``, the REST body as structure."""
    text = f"{exc.code}: {exc.message}"
    if exc.extra:
        text += " " + json.dumps(exc.extra, sort_keys=True, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=exc.body(),
        is_error=True,
    )


class _Raw(FuncMetadata):
    """Hands the tool its raw arguments: the tool validates them with its own model."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        return {"arguments": dict(arguments_to_validate)}


def new_server(name: str, instructions: str, tools: list[Tool]) -> MCPServer:
    """Return an MCP server named ``name`` serving ``tools``, its version the package's."""
    return MCPServer(name, instructions=instructions, version=__version__, tools=tools)


def strict_tool(
    name: str,
    description: str,
    arguments: type[BaseModel],
    output: type[BaseModel],
    action: Callable[[Any], Mapping[str, Any]],
) -> Tool:
    """Return a tool that validates its arguments with ``arguments`` and answers an ``output``.

    ``action`` gets the validated arguments model and returns the answer (the
    REST route's JSON body). Arguments that fail the model (unknown fields
    included) come back as a tool error ``invalid_request: <where>: <what>.``,
    the REST API's 422 sentence; a `ServiceError` as `tool_error`, except a
    refused key (401), which is raised as `auth_error`.
    """

    def run(arguments: dict[str, Any]) -> Any:  # the raw arguments (`_Raw`)
        try:
            parsed = model.model_validate(arguments)
        except ValidationError as exc:
            refused = ServiceError(422, "invalid_request", validation_message(exc.errors()))
            return tool_error(refused)
        try:
            return dict(action(parsed))
        except ServiceError as exc:
            if exc.status == 401:
                raise auth_error(exc) from None
            return tool_error(exc)

    model = arguments

    return Tool(
        fn=run,
        name=name,
        title=None,
        description=description,
        parameters=arguments.model_json_schema(by_alias=True),
        context_kwarg=None,
        annotations=None,
        fn_metadata=_Raw(arg_model=ArgModelBase, output_model=output),
        is_async=False,
    )
