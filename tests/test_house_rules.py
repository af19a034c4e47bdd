"""The house rules of R12 on the reference engine and the built-in bots, each test named after its rule.

R12.1 lay off only after a meld of your own (``lay_off: after_meld``), R12.2 use the discard you
take (``take_discard: must_use``), R12.3 block rummy (``stock_out: block``). Every scenario stacks a
deal with `Deal.of` and plays it through `play_hand` with scripted bots; a seat built with `idle()`
must never be asked anything. The bots' tests stack a position that shows one choice, then play
random games over every combination of the three rules with the engine checking each move.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import Passive, Scripted, idle, rest_of_deck, suit

import rummysim.engine as engine_module
from rummysim.cards import parse_card, parse_cards, points, to_text
from rummysim.dealing import Deal
from rummysim.engine import play_hand
from rummysim.errors import IllegalMoveError
from rummysim.game import play_game
from rummysim.moves import Discarded, Drew, HandEnded, LaidOff, LayOff, Meld, Melded, Pile, StockRebuilt, WentOutBy
from rummysim.records import recompute_points
from rummysim.rules import Rules
from rummysim.strategies.greedy import Greedy
from rummysim.strategies.rummy_hunter import RummyHunter
from rummysim.strategies.uniform import Uniform
from rummysim.table import TableMeld

card = parse_card

AFTER_MELD = {"lay_off": "after_meld"}
MUST_USE = {"take_discard": "must_use"}
BLOCK = {"stock_out": "block"}


def exact(holdings: list[str], *, stock: str = "", top: str = "", table=()) -> Deal:
    """Stack a deal with an exact stock: every card not held, in the stock or on the table lies in the discard pile.

    `top` is put on top of the discard pile.
    """
    on_table = [cards for cards, _ in table]
    pile = rest_of_deck(*holdings, stock, top, *on_table, "").split() + top.split()
    return Deal.of(holdings, discard_pile=" ".join(pile), stock=stock, table=table)


def of_kind(result, kind) -> list:
    """Return the events of one kind in a hand's public log, in order."""
    return [e for e in result.events if isinstance(e, kind)]


def illegal(bots, start: Deal, rules: Rules, *, dealer: int = 0) -> IllegalMoveError:
    """Play a stacked hand that must end in an illegal move; return the error."""
    with pytest.raises(IllegalMoveError) as caught:
        play_hand(bots, rules=rules, start=start, dealer=dealer)
    return caught.value


def values(start: Deal, rules: Rules) -> list[int]:
    return [points(h, ace_value=rules.ace_value) for h in start.holdings]


# -- R12.1 lay off only after a meld of your own ----------------------------------------------------------


def test_R12_1_a_lay_off_before_any_meld_of_ones_own_is_rejected():
    start = Deal.of(["KC QD JS", "TH KS 2D"], discard_pile="2C", stock="5C", table=[("7H 8H 9H", 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("TH", 0)]])
    error = illegal([idle(), seat1], start, Rules(**AFTER_MELD))
    assert error.rule == "R12.1"
    assert error.seat == 1
    assert "R12.1" in str(error)
    assert "after_meld" in str(error)


