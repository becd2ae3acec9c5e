"""The thesis methodology page states every decision issue 14 says is ours, as the code plays it.

Each decision of the issue is looked for in the page's notes by the words that
carry it, and its number is read from the preset where the preset holds it, so
a note cannot drift from the rule it describes without a test failing.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tradeleague.agents.cutoff import CUTOFF_NOTE
from tradeleague.clock import WallClock
from tradeleague.formats.thesis.methodology import THESIS_NOTES
from tradeleague.formats.thesis.preset import ThesisPreset
from tradeleague.formats.thesis.universe import load_universe, normalise
from tradeleague.league.scenario import ScenarioService
from tradeleague.league.thesis.null import CLOUD_AGENTS
from tradeleague.league.thesis.site import thesis_methodology
from tradeleague.site import create_site
from tradeleague.store import open_store

P = ThesisPreset()
NOTES = " ".join(THESIS_NOTES)

DECISIONS = {
    "universe and names": ["BTC and SPY are benchmarks", "never held", "(ETH)", "(BRK.B)"],
    "observability": [
        "a bar's open from its start, the rest of it from its end",
        "closed at that instant",
        f"At {P.cycle_hour}:00 UTC a crypto price is the open of the {P.cycle_hour}:00 4h bar",
        "that day's open on a trading day",
        "else the last close",
    ],
    "daily and weekly bars": ["built from the 4h bars (UTC days", "closes with its last session"],
    "screen": [
        f"over the last {P.screen_window} closed daily bars",
        "absolute change of the close over ten closed bars",
        f"Top {P.screen_top} crypto and top {P.screen_top} stocks",
        "ties by symbol",
        "plus each model's own holdings",
        f"fewer than {P.screen_window} closed daily bars",
        "without a bar for the last session",
        "cannot be opened",
    ],
    "rsi": [
        f"RSI-{P.rsi_period} is Wilder's",
        "simple mean of the first 14 changes",
        f"last {P.rsi_window} closed bars",
        "all of them if fewer",
        f"fewer than {P.rsi_period + 1} closes",
        "100 with no losses, 50 with no moves",
        "hourly folder",
        "session open",
    ],
    "stocks only while open": [
        "Stocks trade only while the US market is open",
        "earns the correction round",
        "first price it can see after the break",
        "checks every held stock at every check, the market open or not",
        "marks the position broken, with the time, the level and the price",
        "closed at the first check with the market open, at that check's price",
        "whichever side of the level it is on",
        "only a whole close of the position ends it",
        "A break seen while the market is open is closed at once",
    ],
    "sizing, fee, shorts": [
        "round down to a millionth of a unit",
        f"{P.fee_ppm / 10_000:g}% of the value, rounded up to the micro-dollar",
        "A short's proceeds are credited to cash",
        "equity is cash plus signed quantity times price",
    ],
    "empty answer": ["An empty decision list is a valid answer"],
    "monitor": [":00, :15, :30 and :45 UTC", "until the replay ends", "before the decisions"],
    "end date": ["end date is exclusive"],
    "baselines and verdicts": [
        "cash, buy-and-hold, coin flip",
        "scripted answer files",
        "same agent specs",
        "Verdicts compare every agent with cash and with holding SPY",
    ],
    "luckiest of N (ST-2)": [
        "the coin flip baseline with its own seed",
        "by the league's own rules over the season's cycles",
        "every monitor check between cycles",
        f"At least {CLOUD_AGENTS:,} such agents are simulated",
        "the best of each season is averaged",
        "a live season has its line from its record alone",
        "the record must agree with them",
        "shows no line",
    ],
}


@pytest.mark.parametrize("decision", sorted(DECISIONS))
def test_each_decision_the_issue_names_is_stated(decision: str) -> None:
    """Every decision the seed leaves open is written down, with the preset's numbers."""
    for words in DECISIONS[decision]:
        assert words in NOTES, (decision, words)


def test_the_notes_name_every_crypto_pair_of_the_universe() -> None:
    """The universe note lists the ten tradeable crypto names as they are shown."""
    for symbol in load_universe().crypto:
        assert f" {normalise(symbol)} " in f" {THESIS_NOTES[0]} ".replace(",", " ")
    assert f"{len(load_universe().stocks)} large US stocks" in THESIS_NOTES[0]


def test_the_methodology_page_shows_every_note(tmp_path: Path) -> None:
    """The page under /methodology/thesis carries the notes (the format's, then the training
    cutoffs' shared note), no rule ids among them."""
    assert thesis_methodology().notes == (*THESIS_NOTES, CUTOFF_NOTE)
    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    with TestClient(create_site(ScenarioService(store, WallClock()))) as client:
        page = client.get("/methodology/thesis")
    assert page.status_code == 200
    text = html.unescape(page.text)
    for note in THESIS_NOTES:
        assert note in text
    assert "T-" not in NOTES
