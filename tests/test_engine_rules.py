"""Scenario tests of one hand, R3 to R10 of docs/rulebook.md, each test named after its rule.

Every scenario stacks a deal from card strings with `Deal.of` and plays it through
`play_hand` with scripted bots, so that each move is the rulebook's own example rather
than a chance of the shuffle. A seat built with `idle()` must never be asked anything:
the scenario ends before its turn, and asking it would fail the hand.
"""

from __future__ import annotations

import functools
import operator

import pytest
from conftest import Passive, Scripted, idle, rest_of_deck, suit

from rummysim.cards import FULL_DECK, parse_card, parse_cards, points, to_text
from rummysim.dealing import Deal, deal
from rummysim.engine import play_hand
from rummysim.errors import IllegalMoveError, StrategyError
from rummysim.melds import MeldKind
from rummysim.moves import (
    Discarded,
    Drew,
    HandEnded,
    HandStarted,
    LaidOff,
    LayOff,
    Meld,
    Melded,
    Pile,
    StockRebuilt,
    WentOutBy,
)
from rummysim.records import recompute_points
from rummysim.rules import Rules
from rummysim.strategies.base import PlayerView
from rummysim.strategies.greedy import Greedy

card = parse_card


def of_kind(result, kind) -> list:
    """Return the events of one kind in a hand's public log, in order."""
    return [e for e in result.events if isinstance(e, kind)]


def n_accounted(view: PlayerView) -> int:
    """Return how many cards a view accounts for: holdings, discard pile, stock and table."""
    on_table = sum(m.cards.bit_count() for m in view.table)
    return sum(view.holding_sizes) + len(view.discard_pile) + view.stock_size + on_table


def illegal(bots, start: Deal, *, rules: Rules | None = None, dealer: int = 0, seed: int = 0) -> IllegalMoveError:
    """Play a stacked hand that must end in an illegal move; return the error."""
    with pytest.raises(IllegalMoveError) as caught:
        play_hand(bots, rules=rules or Rules(), start=start, dealer=dealer, seed=seed)
    return caught.value


# -- R3 setup of a hand ------------------------------------------------------------------


