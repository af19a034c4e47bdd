"""expert's compiled search against its plain Python twin (`rummysim.strategies.expert_twin`).

The twin shares nothing with the compiled search but the rules core: it deals with
`rummysim.seeding.permutation`, plays on with the Python bots and scores with the core's
functions. On the same views, keys and parameters the two must weigh the same candidates
and find the same reward on every deal, to the last bit; whole games played with either
must give the same rows. The plants prove the comparison fails when one step differs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummysim.compiled import expert_search
from rummysim.core import may_rebuild
from rummysim.game import play_game
from rummysim.rules import Rules
from rummysim.seeding import strategy_rng
from rummysim.strategies import expert, expert_twin, expert_twin_deals, strategy_params
from rummysim.strategies.expert import DISCARD, DRAW, PLAY, Expert
from tests.test_expert import Spy as ViewSpy

CALLS = expert_search()
HOUSE = {"lay_off": "after_meld", "take_discard": "must_use", "stock_out": "block"}
RULES = [
    Rules(n_players=2, max_hands=2, target_score=None),
    Rules(n_players=3, max_hands=2, target_score=None, ace="high_or_low", going_out="discard", **HOUSE),
    Rules(n_players=4, max_hands=2, target_score=None, rummy_multiplier=1, stall_after_turns=40),
    Rules(n_players=5, max_hands=1, target_score=None, take_discard="must_use", cards_dealt=6),
]


class Spy(ViewSpy):
    """`tests.test_expert.Spy`, keeping the views it plays on too."""

    def play(self, view):
        self.seen_views.append((view, self.seen, list(self.taken)))
        return super().play(view)


def decisions(rules: Rules, seed: int):
    """Views of one seat through a game, each with the decision it was asked (the draw, the melds, the discard)."""
    spy = Spy(rng=np.random.default_rng(0))
    play_game([spy, *["rummy_hunter", "greedy"] * 3][: rules.n_players], rules=rules, seed=seed)
    for i, (view, seen, taken) in enumerate(spy.seen_views):
        drew = view.drawn is not None
        kind = DRAW if not drew else PLAY if i == 0 or spy.seen_views[i - 1][0].drawn is None else DISCARD
        if kind == DRAW and not view.discard_pile:
            continue  # expert draws from the stock without a search (R4.1)
        yield view, seen, taken, kind


PARAMS = {
    **strategy_params(Expert),
    "samples": 5,
    "candidates": 5,
    "depth": 25,
    "drop": 0.0,
    "their_keep": 0,
    "danger_deals": 0,
}
"""Small searches on random deals, every candidate to the end (the defaults deal as a keeping player: `KEEPING`)."""
RACING = {**PARAMS, "samples": 9, "drop": 0.5}
"""A race: from the eighth deal (`RACE_FROM`) a candidate trailing by half a standard error meets no more."""
KEEPING = {**PARAMS, "their_keep": 6}
"""The other seats' hidden cards dealt as a player building melds keeps them."""
READING = {**KEEPING, "danger_deals": 16}
"""And, once the next seat has melded, a discard's danger read from such deals."""


def compare(rules: Rules, seed: int, *, every: int = 3, params: dict = PARAMS) -> str | None:
    """Return the first decision whose candidates or rewards differ between the compiled search and the twin."""
    for i, (view, seen, taken, kind) in enumerate(decisions(rules, seed)):
        if i % every:
            continue
        for key in (11, 12):
            asked = dict(key=key, seen=seen, taken=taken, melded_before=False, params=params)
            move = CALLS.choose(view, kind, **asked)
            candidates, rewards = expert_twin.searched(view, kind, **asked)
            twin_move = expert_twin.choose(view, kind, **asked)
            if move != twin_move:
                return f"{rules.n_players} players, decision {i} ({kind}), key {key}: move {move} against {twin_move}"
            if not rewards:
                continue
            _, found, work = CALLS.room_of(view.n_players, params)
            options = work[0]["options"][: len(candidates)].tolist()
            met = work[0]["tried"][: len(candidates)].tolist()
            weighed = [found[c, :n].tolist() for c, n in enumerate(met)]
            if options != candidates or weighed != rewards:
                return (
                    f"{rules.n_players} players, decision {i} ({kind}), key {key}: "
                    f"{options} {weighed} against {candidates} {rewards}"
                )
    return None


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.n_players}p")
def test_R4_to_R12_the_twin_weighs_the_same_candidates_with_the_same_rewards(rules):
    assert compare(rules, seed=rules.n_players) is None


@pytest.mark.parametrize("rules", RULES[:2], ids=lambda r: f"{r.n_players}p")
def test_a_race_drops_the_same_candidates_after_the_same_deals(rules):
    assert compare(rules, seed=rules.n_players + 10, every=4, params=RACING) is None


@pytest.mark.parametrize("rules", RULES[:3], ids=lambda r: f"{r.n_players}p")
def test_the_twin_deals_the_hidden_cards_as_a_keeping_player_keeps_them_the_same_way(rules):
    assert compare(rules, seed=rules.n_players + 20, every=2, params=KEEPING) is None


@pytest.mark.parametrize("rules", RULES[:3], ids=lambda r: f"{r.n_players}p")
def test_the_twin_reads_a_discard_s_danger_from_the_same_deals(rules):
    assert compare(rules, seed=rules.n_players + 30, every=1, params=READING) is None


