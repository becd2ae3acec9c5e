"""Agents: who decides. Every kind answers a ``Turn`` with raw text (``base.py``)."""

from tradeleague.agents.base import Agent, AgentReply, Turn
from tradeleague.agents.baseline_agent import BaselineAgent
from tradeleague.agents.baselines import (
    BASELINES,
    BuyAndHold,
    CashAgent,
    CoinFlip,
    EqualWeight,
    Momentum,
    WeightsAgent,
    WeightsView,
    make_baseline,
)
from tradeleague.agents.inverse import InverseAgent, SharedAgent, invert_direction_answer
from tradeleague.agents.llm import LlmAgent
from tradeleague.agents.scripted import ScriptedAgent
from tradeleague.agents.spec import AgentSpec, build_agent, parse_agent_spec
from tradeleague.agents.tools import Tool, ToolBox, ToolsAgent

__all__ = [
    "BASELINES",
    "Agent",
    "AgentReply",
    "AgentSpec",
    "BaselineAgent",
    "BuyAndHold",
    "CashAgent",
    "CoinFlip",
    "EqualWeight",
    "InverseAgent",
    "LlmAgent",
    "Momentum",
    "ScriptedAgent",
    "SharedAgent",
    "Tool",
    "ToolBox",
    "ToolsAgent",
    "Turn",
    "WeightsAgent",
    "WeightsView",
    "build_agent",
    "invert_direction_answer",
    "make_baseline",
    "parse_agent_spec",
]
