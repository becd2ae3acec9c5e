"""Brokers: where the direction arena's trades are placed and settled (SPEC D-TRD-3).

``Broker`` is the interface; ``PaperBroker`` the built-in adapter that
settles binary options against a candle source at a configurable payout.
"""

from tradeleague.broker.base import BinaryOrder, Broker, CloseEvent, Placed, Rejected
from tradeleague.broker.paper import PaperBroker

__all__ = ["BinaryOrder", "Broker", "CloseEvent", "PaperBroker", "Placed", "Rejected"]