@pytest.mark.parametrize(("n_players", "n_dealt"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_r3_2_cards_dealt_follow_the_player_count(n_players, n_dealt):
    rules = Rules(n_players=n_players)
    start = deal(rules, dealer=n_players - 1, key=n_players)
    assert [h.bit_count() for h in start.holdings] == [n_dealt] * n_players
    assert len(start.stock) == 52 - n_players * n_dealt - 1


def test_r3_2_cards_dealt_is_a_rule_setting():
    start = deal(Rules(n_players=4, cards_dealt=12), dealer=2, key=5)
    assert [h.bit_count() for h in start.holdings] == [12] * 4
    assert len(start.stock) == 3


def test_r3_2_play_hand_deals_from_the_seed_when_no_deal_is_stacked():
    bots = [Passive(), Passive(), Passive()]
    play_hand(bots, rules=Rules(n_players=3, stall_after_turns=3), seed=11, dealer=0)
    first = bots[1].views[0]
    assert first.holding_sizes == (7, 7, 7)
    assert len(first.discard_pile) == 1
    assert first.stock_size == 52 - 21 - 1


def test_r3_3_undealt_cards_form_the_stock_and_its_top_card_starts_the_discard_pile():
    rules = Rules(n_players=3, stall_after_turns=1)
    start = deal(rules, dealer=1, key=2024)
    (upcard,) = start.discard_pile
    places = [*start.holdings, 1 << upcard, *(1 << c for c in start.stock)]
    assert functools.reduce(operator.or_, places) == FULL_DECK
    assert sum(p.bit_count() for p in places) == 52  # so no card is in two places
    assert len(start.stock) == 52 - 3 * 7 - 1

    bots = [Passive(), Passive(), Passive()]
    result = play_hand(bots, rules=rules, start=start, dealer=1)
    assert of_kind(result, HandStarted) == [HandStarted(0, 1, upcard)]
    first_view, play_view = bots[2].views[:2]
    assert first_view.discard_pile == (upcard,)
    assert first_view.stock_size == 30
    assert play_view.drawn == start.stock[0]  # the stock is drawn from its top


def test_r3_1_the_same_shuffle_deals_the_same_cards():
    rules = Rules(n_players=4)
    same = [deal(rules, dealer=0, key=9) for _ in range(2)]
    other = deal(rules, dealer=0, key=10)
    assert same[0] == same[1]
    assert other != same[0]


@pytest.mark.parametrize("dealer", range(4))
def test_r3_4_the_seat_left_of_the_dealer_plays_first_then_play_goes_in_seat_order(dealer):
    rules = Rules(n_players=4, stall_after_turns=8)
    result = play_hand([Passive() for _ in range(4)], rules=rules, dealer=dealer, seed=3)
    first = (dealer + 1) % 4
    assert [e.seat for e in of_kind(result, Drew)] == [(first + i) % 4 for i in range(8)]
    assert {r.seat: r.position for r in result.records} == {(first + i) % 4: i for i in range(4)}
    assert all(r.dealer == dealer for r in result.records)


# -- R4 a turn -----------------------------------------------------------------------------


def test_r4_1_draw_the_top_of_the_stock():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[]], discards=[card("5H")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    play_view = seat1.views[1]
    assert play_view.drawn == card("5H")
    assert play_view.taken is None
    assert play_view.holding == parse_cards("KS QH JD 5H")
    assert play_view.stock_size == seat1.views[0].stock_size - 1
    assert of_kind(result, Drew) == [Drew(1, Pile.STOCK, None)]  # a stock card is not shown


def test_r4_1_draw_the_top_of_the_discard_pile():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=[card("KS")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    play_view = seat1.views[1]
    assert play_view.drawn == play_view.taken == card("9S")
    assert play_view.holding == parse_cards("KS QH JD 9S")
    assert play_view.discard_pile == (card("2C"),)
    assert play_view.stock_size == seat1.views[0].stock_size
    assert of_kind(result, Drew) == [Drew(1, Pile.DISCARD, card("9S"))]


def test_r4_3_the_turn_ends_with_one_card_discarded_face_up_on_the_pile():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[]], discards=[card("QH")])
    seat0 = Passive()
    result = play_hand([seat0, seat1], rules=Rules(stall_after_turns=2), start=start, dealer=0)
    assert of_kind(result, Discarded)[0] == Discarded(1, card("QH"))
    next_view = seat0.views[0]
    assert next_view.discard_pile == tuple(map(card, ["2C", "9S", "QH"]))
    assert next_view.holding_sizes == (3, 3)
    assert result.records[1].holding_end == to_text(parse_cards("KS JD 5H"))


def test_r4_4_a_player_who_melds_all_cards_does_not_discard():
    start = Deal.of(["KC QD JS", "7H 8H 9H 3S 3D"], discard_pile="2C", stock="3C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("7H 8H 9H"), Meld.of("3S 3D 3C")]])  # no discard scripted
    result = play_hand([idle(), seat1], rules=Rules(), start=start, dealer=0, trace=True)
    assert len(seat1.views) == 2  # asked to draw and to play, never to discard
    assert of_kind(result, Discarded) == []
    assert result.winner == 1
    assert result.went_out_by is WentOutBy.MELD
    assert result.turns[0].discard == ""


def test_r4_5_cannot_discard_card_taken_from_discard_pile():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[]], discards=[card("9S")])
    error = illegal([idle(), seat1], start, seed=41)
    assert error.rule == "R4.5"
    assert error.seat == 1
    assert error.strategy == "scripted"
    message = str(error)
    assert "R4.5" in message
    assert "seat 1 (scripted)" in message
    assert "9S" in message
    assert "seed=41" in message


def test_r4_5_the_taken_card_may_be_discarded_on_a_later_turn():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.DISCARD, Pile.STOCK], plays=[[], []], discards=[card("KS"), card("9S")])
    result = play_hand([Passive(), seat1], rules=Rules(stall_after_turns=3), start=start, dealer=0)
    assert of_kind(result, Discarded)[-1] == Discarded(1, card("9S"))
    assert result.stalled


def test_r4_6_cannot_draw_from_an_empty_discard_pile():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.DISCARD])
    error = illegal([idle(), seat1], start)
    assert error.rule == "R4.6"
    assert seat1.views[0].top_discard is None
    assert "stock" in str(error)


def test_r4_6_with_an_empty_discard_pile_the_player_draws_from_the_stock():
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="", stock="5H 6D")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[]], discards=[card("KS")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Drew) == [Drew(1, Pile.STOCK, None)]
    assert seat1.views[0].discard_pile == ()
    assert of_kind(result, Discarded) == [Discarded(1, card("KS"))]


@pytest.mark.parametrize(
    ("holding", "table", "plays"),
    [
        ("7H 8H 9H", [], [Meld.of("7H 8H 9H")]),
        ("4C", [("AC 2C 3C", 0)], [LayOff.of("4C", 0)]),
    ],
    ids=["meld", "lay_off"],
)
def test_r4_7_may_not_leave_only_the_card_taken_from_the_discard_pile(holding, table, plays):
    start = Deal.of(["KC QD JS", holding], discard_pile="2S KD", table=table)
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[plays])
    error = illegal([idle(), seat1], start)
    assert error.rule == "R4.7"
    assert "KD" in str(error)


