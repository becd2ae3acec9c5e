"""Fixtures of the site's tests: one filled store a session, and Debian's headless Chromium.

``filled`` replays every format into one store once a session (a test worker);
``filled_base`` serves the site on it. The tests that use them only read:
a test that writes (a visitor's call, an owner's form) fills its own store.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.env import require_all
from tradeleague.testing.server import serve_asgi
from web.site_fill import STREAM, fill_all, site_pages  # type: ignore[import-not-found]

CHROMIUM = Path("/usr/bin/chromium")


def _missing(reason: str) -> None:
    # Under CI (TRADELEAGUE_REQUIRE_ALL, set by .ci/run) a missing browser is a failure:
    # the site's acceptance rests on these tests, so they never skip there.
    if require_all():
        pytest.fail(f"{reason} (TRADELEAGUE_REQUIRE_ALL is set, so this cannot skip)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Return a headless Chromium (Debian's package), or skip with the reason it is missing."""
    try:
        import playwright.sync_api as playwright_sync
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[dev]')")
        raise AssertionError("unreachable") from None
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        _missing("Debian's chromium package is not installed (/usr/bin/chromium)")
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


@dataclass(frozen=True, slots=True)
class Filled:
    """A store filled by ``fill_all``: its service, its scenario's id and every page of its site."""

    service: ScenarioService
    scenario: str
    pages: list[str]


@pytest.fixture(scope="session")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Filled]:
    """Return one store holding every format's replays, shared by the tests that only read it."""
    url = f"sqlite:///{tmp_path_factory.mktemp('filled') / 'site.db'}"
    service = ScenarioService(open_store(url), WallClock())
    scenario = fill_all(service)
    yield Filled(service, scenario, site_pages(service, scenario))
    service.store.close()


@pytest.fixture(scope="session")
def filled_base(filled: Filled) -> Iterator[str]:
    """Return the base URL of a real HTTP server running the site on the ``filled`` store."""
    with serve_asgi(create_site(filled.service, direction_stream=STREAM)) as base:
        yield base