@pytest.mark.parametrize(("n_players", "house"), [(2, False), (3, True), (4, False)])
def test_a_game_of_experts_is_the_same_with_the_twin_s_search(n_players, house, monkeypatch):
    rules = Rules(n_players=n_players, max_hands=1, target_score=None, **(HOUSE if house else {}))
    lineup = [{"strategy": "expert", "samples": 3, "depth": 12}, "cautious", "greedy", "rummy_hunter"][:n_players]
    compiled = play_game(lineup, rules=rules, seed=9)

    monkeypatch.setattr(expert, "_search", lambda: expert_twin)  # every expert built now searches with the twin
    twin = play_game(lineup, rules=rules, seed=9)
    assert twin.hands == compiled.hands
    assert len(compiled.hands) == n_players


def _deals_the_stock_first(monkeypatch):
    original = expert_twin.determinize

    def planted(view, me, key, keep=0):
        dealt = original(view, me, key, keep)
        dealt.stock = dealt.stock[::-1]
        return dealt

    monkeypatch.setattr(expert_twin, "determinize", planted)


def _keeps_the_first_dealt(monkeypatch):
    def planted(deck, at, k, extra, fixed, pool, rules):
        return fixed | sum(1 << card for card in deck[at : at + k])

    monkeypatch.setattr(expert_twin_deals, "kept", planted)


def _rebuilds_unshuffled(monkeypatch):
    def planted(p, key):
        if not may_rebuild(len(p.pile), p.rebuilds, p.rules.stall_after_rebuilds):
            return False
        p.stock, p.pile, p.rebuilds = p.pile[:-1], p.pile[-1:], p.rebuilds + 1
        return True

    monkeypatch.setattr(expert_twin, "rebuilt", planted)


PLANTS = {
    "a playout stopped at its depth is judged on the whole difference": lambda mp: mp.setattr(
        expert_twin, "cut_off", lambda p, me: 2 * _cut_off(p, me)
    ),
    "the stock of a deal is turned over": _deals_the_stock_first,
    "the other seats are modelled hiding their melds for 20 turns": lambda mp: mp.setattr(
        expert_twin, "playout_seats", lambda rules, me, own: _seats(rules, me, {**own, "their_patience": 20})
    ),
    "a rebuilt stock is not shuffled (R10.1)": _rebuilds_unshuffled,
    "a trailing candidate keeps meeting deals": lambda mp: mp.setattr(expert_twin, "trails", lambda *_: False),
    "a seat keeping its cards keeps the first dealt": _keeps_the_first_dealt,
    "a kept card's potential is worth nothing": lambda mp: mp.setattr(expert_twin_deals, "KEEP_HOPE", 0.0),
    "a discard's danger is not read from the deals": lambda mp: mp.setattr(
        expert_twin, "dealt_dangers", lambda *_: None
    ),
    "a discard's danger is read from random deals": lambda mp: mp.setattr(
        expert_twin, "dealt_dangers", lambda p, me, key, keep, deals: _dangers(p, me, key, 0, deals)
    ),
}
_cut_off, _seats, _dangers = expert_twin.cut_off, expert_twin.playout_seats, expert_twin.dealt_dangers


@pytest.mark.parametrize("plant", list(PLANTS))
def test_a_planted_difference_in_the_twin_is_caught(plant, monkeypatch):
    PLANTS[plant](monkeypatch)
    runs = [(rules, PARAMS, rules.n_players, 3) for rules in RULES] + [(RULES[0], RACING, 12, 3)]
    runs += [(rules, KEEPING, rules.n_players + 20, 3) for rules in RULES[:3]]
    runs += [(rules, READING, rules.n_players + 30, 1) for rules in RULES[:3]]
    found = next((d for d in (compare(r, seed=s, every=e, params=p) for r, p, s, e in runs) if d is not None), None)
    assert found is not None, f"{plant}: not caught"


def test_the_twin_plays_a_whole_game_legally_with_every_house_rule():
    rules = Rules(n_players=3, max_hands=1, target_score=None, **HOUSE)
    bot = Expert(rng=strategy_rng(3, 0, 0), samples=2, depth=6)
    bot._module = expert_twin
    result = play_game([bot, "greedy", "cautious"], rules=rules, seed=3, audit=True)
    assert len(result.hands) == 3


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    n=st.integers(2, 6),
    rule=st.fixed_dictionaries(
        {
            "ace": st.sampled_from(["low", "high_or_low"]),
            "going_out": st.sampled_from(["any", "discard"]),
            "rummy_multiplier": st.sampled_from([1, 2, 4]),
            "lay_off": st.sampled_from(["any", "after_meld"]),
            "take_discard": st.sampled_from(["free", "must_use"]),
            "stock_out": st.sampled_from(["rebuild", "block"]),
            "stall_after_rebuilds": st.sampled_from([0, 1, 3]),
        }
    ),
    seed=st.integers(0, 10**6),
    keep=st.sampled_from([0, 5]),
    reads=st.sampled_from([0, 8]),
)
def test_the_twin_weighs_every_decision_the_same_under_any_rules(n, rule, seed, keep, reads):
    rules = Rules(n_players=n, max_hands=1, target_score=None, **rule)
    params = {**RACING, "their_keep": keep, "danger_deals": reads}
    assert compare(rules, seed=seed, every=2, params=params) is None