def test_R12_1_with_lay_off_any_the_same_lay_off_is_legal():
    start = Deal.of(["KC QD JS", "TH KS 2D"], discard_pile="2C", stock="5C", table=[("7H 8H 9H", 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("TH", 0)]], discards=[card("KS")])
    result = play_hand([idle(), seat1], rules=Rules(lay_off="any", stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TH"), 0)]
    assert seat1.views[-1].table[0].played_by(card("TH")) == 1


def test_R12_1_a_meld_then_a_lay_off_in_the_same_turn_is_legal_also_on_another_players_meld():
    start = Deal.of(["KC QD JS", "7H 8H 9H TS 2D"], discard_pile="2C", stock="KD", table=[("7S 8S 9S", 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("7H 8H 9H"), LayOff.of("TS", 0)]], discards=[card("KD")])
    result = play_hand([idle(), seat1], rules=Rules(**AFTER_MELD, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Melded) == [Melded(1, parse_cards("7H 8H 9H"), 1)]
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TS"), 0)]
    other_meld = seat1.views[-1].table[0]
    assert other_meld.melded_by == 0
    assert other_meld.played_by(card("TS")) == 1
    assert result.records[1].holding_end == "2D"


def test_R12_1_a_lay_off_on_ones_own_meld_of_the_same_turn_is_legal():
    start = Deal.of(["KC QD JS", "7H 8H 9H TH 2D"], discard_pile="2C", stock="KD")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("7H 8H 9H"), LayOff.of("TH", 0)]], discards=[card("KD")])
    result = play_hand([idle(), seat1], rules=Rules(**AFTER_MELD, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TH"), 0)]


def test_R12_1_a_meld_later_in_the_same_turn_does_not_count():
    start = Deal.of(["KC QD JS", "7H 8H 9H TS 2D"], discard_pile="2C", stock="KD", table=[("7S 8S 9S", 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("TS", 0), Meld.of("7H 8H 9H")]])
    error = illegal([idle(), seat1], start, Rules(**AFTER_MELD))
    assert error.rule == "R12.1"


def test_R12_1_a_meld_in_an_earlier_turn_makes_a_later_lay_off_legal():
    # Seat 1 melds 7H 8H 9H in its first turn and keeps TS; in its next turn it lays TS off on seat 0's meld.
    start = Deal.of(["KC QD JS 4C", "7H 8H 9H TS 2D 5D"], discard_pile="2C", stock="KD KH QH", table=[("7S 8S 9S", 0)])
    seat1 = Scripted(
        draws=[Pile.STOCK, Pile.STOCK],
        plays=[[Meld.of("7H 8H 9H")], [LayOff.of("TS", 0)]],
        discards=[card("KD"), card("QH")],
    )
    rules = Rules(**AFTER_MELD, stall_after_turns=3)
    result = play_hand([Passive(), seat1], rules=rules, start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TS"), 0)]
    assert result.records[1].holding_end == to_text(parse_cards("2D 5D"))
    assert result.stalled  # the scenario ran out of turns, as planned


def test_R12_1_a_meld_of_ones_own_already_on_the_table_counts():
    start = Deal.of(["KC QD JS", "TH KS 2D"], discard_pile="2C", stock="5C", table=[("7H 8H 9H", 1)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("TH", 0)]], discards=[card("KS")])
    result = play_hand([idle(), seat1], rules=Rules(**AFTER_MELD, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TH"), 0)]


def test_R12_1_cards_laid_off_earlier_do_not_count_as_a_meld_of_ones_own():
    # Seat 1 laid TH off on seat 0's meld earlier in the hand (as lay_off any would allow) and melded nothing:
    # under after_meld its next lay-off is still illegal, since only a meld of its own counts.
    start = Deal.of(["KC QD JS", "JH 2D 3D"], discard_pile="2C", stock="5C", table=[("7H 8H 9H TH", 0)])
    start = start._replace(table=(TableMeld(parse_cards("7H 8H 9H TH"), 0, ((card("TH"), 1),)),))
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("JH", 0)]])
    error = illegal([idle(), seat1], start, Rules(**AFTER_MELD))
    assert error.rule == "R12.1"
    assert seat1.views[0].table[0].played_by(card("TH")) == 1


# -- R12.2 use the discard you take ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "plays",
    [[], None, [Meld.of("3S 3D 3C")]],
    ids=["plays_nothing", "answers_none", "plays_other_cards"],
)
def test_R12_2_taking_the_discard_and_not_playing_it_is_rejected(plays):
    start = Deal.of(["KC QD JS", "7H 8H 3S 3D 3C KH"], discard_pile="2C 9S", stock="5C")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[plays], discards=[card("KH")])
    error = illegal([idle(), seat1], start, Rules(**MUST_USE))
    assert error.rule == "R12.2"
    assert error.seat == 1
    assert "9S" in str(error)
    assert len(seat1.views) == 2  # never asked to discard: the turn is rejected at the plays


