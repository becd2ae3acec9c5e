"""Owners' accounts: sign-in with Ethereum, sessions, the wallet's API keys, the formats' desks.

`routes` serves them under ``/api/v1/account``; the site's ``/account`` pages
(``tradeleague.site.account_pages``) serve them from the same `Accounts`. A
format adds its own side (the weights league: one agent) through its
``account`` part (`plugin.AccountPart`).
"""