def test_r4_7_plays_may_leave_the_taken_card_with_another():
    start = Deal.of(["KC QD JS", "7H 8H 9H 2S"], discard_pile="5C KD")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[[Meld.of("7H 8H 9H")]], discards=[card("2S")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    assert result.records[1].holding_end == "KD"


@pytest.mark.parametrize(
    ("plays", "went_out_by"),
    [
        ([Meld.of("7H 8H 9H TH")], WentOutBy.MELD),
        ([Meld.of("7H 8H 9H"), LayOff.of("TH", 0)], WentOutBy.LAY_OFF),
    ],
    ids=["meld", "lay_off"],
)
def test_r4_7_with_going_out_any_the_taken_card_may_be_played_too_to_go_out(plays, went_out_by):
    start = Deal.of(["KC QD JS", "7H 8H 9H"], discard_pile="2C TH")
    seat1 = Scripted(draws=[Pile.DISCARD], plays=[plays])
    result = play_hand([idle(), seat1], rules=Rules(going_out="any"), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is went_out_by


def test_r4_8_and_r10_1_an_empty_stock_is_rebuilt_from_the_discard_pile_but_its_top_card():
    # The stock is one card; the other 47 undealt cards are in the discard pile.
    pile = rest_of_deck("KC QD", "KH QS", "2C")
    start = Deal.of(["KC QD", "KH QS"], discard_pile=pile, stock="2C")
    bots = [Passive(), Passive()]
    rules = Rules(stall_after_rebuilds=1)
    result = play_hand(bots, rules=rules, start=start, dealer=0, key=8, trace=True)

    # Seat 1 draws the last stock card and discards it; seat 0 then finds the stock empty.
    assert result.turns[0].drew == "2C"
    assert result.events[1:5] == (
        Drew(1, Pile.STOCK, None),
        Discarded(1, card("2C")),
        StockRebuilt(47),
        Drew(0, Pile.STOCK, None),
    )
    after = bots[0].views[1]  # seat 0's view right after drawing from the new stock
    assert after.discard_pile == (card("2C"),)  # the top card stayed as the discard pile
    assert after.stock_size == 46
    assert after.n_rebuilds == 1

    # The new stock is every card of the pile but its top card (2C), shuffled: drawn over the next 47 turns.
    new_stock = [t.drew for t in result.turns[1:48]]
    old_pile = pile.split()
    assert sorted(new_stock) == sorted(old_pile)
    assert new_stock not in (old_pile, old_pile[::-1])

    for view in bots[0].views + bots[1].views:
        assert n_accounted(view) == 52

    # A second rebuild is one more than stall_after_rebuilds allows (R10.2).
    assert result.stalled
    assert result.records[0].n_rebuilds == 1
    assert result.records[0].turns == 48


# -- R10.2 stalled hands ------------------------------------------------------------------


def assert_stalled_without_score(result, scores):
    assert result.stalled
    assert result.winner is None
    assert result.points == 0
    assert result.went_out_by is None
    assert of_kind(result, HandEnded)[0].stalled
    for record, score in zip(result.records, scores, strict=True):
        assert record.stalled
        assert not record.won
        assert record.points == 0
        assert record.score == score
        assert record.went_out_by is None
        assert record.multiplier == 1


@pytest.mark.parametrize("stall_after_rebuilds", [0, 2])
def test_r10_2_hand_stalls_when_the_stock_would_be_rebuilt_more_than_stall_after_rebuilds_times(stall_after_rebuilds):
    pile = rest_of_deck("KC QD", "KH QS", "2C")
    start = Deal.of(["KC QD", "KH QS"], discard_pile=pile, stock="2C")
    rules = Rules(stall_after_rebuilds=stall_after_rebuilds)
    result = play_hand([Passive(), Passive()], rules=rules, start=start, dealer=0, scores=(7, 30))
    assert_stalled_without_score(result, (7, 30))
    assert len(of_kind(result, StockRebuilt)) == stall_after_rebuilds
    assert result.records[0].n_rebuilds == stall_after_rebuilds


def test_r10_2_hand_stalls_after_stall_after_turns_turns():
    rules = Rules(stall_after_turns=7)
    result = play_hand([Passive(), Passive()], rules=rules, seed=4, scores=(12, 0))
    assert_stalled_without_score(result, (12, 0))
    assert len(of_kind(result, Discarded)) == 7
    assert result.records[0].turns == 7


def test_r10_2_hand_stalls_when_the_stock_is_empty_and_there_is_nothing_to_rebuild_it_from():
    # Every card is held but the KS, which is the whole discard pile: the stock is empty.
    hearts_spades = rest_of_deck(suit("C"), suit("D"), "KS")
    start = Deal.of([f"{suit('C')} {suit('D')}", hearts_spades], discard_pile="KS", stock="")
    bots = [Passive(), Passive()]
    result = play_hand(bots, rules=Rules(), start=start, dealer=0)
    assert bots[1].views[0].stock_size == 0
    assert_stalled_without_score(result, (0, 0))
    assert of_kind(result, StockRebuilt) == []
    assert result.records[0].turns == 0


# -- R5 melds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meld", "kind"),
    [
        ("7C 7D 7H", MeldKind.GROUP),
        ("7C 7D 7H 7S", MeldKind.GROUP),
        ("4H 5H 6H", MeldKind.SEQUENCE),
        ("4H 5H 6H 7H 8H 9H", MeldKind.SEQUENCE),
        ("AS 2S 3S", MeldKind.SEQUENCE),
    ],
)
def test_r5_1_r5_2_r5_4_a_legal_meld_is_played_face_up_in_front_of_the_player(meld, kind):
    start = Deal.of(["KC QD JS", meld + " KD"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of(meld)]], discards=[card("KD")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Melded) == [Melded(1, parse_cards(meld), 0)]
    (on_table,) = seat1.views[-1].table
    assert on_table.cards == parse_cards(meld)
    assert on_table.melded_by == 1
    assert on_table.kind is kind
    assert result.records[1].holding_end == "9C"


@pytest.mark.parametrize(
    ("meld", "rule"),
    [
        ("7C 7D", "R5.1"),
        ("7C 7D 7H 8H", "R5.1"),
        ("7H 8H TH", "R5.2"),
        ("7H 8D 9H", "R5.2"),
        ("QH KH AH", "R5.3"),
        ("KH AH 2H", "R5.3"),
    ],
)
def test_r5_an_illegal_meld_is_rejected_citing_the_rule(meld, rule):
    start = Deal.of(["KC QD JS", meld + " 5S"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of(meld)]])
    error = illegal([idle(), seat1], start)
    assert rule in error.rule
    assert rule in str(error)
    assert error.seat == 1


