"""expert: it deals only what its seat cannot see, plays every rule legally, and is a pure function of its stream."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rummysim.compiled as compiled
from rummysim.cards import FULL_DECK
from rummysim.compiled import expert_search
from rummysim.dealing import Deal
from rummysim.engine import play_hand
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.moves import Pile
from rummysim.rules import Rules
from rummysim.runner import run_experiment
from rummysim.seeding import strategy_rng
from rummysim.strategies import make_strategy, strategy_params
from rummysim.strategies.base import PlayerView
from rummysim.strategies.cautious import Cautious
from rummysim.strategies.expert import DISCARD, DRAW, Expert, melded_before

SMALL = {"strategy": "expert", "samples": 4, "depth": 12}
"""An expert that thinks little: the tests check its moves, not its strength."""


@pytest.fixture(scope="module")
def search():
    return expert_search()


class Spy(Cautious):
    """Cautious, keeping each view it decides on with its memory of the public events."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen_views: list[tuple[PlayerView, int, list[int]]] = []

    def draw(self, view):
        self.seen_views.append((view, self.seen, list(self.taken)))
        return super().draw(view)

    def discard(self, view):
        self.seen_views.append((view, self.seen, list(self.taken)))
        return super().discard(view)


def spied_views(n_players: int, seed: int) -> list[tuple[PlayerView, int, list[int]]]:
    rules = Rules(n_players=n_players, max_hands=2, target_score=None)
    spy = Spy(rng=np.random.default_rng(0))
    play_game([spy, *["greedy"] * (n_players - 1)], rules=rules, seed=seed)
    return spy.seen_views


def test_expert_is_registered_with_its_parameters():
    params = strategy_params(Expert)
    assert {"samples", "candidates", "depth", "confidence", "their_patience", "patience", "alarm"} <= set(params)
    bot = make_strategy({"strategy": "expert", "samples": 8}, rng=np.random.default_rng(1))
    assert isinstance(bot, Expert) and bot.params["samples"] == 8


@pytest.mark.parametrize(
    "bad", [{"samples": 1}, {"candidates": 17}, {"their_patience": -1}, {"depth": 0}, {"their_keep": -1}]
)
def test_expert_refuses_parameters_out_of_range_naming_them(bad):
    key = next(iter(bad))
    with pytest.raises(ConfigError, match=f"'expert' parameter {key}"):
        make_strategy({"strategy": "expert", **bad}, rng=np.random.default_rng(1))


@pytest.mark.parametrize(("n_players", "keep"), [(2, 0), (4, 0), (6, 0), (2, 6), (4, 3), (6, 10)])
def test_R1_2_a_determinized_deal_holds_every_card_once_and_all_the_seat_knows(search, n_players, keep):
    from rummysim.compiled.columns import tables_of
    from rummysim.compiled.expert import determinized
    from rummysim.compiled.state import HAND

    store = np.zeros(2, HAND)
    for view, seen, taken in spied_views(n_players, seed=n_players)[::5]:
        record = search.view_record(view, seen=seen, taken=taken)
        for key in (7, 8):
            determinized(tables_of(view.rules), record, view.seat, np.uint64(key), store, keep)
            dealt = store[0]
            holdings = [int(h) for h in dealt["holdings"][:n_players]]
            stock = [int(c) for c in dealt["stock"][: view.stock_size]]
            assert holdings[view.seat] == view.holding
            assert [h.bit_count() for h in holdings] == list(view.holding_sizes)
            for seat, cards in enumerate(taken):
                if seat != view.seat:
                    assert holdings[seat] & cards == cards & ~view.holding  # what it took and kept stays its own
            everything = [*holdings, *(1 << c for c in stock), *(1 << c for c in view.discard_pile), *view.table_masks]
            assert sum(m.bit_count() for m in everything) == 52
            union = 0
            for mask in everything:
                union |= mask
            assert union == FULL_DECK


def _pairs(holding: int) -> int:
    """The two-card parts of melds in a holding: pairs of a rank and neighbours of a suit."""
    count = 0
    for card in range(52):
        if holding >> card & 1:
            count += sum(holding >> other & 1 for other in range(card % 13, 52, 13) if other > card)
            count += card % 13 < 12 and holding >> (card + 1) & 1
    return count


