"""Sweeps: a grid of replays (formats x seasons x rosters x seeds) run as Ray tasks.

`config` reads the sweep file into cells, `cell` runs one cell (the format's
own replay command, its own store and report), `run` runs the cells on Ray or
in this process, and `merge` reads the cells' reports into one report and
board. Ray is imported only when a sweep runs (the ``tradeleague[ray]`` extra).
"""