def test_r5_a_meld_of_cards_not_held_is_rejected():
    start = Deal.of(["KC QD JS", "7H 8H 5S"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("7H 8H 9H")]])
    error = illegal([idle(), seat1], start)
    assert error.rule == "R4.2"
    assert "9H" in str(error)


# -- R6 laying off ---------------------------------------------------------------------------


def lay_off_scenario(table: str, holding: str, lay_offs: list[str]):
    """Seat 0 melded `table`; seat 1 lays off `lay_offs` in one turn and discards KD."""
    start = Deal.of(["2S 4D", holding + " KD"], discard_pile="2C", stock="9C", table=[(table, 0)])
    plays = [LayOff.of(code, 0) for code in lay_offs]
    seat1 = Scripted(draws=[Pile.STOCK], plays=[plays], discards=[card("KD")])
    result = play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    (meld,) = seat1.views[-1].table
    return result, meld


def test_r6_3_three_eights_accept_the_fourth_eight():
    result, meld = lay_off_scenario("8C 8D 8H", "8S", ["8S"])
    assert meld.cards == parse_cards("8C 8D 8H 8S")
    assert of_kind(result, LaidOff) == [LaidOff(1, card("8S"), 0)]


def test_r6_3_eight_nine_ten_of_hearts_accept_the_seven_and_the_jack():
    result, meld = lay_off_scenario("8H 9H TH", "7H JH", ["7H", "JH"])
    assert meld.cards == parse_cards("7H 8H 9H TH JH")
    assert [e.card for e in of_kind(result, LaidOff)] == [card("7H"), card("JH")]


def test_r6_3_three_four_five_of_clubs_accept_the_six_then_the_seven_in_one_turn():
    result, meld = lay_off_scenario("3C 4C 5C", "6C 7C", ["6C", "7C"])
    assert meld.cards == parse_cards("3C 4C 5C 6C 7C")
    assert result.records[1].holding_end == "9C"


def test_r6_1_the_seven_of_clubs_does_not_fit_three_four_five_before_the_six():
    start = Deal.of(["2S 4D", "6C 7C KD"], discard_pile="2C", stock="9C", table=[("3C 4C 5C", 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("7C", 0), LayOff.of("6C", 0)]])
    error = illegal([idle(), seat1], start)
    assert error.rule == "R6.1"
    assert "7C" in str(error)