def test_a_deal_that_keeps_gives_the_others_the_cards_a_player_building_melds_keeps(search):
    """`their_keep`: a hidden holding is the best of more cards, so it holds more parts of melds and fewer points."""
    from rummysim.cards import points
    from rummysim.compiled.columns import tables_of
    from rummysim.compiled.expert import determinized
    from rummysim.compiled.state import HAND

    store = np.zeros(2, HAND)
    views = [*spied_views(2, seed=5), *spied_views(2, seed=6)]
    late = [(v, s, t) for v, s, t in views if v.turn >= 6 and v.holding_sizes[1 - v.seat] >= 3]
    assert len(late) >= 20
    found = {0: [0, 0], 8: [0, 0]}
    for view, seen, taken in late:
        record = search.view_record(view, seen=seen, taken=taken)
        for keep, tally in found.items():
            for key in range(40):
                determinized(tables_of(view.rules), record, view.seat, np.uint64(key), store, keep)
                other = int(store[0]["holdings"][1 - view.seat])
                tally[0] += _pairs(other)
                tally[1] += points(other)
    assert found[8][0] > 1.3 * found[0][0]
    assert found[8][1] < found[0][1]
    view, seen, taken = next((v, s, t) for v, s, t in spied_views(2, seed=5) if v.turn < 2)
    record = search.view_record(view, seen=seen, taken=taken)
    dealt = []
    for keep in (0, 8):  # before the other seat has had a turn it has chosen nothing to keep
        determinized(tables_of(view.rules), record, view.seat, np.uint64(3), store, keep)
        dealt.append((store[0]["holdings"][:2].tolist(), store[0]["stock"][: view.stock_size].tolist()))
    assert dealt[0] == dealt[1]


def test_the_view_the_search_reads_holds_no_hidden_card(search):
    for view, seen, taken in spied_views(3, seed=1):
        record = search.view_record(view, seen=seen, taken=taken)[0]
        others = [int(h) for s, h in enumerate(record["holdings"][:3]) if s != view.seat]
        assert others == [0, 0] and not record["stock"].any()
        assert int(record["holdings"][view.seat]) == view.holding


def _first_draw(hidden_holding: str, stock: str) -> Pile:
    """Expert's first draw in a hand whose only difference is the hidden cards (seat 1's holding and the stock)."""
    start = Deal.of(
        ["2C 3C 4C 7D 8D 9H JH QS KS 5H", hidden_holding], discard_pile="6C", stock=stock,
        rng=np.random.default_rng(0),
    )  # fmt: skip
    bot = Expert(rng=strategy_rng(5, 0, 0), samples=16, depth=20)
    moves: list[Pile] = []
    original = bot.draw

    def draw(view):
        moves.append(original(view))
        return moves[-1]

    bot.draw = draw  # type: ignore[method-assign]
    play_hand([bot, "greedy"], rules=Rules(stall_after_turns=1), start=start, dealer=1)
    return moves[0]


def test_expert_decides_the_same_whatever_the_cards_it_cannot_see():
    assert _first_draw("AS 2S 3S 4S 5S 6S 7S 8S 9S TS", "JS QC KC") == _first_draw(
        "AD 2D 3D 4D 5D 6D TD JD QD KD", "JS QC KC"
    )


@pytest.mark.parametrize(
    ("lay_off", "take_discard", "stock_out", "going_out", "ace"),
    [
        ("any", "free", "rebuild", "any", "low"),
        ("after_meld", "must_use", "rebuild", "discard", "high_or_low"),
        ("any", "must_use", "block", "any", "high_or_low"),
        ("after_meld", "free", "block", "discard", "low"),
    ],
)
@pytest.mark.parametrize("n_players", [2, 3, 6])
def test_R4_to_R12_expert_plays_every_rule_and_house_rule_legally(n_players, lay_off, take_discard, stock_out,
                                                                  going_out, ace):  # fmt: skip
    rules = Rules(
        n_players=n_players, lay_off=lay_off, take_discard=take_discard, stock_out=stock_out, going_out=going_out,
        ace=ace, max_hands=2, target_score=None,
    )  # fmt: skip
    lineup = [SMALL if seat % 2 == 0 else "cautious" for seat in range(n_players)]
    result = play_game(lineup, rules=rules, seed=n_players, audit=True)  # the engine checks every move
    assert len(result.hands) == 2 * n_players


def test_expert_plays_the_same_game_from_the_same_seed_and_another_from_another():
    first = play_game([SMALL, "montecarlo"], rules=Rules(max_hands=2, target_score=None), seed=4)
    again = play_game([SMALL, "montecarlo"], rules=Rules(max_hands=2, target_score=None), seed=4)
    other = play_game([SMALL, "montecarlo"], rules=Rules(max_hands=2, target_score=None), seed=5)
    assert first.hands == again.hands
    assert first.hands != other.hands


def test_a_decision_is_a_pure_function_of_the_view_and_its_key(search):
    views = spied_views(2, seed=3)
    params = {**strategy_params(Expert), "samples": 8, "candidates": 6, "depth": 30, "confidence": 0.0}

    def moves(view, seen, taken):
        kind = DISCARD if view.drawn is not None else DRAW
        return [
            search.choose(
                view,
                kind,
                key=key,
                seen=seen,
                taken=taken,
                melded_before=False,
                params=params,
            )
            for key in range(10)
        ]

    first = [moves(*seen) for seen in views[5:9]]
    assert [moves(*seen) for seen in reversed(views[5:9])] == first[::-1]  # nothing carries over between searches


