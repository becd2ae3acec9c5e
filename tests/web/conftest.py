"""Fixtures of the site's browser tests: Debian's headless Chromium through Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tradeleague.testing.env import require_all

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
