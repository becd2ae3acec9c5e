"""Fixtures of the site's browser tests: Debian's headless Chromium through Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Return a headless Chromium (Debian's package), or skip with the reason it is missing."""
    playwright_sync = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.skip("Debian's chromium package is not installed (/usr/bin/chromium)")
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()