def test_R8_3_melded_before_reads_from_the_history_whether_the_seat_had_melded_before_its_turn():
    for view, _, _ in spied_views(3, seed=2):
        if view.drawn is None:
            drawing = view.has_melded[view.seat]  # nothing played yet this turn
        assert melded_before(view) == drawing


def test_expert_says_why_it_cannot_play_where_its_search_does_not_load(monkeypatch):
    from rummysim.strategies import expert

    def broken():
        raise RuntimeError("the compiled engine is switched off (RUMMYSIM_COMPILED=0)")

    monkeypatch.setattr(expert, "_search", broken)
    with pytest.raises(ConfigError, match=r"'expert' searches with compiled code, and the compiled engine is switched"):
        Expert(rng=np.random.default_rng(0))


TINY = {
    "name": "tiny", "question": "q?", "games": 6, "seed": 3, "players": [SMALL, "greedy"],
    "rules": {"target_score": 40}, "conditions": {"expert": {}, "greedy": {"players": ["greedy", "greedy"]}},
}  # fmt: skip


def test_a_run_with_expert_gives_the_same_tables_with_any_number_of_workers(tmp_path):
    experiment = parse_experiment(TINY, source="tiny.yaml")
    one = run_experiment(experiment, out=tmp_path / "one", n_jobs=1)
    two = run_experiment(experiment, out=tmp_path / "two", n_jobs=2, chunk_games=2)
    pd.testing.assert_frame_equal(one.hands, two.hands)
    pd.testing.assert_frame_equal(one.games, two.games)
    assert set(one.hands["strategy"]) >= {"expert(depth=12, samples=4)", "greedy"}


def test_a_run_that_seats_expert_where_its_search_cannot_load_stops_before_any_game(tmp_path, monkeypatch):
    monkeypatch.setenv(compiled.SWITCH, "0")
    experiment = parse_experiment(TINY, source="tiny.yaml")
    with pytest.raises(ConfigError, match=r"^tiny.yaml: conditions.expert: expert\(depth=12, samples=4\) searches with "
                       r"compiled code, and the compiled engine is switched off \(RUMMYSIM_COMPILED=0\)$"):  # fmt: skip
        run_experiment(experiment, out=tmp_path / "off", n_jobs=1)
    assert not (tmp_path / "off" / "hands.parquet").exists()


def test_a_time_budget_doubles_the_deals_while_the_next_search_fits_in_it(monkeypatch):
    """Terminal play only (`think_for`): 2, 4, ... deals on the same key while the next search should end in time."""
    from rummysim.strategies import expert as module

    bot = Expert(rng=strategy_rng(5, 0, 0), samples=2, depth=8)
    asked: list[int] = []
    clock = [0.0]
    search = bot._module

    class Timed:
        def choose(self, view, kind, *, params, **kwargs):
            asked.append(int(params["samples"]))
            clock[0] += 0.01 * params["samples"]  # a search takes 10 ms a deal
            return search.choose(view, kind, params=params, **kwargs)

    monkeypatch.setattr(module, "perf_counter", lambda: clock[0])
    bot._module = Timed()
    view = spied_views(2, seed=3)[4][0]
    bot.think_for(1.0)
    bot._decide(view, DISCARD if view.drawn is not None else DRAW)
    assert asked == [2, 4, 8, 16, 32]  # after 32 deals 0.62 s are spent, and 64 would take 0.64 more
    asked.clear()
    bot.think_for(None)
    bot._decide(view, DISCARD if view.drawn is not None else DRAW)
    assert asked == [2]  # no budget: its deals, the same moves on any machine


@pytest.mark.parametrize("think", [0, -1.5, 61])
def test_a_time_budget_out_of_range_is_a_one_line_error(think):
    from rummysim.session import play_session

    with pytest.raises(ConfigError, match=r"^--think: .* seconds; give more than 0 and at most 60"):
        play_session(seed=1, think=think, read=lambda _: "quit", write=lambda _: None)


def test_hint_says_to_name_another_adviser_where_expert_cannot_load(monkeypatch):
    from rummysim.session import play_session
    from rummysim.strategies import expert

    def broken():
        raise RuntimeError("the compiled engine is switched off (RUMMYSIM_COMPILED=0)")

    monkeypatch.setattr(expert, "_search", broken)
    with pytest.raises(ConfigError) as caught:
        play_session(seed=1, read=lambda _: "quit", write=lambda _: None)
    assert str(caught.value) == (
        "--hint: strategy 'expert' searches with compiled code, and the compiled engine is switched off "
        "(RUMMYSIM_COMPILED=0); name another adviser, such as --hint greedy"
    )


@pytest.mark.parametrize("bad", [{"drop": -0.5}, {"their_keep": -1}, {"danger_deals": -2}])
def test_a_negative_drop_keep_or_deals_is_refused_when_expert_is_built_in_python(bad):
    with pytest.raises(ValueError, match="drop, their_keep, danger_deals >= 0"):
        Expert(**bad)
