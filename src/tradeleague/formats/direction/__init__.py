"""The direction arena (seed 001): up or down on a five-minute round, settled as binary options.

Pure pieces, read top to bottom like the methodology: ``preset`` (every
number of the seed), ``prompt`` (the published prompt, D-ASK-1), ``answer``
(lenient extraction, strict reading, D-ASK-3), ``timing`` (the round clock,
D-RND), ``skips`` (D-SKP-1), ``labels`` (the market label from the broker's
verdicts, D-TRD-5), ``season`` (D-SEA-1), ``ledger`` (the log folded from
events), ``board`` (scores and luck, D-SCO, D-LCK) and ``publish`` (the public
payloads, D-PUB). The rounds themselves run in ``tradeleague.league.direction``.
"""

from tradeleague.formats.direction.answer import Answer, Invalid, InvalidReason, parse_answer
from tradeleague.formats.direction.board import Board, GroupRow, ModelRow, build_board
from tradeleague.formats.direction.candle import Candle
from tradeleague.formats.direction.labels import MarketLabel, market_label
from tradeleague.formats.direction.ledger import Entrant, Ledger, LogRow, fold
from tradeleague.formats.direction.preset import (
    FORMAT,
    PROMPT_VERSION,
    SCORING_VERSION,
    DirectionPreset,
)
from tradeleague.formats.direction.prompt import SYSTEM_PROMPT, build_messages
from tradeleague.formats.direction.season import SeasonEnd, season_end
from tradeleague.formats.direction.skips import SkipReason
from tradeleague.formats.direction.timing import AnswerTiming, answer_timing, round_opens

__all__ = [
    "FORMAT",
    "PROMPT_VERSION",
    "SCORING_VERSION",
    "SYSTEM_PROMPT",
    "Answer",
    "AnswerTiming",
    "Board",
    "Candle",
    "DirectionPreset",
    "Entrant",
    "GroupRow",
    "Invalid",
    "InvalidReason",
    "Ledger",
    "LogRow",
    "MarketLabel",
    "ModelRow",
    "SeasonEnd",
    "SkipReason",
    "answer_timing",
    "build_board",
    "build_messages",
    "fold",
    "market_label",
    "parse_answer",
    "round_opens",
    "season_end",
]
