"""rummysim: statistical simulation and analysis of the card game Rummy.

The rules are those of RULES.md (cited as R1 to R11). The public API:

>>> import rummysim
>>> rummysim.min_deadwood("AS 2S 3S KH")
10
>>> result = rummysim.play_game(["greedy", "greedy"], seed=1)
>>> result.winner in (0, 1, None)
True
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from rummysim.cards import card_code, parse_card, parse_cards, to_text
from rummysim.engine import Deal, HandResult, play_hand
from rummysim.errors import CardError, ConfigError, IllegalMoveError, RummysimError, StrategyError
from rummysim.game import GameResult, play_game
from rummysim.melds import Arrangement, MeldKind, best_arrangement, is_meld, min_deadwood
from rummysim.moves import LayOff, Meld, Pile
from rummysim.records import GameRecord, HandRecord, TurnRecord
from rummysim.rules import PRESETS, Ace, GoingOut, Rules
from rummysim.strategies import REGISTRY, PlayerView, Strategy, make_strategy, register

try:
    __version__ = version("rummysim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = [
    "PRESETS",
    "REGISTRY",
    "Ace",
    "Arrangement",
    "CardError",
    "ConfigError",
    "Deal",
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
    "Rules",
    "RummysimError",
    "Strategy",
    "StrategyError",
    "TurnRecord",
    "__version__",
    "best_arrangement",
    "card_code",
    "is_meld",
    "make_strategy",
    "min_deadwood",
    "parse_card",
    "parse_cards",
    "play_game",
    "play_hand",
    "register",
    "to_text",
]
