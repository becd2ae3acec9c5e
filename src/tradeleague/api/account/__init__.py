"""Owners' accounts: sign-in with Ethereum, sessions, one weights agent, API keys.

`routes` serves them under ``/api/v1/account``; `web.account_pages` serves the
``/account`` pages from the same `Owners` functions.
"""
