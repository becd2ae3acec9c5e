"""``serve`` with no flag finds every arena its store holds; the site lists each and reads each.

The served arena is at ``/direction``; every other arena in the store at
``/direction/arenas/{stream}``, its board, rounds and models linked there,
each season said truly to be a replay over past prices.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import quote

from fastapi.testclient import TestClient

from tradeleague.clock import WallClock
from tradeleague.league.direction.serving import found_arena, found_arenas
from tradeleague.league.scenario import ScenarioService
from tradeleague.site.serving import serve_site
from tradeleague.store import open_store
from tradeleague.web.formatting import money
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
            assert f'href="/direction/arenas/{FIRST}"' in page.text  # chosen by a link
            assert "shown here" in page.text.split(f'data-arena="{SECOND}"')[1].split("</li>")[0]
            assert 'data-field="kind">replay over past prices<' in page.text
            _browse_the_other_arena(client)
    finally:
        store.close()


def _browse_the_other_arena(client: TestClient) -> None:
    """The arena not served at ``/direction`` reads at its own path: board, a model, a round."""
    here = f"/direction/arenas/{FIRST}"
    board = client.get(here)
    assert board.status_code == 200
    assert f'data-field="arena">{FIRST}<' in board.text
    assert 'data-field="kind">replay over past prices<' in board.text
    assert "Your own call" not in board.text  # visitors call only the served arena
    assert 'data-board="models"' in board.text
    # the page and the JSON read one arena through one read model: the same balances
    served = client.get("/api/v1/direction/boards", params={"arena": FIRST}).json()
    assert served["replay"] is True
    balances = re.findall(r'data-field="balance"[^>]*>([^<]*)<', board.text)
    assert balances == [money(m["balance"]) for m in served["models"]]
    assert balances  # the arena's models are on its board
    log = client.get(
        f"/api/v1/direction/models/{quote(served['models'][0]['name'], safe='')}/log",
        params={"arena": FIRST},
    )
    assert log.status_code == 200
    unknown = client.get("/api/v1/direction/boards", params={"arena": "nope"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"
    models = re.findall(rf'href="({here}/models/[^"]+)"', board.text)
    rounds = re.findall(rf'href="({here}/rounds/[^"]+)"', board.text)
    assert models
    assert rounds
    model = client.get(models[0])
    assert model.status_code == 200
    assert 'data-field="kind">replay over past prices<' in model.text
    assert 'figure class="race versus" data-versus="model"' in model.text
    assert re.search(rf'href="{here}/rounds/[^"]+"', model.text)  # its rounds in its arena
    shown = client.get(rounds[0])
    assert shown.status_code == 200
    assert 'data-field="exit_price"' in shown.text
    assert (
        client.get(f"/direction/arenas/{SECOND}", follow_redirects=False).headers["location"]
        == "/direction"
    )  # the served arena has one address
    missing = client.get("/direction/arenas/nope", headers={"accept": "text/html"})
    assert missing.status_code == 404
    assert "<nav" in missing.text
