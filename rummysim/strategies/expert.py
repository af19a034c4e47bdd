"""expert: determinized search whose playouts are the compiled engine's own turns.

Policy: for each decision (the draw, the melds, the discard) it deals the cards it has
not seen at random, consistently with what its seat has seen, `samples` times: every
holding keeps its size, the cards a seat took from the discard pile and has not played
stay in that seat's holding, and the rest is the stock. Another seat's hidden cards are
dealt as a player building melds keeps them (`their_keep`, 10 by default; 0 deals them at
random): up to `their_keep` more cards than it hides (no more than the turns each seat has
had), of which it keeps those of fewest points less 4 times their potential (cautious'
hope). With `danger_deals` above 0 (32 by default), once the next seat has melded, its
default ranks its discards with each card's danger read from that many such deals (the
share in which the next seat could meld it) instead of cautious' estimate. On each deal it
plays each candidate move, then the rest of its turn and the hand on to its end (at most `depth`
turns). Its own seat plays its default policy: rummy_hunter's melds (hidden while the
going-rummy bonus pays, R8.3: for `patience` own turns, while no opponent holds `alarm`
cards or fewer) and cautious' discards (`caution` 20, weighing a discard's danger more than
cautious' 12; `hope`, `blind`). Every other seat is
modelled melding at once (hiding for `their_patience` turns if more than 0) with cautious'
discards at their defaults. The candidates are:
take the discard or draw from the stock; the default's melds or the other plan (meld
everything now, or hide); cautious' `candidates` best discards. It plays its default unless
another candidate's mean reward (the points it would win, less the points another seat
would win) over the same deals is better by more than `confidence` standard errors. The
deals are spent as a race: from the eighth deal, a candidate that trails the default by
more than `drop` standard errors meets no more deals, and the playouts it would have had
go to the candidates still in (up to twice `samples` deals); `drop` 0 gives every
candidate `samples` deals.

The search is compiled (`rummysim.compiled.expert`): it plays its deals with the very
turn the compiled engine plays (`rummysim.compiled.turn`), so every rule and house rule
holds in its playouts too. It compiles the first time a run seats an expert (about a minute,
announced), never otherwise. This class plays it on the reference engine, beside any bot;
the compiled engine seats it too (`rummysim.compiled.expert.expert_turn`), with the same
rows. All randomness comes from the stream the engine gives it: decision d searches with
the key ``derive(key, d)``, so its moves are the same in any process and either engine.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from types import ModuleType

import numpy as np

from rummysim.errors import ConfigError
from rummysim.moves import Drew, LaidOff, Melded, Pile, Play
from rummysim.seeding import derive, stream_key
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import Cautious

DRAW, PLAY, DISCARD = 0, 1, 2
"""The decisions the search judges (`rummysim.compiled.expert`)."""
RACE_FROM = 8
"""The deals every candidate meets before one that trails the default by ``drop`` standard errors meets no more."""
RACE_REACH = 2
"""A decision meets at most ``RACE_REACH * samples`` deals: those its dropped candidates would have met go
to the rest."""
KEEP_HOPE = 4.0
"""What a card's potential is worth to the player a deal models keeping cards (`their_keep`): cautious' `hope`."""
DANGER_KEY = 2_000_003
"""The path element of a decision's key whose deals read a discard's danger (`danger_deals`)."""
RESTACK = 1_000_003
"""The path element of a deal's key that shuffles its stock again after the other seats kept their cards."""
MAX_SAMPLES = 10_000
"""The most deals a decision searches, a time budget included (the registry's bound on `samples`)."""

_search: Callable[[], ModuleType] | None = None


def use_compiled(loader: Callable[[], ModuleType]) -> None:
    """Register the compiled search: `loader` returns `rummysim.compiled.expert`, compiled, or raises `RuntimeError`."""
    global _search
    _search = loader


def search() -> ModuleType:
    """Return the compiled search; raise `ConfigError` saying why where it cannot load."""
    if _search is None:
        raise ConfigError("strategy 'expert' searches with compiled code: import rummysim.compiled first")
    try:
        return _search()
    except RuntimeError as error:
        raise ConfigError(f"strategy 'expert' searches with compiled code, and {error}") from None


