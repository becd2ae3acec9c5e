"""The generic HTTP kit of the REST API (FastAPI): app factory, errors, bodies, keys, docs.

`new_app` builds an app with the house's parts (offline docs, bounded bodies,
JSON errors, ``/healthz``); a format adds its routes on it (the scenario
benchmark's: `tradeleague.league.scenario.routes.create_app`, which
``tradeleague serve`` runs with uvicorn). Nothing here knows a format.
"""

from tradeleague.api.app import LanedApp, call, dumps, new_app

__all__ = ["LanedApp", "call", "dumps", "new_app"]
