"""The README shows two of `make screenshots`'s pictures (home, a board), and they exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _readme_images() -> list[str]:
    return re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", (ROOT / "README.md").read_text())


def test_the_readmes_images_are_committed_pngs_small_enough_to_read() -> None:
    images = _readme_images()
    assert {Path(i).name for i in images} >= {"home.png", "board.png"}
    for image in images:
        data = (ROOT / image).read_bytes()
        assert data.startswith(PNG_SIGNATURE), image
        assert len(data) < 300_000, image


def test_make_screenshots_rewrites_the_readmes_pictures_of_pages_it_photographs() -> None:
    from web import screenshots  # type: ignore[import-not-found]
    from web.site_fill import SEASON  # type: ignore[import-not-found]

    assert screenshots.README_DIR == ROOT / "docs" / "images"
    assert set(screenshots.README_IMAGES) == {"/", f"/weights/{SEASON}"}
    assert sorted(screenshots.README_IMAGES.values()) == sorted(
        Path(i).name for i in _readme_images()
    )
    assert max(screenshots.WIDTHS) == 1440
    assert "screenshots.py screenshots" in (ROOT / "Makefile").read_text()