@pytest.mark.parametrize(
    ("table", "lay_off"),
    [("8C 8D 8H", "9C"), ("8C 8D 8H 8S", "9C"), ("8H 9H TH", "QH"), ("8H 9H TH", "JC")],
)
def test_r6_1_a_card_that_fits_no_meld_is_rejected(table, lay_off):
    start = Deal.of(["2S 4D", lay_off + " KD"], discard_pile="2C", stock="5C", table=[(table, 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of(lay_off, 0)]])
    assert illegal([idle(), seat1], start).rule == "R6.1"


def test_r6_1_a_card_may_be_laid_off_on_a_meld_played_earlier_in_the_same_turn():
    start = Deal.of(["2S 4D", "4H 5H 6H 7H KD"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("4H 5H 6H"), LayOff.of("7H", 0)]], discards=[card("KD")])
    play_hand([idle(), seat1], rules=Rules(stall_after_turns=1), start=start, dealer=0)
    (meld,) = seat1.views[-1].table
    assert meld.cards == parse_cards("4H 5H 6H 7H")
    assert meld.melded_by == meld.played_by(card("7H")) == 1


def test_r6_2_laid_off_cards_are_placed_in_front_of_the_player_who_laid_them_off():
    # Seat 0 melds 8-9-10 of hearts; seat 1 lays off the 7 and seat 2 the jack on it.
    start = Deal.of(["8H 9H TH 2C", "7H 2D", "JH 2S"], discard_pile="5D", stock="KC KD KS")
    seats = [
        Scripted(draws=[Pile.STOCK], plays=[[Meld.of("8H 9H TH")]], discards=[card("KC")]),
        Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("7H", 0)]], discards=[card("KD")]),
        Scripted(draws=[Pile.STOCK], plays=[[LayOff.of("JH", 0)]], discards=[card("KS")]),
    ]
    result = play_hand(seats, rules=Rules(n_players=3, stall_after_turns=3), start=start, dealer=2)
    assert of_kind(result, LaidOff) == [LaidOff(1, card("7H"), 0), LaidOff(2, card("JH"), 0)]
    (meld,) = seats[2].views[-1].table
    assert meld.cards == parse_cards("7H 8H 9H TH JH")
    assert meld.melded_by == 0
    assert meld.laid_off == ((card("7H"), 1), (card("JH"), 2))
    assert {code: meld.played_by(card(code)) for code in ["7H", "8H", "9H", "TH", "JH"]} == {
        "7H": 1,
        "8H": 0,
        "9H": 0,
        "TH": 0,
        "JH": 2,
    }
    with pytest.raises(KeyError):
        meld.played_by(card("QH"))
    assert seats[2].views[-1].has_melded == (True, True, True)


