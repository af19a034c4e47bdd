"""rummysim: statistical simulation and analysis of the card game Rummy.

The rules are those of the rulebook, docs/rulebook.md (cited as R1 to R12). The public API:

>>> import rummysim
>>> rummysim.min_deadwood("AS 2S 3S KH")
10
>>> result = rummysim.play_game(["greedy", "greedy"], seed=1)
>>> result.winner in (0, 1, None)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import rummysim.compiled  # noqa: F401  (registers montecarlo's compiled playouts with its search)
from rummysim.arrangement import Arrangement, arranger, best_arrangement, min_deadwood
from rummysim.cards import card_code, parse_card, parse_cards, to_text
from rummysim.dealing import Deal
from rummysim.design import Condition, Experiment
from rummysim.engine import HandResult, play_hand
from rummysim.errors import CardError, ConfigError, IllegalMoveError, RummysimError, StrategyError
from rummysim.experiment import load_experiment, parse_experiment
from rummysim.game import GameResult, play_game
from rummysim.melds import MeldKind, is_meld
from rummysim.moves import LayOff, Meld, Pile
from rummysim.records import GameRecord, HandRecord, TurnRecord
from rummysim.rules import PRESETS, Ace, GoingOut, Rules
from rummysim.strategies import REGISTRY, PlayerView, Strategy, make_strategy, register
from rummysim.version import __version__

if TYPE_CHECKING:
    from rummysim.analysis import Analysis, analyze
    from rummysim.report import build_report
    from rummysim.results import Results, load_results
    from rummysim.runner import run_experiment

_LAZY = {
    "run_experiment": "rummysim.runner", "load_results": "rummysim.results", "Results": "rummysim.results",
    "analyze": "rummysim.analysis", "Analysis": "rummysim.analysis", "build_report": "rummysim.report",
}  # fmt: skip


def __getattr__(name: str) -> object:
    """Import the runner, tables, analysis and report (pandas, scipy, matplotlib) only when first used."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'rummysim' has no attribute {name!r}")


__all__ = [
    "PRESETS",
    "REGISTRY",
    "Ace",
    "Analysis",
    "Arrangement",
    "CardError",
    "Condition",
    "ConfigError",
    "Deal",
    "Experiment",
    "GameRecord",
    "GameResult",
    "GoingOut",
    "HandRecord",
    "HandResult",
    "IllegalMoveError",
    "LayOff",
    "Meld",
    "MeldKind",
    "Pile",
    "PlayerView",
    "Results",
    "Rules",
    "RummysimError",
    "Strategy",
    "StrategyError",
    "TurnRecord",
    "__version__",
    "analyze",
    "arranger",
    "best_arrangement",
    "build_report",
    "card_code",
    "is_meld",
    "load_experiment",
    "load_results",
    "make_strategy",
    "min_deadwood",
    "parse_card",
    "parse_cards",
    "parse_experiment",
    "play_game",
    "play_hand",
    "register",
    "run_experiment",
    "to_text",
]
