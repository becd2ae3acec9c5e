"""The weights league (seed 000): pure rules, read top to bottom like the methodology.

``preset`` (the numbers), ``prices`` (W-PX-4), ``market`` (halts, holds and the
market's status: W-MKT, W-HOLD), ``rounds`` (the round clock, divisions, skips
and the asking order: W-RND, W-DIV, W-SKP), ``prompt`` (the message: W-ASK),
``answer`` (validation: W-VAL), ``scoring`` (W-SCO, W-RNK), ``season`` (W-SEA,
W-REC), ``universe`` (W-UNI) and ``text`` (C-10). Execution is the shared
engine's ``tradeleague.sim.rebalance`` (W-EXE), never code of this package.
Nothing here reads a clock, the network or a database.
"""

from tradeleague.formats.weights.answer import (
    Decision,
    NoDecision,
    NoDecisionCode,
    counts_toward_pause,
    no_decision_for,
    render_answer,
    validate_answer,
)
from tradeleague.formats.weights.market_status import (
    LEAGUE_PAUSED,
    ClosedReason,
    HaltReason,
    Hold,
    MarketAssessment,
    PreviousRound,
    assess_market,
    moved_too_far,
)
from tradeleague.formats.weights.preset import PROMPT_VERSION, SCORING_VERSION, WeightsPreset
from tradeleague.formats.weights.price_checks import (
    FeedReading,
    PriceCheck,
    PriceInvalid,
    check_price,
    reference_price,
)
from tradeleague.formats.weights.prompt import (
    ANSWER_FORMAT,
    RETURN_PERIODS,
    AskFacts,
    SymbolLine,
    answer_schema,
    build_messages,
    market_lines,
    render_message,
)
from tradeleague.formats.weights.rounds import (
    Division,
    SkipCode,
    TurnCandidate,
    asking_order,
    division_cap,
    is_due,
    is_open_round,
    round_hours_on,
    round_slot,
    skip_before_asking,
)
from tradeleague.formats.weights.scoring import (
    AgentRecord,
    Entry,
    EntryKind,
    TableRow,
    UnrankedReason,
    chart_points,
    max_drawdown_pct,
    rank_table,
    season_return_pct,
    unranked_reason,
)
from tradeleague.formats.weights.season import (
    SeasonWindow,
    join_refusal,
    prompt_change_refusal,
    prompt_in_force,
    season_window,
)
from tradeleague.formats.weights.text import holds_address, plain_text, summary_shown
from tradeleague.formats.weights.universe import Listing, build_universe

__all__ = [
    "ANSWER_FORMAT",
    "LEAGUE_PAUSED",
    "PROMPT_VERSION",
    "RETURN_PERIODS",
    "SCORING_VERSION",
    "AgentRecord",
    "AskFacts",
    "ClosedReason",
    "Decision",
    "Division",
    "Entry",
    "EntryKind",
    "FeedReading",
    "HaltReason",
    "Hold",
    "Listing",
    "MarketAssessment",
    "NoDecision",
    "NoDecisionCode",
    "PreviousRound",
    "PriceCheck",
    "PriceInvalid",
    "SeasonWindow",
    "SkipCode",
    "SymbolLine",
    "TableRow",
    "TurnCandidate",
    "UnrankedReason",
    "WeightsPreset",
    "answer_schema",
    "asking_order",
    "assess_market",
    "build_messages",
    "build_universe",
    "chart_points",
    "check_price",
    "counts_toward_pause",
    "division_cap",
    "holds_address",
    "is_due",
    "is_open_round",
    "join_refusal",
    "market_lines",
    "max_drawdown_pct",
    "moved_too_far",
    "no_decision_for",
    "plain_text",
    "prompt_change_refusal",
    "prompt_in_force",
    "rank_table",
    "reference_price",
    "render_answer",
    "render_message",
    "round_hours_on",
    "round_slot",
    "season_return_pct",
    "season_window",
    "skip_before_asking",
    "summary_shown",
    "unranked_reason",
    "validate_answer",
]
