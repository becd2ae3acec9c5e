"""The site over a store the host wrote: a two-day replay of every hosted format and a scenario.

`tradeleague run --clock replay` plays two days of the weights league, the
direction arena and a thesis season over the shared data; a scenario with
published runs joins the same store. In Chromium at 390 and 1440 px the home
page names each format's leader with its figure and draws one race chart per
format with one line per agent; on every board the first five rows' rank,
name, return and verdict lie in the viewport unscrolled; at 390 px no table is
wider than the viewport unless it is a card list (issue 26). Two days are
fewer than the five trading days a weights agent needs to be ranked
(W-SCO-3): that section says no agent is ranked and still draws every line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from tradeleague.cli import app
from tradeleague.clock import WallClock
from tradeleague.league.scenario import ScenarioService
from tradeleague.site import create_site
from tradeleague.store import open_store
from tradeleague.testing.server import serve_asgi
from web.site_fill import fill_scenario  # type: ignore[import-not-found]
from web.story_checks import boards, check_first_five, check_home  # type: ignore[import-not-found]

pytestmark = pytest.mark.shared_data

TWO_DAYS = ["--from", "2025-09-02T00:00Z", "--to", "2025-09-04T00:00Z"]


def _league(path: Path, data: Path, db: str) -> Path:
    """Three baselines in weights (Pro) and thesis, two in the arena; two symbols in weights."""
    weights = "".join(
        f'\n[[weights.agents]]\nname = "{n}"\nspec = "baseline:{s}"\ndivision = "pro"\n'
        for n, s in (("cash", "cash"), ("equal", "equal_weight"), ("momentum", "momentum"))
    )
    arena = "".join(
        f'\n[[direction.agents]]\nname = "{n}"\nspec = "baseline:{n}"\n' for n in ("up", "momentum")
    )
    thesis = "".join(
        f'\n[[thesis.agents]]\nname = "{n}"\nspec = "baseline:{s}"\n'
        for n, s in (("cash", "cash"), ("hold", "buy-and-hold"), ("coin_flip", "coin-flip"))
    )
    path.write_text(
        f"""
[league]
db = "{db}"

[weights]
season = "W1"
start = 2025-09-02
end = 2025-09-04
market = "{data / "us_equities_1h"}"
symbols = ["AAPL", "MSFT"]
{weights}
[direction]
market = "{data / "crypto_1m"}"
{arena}
[thesis]
season = "T1"
start = 2025-09-02
end = 2025-09-04
crypto = "{data / "crypto_4h"}"
stocks = "{data / "us_equities_daily"}"
{thesis}""",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def host_site(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """Serve the site on a store the host wrote over two days, plus a scenario's runs."""
    folder = tmp_path_factory.mktemp("host-site")
    db = f"sqlite:///{folder / 'host.db'}"
    league = _league(folder / "league.toml", shared_data, db)
    result = CliRunner().invoke(
        app, ["run", "--config", str(league), "--clock", "replay", *TWO_DAYS]
    )
    assert result.exit_code == 0, result.output
    service = ScenarioService(open_store(db), WallClock())
    try:
        scenario = fill_scenario(service)
        with serve_asgi(create_site(service)) as base:
            yield base, scenario
    finally:
        service.store.close()


@pytest.mark.parametrize("width", [390, 1440])
def test_host_written_store_tells_who_leads_on_every_board(
    host_site: tuple[str, str], browser: Any, width: int
) -> None:
    base, scenario = host_site
    found = boards(base, "W1", "T1", scenario)
    assert {key: len(rows) for key, (_, rows) in found.items()} == {
        "weights": 3, "direction": 2, "thesis": 3, "scenario": 2,
    }  # fmt: skip
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(base + "/", wait_until="load")
    check_home(page, found, width, unranked=frozenset({"weights"}))
    paths = ["/weights/W1", "/direction", "/thesis/T1", f"/scenarios/{quote(scenario, safe='')}"]
    check_first_five(page, base, paths, width)
    context.close()
