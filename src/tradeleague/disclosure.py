"""What each format's scoring does not account for (SPEC C-12), published with every board.

The texts restate the methodology pages' own disclosures. They are data, served
by the API (``/api/v1/limits``) and printed by ``tradeleague limits``, so a
reader meets them beside the numbers they qualify.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["BOARD_CHANGES", "LIMITS"]

_COST = (
    "Inference cost is not in the rank: the board ranks the paper result and shows beside "
    "it what each model's calls cost, per decision too, and the return net of that cost, "
    "priced from the operator's dated price table. A model without a price reads "
    '"unpriced", never free; an agent that calls no model costs nothing.'
)

LIMITS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "weights": (
            "A rank records a simulation over a few weeks. It can come from luck; it is not "
            "evidence of skill and says nothing about what an agent will do next.",
            "Risk: return is not adjusted for the risk taken, and an agent that stays in cash "
            "ranks above every agent that has lost value.",
            "One person entering many agents from many wallets, and copied prompts.",
            "Late joiners are ranked on a shorter record than agents that started on day one.",
            "The path of a portfolio counts only through the max drawdown, measured only at "
            "the agent's own entries.",
            "Real trading costs: the 0.1% fee and 0.1% slippage are a model; a real order could "
            "fill better or worse.",
            "The gap to the live market: a reference price can be up to 0.5% from the live "
            "price when a trade fills, and further for a short time after a fast move.",
            "Prices age within a round: every agent fills at the prices read when the round "
            "started, though a Pro agent may decide up to 50 minutes later.",
            "A stopped feed cannot be told from a calm one for up to 25 hours; if every feed "
            "stops, the market stays open up to three hours at old prices.",
            "Cash earns no interest; dividends reach a portfolio only through the token's price.",
            _COST,
        ),
        "direction": (
            "The top row is the maximum of many noisy numbers: even if every model were a coin "
            "flip, one would lead with a hit rate that looks convincingly above 50%. Read the "
            "leader against the luckiest-of-N line.",
            "Rank order changes far more than skill does over a five-minute horizon; a season "
            "is the shortest window worth reading, and even that is thin.",
            "One instrument (BTC) and one horizon (five minutes): results say nothing about "
            "other markets or timeframes.",
            "One prompt: a different prompt could rank the models differently.",
            "Vendors update models behind a fixed API id, so a model's behaviour can change "
            "mid-season.",
            "The roster is a sample of the field, not the field; tier comparisons are a "
            "hypothesis tested in public, not a result.",
            "Nothing here forecasts the next round: a record is a record.",
            _COST,
        ),
        "scenario": (
            "Fills are at the next bar's open plus a fixed slippage per symbol; market orders "
            "only, no partial fills, no intra-bar prices.",
            "Shorts borrow at zero cost and are always available; cash earns no interest and "
            "margin carries no financing charge.",
            "Bars are frozen history: a result over one slice says little about another, and "
            "an agent can overfit a scenario it runs many times.",
            "Sharpe and Sortino are computed from per-bar returns of one run; over few bars "
            "they are noisy, and they say nothing about luck across runs.",
            "The leaderboard ranks published runs only: unpublished attempts of the same agent "
            "are not counted against it.",
        ),
        "thesis": (
            "A season is 28 daily decisions: a rank can come from luck. Read each agent against "
            "cash, against holding SPY and against the luckiest-of-N line.",
            "Trades fill at the latest visible price with a 0.1% fee and no slippage; a stock "
            "fills only at a price the daily bars show, so intraday moves are not seen.",
            "Shorts borrow at zero cost and are always available; cash earns no interest.",
            "Crypto is quoted in USDT and counted as dollars.",
            "The invalidation monitor sees prices only as often as the bars change.",
            "One prompt and one universe: results say nothing about other markets.",
            _COST,
        ),
    }
)

BOARD_CHANGES: tuple[tuple[str, str], ...] = (
    (
        "2026-12-05",
        "Who is ranked: an agent that did nothing a season can rank on (no settled trade, "
        "fewer than three decisions, no position held, no step) is listed after the ranked "
        "ones with its reason, because its untouched balance would otherwise sit above every "
        "agent that traded and lost. The ranked agents keep their order.",
    ),
    (
        "2026-12-05",
        "Verdicts say their direction: better than, worse than, or not distinguishable from "
        'cash and the benchmark (in the JSON "better", "worse", "not_distinguishable"), '
        'because a bare "distinguishable" read as praise when the difference was a loss.',
    ),
    (
        "2026-12-05",
        "Cost beside the result: calls, tokens, cost, cost per decision, latency and the "
        "return net of inference cost, priced from the operator's dated price table, because "
        "a result bought with expensive calls is not the same result.",
    ),
    (
        "2026-12-05",
        "Beta and alpha with their 95% intervals on the return boards and agent pages, because "
        "an agent fully in a rising benchmark beats cash with no skill.",
    ),
    (
        "2026-12-05",
        "Ratings across seasons and seeds: each model's mean excess return over its seasons, "
        "with an interval that resamples whole seasons and a pairwise table, because one "
        "season is too short to rank models on.",
    ),
    (
        "2026-12-05",
        "The weights verdicts' p-values: a table's bootstrap now draws one resampling for "
        "all its agents instead of one per agent and baseline, because one draw per table "
        "computes it in one pass; p-values moved by the bootstrap's own noise (at most "
        "0.016) and no verdict changed.",
    ),
)
"""How the boards' reading changed (not the results they rest on), dated, with why.

Listed on every methodology page under the format's own changelog: these
change what a board shows, never a fill or a score.
"""
