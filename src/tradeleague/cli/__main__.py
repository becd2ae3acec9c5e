"""``python -m tradeleague.cli``: the same as the ``tradeleague`` command."""

from tradeleague.cli import main

main()