# -- R7 going out ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("holding", "stock", "plays", "discards", "went_out_by"),
    [
        ("7H 8H 9H 5S 5D", "5C", [Meld.of("7H 8H 9H"), Meld.of("5S 5D 5C")], [], WentOutBy.MELD),
        ("7H 8H 9H 3S", "TH", [Meld.of("7H 8H 9H"), LayOff.of("3S", 0), LayOff.of("TH", 1)], [], WentOutBy.LAY_OFF),
        ("7H 8H 9H 3S", "KD", [Meld.of("7H 8H 9H"), LayOff.of("3S", 0)], [card("KD")], WentOutBy.DISCARD),
    ],
    ids=["meld", "lay_off", "discard"],
)
def test_r7_1_a_player_goes_out_by_playing_the_last_card_and_the_hand_ends_at_once(
    holding, stock, plays, discards, went_out_by
):
    start = Deal.of(["KC QD JS", holding, "6C 6D"], discard_pile="2C", stock=stock, table=[("3C 3D 3H", 2)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[plays], discards=discards)
    result = play_hand([idle(), seat1, idle()], rules=Rules(n_players=3), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is went_out_by
    assert result.records[1].went_out_by == went_out_by.value
    assert result.records[1].holding_end == ""
    assert result.records[1].turns == 1
    assert isinstance(result.events[-1], HandEnded)
    assert not isinstance(result.events[-2], Drew)  # nobody played after the last card left


@pytest.mark.parametrize(
    ("holding", "stock", "table", "plays"),
    [
        ("7H 8H 9H 3S 3D", "3C", [], [Meld.of("7H 8H 9H"), Meld.of("3S 3D 3C")]),
        ("7H 8H 9H", "3S", [("3C 3D 3H", 0)], [Meld.of("7H 8H 9H"), LayOff.of("3S", 0)]),
    ],
    ids=["meld", "lay_off"],
)
def test_r7_2_with_discard_to_go_out_a_player_may_not_meld_or_lay_off_every_card(holding, stock, table, plays):
    start = Deal.of(["KC QD JS", holding], discard_pile="2C", stock=stock, table=table)
    seat1 = Scripted(draws=[Pile.STOCK], plays=[plays])
    error = illegal([idle(), seat1], start, rules=Rules(going_out="discard"))
    assert error.rule == "R7.2"
    assert "R7.2" in str(error)


def test_r7_2_greedy_keeps_one_card_back_and_goes_out_by_discarding_it():
    start = Deal.of(["KC QD JS", "7H 8H 9H TH 3S 3D"], discard_pile="KS", stock="3C")
    result = play_hand([idle(), Greedy()], rules=Rules(going_out="discard"), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is WentOutBy.DISCARD
    assert {e.cards for e in of_kind(result, Melded)} == {parse_cards("7H 8H 9H"), parse_cards("3S 3D 3C")}
    assert of_kind(result, Discarded) == [Discarded(1, card("TH"))]


def test_r7_1_with_going_out_any_greedy_melds_every_card():
    start = Deal.of(["KC QD JS", "7H 8H 9H TH 3S 3D"], discard_pile="KS", stock="3C")
    result = play_hand([idle(), Greedy()], rules=Rules(going_out="any"), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is WentOutBy.MELD
    assert of_kind(result, Discarded) == []


# -- R8 scoring ------------------------------------------------------------------------------------

GOES_OUT = "5H 6H 7H 8H 9H"
"""Seat 1's holding in the scoring scenarios: with the TH from the stock it melds everything."""


def going_out_hand(losers: list[str], *, rules: Rules, scores=None):
    """Seat 1 melds all its cards on the first turn; the other seats keep `losers` (R8.1)."""
    holdings = [losers[0], GOES_OUT, *losers[1:]]
    start = Deal.of(holdings, discard_pile="2S", stock="TH")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("5H 6H 7H 8H 9H TH")]])
    bots = [idle(), seat1, *(idle() for _ in losers[1:])]
    return play_hand(bots, rules=rules, start=start, dealer=0, scores=scores)


def test_r8_1_the_winner_is_credited_with_the_points_left_in_the_other_hands():
    rules = Rules(n_players=3, rummy_multiplier=1)
    result = going_out_hand(["KC 5D AS", "9C 2D JH QS"], rules=rules, scores=(100, 20, 5))
    assert result.points == (10 + 5 + 1) + (9 + 2 + 10 + 10)
    assert [r.points for r in result.records] == [0, 47, 0]
    assert [r.score for r in result.records] == [100, 67, 5]
    assert [r.won for r in result.records] == [False, True, False]
    assert [r.holding_points for r in result.records] == [16, 0, 31]


def test_records_recompute_the_winners_points_and_list_the_cards_left():
    rules = Rules(n_players=3)
    result = going_out_hand(["KC 5D AS", "9C 2D JH QS"], rules=rules)
    assert [r.holding_end for r in result.records] == ["KC 5D AS", "", "9C 2D JH QS"]
    assert recompute_points(result.records, rules=rules) == result.points == 94


@pytest.mark.parametrize("seed", range(6))
def test_records_of_seeded_greedy_hands_recompute_their_points(seed):
    rules = Rules(n_players=3)
    result = play_hand([Greedy(), Greedy(), Greedy()], rules=rules, seed=seed)
    assert recompute_points(result.records, rules=rules) == result.points
    for record in result.records:
        assert record.holding_points == points(parse_cards(record.holding_end), ace_value=rules.ace_value)
        assert record.holding_end == to_text(of_kind(result, HandEnded)[0].holdings[record.seat])


@pytest.mark.parametrize(
    ("loser", "value"),
    [
        ("AC", 1),
        ("2C", 2),
        ("5D", 5),
        ("9S", 9),
        ("TC", 10),
        ("JC", 10),
        ("QD", 10),
        ("KS", 10),
        (suit("C"), 85),
    ],
)
def test_r8_2_card_values_ace_one_numbers_face_value_pictures_ten(loser, value):
    result = going_out_hand([loser], rules=Rules(rummy_multiplier=1))
    assert result.points == value
    assert result.records[0].holding_points == value


@pytest.mark.parametrize("multiplier", [1, 2, 3])
def test_r8_3_going_rummy_multiplies_the_points_by_the_rummy_multiplier(multiplier):
    result = going_out_hand(["KC 5D AS"], rules=Rules(rummy_multiplier=multiplier))
    assert result.went_rummy
    assert result.points == 16 * multiplier
    assert result.records[1].went_rummy
    assert result.records[1].multiplier == multiplier
    assert recompute_points(result.records, rules=Rules(rummy_multiplier=multiplier)) == result.points


@pytest.mark.parametrize(
    ("holding", "table", "plays", "discards"),
    [
        ("7H 8H 9H 3S 3D KD", [], [[Meld.of("7H 8H 9H")], [Meld.of("3S 3D 3C")]], [card("KD"), card("2C")]),
        (
            "7H 8H 9H 3S 3D 7D",
            [("4D 5D 6D", 0)],
            [[LayOff.of("7D", 0)], [Meld.of("7H 8H 9H"), Meld.of("3S 3D 3C")]],
            [card("2C")],
        ),
    ],
    ids=["melded", "laid_off"],
)
def test_r8_3_no_rummy_after_melding_or_laying_off_earlier_in_the_hand(holding, table, plays, discards):
    # Seat 1 plays on its first turn and goes out on its second: not all in a single turn.
    start = Deal.of(["KC QC", holding], discard_pile="2S", stock="2C 9S 3C", table=table)
    seat1 = Scripted(draws=[Pile.STOCK, Pile.STOCK], plays=plays, discards=discards)
    result = play_hand([Passive(), seat1], rules=Rules(), start=start, dealer=0)
    assert result.winner == 1
    assert result.records[1].turns == 3
    assert not result.went_rummy
    assert result.records[1].multiplier == 1
    assert result.points == 20  # KC QC, not doubled


def test_r8_3_discards_of_earlier_turns_do_not_spoil_rummy():
    start = Deal.of(["KC QC", "7H 8H 9H 3S 3D KD"], discard_pile="2S", stock="2C 9S 3C")
    seat1 = Scripted(
        draws=[Pile.STOCK, Pile.STOCK],
        plays=[[], [Meld.of("7H 8H 9H"), Meld.of("3S 3D 3C")]],
        discards=[card("KD"), card("2C")],
    )
    result = play_hand([Passive(), seat1], rules=Rules(), start=start, dealer=0)
    assert result.winner == 1
    assert result.went_out_by is WentOutBy.DISCARD
    assert result.went_rummy
    assert result.records[1].multiplier == 2
    assert result.points == 40


@pytest.mark.parametrize("no_plays", [[], (), None, iter(())], ids=["list", "tuple", "none", "empty_iterator"])
def test_r8_3_a_turn_without_plays_is_not_melding_however_the_empty_answer_is_given(no_plays):
    start = Deal.of(["KC QC", "7H 8H 9H 3S 3D KD"], discard_pile="2S", stock="2C 9S 3C")
    seat1 = Scripted(
        draws=[Pile.STOCK, Pile.STOCK],
        plays=[no_plays, [Meld.of("7H 8H 9H"), Meld.of("3S 3D 3C")]],
        discards=[card("KD"), card("2C")],
    )
    result = play_hand([Passive(), seat1], rules=Rules(), start=start, dealer=0)
    assert of_kind(result, Melded)[0].seat == 1  # nothing was played before the winning turn
    assert seat1.views[3].has_melded == (False, False)  # seat 1's next turn: nobody has melded
    assert result.went_rummy
    assert result.points == 40


# -- R9 ace high or low ------------------------------------------------------------------------------

ACE_LOW = Rules()
ACE_HIGH = Rules(ace="high_or_low")


@pytest.mark.parametrize("rules", [ACE_LOW, ACE_HIGH], ids=["low", "high_or_low"])
def test_r9_1_a_2_3_is_a_sequence_in_every_variant(rules):
    start = Deal.of(["KC QD JS", "AH 2H 3H 5S"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("AH 2H 3H")]], discards=[card("9C")])
    result = play_hand([idle(), seat1], rules=rules.replace(stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Melded) == [Melded(1, parse_cards("AH 2H 3H"), 0)]


def test_r9_1_q_k_a_is_a_sequence_only_with_ace_high_or_low():
    start = Deal.of(["KC QD JS", "QH KH AH 5S"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("QH KH AH")]], discards=[card("9C")])
    result = play_hand([idle(), seat1], rules=ACE_HIGH.replace(stall_after_turns=1), start=start, dealer=0)
    assert of_kind(result, Melded) == [Melded(1, parse_cards("QH KH AH"), 0)]

    low = Scripted(draws=[Pile.STOCK], plays=[[Meld.of("QH KH AH")]])
    error = illegal([idle(), low], start, rules=ACE_LOW)
    assert "R5.3" in error.rule
    assert "high_or_low" in str(error)


