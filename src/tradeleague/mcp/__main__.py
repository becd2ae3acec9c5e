"""Run the MCP server over stdio: ``python -m tradeleague.mcp [--db URL]``.

The database is ``--db``, else ``$TRADELEAGUE_DB``, else
``sqlite:///./tradeleague.db``; a SQLite file that does not exist is refused
rather than created empty (a client started in the wrong directory would
otherwise see no scenarios at all). The API key comes from
``$TRADELEAGUE_API_KEY`` (never from the command line, where other users could
read it). A missing or refused key is said on standard error in one line,
and every tool call is answered with the same sentence as an MCP error (the
format's tools decide; the scenario benchmark's do). ``tradeleague serve``
hosts the same tools at ``/mcp`` over streamable HTTP, for a Bearer key.

The tools are a format's: `main` is handed the function that opens them on
the store for a key (`OpenServer`); by default the scenario benchmark's, the
only format with MCP tools (see `_default_server`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from tradeleague.errors import ConfigError, ServiceError
from tradeleague.mcp.plugin import mcp_part
from tradeleague.store import Store, open_store
from tradeleague.store.engine import mask_url, parse_url, resolve_url

__all__ = ["OpenServer", "main"]

OpenServer = Callable[[Store, str | None], MCPServer]
"""Return the MCP server on a store for an API key (`ServiceError` 401 for a bad key)."""


def _default_server() -> OpenServer:
    part = mcp_part()
    if part is None:
        raise ConfigError("no installed format offers MCP tools")
    return part.stdio


def main(argv: list[str] | None = None, *, server: OpenServer | None = None) -> int:
    """Serve MCP over stdio until the client disconnects; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tradeleague.mcp")
    parser.add_argument(
        "--db",
        default=None,
        help="database URL (default: $TRADELEAGUE_DB, else sqlite:///./tradeleague.db)",
    )
    args = parser.parse_args(argv)
    url = resolve_url(args.db)
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        print(
            f"error: there is no database at {mask_url(parsed)}; give --db or set TRADELEAGUE_DB",
            file=sys.stderr,
        )
        return 2
    store = open_store(url)
    try:
        try:
            tools = (server or _default_server())(store, os.environ.get("TRADELEAGUE_API_KEY"))
        except ServiceError as exc:
            print(f"error: {exc.message} (set TRADELEAGUE_API_KEY)", file=sys.stderr)
            return 2
        tools.run("stdio")
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
