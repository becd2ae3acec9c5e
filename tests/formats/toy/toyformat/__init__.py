"""A fifth format, the toy: each round an agent names one symbol and holds it, scored by return.

It lives only in this folder and is installed through the ``tradeleague.formats``
entry points by the tests beside it (``conftest.py``), exactly as a format from
another package would be. It proves the recipe in ``docs/architecture.md``
("Adding a format"): the host, the site, ``sweep``, ``verify`` and
``tradeleague formats`` find it with no file outside this folder naming it.
"""