def test_R12_2_with_take_discard_free_the_same_turn_is_legal():
    start = Deal.of(["KC QD JS", "7H 8H 3S 3D 3C KH"], discard_pile="2C 9S", stock="5C")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=[card("KH")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    assert result.records[1].holding_end == to_text(parse_cards("7H 8H 3S 3D 3C 9S"))


def test_R12_2_taking_the_discard_and_melding_it_is_legal():
    start = Deal.of(["KC QD JS", "7H 8H KH 2D"], discard_pile="2C 9H", stock="5C")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("7H 8H 9H")]], discards=[card("KH")])
    result = play_hand([idle(), seat1], rules=Rules(**MUST_USE, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Drew) == [Drew(1, Pile.DISCARD, card("9H"))]
    assert of_kind(result, Melded) == [Melded(1, parse_cards("7H 8H 9H"), 0)]
    assert of_kind(result, Discarded) == [Discarded(1, card("KH"))]


def test_R12_2_taking_the_discard_and_laying_it_off_is_legal():
    start = Deal.of(["KC QD JS", "KH 2D 4S"], discard_pile="2C TH", stock="5C", table=[("7H 8H 9H", 0)])
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[LayOff.of("TH", 0)]], discards=[card("KH")])
    result = play_hand([idle(), seat1], rules=Rules(**MUST_USE, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TH"), 0)]
    assert result.records[1].holding_end == to_text(parse_cards("2D 4S"))


def test_R12_2_and_R12_1_the_taken_card_may_not_be_laid_off_before_a_meld_of_ones_own():
    start = Deal.of(["KC QD JS", "KH 2D 4S"], discard_pile="2C TH", stock="5C", table=[("7H 8H 9H", 0)])
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[LayOff.of("TH", 0)]])
    error = illegal([idle(), seat1], start, Rules(**MUST_USE, **AFTER_MELD))
    assert error.rule == "R12.1"


@pytest.mark.parametrize(
    ("table", "plays", "went_out_by"),
    [
        ((), [Meld.of("7H 8H 9H")], WentOutBy.MELD),
        ([("7H 8H 9H", 0)], [LayOff.of("TH", 0), LayOff.of("JH", 0)], WentOutBy.LAY_OFF),
    ],
    ids=["meld", "lay_off"],
)
def test_R12_2_taking_the_discard_and_going_out_by_playing_it_is_legal_with_going_out_any(table, plays, went_out_by):
    holding = "7H 8H" if not table else "JH"
    taken = "9H" if not table else "TH"
    start = Deal.of(["KC QD JS", holding], discard_pile=f"2C {taken}", stock="5C", table=table)
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[plays])  # no discard scripted: it must not be asked
    rules = Rules(**MUST_USE, going_out="any")
    result = play_hand([idle(), seat1], rules=rules, start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is went_out_by
    assert result.went_rummy  # all its cards in one turn, none played before (R8.3)
    assert of_kind(result, Discarded) == []
    assert result.points == points(parse_cards("KC QD JS")) * 2


def test_R12_2_with_going_out_discard_R7_2_still_forbids_going_out_by_playing_the_taken_card():
    start = Deal.of(["KC QD JS", "7H 8H"], discard_pile="2C 9H", stock="5C")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("7H 8H 9H")]])
    error = illegal([idle(), seat1], start, Rules(**MUST_USE, going_out="discard"))
    assert error.rule == "R7.2"


def test_R12_2_with_going_out_discard_the_taken_card_is_melded_and_another_discarded_to_go_out():
    start = Deal.of(["KC QD JS", "7H 8H KH"], discard_pile="2C 9H", stock="5C")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("7H 8H 9H")]], discards=[card("KH")])
    result = play_hand([idle(), seat1], rules=Rules(**MUST_USE, going_out="discard"), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is WentOutBy.DISCARD
    assert result.went_rummy


def test_R12_2_R4_7_still_forbids_leaving_only_the_taken_card():
    # Seat 1 takes KD and melds its three hearts, leaving only KD: R4.7 names it before R12.2 would.
    start = Deal.of(["KC QD JS", "7H 8H 9H"], discard_pile="2S KD")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("7H 8H 9H")]])
    error = illegal([idle(), seat1], start, Rules(**MUST_USE))
    assert error.rule == "R4.7"


# -- R12.3 block rummy --------------------------------------------------------------------------------

# Three seats of 17 cards and the upcard take the whole deck: the stock is empty before the first turn.
SPADES_LOW, SPADES_MID, SPADES_HIGH = "AS 2S 3S 4S", "5S 6S 7S 8S", "9S TS JS QS"  # 10, 26 and 39 points


