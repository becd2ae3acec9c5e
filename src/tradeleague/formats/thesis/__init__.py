"""The thesis league's pure rules (SPEC T-*, seed 004).

Read top to bottom like the methodology: ``preset`` (every number), ``universe``
(the fixed symbols and their names), ``candles`` (bars, observability, daily and
weekly bars), ``indicators`` (screen score, RSI), ``screen``, ``answer`` (schema
and validation with reason codes), ``prompt``, ``execution``, ``monitor`` and
``scoring``.
"""
