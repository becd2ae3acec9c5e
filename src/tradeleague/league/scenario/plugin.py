"""The scenario benchmark as a plug-in, found under the ``tradeleague.formats`` entry points."""

from tradeleague.plugin import Command, Format

__all__ = ["FORMAT"]

_P = "tradeleague.league.scenario."

FORMAT = Format(
    key="scenario",
    title="Scenario benchmark",
    summary="External agents drive a deterministic simulator over frozen history through REST "
    "and MCP; a public leaderboard.",
    commands={
        "scenario": Command("Scenario benchmark: provision scenarios.", _P + "commands"),
        "keys": Command("API keys for the scenario service.", _P + "commands"),
    },
    pages=("/scenarios", "/methodology/scenario"),
    parts={
        "site": _P + "site:SITE",
        "mcp": _P + "mcp_tools:MCP",
        "serve": _P + "serving:SERVE",
        "results": _P + "results:RESULTS",
        "bundle": _P + "bundling:BUNDLE",
    },
    order=30,
)