def seventeen_each(extras: tuple[str, str, str], upcard: str) -> Deal:
    holdings = [f"{suit(s)} {extra}" for s, extra in zip("CDH", extras, strict=True)]
    start = Deal.of(holdings, discard_pile=upcard)
    assert start.stock == ()
    return start


def assert_block(result, start: Deal, rules: Rules, *, winner: int | None) -> None:
    left = [points(h, ace_value=rules.ace_value) for h in (parse_cards(r.holding_end) for r in result.records)]
    assert result.went_out_by is WentOutBy.BLOCK
    assert result.winner == winner
    assert not result.went_rummy
    assert of_kind(result, StockRebuilt) == []
    (ended,) = of_kind(result, HandEnded)
    assert ended.went_out_by is WentOutBy.BLOCK
    assert ended.winner == winner
    if winner is None:
        assert result.points == 0
        assert result.stalled and ended.stalled
    else:
        assert result.points == sum(value - left[winner] for value in left)
        assert not result.stalled
    for record in result.records:
        assert record.went_out_by == "block"
        assert record.multiplier == 1
        assert not record.went_rummy
        assert record.n_rebuilds == 0
        assert record.won == (record.seat == winner)
        assert record.stalled == (winner is None)
        assert record.holding_points == left[record.seat]
    assert recompute_points(result.records, rules=rules) == result.points


def test_R12_3_an_empty_stock_at_the_first_turn_ends_the_hand_before_any_draw():
    rules = Rules(n_players=3, cards_dealt=17, **BLOCK, rummy_multiplier=4)
    start = seventeen_each((SPADES_LOW, SPADES_MID, SPADES_HIGH), "KS")
    assert values(start, rules) == [95, 111, 124]
    result = play_hand([idle(), idle(), idle()], rules=rules, start=start, dealer=2)
    assert of_kind(result, Drew) == []
    assert result.records[0].turns == 0
    assert_block(result, start, rules, winner=0)
    assert result.points == (111 - 95) + (124 - 95)
    assert result.records[0].points == result.points == 45
    assert [r.score for r in result.records] == [45, 0, 0]


def test_R12_3_the_lowest_hand_wins_whichever_seat_holds_it():
    rules = Rules(n_players=3, cards_dealt=17, **BLOCK)
    start = seventeen_each((SPADES_HIGH, SPADES_MID, SPADES_LOW), "KS")
    result = play_hand([idle(), idle(), idle()], rules=rules, start=start, dealer=0, scores=(3, 4, 5))
    assert_block(result, start, rules, winner=2)
    assert result.points == (124 - 95) + (111 - 95)
    assert [r.score for r in result.records] == [3, 4, 5 + 45]


def test_R12_3_a_random_deal_that_leaves_no_stock_is_blocked_at_once():
    rules = Rules(n_players=3, cards_dealt=17, **BLOCK)
    for seed in range(5):
        result = play_hand([idle(), idle(), idle()], rules=rules, seed=seed)
        left = values(result.deal, rules)
        lowest = min(left)
        winner = left.index(lowest) if left.count(lowest) == 1 else None
        assert of_kind(result, Drew) == []
        assert_block(result, result.deal, rules, winner=winner)


def test_R12_3_a_tie_for_the_lowest_hand_has_no_winner_and_no_score():
    rules = Rules(n_players=3, cards_dealt=17, **BLOCK)
    start = seventeen_each(("AS 2S 9S KS", "3S 4S 5S TS", "6S 7S 8S JS"), "QS")  # 22, 22 and 31 in spades
    assert values(start, rules) == [107, 107, 116]
    result = play_hand([idle(), idle(), idle()], rules=rules, start=start, dealer=0, scores=(1, 2, 3))
    assert_block(result, start, rules, winner=None)
    assert [r.score for r in result.records] == [1, 2, 3]
    assert [r.points for r in result.records] == [0, 0, 0]


