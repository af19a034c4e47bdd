"""The rules core (rummysim/core.py) against the plain oracle of the rules (tests/oracle.py).

Each test checks one function of `rummysim.core` against the oracle's reading of its rule,
over every input where the inputs are few and over generated ones (Hypothesis) where they
are many. The tests look each function up on the module when they run (``core.is_meld``),
so a function patched there is the one checked (tests/test_plants.py plants a wrong rule
and shows these fail).
"""

from __future__ import annotations

import itertools

import oracle
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import rummysim.core as core
from rummysim.cards import points
from rummysim.dealing import deal
from rummysim.seeding import derive, permutation

SOME = settings(max_examples=150, deadline=None)
"""Generated examples per test: modest, these are pure functions."""

CHECKED = {
    "dealt_to", "left_of", "stock_after_deal", "card_count", "is_meld", "may_take_discard", "blocked", "may_rebuild",
    "out_of_turns", "may_lay_off", "leaves_legal_holding", "keeps_taken", "discardable", "may_discard", "went_rummy",
    "out_points", "block_winner", "block_points", "game_over",
}  # fmt: skip
"""The core's functions checked here against the oracle."""


def card(c: int) -> oracle.Card:
    """Return the oracle's (rank, suit) for a card int: ``suit * 13 + rank`` (rummysim/cards.py)."""
    return (c % 13 + 1, oracle.SUITS[c // 13])


def cards(mask: int) -> list[int]:
    """Return the card ints of a mask, lowest first."""
    return [c for c in range(52) if mask >> c & 1]


def mask_of(card_ints) -> int:
    return sum(1 << c for c in set(card_ints))


def taken_of(taken: int) -> int | None:
    return None if taken == core.NO_CARD else taken


# -- generated inputs ---------------------------------------------------------------------------
card_ints = st.integers(0, 51)
small_masks = st.sets(card_ints, max_size=7).map(mask_of)


@st.composite
def sequences(draw) -> int:
    """A run of one suit, maybe wrapping past the king (K-A-2 and the like), maybe with a card off or added."""
    suit, start, length = draw(st.integers(0, 3)), draw(st.integers(0, 12)), draw(st.integers(1, 13))
    run = {13 * suit + (start + i) % 13 for i in range(length)}
    change = draw(st.sampled_from(["none", "drop", "add"]))
    if change == "drop" and len(run) > 1:
        run.discard(draw(st.sampled_from(sorted(run))))
    elif change == "add":
        run.add(draw(card_ints))
    return mask_of(run)


@st.composite
def groups(draw) -> int:
    """Cards of one rank in some suits, maybe with one card of another rank."""
    rank = draw(st.integers(0, 12))
    suits = draw(st.sets(st.integers(0, 3), min_size=1))
    group = {13 * s + rank for s in suits}
    if draw(st.booleans()):
        group.add(draw(card_ints))
    return mask_of(group)


meldish = st.one_of(small_masks, sequences(), groups())
"""Sets of cards near melds and not."""
holding_and_taken = st.tuples(st.sets(card_ints, max_size=6), st.one_of(st.just(core.NO_CARD), card_ints))


# -- melds (R5, R9.1) and lay-offs (R6.1) ---------------------------------------------------------
@SOME
@given(meldish, st.booleans())
@example(mask_of([12, 0, 1]), True)  # K-A-2 of clubs: never (R5.3)
@example(mask_of([11, 12, 0]), True)  # Q-K-A: with the ace high (R9.1)
@example(mask_of([11, 12, 0]), False)  # and not without
def test_R5_R9_1_is_meld_over_generated_sets(mask, ace_high):
    assert core.is_meld(mask, ace_high) == oracle.is_meld([card(c) for c in cards(mask)], ace_high)


@pytest.mark.parametrize("ace_high", [False, True])
def test_R5_2_R5_3_R9_1_is_meld_over_every_set_of_one_suit(ace_high):
    for suit in (0, 3):
        for lane in range(1 << 13):
            mask = lane << (13 * suit)
            assert core.is_meld(mask, ace_high) == oracle.is_meld([card(c) for c in cards(mask)], ace_high), mask


def test_R5_1_is_meld_over_every_set_of_one_rank():
    for rank, suits in itertools.product(range(13), range(16)):
        mask = mask_of(13 * s + rank for s in range(4) if suits >> s & 1)
        for ace_high in (False, True):
            assert core.is_meld(mask, ace_high) == oracle.is_meld([card(c) for c in cards(mask)], ace_high)


@SOME
@given(st.one_of(sequences(), groups()), card_ints, st.booleans())
def test_R6_1_a_card_lays_off_where_the_meld_with_it_is_a_meld(mask, c, ace_high):
    """The reference's lay-off fits (rummysim.melds), which the compiled engine's are checked against."""
    from rummysim.melds import can_lay_off
    from rummysim.rules import Ace

    meld = [card(m) for m in cards(mask)]
    if not oracle.is_meld(meld, ace_high):
        return
    ace = Ace.HIGH_OR_LOW if ace_high else Ace.LOW
    assert can_lay_off(mask, c, ace) == oracle.fits(meld, card(c), ace_high)


@SOME
@given(small_masks)
def test_card_count(mask):
    assert core.card_count(mask) == len(cards(mask))


def test_R12_1_may_lay_off():
    for melded, after_meld in itertools.product([False, True], repeat=2):
        expected = oracle.may_lay_off(melded, "after_meld" if after_meld else "any")
        assert core.may_lay_off(melded, after_meld) == expected


# -- card values (R8.2, R9.2) ---------------------------------------------------------------------
@SOME
@given(st.sets(card_ints, max_size=12).map(mask_of), st.integers(0, 20))
def test_R8_2_R9_2_hand_values(mask, ace_points):
    assert points(mask, ace_value=ace_points) == oracle.hand_value([card(c) for c in cards(mask)], ace_points)


# -- the deal (R3) --------------------------------------------------------------------------------
def _fitting_deals():
    for n in range(2, 7):
        for k in range(1, 51 // n + 1):
            yield n, k


def test_R3_2_R3_4_dealt_to_left_of_and_the_stock_after_the_deal():
    deck = list(range(52))
    for n, k in _fitting_deals():
        for dealer in range(n):
            holdings, upcard, stock = oracle.deal(deck, n, k, dealer)
            assert [core.dealt_to(i, dealer, n) for i in range(n * k)] == [
                next(seat for seat in range(n) if i in holdings[seat]) for i in range(n * k)
            ]
            assert upcard == n * k
            assert core.stock_after_deal(n, k) == len(stock)
        for seat in range(n):
            assert core.left_of(seat, n) == oracle.next_seat(seat, n)


@SOME
@given(st.sampled_from(list(_fitting_deals())), st.integers(0, 5), st.integers(0, 2**64 - 1))
def test_R3_the_reference_deal_is_the_oracles(size, dealer, key):
    from rummysim.rules import Rules

    n, k = size
    dealer %= n
    dealt = deal(Rules(n_players=n, cards_dealt=k, target_score=1), dealer=dealer, key=key)
    holdings, upcard, stock = oracle.deal(permutation(derive(key, 0), 52), n, k, dealer)
    assert list(dealt.holdings) == [mask_of(h) for h in holdings]
    assert dealt.discard_pile == (upcard,)
    assert list(dealt.stock) == stock


# -- the draw and the stock (R4.1, R4.6, R10, R12.3) ----------------------------------------------
def test_R4_1_R4_6_may_take_discard():
    for size in range(53):
        assert core.may_take_discard(size) == oracle.may_take_discard(list(range(size)))


def test_R12_3_blocked():
    for size, block in itertools.product(range(53), [False, True]):
        assert core.blocked(size, block) == oracle.hand_blocked(list(range(size)), "block" if block else "rebuild")


def test_R10_1_R10_2_may_rebuild():
    for pile, rebuilds, limit in itertools.product(range(53), range(6), range(6)):
        expected = oracle.may_rebuild(list(range(pile)), rebuilds, limit)
        assert core.may_rebuild(pile, rebuilds, limit) == expected, (pile, rebuilds, limit)


def test_R10_2_out_of_turns():
    for turn, limit in itertools.product(range(40), range(1, 40)):
        assert core.out_of_turns(turn, limit) == oracle.stalls_before_turn(turn, limit)


# -- the plays and the discard (R4.3-R4.7, R7.2, R12.2) --------------------------------------------
@SOME
@given(holding_and_taken, st.integers(0, 3), st.booleans(), st.booleans())
@example((set(), core.NO_CARD), 1, True, False)  # no card left, discard to go out (R7.2)
@example(({7}, 7), 1, False, False)  # only the taken card left (R4.7)
def test_R4_7_R7_2_leaves_legal_holding(holding_taken, n_played, discard_to_go_out, taken_in_holding):
    left, taken = holding_taken
    if taken_in_holding and left:
        taken = min(left)
    going_out = "discard" if discard_to_go_out else "any"
    expected = oracle.leaves_legal_holding(sorted(left), n_played, going_out, taken_of(taken))
    assert core.leaves_legal_holding(mask_of(left), n_played, discard_to_go_out, taken) == expected


@SOME
@given(holding_and_taken, st.booleans())
def test_R12_2_keeps_taken(holding_taken, must_use):
    left, taken = holding_taken
    rule = "must_use" if must_use else "free"
    assert core.keeps_taken(mask_of(left), taken, must_use) == oracle.keeps_taken(sorted(left), taken_of(taken), rule)


@SOME
@given(holding_and_taken, st.integers(-3, 55))
def test_R4_3_R4_5_discardable_and_may_discard(holding_taken, c):
    holding, taken = holding_taken
    allowed = oracle.discardable(sorted(holding), taken_of(taken))
    assert core.discardable(mask_of(holding), taken) == mask_of(allowed)
    assert core.may_discard(c, mask_of(holding), taken) == oracle.may_discard(c, sorted(holding), taken_of(taken))
    for each in holding:
        assert core.may_discard(each, mask_of(holding), taken) == oracle.may_discard(each, allowed, taken_of(taken))


# -- going out and scoring (R7, R8, R12.3) ----------------------------------------------------------
def test_R8_3_went_rummy():
    for before in (False, True):
        assert core.went_rummy(before) == oracle.went_rummy(before)


scores_of_seats = st.lists(st.integers(0, 40), min_size=2, max_size=6)


@SOME
@given(scores_of_seats, st.integers(0, 5), st.booleans(), st.integers(1, 5))
def test_R8_1_R8_3_out_points(values, winner, rummy, multiplier):
    winner %= len(values)
    values[winner] = 0  # the seat that went out holds nothing
    assert core.out_points(values, rummy, multiplier) == oracle.out_score(values, winner, rummy, multiplier)


@SOME
@given(scores_of_seats)
@example([5, 5, 9])  # a tie for the lowest: no winner
@example([0, 3])
def test_R12_3_block_winner_and_block_points(values):
    winner, won = oracle.block_result(values)
    assert core.block_winner(values) == (-1 if winner is None else winner)
    if winner is not None:
        assert core.block_points(values, winner) == won


@SOME
@given(
    st.lists(st.integers(0, 300), min_size=2, max_size=6), st.integers(0, 20), st.integers(0, 5),
    st.one_of(st.none(), st.integers(1, 300)), st.one_of(st.none(), st.integers(1, 20)), st.integers(1, 5),
)  # fmt: skip
def test_R11_R10_2_game_over(scores, hands, stalled, target, max_hands, stall_after_hands):
    unset = core.UNSET
    got = core.game_over(
        max(scores), hands, stalled, unset if target is None else target, unset if max_hands is None else max_hands,
        stall_after_hands,
    )  # fmt: skip
    assert got == oracle.game_over(scores, hands, stalled, target, max_hands, stall_after_hands)


def test_every_rule_of_the_core_is_checked_against_the_oracle():
    """A function added to the core (`core.RULES`) needs its oracle and a test here."""
    public = {rule.__name__ for rule in core.RULES if not rule.__name__.startswith("_")}
    assert public == CHECKED
