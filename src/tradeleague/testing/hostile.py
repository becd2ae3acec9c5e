"""A corpus of hostile request bodies for every REST entry point that reads one.

Deep JSON (as an array, an object and gzipped), a gzip bomb, corrupt and
truncated encodings, an encoding the server does not take, a 50 MB body, lone
surrogates, huge numbers and keys, bytes that are not UTF-8, and each odd body
again without a JSON content type. The tests send it to a live server and
expect a JSON 4xx for each; ``bench/load.py`` sends it while it times
``/healthz``.
"""

from __future__ import annotations

import gzip

__all__ = ["BOMB", "DEEP", "DEEP_OBJECT", "Case", "hostile_corpus", "hostile_routes"]

DEEP = b"[" * 70_000 + b"]" * 70_000
DEEP_OBJECT = b'{"scenario":' * 70_000 + b"1" + b"}" * 70_000
BOMB = gzip.compress(b" " * (64 << 20))  # 64 MiB of spaces, about 64 KiB compressed

Case = tuple[str, str, bytes, dict[str, str], int]
"""``(name, route, body, headers, status)``; status 0: any 4xx will do."""


def hostile_routes(run: str) -> list[str]:
    """Return every route that reads a request body, ``run`` filled in where one is named."""
    return [
        "/api/v1/runs",
        f"/api/v1/runs/{run}/trades",
        f"/api/v1/runs/{run}/step",
        "/api/v1/direction/rounds/current/calls",
        "/api/v1/account/login",
        "/api/v1/account/agent",
        "/api/v1/account/agent/prompt",
        "/api/v1/account/keys",
        "/mcp",
    ]


def hostile_corpus(run: str) -> list[Case]:
    """Return every hostile case for every body-reading route (``run``: a run's id)."""
    routes = hostile_routes(run)
    json_type = {"content-type": "application/json"}
    gzipped = {**json_type, "content-encoding": "gzip"}
    cases: list[Case] = []
    for route in routes:
        cases += [
            ("deep array", route, DEEP, json_type, 400),
            ("deep object", route, DEEP_OBJECT, json_type, 400),
            ("deep gzip", route, gzip.compress(DEEP), gzipped, 400),
            ("gzip bomb", route, BOMB, gzipped, 413),
            ("corrupt gzip", route, b"\x1f\x8b\x08\x00garbage", {"content-encoding": "gzip"}, 400),
            ("truncated gzip", route, gzip.compress(b"{}")[:-6], {"content-encoding": "gzip"}, 400),
            ("corrupt deflate", route, b"not deflate", {"content-encoding": "deflate"}, 400),
            ("brotli", route, b"{}", {"content-encoding": "br"}, 415),
            ("50 MB body", route, b" " * (50 << 20), json_type, 413),
        ]
    for route in routes:
        for body in (
            b'{"scenario": "\\ud800"}',
            b'{"orders": [{"symbol": "\\udfff", "side": "buy", "quantity": 1e999999}]}',
            b'{"idempotency_key": "' + b"9" * 5000 + b'", "visitor": 1}',
            b"\xff\xfe\x00garbage",
            b'{"quantity": ' + b"9" * 5000 + b"}",
        ):
            cases.append(("odd json", route, body, json_type, 0))
            cases.append(("wrong type", route, body, {"content-type": "text/plain"}, 0))
    return cases