@pytest.mark.parametrize(
    ("holdings", "ace_points", "winner", "won"),
    [
        (["KC", "KD", "KH QH"], None, None, 0),  # tie for the lowest, a higher third
        (["KC QC", "KD QD", "5H"], None, 2, 30),  # a tie for the highest does not matter
        (["AC", "AD"], 0, None, 0),  # two hands worth nothing tie
        (["AC", "2D"], 0, 0, 2),  # a hand worth nothing wins
    ],
    ids=["tie_lowest", "tie_highest", "zero_tie", "zero_wins"],
)
def test_R12_3_the_one_lowest_hand_wins_the_differences_and_a_tie_for_it_wins_nothing(
    holdings, ace_points, winner, won
):
    rules = Rules(n_players=len(holdings), **BLOCK, ace_points=ace_points)
    start = exact(holdings)  # every other card in the discard pile: the stock is empty
    result = play_hand([idle() for _ in holdings], rules=rules, start=start, dealer=0)
    assert_block(result, start, rules, winner=winner)
    assert result.points == won


def test_R12_3_a_hand_whose_last_stock_card_is_drawn_ends_at_the_next_turns_start():
    start = exact(["KC QD", "KH 3S"], stock="2C")
    seat1 = Passive()
    rules = Rules(**BLOCK)
    result = play_hand([idle(), seat1], rules=rules, start=start, dealer=0)
    assert result.events[1:3] == (Drew(1, Pile.STOCK, None), Discarded(1, card("2C")))
    assert len(of_kind(result, Drew)) == 1
    assert result.records[0].turns == 1
    assert_block(result, start, rules, winner=1)
    assert result.points == 20 - 13


def test_R12_3_under_rebuild_the_same_hand_rebuilds_the_stock_instead():
    start = exact(["KC QD", "KH 3S"], stock="2C")
    result = play_hand([Passive(), Passive()], rules=Rules(stall_after_turns=3), start=start, dealer=0)
    assert len(of_kind(result, StockRebuilt)) == 1
    assert result.went_out_by is None


def test_R12_3_taking_the_discard_leaves_the_stock_and_the_hand_goes_on():
    # The stock holds one card: seat 1 takes the discard instead, so seat 0 still finds a card to draw;
    # seat 0 draws it, and at seat 1's next turn the empty stock ends the hand.
    start = exact(["KC QD JS", "KH QH 3S 4D"], stock="2C", top="JH")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("JH QH KH")]], discards=[card("3S")])
    seat0 = Scripted(draws=[Pile.STOCK], plays=[[]], discards=[card("2C")])
    rules = Rules(**BLOCK, **MUST_USE)
    result = play_hand([seat0, seat1], rules=rules, start=start, dealer=0)
    assert [(e.seat, e.pile) for e in of_kind(result, Drew)] == [(1, Pile.DISCARD), (0, Pile.STOCK)]
    assert result.records[0].turns == 2
    assert_block(result, start, rules, winner=1)
    assert result.points == 30 - 4
    assert not result.went_rummy  # seat 1 melded, but a blocked hand is never rummy


def test_R12_3_stall_after_turns_still_stalls_unscored_and_is_checked_before_the_block():
    # After one turn the stock is empty and the turn limit is reached together: the stall wins.
    start = exact(["KC QD", "KH 3S"], stock="2C")
    rules = Rules(**BLOCK, stall_after_turns=1)
    result = play_hand([idle(), Passive()], rules=rules, start=start, dealer=0, scores=(5, 6))
    assert result.stalled
    assert result.winner is None
    assert result.points == 0
    assert result.went_out_by is None
    for record in result.records:
        assert record.went_out_by is None
        assert record.stalled and not record.won
        assert record.n_rebuilds == 0
    assert [r.score for r in result.records] == [5, 6]


def test_R12_3_stall_after_turns_stalls_a_blocked_hand_with_stock_left():
    start = exact(["KC QD", "KH 3S"], stock="2C 3C 4C")
    rules = Rules(**BLOCK, stall_after_turns=2)
    result = play_hand([Passive(), Passive()], rules=rules, start=start, dealer=0)
    assert result.stalled and result.went_out_by is None
    assert len(of_kind(result, Drew)) == 2