@pytest.mark.parametrize("rules", [ACE_LOW, ACE_HIGH], ids=["low", "high_or_low"])
@pytest.mark.parametrize("meld", ["KH AH 2H", "QH KH AH 2H", "JH QH KH AH 2H 3H"])
def test_r9_1_k_a_2_never_wraps_around(rules, meld):
    start = Deal.of(["KC QD JS", meld + " 5S"], discard_pile="2C", stock="9C")
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[Meld.of(meld)]])
    assert "R9.1" in illegal([idle(), seat1], start, rules=rules).rule


@pytest.mark.parametrize(
    ("rules", "table", "lay_off", "fits"),
    [
        (ACE_HIGH, "JH QH KH", "AH", True),
        (ACE_LOW, "JH QH KH", "AH", False),
        (ACE_HIGH, "AH 2H 3H", "KH", False),
        (ACE_HIGH, "QH KH AH", "2H", False),
        (ACE_HIGH, "QH KH AH", "JH", True),
    ],
)
def test_r9_1_a_high_ace_lays_off_after_the_king_but_never_wraps(rules, table, lay_off, fits):
    start = Deal.of(["2S 4D", lay_off + " 5C"], discard_pile="2C", stock="9C", table=[(table, 0)])
    seat1 = Scripted(draws=[Pile.STOCK], plays=[[LayOff.of(lay_off, 0)]], discards=[card("9C")])
    if fits:
        result = play_hand([idle(), seat1], rules=rules.replace(stall_after_turns=1), start=start, dealer=0)
        assert of_kind(result, LaidOff) == [LaidOff(1, card(lay_off), 0)]
    else:
        assert illegal([idle(), seat1], start, rules=rules).rule == "R6.1"


