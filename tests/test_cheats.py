"""Hostile bots: each cheat found in issue 10 is refused, by the rule it would break.

A bot is handed its views, the public events and its own generator. None of them may
lead to a hidden card (R3.1, R4.1), change the rules the engine plays (R7.2, R8.3, R9.2)
or slip a move past the checks (R4.5, R6.1).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import Scripted

from rummysim.cards import parse_card, parse_cards, points
from rummysim.dealing import Deal, deal
from rummysim.engine import play_hand
from rummysim.errors import IllegalMoveError
from rummysim.game import play_game
from rummysim.moves import LayOff, Meld, Pile, plain_int, plain_plays
from rummysim.rules import GoingOut, Rules
from rummysim.seeding import hand_key, strategy_rng
from rummysim.strategies import make_lineup
from rummysim.strategies.greedy import Greedy
from rummysim.strategies.uniform import Uniform

card = parse_card


class Liar(int):
    """An int that says it equals nothing and lies about its bits."""

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__

    def __rrshift__(self, other: int) -> int:
        return 1

    def __rand__(self, other: int) -> int:
        return other


# -- R3.1: the deal and the stock stay hidden -----------------------------------------------


class Seer(Greedy):
    """Rebuild the deal from whatever seed its generator leads back to (the issue's attack)."""

    name = "seer"

    def __init__(self, *, rng: np.random.Generator | None = None) -> None:
        super().__init__(rng=rng)
        self.guesses = 0
        self.hits = 0

    def draw(self, view):
        if view.turn < view.n_players:  # its first turn: its holding is still the deal
            seq = self.rng.bit_generator.seed_seq
            game = seq.spawn_key[1] if len(seq.spawn_key) == 3 else 0
            for seed in {int(np.asarray(seq.entropy).ravel()[0]), *range(3)}:
                rebuilt = deal(view.rules, dealer=view.dealer, key=hand_key(seed, game, view.hand))
                self.guesses += 1
                self.hits += rebuilt.holdings[view.seat] == view.holding - (view.drawn is not None)
        return super().draw(view)


def test_r3_1_a_bots_generator_does_not_lead_back_to_the_seed():
    seed, game = 2026, 7
    bots, _ = make_lineup([{"strategy": "uniform"}, {"strategy": "greedy"}], seed=seed, game=game)
    seq = bots[0].rng.bit_generator.seed_seq
    assert seq.spawn_key == ()
    assert int(seq.entropy) != seed and seed not in np.atleast_1d(seq.entropy).tolist()
    assert game not in np.atleast_1d(seq.entropy).tolist()
    # the generator is still reproducible: the same key gives the same numbers
    assert strategy_rng(seed, game, 0).integers(1 << 60) == strategy_rng(seed, game, 0).integers(1 << 60)
    assert strategy_rng(seed, game, 0).integers(1 << 60) != strategy_rng(seed, game, 1).integers(1 << 60)


def test_r3_1_a_bot_cannot_rebuild_the_deal_from_its_generator():
    seer = Seer(rng=strategy_rng(2026, 0, 0))
    for hand in range(12):
        play_hand([seer, Greedy()], rules=Rules(), seed=2026, game=0, hand=hand, dealer=hand % 2)
    assert seer.guesses >= 12
    assert seer.hits == 0


# -- R8.3, R9.2, R7.2: the rules the engine plays are out of a bot's reach ------------------


class Vandal(Greedy):
    """Decide as greedy, then rewrite the settings greedy's choices do not read."""

    name = "vandal"

    def draw(self, view):
        answer = super().draw(view)
        rules = view.rules
        rules.__dict__["rummy_multiplier"] = 50
        object.__setattr__(rules, "target_score", 10_000)
        object.__setattr__(rules, "max_hands", 1)
        object.__setattr__(rules, "stall_after_turns", 1)
        return answer


def test_r8_3_a_bot_that_rewrites_its_view_rules_changes_no_score():
    rules = Rules(max_hands=6)
    before = dataclasses.asdict(rules)
    cheated = play_game([Vandal(), Greedy()], rules=rules, seed=11, names=["greedy", "greedy"])
    honest = play_game([Greedy(), Greedy()], rules=rules, seed=11, names=["greedy", "greedy"])
    assert cheated == honest
    assert any(h.points for h in honest.hands)
    assert dataclasses.asdict(rules) == before  # the caller's rules are untouched
    assert rules.__dict__.get("ace_value", 1) == 1


def test_r9_2_a_bot_that_rewrites_the_ace_value_in_its_view_changes_no_points():
    class AceVandal(Greedy):
        def draw(self, view):
            view.rules.__dict__["ace_value"] = 99
            object.__setattr__(view.rules, "ace_points", 99)
            return super().draw(view)

    game = play_game([AceVandal(), Greedy()], rules=Rules(max_hands=30, target_score=None), seed=5)
    aces = [h for h in game.hands if "A" in h.holding_end]
    assert aces
    for row in game.hands:
        assert row.holding_points == points(parse_cards(row.holding_end.split()), ace_value=1)


def test_r8_3_a_rewrite_does_not_persist_into_later_hands_or_games():
    rules = Rules()
    play_hand([Vandal(), Greedy()], rules=rules, seed=3)
    later = play_hand([Greedy(), Greedy()], rules=rules, seed=4)
    assert later.points in (0, *range(1, 200)) and (not later.went_rummy or later.records[0].multiplier == 2)
    assert all(r.multiplier in (1, 2) for r in later.records)
    assert rules.rummy_multiplier == 2 and rules.ace_value == 1


def test_r7_2_a_bot_that_sets_going_out_any_still_cannot_meld_out():
    def rewrite_then_meld_out(view):
        object.__setattr__(view.rules, "going_out", GoingOut.ANY)
        return [Meld(parse_cards("7H 8H 9H"))]

    start = Deal.of(["7H 8H", "2C 5D 9S"], discard_pile="KD", stock="9H 4C 6C")
    bot = Scripted(draws=[Pile.STOCK], plays=[rewrite_then_meld_out], discards=[])
    rules = Rules(going_out="discard", cards_dealt=2)
    with pytest.raises(IllegalMoveError) as error:
        play_hand([bot, Greedy()], rules=rules, start=start, dealer=1)
    assert error.value.rule == "R7.2"
    assert rules.going_out is GoingOut.DISCARD


def test_each_seat_sees_its_own_copy_of_the_rules():
    seen: dict[int, list[int]] = {0: [], 1: []}

    class Watcher(Greedy):
        def draw(self, view):
            seen[view.seat].append(id(view.rules))
            return super().draw(view)

    rules = Rules()
    play_hand([Watcher(), Watcher()], rules=rules, seed=1)
    assert set(seen[0]).isdisjoint(seen[1])
    assert id(rules) not in set(seen[0]) | set(seen[1])


# -- R4.5, R6.1: answers are plain values before they are checked ----------------------------


def test_r4_5_an_int_subclass_cannot_discard_the_card_taken_from_the_discard_pile():
    start = Deal.of(["2C 5D 9H JS", "3C 6D TH QS"], discard_pile="KD", stock="7C 8C 4H")
    bot = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=[Liar(card("KD"))])
    with pytest.raises(IllegalMoveError) as error:
        play_hand([bot, Greedy()], rules=Rules(cards_dealt=4), start=start, dealer=1)
    assert error.value.rule == "R4.5"
    assert "KD" in str(error.value)


