"""Information hiding: a view holds only what its seat may know, and nothing mutable."""

from __future__ import annotations

import dataclasses
import enum

import pytest
from conftest import Scripted

from rummysim.cards import parse_card, parse_cards
from rummysim.dealing import Deal
from rummysim.engine import play_hand
from rummysim.moves import Drew, Meld, Pile
from rummysim.records import HandRecord
from rummysim.rules import Rules
from rummysim.strategies.base import PlayerView
from rummysim.strategies.greedy import Greedy

IMMUTABLE_LEAVES = (int, str, bool, float, type(None), enum.Enum)


def reachable(obj, seen=None):
    """Yield every object reachable from a view through its fields and items."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, IMMUTABLE_LEAVES):
        return
    if isinstance(obj, tuple):
        for item in obj:
            yield from reachable(item, seen)
    elif dataclasses.is_dataclass(obj):
        for field in dataclasses.fields(obj):
            yield from reachable(getattr(obj, field.name), seen)
    else:
        raise AssertionError(f"unexpected object of type {type(obj).__name__} in a view")


def test_views_hold_only_immutable_values():
    seen_views: list[PlayerView] = []

    class Recording(Greedy):
        def draw(self, view):
            seen_views.append(view)
            return super().draw(view)

    play_hand([Recording(), Recording()], rules=Rules(), seed=3, audit=True)
    assert seen_views
    for view in seen_views:
        for obj in reachable(view):
            assert isinstance(obj, (*IMMUTABLE_LEAVES, tuple, Rules)), type(obj)
        rules = view.rules
        with pytest.raises(dataclasses.FrozenInstanceError):
            rules.ace = "high_or_low"  # type: ignore[misc]


def test_stock_draws_are_hidden_from_other_seats_but_discard_draws_are_public_r4_1():
    start = Deal.of(["2C 5D 9H JS", "3C 6D TH QS"], discard_pile="KD", stock="7C 8C 4H")
    other = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=["2C"], fallback=Greedy())
    spy = Scripted(draws=[Pile.STOCK, Pile.STOCK], plays=[[], []], discards=["3C", "7C"])
    rules = Rules(cards_dealt=4, stall_after_turns=3)
    play_hand([other, spy], rules=rules, start=start, dealer=0)
    # seat 1 (spy) plays first and draws 7C from the stock: seat 0 learns only that a card was drawn
    seat0_view = other.views[0]
    assert Drew(1, Pile.STOCK, None) in seat0_view.history
    assert seat0_view.holding == parse_cards("2C 5D 9H JS")
    assert seat0_view.holding_sizes == (4, 4)
    assert seat0_view.discard_pile == (parse_card("KD"), parse_card("3C"))
    # seat 0 then takes 3C from the discard pile: every seat sees which card
    spy_view = spy.views[-1]
    assert Drew(0, Pile.DISCARD, parse_card("3C")) in spy_view.history
    assert spy_view.holding == parse_cards("6D TH QS 7C 8C")  # before its second discard


def test_a_bot_cannot_change_the_game_through_its_view():
    class Vandal(Greedy):
        def draw(self, view):
            with pytest.raises((AttributeError, TypeError)):
                view.holding_sizes[0] = 0  # type: ignore[index]
            with pytest.raises(AttributeError):
                view.stock_size = 0  # type: ignore[misc]
            return super().draw(view)

    result = play_hand([Vandal(), Greedy()], rules=Rules(), seed=5, audit=True)
    reference = play_hand([Greedy(), Greedy()], rules=Rules(), seed=5)
    assert result.records == reference.records


def test_every_field_of_a_view_holds_what_its_name_says():
    """The engine builds views by position for speed; this pins each field to its meaning (R3, R4)."""
    start = Deal.of(["2C 5D JS 4D", "3C 6D TH QS"], discard_pile="4H KD", stock="7C 8C 4S", table=[("7H 8H 9H", 1)])
    spy = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=["2C"])
    rules = Rules(cards_dealt=4, stall_after_turns=1)
    play_hand([spy, Scripted(fallback=Greedy())], rules=rules, start=start, dealer=1, scores=(12, 30), hand=3)
    view = spy.views[1]  # seat 0's play decision, after it took KD from the discard pile
    assert view._asdict() == {
        "seat": 0,
        "n_players": 2,
        "dealer": 1,
        "rules": rules,
        "hand": 3,
        "turn": 0,
        "holding": parse_cards("2C 5D JS 4D KD"),
        "drawn": parse_card("KD"),
        "taken": parse_card("KD"),
        "table": start.table,
        "discard_pile": (parse_card("4H"),),
        "stock_size": 52 - 8 - 2 - 3,  # the cards named nowhere go under the stock
        "holding_sizes": (5, 4),
        "has_melded": (False, True),
        "scores": (12, 30),
        "n_rebuilds": 0,
        "history": view.history,
    }
    assert [type(e).__name__ for e in view.history] == ["HandStarted", "Drew"]
    assert view.history[1] == Drew(0, Pile.DISCARD, parse_card("KD"))


def test_every_field_of_a_hand_record_holds_what_its_name_says():
    """The engine builds hand records by position for speed; this pins each field to its meaning (R7, R8)."""
    start = Deal.of(["7H 8H", "2C 5D"], discard_pile="KD", stock="9H 4C 6C")
    winner = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("7H 8H 9H")]])
    rules = Rules(cards_dealt=2)
    result = play_hand(
        [winner, Scripted()], rules=rules, start=start, dealer=1, scores=(12, 30), game=4, hand=3, names=["w", "l"]
    )
    common = {"game": 4, "hand": 3, "dealer": 1, "went_out_by": "meld", "went_rummy": True, "multiplier": 2}
    common |= {"stalled": False, "turns": 1, "n_rebuilds": 0}
    assert [r._asdict() for r in result.records] == [
        {
            **common,
            "seat": 0,
            "strategy": "w",
            "position": 0,
            "won": True,
            "points": 14,  # (2 + 5) x 2 for going rummy (R8.3)
            "score": 26,
            "holding_end": "",
            "holding_points": 0,
        },
        {
            **common,
            "seat": 1,
            "strategy": "l",
            "position": 1,
            "won": False,
            "points": 0,
            "score": 30,
            "holding_end": "2C 5D",
            "holding_points": 7,
        },
    ]
    assert all(type(r) is HandRecord for r in result.records)
