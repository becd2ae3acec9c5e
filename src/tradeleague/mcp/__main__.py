"""Run the scenario MCP server over stdio: ``python -m tradeleague.mcp [--db URL]``.

The database is ``--db``, else ``$TRADELEAGUE_DB``, else
``sqlite:///./tradeleague.db``; a SQLite file that does not exist is refused
rather than created empty (a client started in the wrong directory would
otherwise see no scenarios at all). The API key comes from
``$TRADELEAGUE_API_KEY`` (never from the command line, where other users could
read it). ``tradeleague serve`` hosts the same tools at ``/mcp`` over
streamable HTTP, for a Bearer key.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tradeleague.api.service import ScenarioService, ServiceError
from tradeleague.clock import WallClock
from tradeleague.mcp.server import build_server
from tradeleague.store import open_store
from tradeleague.store.engine import mask_url, parse_url, resolve_url


def main(argv: list[str] | None = None) -> int:
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
    service = ScenarioService(open_store(url), WallClock())
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
