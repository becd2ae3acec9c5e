"""The MCP server of the scenario benchmark (S-SVC-6)."""

from tradeleague.mcp.server import TOOLS, OrderArg, build_server

__all__ = ["TOOLS", "OrderArg", "build_server"]