def test_r4_3_an_int_subclass_cannot_discard_a_card_it_does_not_hold():
    start = Deal.of(["2C 5D 9H JS", "3C 6D TH QS"], discard_pile="KD", stock="7C 8C 4H")
    bot = Scripted(draws=[Pile.STOCK], plays=[[]], discards=[Liar(card("QS"))])
    with pytest.raises(IllegalMoveError) as error:
        play_hand([bot, Greedy()], rules=Rules(cards_dealt=4), start=start, dealer=1)
    assert error.value.rule == "R4.3"


class ShiftingMeld(Meld):
    """A Meld whose cards are a legal meld when first read and the whole deck after."""

    __slots__ = ("reads",)

    def __init__(self, cards: int) -> None:
        object.__setattr__(self, "reads", 0)
        super().__init__(cards)

    def __getattribute__(self, name: str):
        if name == "cards":
            reads = object.__getattribute__(self, "reads")
            object.__setattr__(self, "reads", reads + 1)
            return object.__getattribute__(self, "cards") if reads == 0 else (1 << 52) - 1
        return object.__getattribute__(self, name)


def test_r4_2_a_play_is_read_once_as_what_it_holds():
    plays = plain_plays([ShiftingMeld(parse_cards("7H 8H 9H")), LayOff(Liar(card("6H")), Liar(0))])
    assert plays == [Meld(parse_cards("7H 8H 9H")), LayOff(card("6H"), 0)]
    assert all(type(p) in (Meld, LayOff) for p in plays)
    assert type(plays[1].card) is int and type(plays[1].meld) is int


def test_r6_1_a_lay_off_of_a_lying_card_is_checked_as_the_card_it_holds():
    start = Deal.of(["2C 5D 9H JS", "3C 6D TH QS"], discard_pile="KD", stock="4H 4S 4D", table=[("7C 8C 9C", 1)])
    bot = Scripted(draws=[Pile.STOCK], plays=[[LayOff(Liar(card("JS")), 0)]], discards=[])
    with pytest.raises(IllegalMoveError) as error:
        play_hand([bot, Greedy()], rules=Rules(cards_dealt=4), start=start, dealer=1)
    assert error.value.rule == "R6.1"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(7, 7), (np.int64(7), 7), (Liar(7), 7), (True, None), (7.0, None), ("7", None), (None, None)],
)
def test_plain_int_keeps_whole_numbers_only(answer, expected):
    value = plain_int(answer)
    assert value == expected
    assert value is None or type(value) is int


def test_r4_1_a_str_subclass_draws_the_pile_it_spells():
    class Sly(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    start = Deal.of(["2C 5D 9H JS", "3C 6D TH QS"], discard_pile="KD", stock="7C 8C 4H")
    seen = []
    bot = Scripted(draws=[Sly("stock")], plays=[lambda v: seen.append(v.drawn) or []], discards=["2C"],
                   fallback=Uniform(rng=np.random.default_rng(1)))  # fmt: skip
    play_hand([bot, Scripted(draws=[], fallback=Greedy())], rules=Rules(cards_dealt=4, stall_after_turns=1),
              start=start, dealer=1)  # fmt: skip
    assert seen == [card("7C")]
