"""Strategies: the bot protocol, the built-in bots and the registry that names them.

The ladder, weakest first: `uniform` (random legal play), `greedy` (melds at once),
`rummy_hunter` (holds melds back to go rummy), `cautious` (remembers the public cards
and discards safely), `montecarlo` (determinized Monte Carlo search) and `expert`
(determinized search played on by the compiled engine's own turns). See
docs/strategies.md to write your own.
"""

from __future__ import annotations

from rummysim.strategies.base import PlayerView, Strategy, TableMeld
from rummysim.strategies.cautious import Cautious
from rummysim.strategies.expert import Expert
from rummysim.strategies.greedy import Greedy
from rummysim.strategies.montecarlo import MonteCarlo
from rummysim.strategies.registry import (
    ENTRY_POINT_GROUP,
    REGISTRY,
    available_strategies,
    check_strategy,
    make_lineup,
    make_strategy,
    register,
    strategy_class,
    strategy_label,
    strategy_params,
)
from rummysim.strategies.rummy_hunter import RummyHunter
from rummysim.strategies.uniform import Uniform

for _cls in (Uniform, Greedy, RummyHunter, Cautious, MonteCarlo, Expert):
    register(_cls)

__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "PlayerView",
    "Strategy",
    "TableMeld",
    "available_strategies",
    "check_strategy",
    "make_lineup",
    "make_strategy",
    "register",
    "strategy_class",
    "strategy_label",
    "strategy_params",
]
