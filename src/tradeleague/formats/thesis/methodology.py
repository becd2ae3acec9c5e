"""The decisions the seed leaves open, as the thesis league's methodology page states them."""

from __future__ import annotations

from typing import Final

from tradeleague.stats.alpha import ALPHA_NOTE
from tradeleague.stats.verdicts import VERDICT_NOTE

__all__ = ["THESIS_NOTES"]

THESIS_NOTES: Final = (
    "Universe: the ten crypto pairs ADA BNB DOGE DOT ETH LINK LTC SOL TRX XRP against USDT, and "
    "50 large US stocks; BTC and SPY are benchmarks, shown and never held. Names are shown "
    "without the quote (ETH) and with a dot for a share class (BRK.B).",
    "What is known when: a bar's open from its start, the rest of it from its end; a bar that "
    "ends at an instant is closed at that instant. At 16:00 UTC a crypto price is the open of "
    "the 16:00 4h bar; a stock's is that day's open on a trading day (the replay has daily "
    "stock bars only), else the last close.",
    "Daily and weekly crypto bars are built from the 4h bars (UTC days, weeks from Monday); a "
    "stock's week closes with its last session.",
    "Screen score: the mean of close times volume over the last 20 closed daily bars, times one "
    "plus the absolute change of the close over ten closed bars. Top 5 crypto and top 5 stocks "
    "(stocks on trading days only), ties by symbol, plus each model's own holdings. An asset "
    "with fewer than 20 closed daily bars, or a stock without a bar for the last session, is "
    "not screened and cannot be opened.",
    "RSI-14 is Wilder's (the first average is the simple mean of the first 14 changes, then "
    "Wilder's smoothing) over the last 250 closed bars of each interval, all of them if fewer; "
    "none with fewer than 15 closes, 100 with no losses, 50 with no moves. A stock's 4h RSI "
    "needs an hourly folder (its 4h bars start at the session open); without one it is none.",
    "Stocks trade only while the US market is open; a stock action at another time is rejected "
    "and earns the correction round. The monitor checks every held stock at every check, the "
    "market open or not. A level broken while the market is closed (with daily bars a "
    "session's close is first seen after the bell) marks the position broken, with the time, "
    "the level and the price; it is closed at the first check with the market open, at that "
    "check's price, whichever side of the level it is on: the first price it can see after "
    "the break at which it can trade. The mark is kept until then "
    "across cycles; only a whole close of the position ends it (a stock cannot be traded while "
    "the market is closed, and the monitor runs before a cycle's decisions, so the model cannot "
    "act on it first). A break seen while the market is open is closed at once.",
    "Sizing: the percent of equity includes the fee; quantities round down to a millionth of a "
    "unit; the fee is 0.1% of the value, rounded up to the micro-dollar. A short's proceeds are "
    "credited to cash; equity is cash plus signed quantity times price; gross exposure may not "
    "exceed equity.",
    "An empty decision list is a valid answer. A rejected answer or action earns one follow-up "
    "listing the reasons, the trades done and the budget left; a second miss is final.",
    "The monitor checks at :00, :15, :30 and :45 UTC on the latest visible price, until the "
    "replay ends, and before the decisions at a cycle's own instant; in a replay prices move "
    "only as often as the data's finest bars.",
    "A replay's end date is exclusive, as in the other replays: 3 March to 31 March is 28 "
    "cycles. Stock prices come from the daily folder; the stock screen and stock rows of the "
    "prompt appear only on trading days, while a model's own stock holdings stay shown.",
    "The baselines that exist elsewhere (cash, buy-and-hold, coin flip) and scripted answer "
    "files enter under the same agent specs as in the other formats. Baselines answer as text "
    "like any model: cash never trades; buy-and-hold buys the first "
    "screen at 10% each (the rules' minimum size and ten-position limit make an equal-weight "
    "purchase of all 60 assets impossible); coin flip opens one screened crypto a cycle by a "
    "seeded coin and closes it the next. Verdicts compare every agent with cash and with "
    "holding SPY, which no agent may hold.",
    "Luckiest of N: beside the verdicts, the best return expected of as many agents with no "
    "skill as the board holds. Each is the coin flip baseline with its own seed, derived from "
    "the season and the agent's name, played by the league's own rules over the season's "
    "cycles: every monitor check between cycles, the fee, and the rejections (the no-reopen "
    "rule turns away half its reopenings). At least 1,000 such agents are simulated; they are "
    "cut into whole seasons of N, and the best of each season is averaged. Each cycle records "
    "the prices these agents read (the price of the one symbol they may hold at every "
    "monitor check since the cycle before), so a live season has its line from its record "
    "alone; where a replayed season's folders are at hand the record must agree with them. "
    "A season recorded before these prices were, whose folders are not at hand, shows no "
    "line.",
    "Baseline cloud: the season page draws the final returns of those 1,000 or more agents "
    "with no skill, with a line at each agent of the board and the share of them that ended "
    "below it; its numbers are in the tables beside it. Where the season shows no line it "
    "shows no cloud either.",
    "Who is ranked: the seed ranks by several metrics and leaves open who takes part. We rank "
    "by return, then the smaller drawdown, then name, only the agents that held a position "
    "(open or closed) at some point of the season; an agent that never did is listed after "
    'them, unranked, with the reason "held no position this season": sitting in cash all '
    "season is not a result to rank above agents that traded and lost.",
    VERDICT_NOTE,
    ALPHA_NOTE,
)
