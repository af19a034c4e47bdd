"""The invariant harness: every preset x 2-6 players x {uniform, greedy, mixed, the whole ladder}.

After every event all 52 cards are in exactly one place (the engine's audit), every
view adds up to 52 cards and shows only the seat's own holding, every hand ends, and
every hand's points recompute from its records (R1.2, R8, R10.2).
"""

from __future__ import annotations

import itertools

import pytest

from rummysim.cards import parse_cards, points
from rummysim.engine import play_hand
from rummysim.moves import HandEnded
from rummysim.records import recompute_points
from rummysim.rules import PRESETS
from rummysim.seeding import strategy_rng
from rummysim.strategies import make_strategy, strategy_label
from rummysim.strategies.base import PlayerView, Strategy

LADDER = ["uniform", "greedy", "rummy_hunter", "cautious", {"strategy": "montecarlo", "samples": 2, "depth": 10}]
LINEUPS = {
    "uniform": lambda n: ["uniform"] * n,
    "greedy": lambda n: ["greedy"] * n,
    "mixed": lambda n: ["greedy" if seat % 2 else "uniform" for seat in range(n)],
    "ladder": lambda n: [LADDER[seat % len(LADDER)] for seat in range(n)],
}


class Auditing(Strategy):
    """Wrap a bot and check every view it is given before passing it on."""

    name = "auditing"

    def __init__(self, inner: Strategy) -> None:
        super().__init__()
        self.inner = inner
        self.n_views = 0

    def check(self, view: PlayerView) -> None:
        self.n_views += 1
        table = 0
        for meld in view.table:
            assert not table & meld.cards
            table |= meld.cards
        pile = sum(1 << c for c in view.discard_pile)
        assert len(view.discard_pile) == pile.bit_count()
        assert view.holding.bit_count() == view.holding_sizes[view.seat]
        assert not view.holding & (table | pile)
        assert not table & pile
        assert sum(view.holding_sizes) + view.stock_size + len(view.discard_pile) + table.bit_count() == 52
        assert view.taken is None or (view.holding | table) >> view.taken & 1

    def draw(self, view):
        self.check(view)
        return self.inner.draw(view)

    def play(self, view):
        self.check(view)
        return self.inner.play(view)

    def discard(self, view):
        self.check(view)
        return self.inner.discard(view)


CASES = list(itertools.product(PRESETS, range(2, 7), LINEUPS))


@pytest.mark.parametrize(("preset", "n_players", "lineup"), CASES)
def test_invariants_hold_in_every_hand(preset, n_players, lineup):
    rules = PRESETS[preset].replace(n_players=n_players)
    specs = LINEUPS[lineup](n_players)
    for game in range(6):
        bots = [Auditing(make_strategy(s, rng=strategy_rng(11, game, seat))) for seat, s in enumerate(specs)]
        names = [strategy_label(s) for s in specs]
        result = play_hand(bots, rules=rules, seed=11, game=game, dealer=game % n_players, names=names, audit=True)
        rows = result.records
        assert all(bot.n_views > 0 for bot in bots[:1])
        assert [r.seat for r in rows] == list(range(n_players))
        assert result.stalled == (result.winner is None)
        assert sum(r.won for r in rows) == (0 if result.stalled else 1)
        assert result.records[0].turns <= rules.stall_after_turns
        ended = result.events[-1]
        assert isinstance(ended, HandEnded)
        for row, holding in zip(rows, ended.holdings, strict=True):
            assert parse_cards(row.holding_end) == holding
            assert row.holding_points == points(holding, ace_value=rules.ace_value)
        assert recompute_points(rows, rules=rules) == result.points == sum(r.points for r in rows)
        if not result.stalled:
            assert rows[result.winner].holding_end == ""
            assert rows[result.winner].went_out_by == result.went_out_by.value
