"""What a command on the terminal is made of, below the CLI and the formats alike.

A format's commands (``league/<format>/commands.py``) and the CLI's own both use
these; a format's package never imports ``tradeleague.cli``, the top of the tree.

- `console`: the console a wide board prints to.
- `progress`: a replay's progress (a bar, or a plain line a round) and its resume line.
- `summary`: the end-of-replay summary per agent and the exit status it implies.
- `exits`: the CLI's exit statuses, in one place.
- `options`: options several commands share (``--db``).
- `invoke`: a format's replay command run in this process (a sweep's cell).
"""