@pytest.mark.parametrize(
    ("hands", "n_hands", "n_stalled", "stalled"),
    [
        ("TTT", 3, 3, True),
        ("TTWTTT", 6, 5, True),
        ("TTWTT", 5, 4, False),
    ],
)
def test_R12_3_tied_blocks_count_toward_stall_after_hands_in_a_game(monkeypatch, hands, n_hands, n_stalled, stalled):
    """Every hand is dealt so the stock is empty: T a tie for the lowest hand, W a win for seat 0 by 45."""
    tie = seventeen_each(("AS 2S 9S KS", "3S 4S 5S TS", "6S 7S 8S JS"), "QS")
    win = seventeen_each((SPADES_LOW, SPADES_MID, SPADES_HIGH), "KS")
    deals = iter([tie if h == "T" else win for h in hands])
    monkeypatch.setattr(engine_module, "deal", lambda rules, *, dealer, key: next(deals))
    rules = Rules(n_players=3, cards_dealt=17, **BLOCK, stall_after_hands=3, max_hands=len(hands), target_score=None)
    result = play_game([idle(), idle(), idle()], rules=rules, seed=1)
    assert all(r.went_out_by == "block" and r.turns == 0 for r in result.hands)
    assert [r.stalled for r in result.hands if r.seat == 0] == [h == "T" for h in hands[:n_hands]]
    for game in result.games:
        assert game.n_hands == n_hands
        assert game.n_stalled == n_stalled
        assert game.stalled == stalled
    assert result.scores == (45 * hands.count("W"), 0, 0)


