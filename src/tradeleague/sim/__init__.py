"""The pure accounting engine every format shares.

Portfolios, fills, cost models, market-order execution (S-FIL-*), liquidation
(S-LIQ-1), the weights rebalance (W-EXE-*) and binary options (D-TRD-*). No
clock, no network, no database: every function is a function of its inputs.
"""

from tradeleague.sim.accounts import ACCOUNT_KINDS, account_of, fold_account
from tradeleague.sim.binary import (
    DEFAULT_PAYOUT_PPM,
    BinaryOption,
    Direction,
    OptionResult,
    Settlement,
    break_even_hit_rate,
    place,
)
from tradeleague.sim.costs import (
    BpsPriceSlippage,
    FeeModel,
    NoPriceSlippage,
    PpmFee,
    PpmSlippage,
    PriceSlippage,
    SlippageModel,
    ZeroFee,
    ZeroSlippage,
    scenario_price_slippage,
)
from tradeleague.sim.errors import FillError, PayloadError, SimError
from tradeleague.sim.fill import Fill, Side, fill_value
from tradeleague.sim.liquidation import Liquidation, liquidate, needs_liquidation
from tradeleague.sim.orders import (
    Executed,
    Order,
    OrderRules,
    Rejection,
    RejectReason,
    execute_order,
    execute_orders,
)
from tradeleague.sim.portfolio import Portfolio, position_value
from tradeleague.sim.rebalancing import RebalanceParams, RebalanceResult, rebalance

__all__ = [
    "ACCOUNT_KINDS",
    "DEFAULT_PAYOUT_PPM",
    "BinaryOption",
    "BpsPriceSlippage",
    "Direction",
    "Executed",
    "FeeModel",
    "Fill",
    "FillError",
    "Liquidation",
    "NoPriceSlippage",
    "OptionResult",
    "Order",
    "OrderRules",
    "PayloadError",
    "Portfolio",
    "PpmFee",
    "PpmSlippage",
    "PriceSlippage",
    "RebalanceParams",
    "RebalanceResult",
    "RejectReason",
    "Rejection",
    "Settlement",
    "Side",
    "SimError",
    "SlippageModel",
    "ZeroFee",
    "ZeroSlippage",
    "account_of",
    "break_even_hit_rate",
    "execute_order",
    "execute_orders",
    "fill_value",
    "fold_account",
    "liquidate",
    "needs_liquidation",
    "place",
    "position_value",
    "rebalance",
    "scenario_price_slippage",
]
