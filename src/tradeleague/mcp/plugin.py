"""What the MCP adapter needs of a format that offers tools: the ``mcp`` part of a `Format`.

The hosted server (``/mcp`` on ``tradeleague serve``) and the stdio server
(``python -m tradeleague.mcp``) serve the tools of the installed format that
names an ``mcp`` part (the scenario benchmark's); the adapter never imports a
format's package.
"""

from __future__ import annotations

from typing import Any, Protocol

from mcp.server.mcpserver import MCPServer

from tradeleague.mcp.hosted import HostedMcp
from tradeleague.plugin import formats
from tradeleague.store import Store

__all__ = ["McpPart", "mcp_part"]


class McpPart(Protocol):
    """A format's MCP tools, hosted on a site's service or served over stdio."""

    def hosted(self, service: Any) -> HostedMcp:
        """Return the tools served at ``/mcp`` on the site's ``service``, checking each key."""
        ...

    def stdio(self, store: Store, key: str | None) -> MCPServer:
        """Return the tools on ``store`` for API key ``key``'s account.

        Raises
        ------
        tradeleague.errors.ServiceError
            401 when ``key`` is missing or not a valid key.
        """
        ...


def mcp_part() -> McpPart | None:
    """Return the first installed format's ``mcp`` part, or None when no format offers tools."""
    for fmt in formats():
        if fmt.has("mcp"):
            part: McpPart = fmt.part("mcp")
            return part
    return None