@pytest.mark.parametrize(
    ("rules", "value"),
    [(ACE_LOW, 1 + 1 + 5), (ACE_HIGH, 15 + 15 + 5), (ACE_HIGH.replace(ace_points=11), 11 + 11 + 5)],
    ids=["low", "high_or_low", "ace_points_11"],
)
def test_r9_2_aces_score_15_with_ace_high_or_low(rules, value):
    result = going_out_hand(["AC AD 5S"], rules=rules.replace(rummy_multiplier=1))
    assert result.points == value
    assert result.records[0].holding_points == value


# -- strategies that fail -------------------------------------------------------------------------


class Crashing(Scripted):
    name = "crashing"


@pytest.mark.parametrize("decision", ["draws", "plays", "discards"])
def test_a_strategy_that_raises_gives_a_strategy_error_naming_seat_strategy_and_seed(decision):
    def boom(view: PlayerView):
        raise ZeroDivisionError("boom")

    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    script = {"draws": [Pile.STOCK], "plays": [[]], "discards": [card("KS")], decision: [boom]}
    bots = [idle(), Crashing(**script)]
    with pytest.raises(StrategyError) as caught:
        play_hand(bots, rules=Rules(), start=start, dealer=0, seed=77, game=3, hand=2)
    error = caught.value
    assert error.seat == 1
    assert error.strategy == "crashing"
    assert isinstance(error.__cause__, ZeroDivisionError)
    message = str(error)
    assert "seat 1 (crashing)" in message
    assert "ZeroDivisionError" in message
    assert "seed=77 game=3 hand=2" in message


@pytest.mark.parametrize(
    ("decision", "answer", "rule"),
    [
        pytest.param("draws", "banana", "R4.1", id="draw_banana"),
        pytest.param("draws", None, "R4.1", id="draw_none"),
        pytest.param("draws", 1, "R4.1", id="draw_1"),
        pytest.param("plays", [42], "R4.2", id="play_42_in_a_list"),
        pytest.param("plays", 42, "R4.2", id="play_42"),
        pytest.param("plays", "banana", "R4.2", id="play_banana"),
        pytest.param("plays", [LayOff.of("KS", 3)], "R6.1", id="lay_off_on_no_meld"),
        pytest.param("plays", [LayOff(99, 0)], "R6.1", id="lay_off_card_99"),
        pytest.param("plays", [Meld(1 << 60)], "R4.2", id="meld_of_cards_beyond_the_deck"),
        pytest.param("plays", [Meld(-1)], "R4.2", id="meld_of_mask_minus_1"),
        pytest.param("discards", "banana", "R4.3", id="discard_banana"),
        pytest.param("discards", 99, "R4.3", id="discard_99"),
        pytest.param("discards", None, "R4.3", id="discard_none"),
        pytest.param("discards", True, "R4.3", id="discard_true"),
        pytest.param("discards", parse_card("KC"), "R4.3", id="discard_a_card_not_held"),
    ],
)
def test_a_strategy_answering_garbage_gives_an_illegal_move_error(decision, answer, rule):
    start = Deal.of(["KC QD JH", "KS QH JD"], discard_pile="2C 9S", stock="5H 6D")
    script = {"draws": [Pile.STOCK], "plays": [[]], "discards": [card("KS")], decision: [answer]}
    error = illegal([idle(), Scripted(**script)], start, seed=5)
    assert error.rule == rule
    assert error.seat == 1
    assert "seat 1 (scripted)" in str(error)
    assert "seed=5" in str(error)
