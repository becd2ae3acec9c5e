"""Run the scenario MCP server over stdio: ``python -m tradeleague.mcp [--db URL]``.

The API key comes from ``$TRADELEAGUE_API_KEY`` (never from the command line,
where other users could read it).
"""

from __future__ import annotations

import argparse
import os
import sys

from tradeleague.api.service import ScenarioService, ServiceError
from tradeleague.clock import WallClock
from tradeleague.mcp.server import build_server
from tradeleague.store import open_store


def main(argv: list[str] | None = None) -> int:
    """Serve MCP over stdio until the client disconnects; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tradeleague.mcp")
    parser.add_argument("--db", default=None, help="database URL")
    args = parser.parse_args(argv)
    service = ScenarioService(open_store(args.db), WallClock())
    try:
        account = service.authenticate(os.environ.get("TRADELEAGUE_API_KEY"))
    except ServiceError as exc:
        print(f"error: {exc.message} (set TRADELEAGUE_API_KEY)", file=sys.stderr)
        return 2
    try:
        build_server(service, account).run("stdio")
    finally:
        service.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
