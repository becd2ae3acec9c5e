"""The generic MCP adapter: stdio main, hosted mount at ``/mcp`` and the tools' kit (S-SVC-6).

A format's tools are its own (the scenario benchmark's:
`tradeleague.league.scenario.mcp_tools`); nothing here imports a format but
the stdio main's default (`tradeleague.mcp.__main__`).
"""

from tradeleague.mcp.server import AccountOf, BuildServer, acting_for, new_server, strict_tool

__all__ = ["AccountOf", "BuildServer", "acting_for", "new_server", "strict_tool"]
