"""The weights league in play: rounds, seasons, replays, operators and its read models.

- ``round``: one round, live or replayed (``play_round``).
- ``replay``: a season over frozen bars (``run_season``), resumable.
- ``state``: the season folded from its events (``SeasonState``).
- its events (stream, kinds, payload helpers) are `tradeleague.events.weights`.
- ``agents``: the roster's runtime agents.
- ``ops``: operator commands (holds, releases, prompts, forced rounds).
- ``projection``, ``report``, ``summary``: the read models, REPORT.json and tables.
"""
