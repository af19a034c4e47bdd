"""The compiled engine's layouts, each generated from its one source (no numba here).

- The settings array (`settings_array`): one int per field of `rummysim.rules.Rules`, in
  `Rules.FIELDS` order, so a new setting is in the array with no edit here. A setting of
  words (`rummysim.rules.CHOICES`) is its choice's position (0 is the source's rule), a
  setting that follows another is resolved (``cards_dealt``, ``ace_points``), an absent one
  is -1 (`rummysim.core.UNSET`). The kernels index it with the constants below, each
  looked up by its field's name.
- The rows: the hand rows' columns are `rummysim.records.HandRecord`'s fields and the game
  rows' `GameRecord`'s, in order, with a lineup index for ``strategy``, a code for
  ``went_out_by`` (`WENT_OUT_BY`) and a mask for ``holding_end``.
- The built-in bots the compiled engine plays, by name (`POLICIES`): a policy's code is its
  position there.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rummysim.core import UNSET
from rummysim.moves import WentOutBy
from rummysim.records import GameRecord, HandRecord
from rummysim.rules import CHOICES, FIELDS, Rules

SETTING = {name: i for i, name in enumerate(FIELDS)}
"""Each setting's index in the settings array."""
N_PLAYERS = SETTING["n_players"]
CARDS_DEALT = SETTING["cards_dealt"]
ACE = SETTING["ace"]
ACE_POINTS = SETTING["ace_points"]
GOING_OUT = SETTING["going_out"]
RUMMY_MULTIPLIER = SETTING["rummy_multiplier"]
TARGET_SCORE = SETTING["target_score"]
MAX_HANDS = SETTING["max_hands"]
STALL_AFTER_REBUILDS = SETTING["stall_after_rebuilds"]
STALL_AFTER_TURNS = SETTING["stall_after_turns"]
STALL_AFTER_HANDS = SETTING["stall_after_hands"]
LAY_OFF = SETTING["lay_off"]
TAKE_DISCARD = SETTING["take_discard"]
STOCK_OUT = SETTING["stock_out"]


def settings_array(rules: Rules) -> np.ndarray:
    """Return the rules as the kernels read them: one int per `Rules.FIELDS` entry (see the module's docstring)."""
    values = []
    for name in FIELDS:
        value = getattr(rules, name)
        if name == "cards_dealt":
            value = rules.n_dealt
        elif name == "ace_points":
            value = rules.ace_value
        elif name in CHOICES:
            value = list(CHOICES[name][0]).index(value)
        values.append(UNSET if value is None else int(value))
    return np.array(values, np.int64)


HAND_COLUMNS: tuple[str, ...] = HandRecord._fields
"""The hand rows' columns: `HandRecord`'s fields."""
GAME_COLUMNS: tuple[str, ...] = GameRecord._fields
"""The game rows' columns: `GameRecord`'s fields."""
_H = {name: i for i, name in enumerate(HAND_COLUMNS)}
H_GAME = _H["game"]
H_HAND = _H["hand"]
H_SEAT = _H["seat"]
H_STRATEGY = _H["strategy"]
H_DEALER = _H["dealer"]
H_POSITION = _H["position"]
H_WON = _H["won"]
H_POINTS = _H["points"]
H_SCORE = _H["score"]
H_WENT_OUT_BY = _H["went_out_by"]
H_WENT_RUMMY = _H["went_rummy"]
H_MULTIPLIER = _H["multiplier"]
H_STALLED = _H["stalled"]
H_TURNS = _H["turns"]
H_N_REBUILDS = _H["n_rebuilds"]
H_HOLDING_END = _H["holding_end"]
H_HOLDING_POINTS = _H["holding_points"]
_G = {name: i for i, name in enumerate(GAME_COLUMNS)}
G_GAME = _G["game"]
G_SEAT = _G["seat"]
G_STRATEGY = _G["strategy"]
G_SCORE = _G["score"]
G_WON = _G["won"]
G_TIED = _G["tied"]
G_N_HANDS = _G["n_hands"]
G_HANDS_WON = _G["hands_won"]
G_N_STALLED = _G["n_stalled"]
G_FIRST_DEALER = _G["first_dealer"]
G_STALLED = _G["stalled"]

WENT_OUT_BY: tuple[str | None, ...] = (None, *(how.value for how in WentOutBy))
"""``went_out_by`` codes: 0 for a stalled hand, then `rummysim.moves.WentOutBy` in order (R7.1, R12.3)."""
OUT_BY_DISCARD, OUT_BY_MELD, OUT_BY_LAY_OFF, OUT_BY_BLOCK = (WENT_OUT_BY.index(how.value) for how in WentOutBy)

POLICIES: tuple[str, ...] = ("uniform", "greedy", "rummy_hunter", "cautious")
"""The built-in bots with a compiled twin, by name: a policy's code is its position here."""
UNIFORM, GREEDY, RUMMY_HUNTER, CAUTIOUS = range(len(POLICIES))
SHREWD = len(POLICIES)
"""Not a bot of its own: the searching bots' default (and their playouts' policy), rummy_hunter's
melds (they hide while the going-rummy bonus pays, R8.3) with cautious' discards."""
EXPERT = SHREWD + 1
"""expert's code: its seat searches (`rummysim.compiled.expert.expert_turn`); it compiles only
when a lineup seats it."""
PARAMS = (
    *("patience", "danger", "caution", "blind", "hope"),
    *("samples", "candidates", "depth", "confidence", "alarm", "their_patience", "drop", "their_keep", "danger_deals"),
)
"""A compiled seat's parameters, in order: ``patience, danger`` (rummy_hunter), ``caution, blind, hope``
(cautious), then expert's own (`rummysim.strategies.expert.Expert`). A bot leaves the others 0."""
(PATIENCE, DANGER, CAUTION, BLIND, HOPE) = range(5)
(SAMPLES, CANDIDATES, DEPTH, CONFIDENCE, ALARM, THEIR_PATIENCE, DROP, THEIR_KEEP, DANGER_DEALS) = range(5, len(PARAMS))


def params_row(params: Mapping[str, float]) -> np.ndarray:
    """Return a bot's parameters (its ``params``) as a compiled seat reads them: a `PARAMS` row, 0 where absent."""
    return np.array([float(params.get(name, 0.0)) for name in PARAMS], np.float64)
