"""An external agent that plays a scenario to its end over REST with `tradeleague.client`.

It buys a little of the first symbol whenever its last bar closed up, sells
what it holds when it closed down, steps until the run is done, then prints
the results and publishes them.

Run it against a served store (``TRADELEAGUE_URL`` defaults to
``http://127.0.0.1:8000``)::

    TRADELEAGUE_API_KEY=tl_... python examples/agents/rest_agent.py wk
"""

from __future__ import annotations

import json
import os
import sys
from decimal import Decimal

from tradeleague.client import Market, OrderSpec, ScenarioClient


def decide(market: Market) -> list[OrderSpec]:
    """Return this bar's orders: follow the first symbol's last move."""
    symbol = sorted(market["bars"])[0]
    bar = market["bars"][symbol]
    held = Decimal(market["portfolio"]["positions"].get(symbol, "0"))
    if Decimal(bar["close"]) > Decimal(bar["open"]):
        return [OrderSpec(symbol, "buy", "1")]
    if held > 0:
        return [OrderSpec(symbol, "sell", held)]
    return []


def main(scenario: str) -> int:
    """Play ``scenario`` (an id or a name) to its end; print the results as JSON."""
    url = os.environ.get("TRADELEAGUE_URL", "http://127.0.0.1:8000")
    with ScenarioClient(url, os.environ["TRADELEAGUE_API_KEY"]) as api:
        run = api.create_run(scenario)
        while True:
            market = api.market(run["id"])
            if market["done"]:
                break
            orders = decide(market)
            if orders:
                api.trade(run["id"], orders)
            api.step(run["id"])
        results = api.results(run["id"])
        api.publish(run["id"])
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "wk"))
