"""The thesis league's cycles (SPEC T-*): the season's state, one cycle, the replay, REPORT.json.

- ``state``: the season folded from its events (resume is the same command again).
- ``data``: frozen folders loaded into a ``MarketTape``.
- ``cycle``: the monitor since the last cycle, then one cycle: picture, prompts,
  every agent asked through ``pacing.turns``, the correction round, execution.
- ``replay``: a season over frozen folders, resumable.
- ``report``: REPORT.json and the board.
"""
