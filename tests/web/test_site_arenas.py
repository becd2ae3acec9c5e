"""``serve`` with no flag finds every arena its store holds, and the arena's page lists each."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi.testclient import TestClient

from tradeleague.clock import WallClock
from tradeleague.league.direction.serving import found_arena, found_arenas
from tradeleague.league.scenario import ScenarioService
from tradeleague.site.serving import serve_site
from tradeleague.store import open_store
from web.site_fill import fill_direction  # type: ignore[import-not-found]

FIRST, SECOND = "arena-one", "arena-two"


def test_serve_with_no_flag_lists_every_arena_stream_in_its_store(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'arenas.db'}")
    try:
        service = ScenarioService(store, WallClock())
        for stream in (FIRST, SECOND):
            asyncio.run(fill_direction(service, stream))
        arenas = found_arenas(store)
        assert list(arenas) == [FIRST, SECOND]
        assert all(season for season in arenas.values())
        assert found_arena(store) == SECOND  # the one started last is shown
        site, _ = serve_site(store, WallClock(), {"direction_stream": None})
        with TestClient(site) as client:
            page = client.get("/direction")
            assert page.status_code == 200
            assert "No season yet" not in page.text
            assert "Arenas in this store" in page.text
            for stream in (FIRST, SECOND):
                assert f'data-arena="{stream}"' in page.text, stream
            assert f"tradeleague serve --direction-stream {FIRST}" in page.text
            assert "shown here" in page.text.split(f'data-arena="{SECOND}"')[1].split("</li>")[0]
    finally:
        store.close()
