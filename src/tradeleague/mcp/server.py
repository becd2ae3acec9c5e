"""The generic MCP kit: whom a tool call acts for, and service errors as tool errors.

A format's MCP tools are built on these (the scenario benchmark's loop:
`tradeleague.league.scenario.mcp_tools`). A tool acts for the account of an
API key: over stdio the one the server was started with, hosted at ``/mcp``
the request's Bearer key (`tradeleague.mcp.hosted`). A `ServiceError` comes
back as a tool error whose text starts with the stable code
(``run_not_found: ...``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from tradeleague.accounts import Account
from tradeleague.errors import ServiceError

__all__ = ["AccountOf", "BuildServer", "acting_for", "tool_call"]

AccountOf = Callable[[], Account]
"""Return the account a tool call acts for (raises ``ServiceError`` 401 when there is none)."""

BuildServer = Callable[[AccountOf], MCPServer]
"""Return a format's MCP server whose tools act for the account the function returns."""

_T = TypeVar("_T")


def acting_for(account: Account | AccountOf) -> AccountOf:
    """Return the function a tool calls for its account.

    ``account`` is the account itself (stdio) or a function that returns the
    account of the request being served (hosted), called on every tool call.
    """

    def who() -> Account:
        return account if isinstance(account, Account) else account()

    return who


def tool_call(action: Callable[[], _T]) -> _T:
    """Return ``action()``; a `ServiceError` it raises becomes a tool error (code: sentence)."""
    try:
        return action()
    except ServiceError as exc:
        raise ToolError(f"{exc.code}: {exc.message}") from None