def melded_before(view: PlayerView) -> bool:
    """Return whether the seat had melded or laid off this hand before this turn (going rummy, R8.3)."""
    events = view.history
    if view.drawn is not None:  # this turn began with the seat's last draw
        draws = [i for i, e in enumerate(events) if isinstance(e, Drew) and e.seat == view.seat]
        events = events[: draws[-1]]
    return any(e.seat == view.seat for e in events if isinstance(e, (Melded, LaidOff)))


class Expert(Cautious):
    """Determinized search with the compiled engine's turns as playouts; hides melds to go rummy."""

    name = "expert"
    description = "determinized search over draws, melds and discards, played on by the compiled engine's own turns"
    compiled_search = True

    def __init__(
        self,
        *,
        rng: np.random.Generator | None = None,
        samples: int = 32,
        candidates: int = 4,
        depth: int = 40,
        confidence: float = 2.0,
        patience: int = 20,
        alarm: int = 3,
        caution: float = 20.0,
        hope: float = 4.0,
        blind: float = 2.0,
        their_patience: int = 0,
        drop: float = 1.0,
        their_keep: int = 10,
        danger_deals: int = 32,
    ) -> None:
        super().__init__(rng=rng, caution=caution, blind=blind, hope=hope)
        if (
            samples < 2
            or candidates < 1
            or depth < 1
            or min(confidence, patience, alarm, their_patience, drop, their_keep, danger_deals) < 0
        ):
            raise ValueError(
                "samples >= 2, candidates >= 1, depth >= 1 and confidence, patience, alarm, their_patience, drop,"
                " their_keep, danger_deals >= 0"
                " are needed"
            )
        self.samples = samples
        self.candidates = candidates
        self.depth = depth
        self.confidence = confidence
        self.patience = patience
        self.alarm = alarm
        self.their_patience = their_patience
        self.drop = drop
        self.their_keep = their_keep
        self.danger_deals = danger_deals
        self.key = stream_key(self.rng)
        """The key of its searches: decision d deals from ``derive(key, d)``."""
        self.decisions = 0
        self.seconds: float | None = None
        """A time budget per decision (`think_for`, terminal play only); None: `samples` deals."""
        self._module = search()

    def think_for(self, seconds: float | None) -> None:
        """Think about `seconds` a decision instead of `samples` deals: for terminal play only.

        Each decision searches `samples` deals, then twice as many on the same key (the first
        deals are the same), and so on while the next search should end within `seconds`,
        up to `MAX_SAMPLES`; it plays the largest search's move. Its moves then depend on
        the machine's speed, so an experiment never sets it (its budget is deals, `samples`).
        """
        self.seconds = seconds

    @property
    def params(self) -> dict[str, float]:
        return {
            "samples": self.samples, "candidates": self.candidates, "depth": self.depth, "confidence": self.confidence,
            "patience": self.patience, "alarm": self.alarm, "their_patience": self.their_patience,
            "drop": self.drop, "their_keep": self.their_keep, "danger_deals": self.danger_deals, **super().params,
        }  # fmt: skip

    def _decide(self, view: PlayerView, kind: int) -> int:
        key = derive(self.key, self.decisions)
        self.decisions += 1
        params, before = self.params, melded_before(view)
        start = last = perf_counter()
        while True:
            move = self._module.choose(
                view, kind, key=key, seen=self.seen, taken=self.taken, melded_before=before, params=params
            )
            now = perf_counter()
            took, last = now - last, now
            doubled = min(2 * int(params["samples"]), MAX_SAMPLES)
            if self.seconds is None or doubled == params["samples"] or now - start + 2 * took > self.seconds:
                return int(move)
            params = {**params, "samples": doubled}

    def draw(self, view: PlayerView) -> Pile:
        if view.top_discard is None:
            return Pile.STOCK
        return Pile.DISCARD if self._decide(view, DRAW) else Pile.STOCK

    def play(self, view: PlayerView) -> list[Play]:
        option = self._decide(view, PLAY)
        return list(self._module.plan(view, option, seen=self.seen, taken=self.taken, params=self.params))

    def discard(self, view: PlayerView) -> int:
        return self._decide(view, DISCARD)