# -- the bots under the house rules --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("holding", "table", "top", "played"),
    [
        ("7H 8H KC QD 2S", (), "9H", Melded(1, parse_cards("7H 8H 9H"), 0)),
        ("KC QD 2S 5D", [("7H 8H 9H", 0)], "TH", LaidOff(1, card("TH"), 0)),
    ],
    ids=["melds_it", "lays_it_off"],
)
def test_R12_2_greedy_takes_a_usable_discard_and_plays_it(holding, table, top, played):
    start = Deal.of(["KS QS JS", holding], discard_pile=f"2C {top}", stock="4C", table=table)
    bot = Greedy()
    result = play_hand([idle(), bot], rules=Rules(**MUST_USE, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Drew) == [Drew(1, Pile.DISCARD, card(top))]
    assert played in result.events
    assert not parse_cards(result.records[1].holding_end) >> card(top) & 1


@pytest.mark.parametrize(
    ("rules", "pile"),
    [
        (Rules(**AFTER_MELD, **MUST_USE), Pile.STOCK),
        (Rules(**AFTER_MELD), Pile.STOCK),
        (Rules(**MUST_USE), Pile.DISCARD),
        (Rules(), Pile.DISCARD),
    ],
    ids=["after_meld_must_use", "after_meld_free", "any_must_use", "any_free"],
)
def test_R12_1_greedy_does_not_take_a_discard_it_could_only_lay_off_before_it_has_melded(rules, pile):
    start = Deal.of(["KS QS JS", "KC QD 2S 5D"], discard_pile="2C TH", stock="4C", table=[("7H 8H 9H", 0)])
    result = play_hand([idle(), Greedy()], rules=rules.replace(stall_after_turns=1), start=start, dealer=0)
    (drew,) = of_kind(result, Drew)
    assert drew.pile is pile
    assert of_kind(result, LaidOff) == ([LaidOff(1, card("TH"), 0)] if pile is Pile.DISCARD else [])


def test_R12_1_greedy_melds_first_then_lays_off_on_another_players_meld():
    start = Deal.of(["KS QS JS", "7H 8H 9H TS 2D"], discard_pile="2C", stock="KC", table=[("7S 8S 9S", 0)])
    bot = Greedy()
    rules = Rules(**AFTER_MELD, stall_after_turns=1)
    result = play_hand([idle(), bot], rules=rules, start=start, dealer=0)
    plays = [e for e in result.events if isinstance(e, (Melded, LaidOff))]
    assert plays == [Melded(1, parse_cards("7H 8H 9H"), 1), LaidOff(1, card("TS"), 0)]
    assert of_kind(result, Discarded) == [Discarded(1, card("KC"))]


def test_R12_1_greedy_lays_off_once_it_has_melded_in_an_earlier_turn():
    # Seat 1 has a meld of its own on the table: under after_meld it may lay TS off on seat 0's meld.
    start = Deal.of(["KS QS JS", "TS 2D 5C"], discard_pile="2C", stock="KC", table=[("7S 8S 9S", 0), ("3H 4H 5H", 1)])
    result = play_hand([idle(), Greedy()], rules=Rules(**AFTER_MELD, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("TS"), 0)]


def test_R12_1_greedy_holds_back_a_lay_off_until_it_has_melded():
    start = Deal.of(["KS QS JS", "TS 2D 5C"], discard_pile="2C", stock="KC", table=[("7S 8S 9S", 0)])
    result = play_hand([idle(), Greedy()], rules=Rules(**AFTER_MELD, stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, LaidOff) == []
    assert of_kind(result, Discarded) == [Discarded(1, card("KC"))]


# Seat 1 holds a meld (7H 8H 9H) and deadwood; seat 0 holds plenty, so rummy_hunter would hide its meld.
HUNTER = "7H 8H 9H KC QD 2S 4D"
OTHER = "KS QS JS 5C 6D 9C 3D"


@pytest.mark.parametrize(
    ("stock", "stock_out", "melds"),
    [
        ("2C 3C", "block", True),  # one card left after its draw: fewer than the 2 players
        ("AC", "block", True),
        ("2C 3C 4C", "block", False),  # two left after its draw: it may still wait
        ("2C 3C", "rebuild", False),  # an empty stock is rebuilt: no hurry
    ],
)
def test_R12_3_rummy_hunter_plays_its_melds_down_when_the_block_is_near(stock, stock_out, melds):
    start = exact([OTHER, HUNTER], stock=stock, top="TC")
    rules = Rules(stock_out=stock_out, stall_after_turns=1)
    result = play_hand([idle(), RummyHunter()], rules=rules, start=start, dealer=0)
    assert of_kind(result, Drew) == [Drew(1, Pile.STOCK, None)]
    assert of_kind(result, Melded) == ([Melded(1, parse_cards("7H 8H 9H"), 0)] if melds else [])


@pytest.mark.parametrize(("take_discard", "melds"), [("must_use", True), ("free", False)])
def test_R12_2_rummy_hunter_stops_hiding_when_it_holds_a_card_taken_under_must_use(take_discard, melds):
    start = Deal.of(["KS QS JS 5C 6D 9C 3D", "7H 8H KC QD 2S 4D 6C"], discard_pile="2C 9H", stock="4C")
    rules = Rules(take_discard=take_discard, stall_after_turns=1)
    result = play_hand([idle(), RummyHunter()], rules=rules, start=start, dealer=0)
    assert of_kind(result, Drew) == [Drew(1, Pile.DISCARD, card("9H"))]
    assert of_kind(result, Melded) == ([Melded(1, parse_cards("7H 8H 9H"), 0)] if melds else [])


def test_R12_2_uniform_always_draws_from_the_stock_when_the_top_discard_is_unusable():
    # 7C fits nothing seat 1 holds, and there is nothing on the table.
    start = Deal.of(["KS QS JS", "KC QD 2S 5H 9D"], discard_pile="2H 7C", stock="4C")
    piles = {"must_use": set(), "free": set()}
    for take_discard, seen in piles.items():
        for seed in range(40):
            bot = Uniform(rng=np.random.default_rng(seed))
            rules = Rules(take_discard=take_discard, stall_after_turns=1)
            result = play_hand([idle(), bot], rules=rules, start=start, dealer=0)
            seen |= {e.pile for e in of_kind(result, Drew)}
    assert piles["must_use"] == {Pile.STOCK}
    assert piles["free"] == {Pile.STOCK, Pile.DISCARD}  # the check above is not vacuous


def test_R12_2_uniform_takes_a_usable_discard_only_to_play_it():
    start = Deal.of(["KS QS JS", "3S 3D KC QD 9D"], discard_pile="2H 3C", stock="4C")
    took = 0
    for seed in range(40):
        bot = Uniform(rng=np.random.default_rng(seed))
        rules = Rules(**MUST_USE, stall_after_turns=1)
        result = play_hand([idle(), bot], rules=rules, start=start, dealer=0)
        (drew,) = of_kind(result, Drew)
        if drew.pile is Pile.DISCARD:
            took += 1
            assert Melded(1, parse_cards("3S 3D 3C"), 0) in result.events
            assert not parse_cards(result.records[1].holding_end) >> card("3C") & 1
    assert 0 < took < 40


def _mask_of(code: str) -> int:
    return 1 << card(code) if code else 0


HOUSE_RULES = list(itertools.product(["any", "after_meld"], ["free", "must_use"], ["rebuild", "block"]))
LADDER = ["uniform", "greedy", "rummy_hunter", "cautious"]


class Checks:
    """Check each hand of a game against the house rules from its public log and its trace."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n_hands = self.blocked = 0

    def __call__(self, result) -> None:
        rules = self.rules
        self.n_hands += 1
        melded: set[int] = set(m.melded_by for m in (result.deal.table if result.deal else ()))
        for event in result.events:
            if isinstance(event, Melded):
                melded.add(event.seat)
            elif isinstance(event, LaidOff) and rules.lay_off == "after_meld":
                assert event.seat in melded, f"R12.1: seat {event.seat} laid off before melding"
        if rules.take_discard == "must_use":
            for turn in result.turns:
                if turn.pile == "discard":
                    assert not parse_cards(turn.holding) & _mask_of(turn.drew), f"R12.2: kept {turn.drew}"
        stock_draws = sum(1 for e in result.events if isinstance(e, Drew) and e.pile is Pile.STOCK)
        if rules.stock_out == "block":
            assert not any(isinstance(e, StockRebuilt) for e in result.events)
            assert all(r.n_rebuilds == 0 for r in result.records)
            assert stock_draws <= len(result.deal.stock)
            if result.went_out_by is WentOutBy.BLOCK:
                self.blocked += 1
                assert stock_draws == len(result.deal.stock)
                assert recompute_points(result.records, rules=rules) == result.points
                assert result.stalled == (result.winner is None)
        else:
            assert result.went_out_by is not WentOutBy.BLOCK
        if not result.stalled:
            assert recompute_points(result.records, rules=rules) == result.points


@pytest.mark.parametrize("n_players", range(2, 7))
def test_R12_the_built_in_bots_play_every_combination_of_house_rules_legally(n_players):
    blocked = 0
    for i, (lay_off, take_discard, stock_out) in enumerate(HOUSE_RULES):
        lineup = [LADDER[(seat + i) % len(LADDER)] for seat in range(n_players)]
        rules = Rules(
            n_players=n_players, lay_off=lay_off, take_discard=take_discard, stock_out=stock_out,
            max_hands=4, target_score=None,
        )  # fmt: skip
        checks = Checks(rules)
        result = play_game(lineup, rules=rules, seed=100 * n_players + i, audit=True, trace=True, on_hand=checks)
        assert checks.n_hands == len(result.hands) // n_players == 4
        blocked += checks.blocked
    assert blocked > 0  # some hands did run the stock out under block


@pytest.mark.parametrize(("lay_off", "take_discard", "stock_out"), HOUSE_RULES)
def test_R12_greedy_alone_never_keeps_a_taken_card_nor_lays_off_early(lay_off, take_discard, stock_out):
    for n_players in (2, 4, 6):
        rules = Rules(
            n_players=n_players, lay_off=lay_off, take_discard=take_discard, stock_out=stock_out,
            max_hands=3, target_score=None,
        )  # fmt: skip
        checks = Checks(rules)
        play_game(["greedy"] * n_players, rules=rules, seed=7 + n_players, audit=True, trace=True, on_hand=checks)
        assert checks.n_hands == 3


@pytest.mark.parametrize("stock_out", ["rebuild", "block"])
def test_R12_montecarlo_plays_the_house_rules_legally(stock_out):
    montecarlo = {"strategy": "montecarlo", "samples": 4, "depth": 8}
    rules = Rules(
        n_players=3, lay_off="after_meld", take_discard="must_use", stock_out=stock_out, max_hands=2, target_score=None
    )
    checks = Checks(rules)
    play_game([montecarlo, "greedy", montecarlo], rules=rules, seed=3, audit=True, trace=True, on_hand=checks)
    assert checks.n_hands == 2


def test_R12_2_uniform_is_fuzzed_under_every_house_rule():
    for i, (lay_off, take_discard, stock_out) in enumerate(HOUSE_RULES):
        rules = Rules(
            n_players=3, lay_off=lay_off, take_discard=take_discard, stock_out=stock_out,
            max_hands=5, target_score=None, stall_after_turns=200,
        )  # fmt: skip
        checks = Checks(rules)
        play_game(["uniform"] * 3, rules=rules, seed=i, audit=True, trace=True, on_hand=checks)
        assert checks.n_hands == 5
