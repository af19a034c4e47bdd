"""Melds, lay-offs and least-deadwood arrangements (R5, R6, R8.2, R9), checked against a slow reference."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummysim.arrangement import Arrangement, arranger, best_arrangement, min_deadwood
from rummysim.cards import CODES, FULL_DECK, LANE, card_points, parse_card, parse_cards, points
from rummysim.errors import CardError
from rummysim.melds import (
    MeldKind,
    can_lay_off,
    is_meld,
    lane_sequences,
    lay_off_fits,
    meld_kind,
    meld_set,
    meld_table,
    meld_text,
)
from rummysim.rules import Ace, Rules

BASIC = Rules()
ACE_HIGH = Rules(ace="high_or_low")
RULE_SETS = [
    pytest.param(BASIC, id="low-ace1"),
    pytest.param(ACE_HIGH, id="high_or_low-ace15"),
    pytest.param(Rules(ace_points=15), id="low-ace15"),
    pytest.param(Rules(ace="high_or_low", ace_points=1), id="high_or_low-ace1"),
]
BOTH_ACES = [pytest.param(Ace.LOW, id="low"), pytest.param(Ace.HIGH_OR_LOW, id="high_or_low")]


def mask_of(text: str) -> int:
    return parse_cards(text)


# --- the reference: melds from the rulebook's words, deadwood by plain recursion -----------------


@cache
def reference_melds(ace: Ace) -> frozenset[int]:
    """Every legal meld, written straight from R5.1, R5.2, R5.3 and R9.1.

    Groups: 3 or 4 of the 4 suits of one rank. Sequences: a window of 3 to 13 consecutive
    positions in one suit, where positions are A(low) 2 .. K and, with the ace high or low, A(high)
    after K. A window can not hold both aces (that would be a wrap-around, K-A-2).
    """
    melds = set()
    for rank in range(13):
        suits_of_rank = [suit * 13 + rank for suit in range(4)]
        for left_out in range(-1, 4):
            cards = [c for i, c in enumerate(suits_of_rank) if i != left_out]
            melds.add(sum(1 << c for c in cards))
    positions = list(range(13)) + ([0] if ace is Ace.HIGH_OR_LOW else [])  # rank at each position
    for suit in range(4):
        for start in range(len(positions)):
            for end in range(start + 3, min(start + 13, len(positions)) + 1):
                ranks = positions[start:end]
                assert len(set(ranks)) == len(ranks)
                melds.add(sum(1 << (suit * 13 + r) for r in ranks))
    return frozenset(melds)


@cache
def reference_melds_by_lowest_card(ace: Ace) -> tuple[tuple[int, ...], ...]:
    by_low: list[list[int]] = [[] for _ in range(52)]
    for meld in reference_melds(ace):
        by_low[(meld & -meld).bit_length() - 1].append(meld)
    return tuple(tuple(m) for m in by_low)


def oracle_deadwood(mask: int, rules: Rules) -> int:
    """Least deadwood: the lowest card is either deadwood or in a legal meld within the holding."""
    by_low = reference_melds_by_lowest_card(rules.ace)
    value = [card_points(c, ace_value=rules.ace_value) for c in range(52)]
    memo: dict[int, int] = {0: 0}

    def least(m: int) -> int:
        if m in memo:
            return memo[m]
        low = m & -m
        card = low.bit_length() - 1
        best = value[card] + least(m ^ low)
        for meld in by_low[card]:
            if meld & m == meld:
                best = min(best, least(m ^ meld))
        memo[m] = best
        return best

    return least(mask)


def is_group(mask: int) -> bool:
    cards = [c for c in range(52) if mask >> c & 1]
    return len(cards) in (3, 4) and len({c % 13 for c in cards}) == 1


def is_sequence(mask: int, ace: Ace) -> bool:
    cards = [c for c in range(52) if mask >> c & 1]
    if len(cards) < 3 or len({c // 13 for c in cards}) != 1:
        return False
    ranks = sorted(c % 13 for c in cards)
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    if ace is Ace.HIGH_OR_LOW and ranks[0] == 0:  # the ace after the king
        high = [*ranks[1:], 13]
        return high == list(range(high[0], 14))
    return False


def check_arrangement(arrangement: Arrangement, mask: int, rules: Rules, expected: int) -> None:
    """Melds legal and disjoint, melds + deadwood cards == the holding, deadwood == its points == oracle."""
    assert isinstance(arrangement, Arrangement)
    legal = reference_melds(rules.ace)
    covered = 0
    for meld in arrangement.melds:
        assert meld in legal, f"{meld_text(meld)} is not a legal meld"
        assert is_meld(meld, rules.ace)
        assert covered & meld == 0, "melds overlap"
        covered |= meld
    assert covered & arrangement.deadwood_cards == 0, "a card is both melded and deadwood"
    assert covered | arrangement.deadwood_cards == mask, "cards lost or invented"
    assert arrangement.deadwood == points(arrangement.deadwood_cards, ace_value=rules.ace_value)
    assert arrangement.deadwood == expected


def mask_list(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def group_ranks_count(mask: int) -> int:
    return sum(1 for rank in range(13) if sum(mask >> (13 * s + rank) & 1 for s in range(4)) >= 3)


# --- strategies -------------------------------------------------------------------------------


def as_input(mask: int, form: str):
    cards = [c for c in range(52) if mask >> c & 1]
    codes = [CODES[c] for c in cards]
    if form == "text":
        return " ".join(codes)
    if form == "lower":
        return " ".join(reversed(codes)).lower()
    if form == "ten":
        return ",".join(code.replace("T", "10") for code in codes)
    if form == "codes":
        return codes
    if form == "ints":
        return cards
    if form == "tuple":
        return tuple(reversed(cards))
    raise AssertionError(form)


FORMS = ["text", "lower", "ten", "codes", "ints", "tuple"]
forms = st.sampled_from(FORMS)

small_holdings = st.sets(st.integers(0, 51), min_size=1, max_size=13).map(lambda cards: sum(1 << c for c in cards))


@st.composite
def rank_heavy_holdings(draw, min_ranks: int = 4, min_size: int = 12, max_size: int = 20) -> int:
    """A holding of 12 to 20 cards with 4 or more ranks of 3-4 cards, plus sequences across them."""
    n_ranks = draw(st.integers(min_ranks, 5))
    ranks = draw(st.lists(st.sampled_from([0, 0, 11, 12, *range(13)]), min_size=n_ranks, max_size=n_ranks, unique=True))
    mask = 0
    for rank in ranks:
        suits = draw(st.sets(st.integers(0, 3), min_size=3, max_size=4))
        for suit in suits:
            mask |= 1 << (13 * suit + rank)
    extras = draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("card"), st.integers(0, 51), st.just(1)),
                st.tuples(st.just("sequence"), st.integers(0, 51), st.integers(2, 5)),
                st.tuples(st.just("high"), st.integers(0, 3), st.integers(3, 4)),
            ),
            max_size=8,
        )
    )
    for kind, where, length in extras:
        if kind == "card":
            add = 1 << where
        elif kind == "sequence":
            suit, rank = divmod(where, 13)
            add = sum(1 << (13 * suit + r) for r in range(rank, min(rank + length, 13)))
        else:  # Q-K-A or J-Q-K-A of one suit, to reach the high ace (R9.1)
            add = sum(1 << (13 * where + r) for r in (0, 12, 11, 10)[:length])
        if (mask | add).bit_count() <= max_size:
            mask |= add
    while mask.bit_count() < min_size:
        mask |= 1 << draw(st.integers(0, 51))
    assert min_size <= mask.bit_count() <= max_size
    return mask


# --- the meld table (R5.1, R5.2, R5.3, R9.1) ----------------------------------------------------


def test_meld_table_sizes():
    assert len(meld_table(Ace.LOW)) == 329
    assert len(meld_table(Ace.HIGH_OR_LOW)) == 369
    assert len(lane_sequences(Ace.LOW)) == 66
    assert len(lane_sequences(Ace.HIGH_OR_LOW)) == 76  # 10 more: Q-K-A up to 3-...-K-A (2-...-K-A is A-...-K)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_meld_table_is_exactly_the_reference(ace):
    table = meld_table(ace)
    assert list(table) == sorted(set(table))
    assert set(table) == reference_melds(ace)
    assert meld_set(ace) == frozenset(table)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_r5_1_r5_2_every_meld_is_a_group_or_sequence(ace):
    n_groups = n_sequences = 0
    for meld in meld_table(ace):
        group, sequence = is_group(meld), is_sequence(meld, ace)
        assert group != sequence, meld_text(meld)
        if group:
            n_groups += 1
            assert meld_kind(meld) is MeldKind.GROUP
        else:
            n_sequences += 1
            assert meld_kind(meld) is MeldKind.SEQUENCE
    assert n_groups == 13 * 5
    assert n_sequences == (264 if ace is Ace.LOW else 304)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_lane_sequences_are_sequences_of_one_lane(ace):
    for sequence in lane_sequences(ace):
        assert 0 < sequence <= LANE
        assert is_sequence(sequence, ace)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_no_other_small_set_is_a_meld(ace):
    # every 3-card set of the deck: a meld exactly when the rulebook says so
    legal = 0
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                mask = 1 << a | 1 << b | 1 << c
                expected = is_group(mask) or is_sequence(mask, ace)
                assert is_meld(mask, ace) == expected
                legal += expected
    assert legal == 13 * 4 + 4 * (11 if ace is Ace.LOW else 12)


def test_r5_3_ace_is_low_in_basic_rummy():
    assert is_meld(mask_of("AS 2S 3S"))
    assert is_meld(mask_of("AS 2S 3S 4S"))
    assert not is_meld(mask_of("QS KS AS"))
    assert not is_meld(mask_of("JS QS KS AS"))
    assert is_meld(mask_of("JS QS KS"))


def test_r9_1_ace_high_or_low():
    assert is_meld(mask_of("AS 2S 3S"), Ace.HIGH_OR_LOW)
    assert is_meld(mask_of("QS KS AS"), Ace.HIGH_OR_LOW)
    assert is_meld(mask_of("JH QH KH AH"), Ace.HIGH_OR_LOW)
    assert is_meld(mask_of("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"), Ace.HIGH_OR_LOW)
    assert not is_meld(mask_of("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"), Ace.LOW)


@pytest.mark.parametrize("ace", BOTH_ACES)
@pytest.mark.parametrize("cards", ["KS AS 2S", "QH KH AH 2H", "KC AC 2C 3C", "JD QD KD AD 2D", "KH AH 2H 3H 4H"])
def test_r5_3_r9_1_no_wrap_around_in_either_variant(ace, cards):
    assert not is_meld(mask_of(cards), ace)
    assert mask_of(cards) not in meld_table(ace)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_the_whole_suit_is_one_sequence(ace):
    for suit in "CDHS":
        assert is_meld(mask_of(" ".join(r + suit for r in "A23456789TJQK")), ace)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_not_melds(ace):
    for cards in ["AS 2S", "7C 7D", "7C 7D 8C", "2H 3H 5H", "2H 3D 4H", "7C 7D 7H 8H", "AS 2C 3S", ""]:
        assert not is_meld(mask_of(cards), ace), cards


def test_meld_kind():
    assert meld_kind(mask_of("8C 8D 8H")) is MeldKind.GROUP
    assert meld_kind(mask_of("8C 8D 8H 8S")) is MeldKind.GROUP
    assert meld_kind(mask_of("8H 9H TH")) is MeldKind.SEQUENCE
    assert meld_kind(mask_of("QH KH AH")) is MeldKind.SEQUENCE
    assert meld_kind(mask_of("AH 2H 3H")) is MeldKind.SEQUENCE
    assert str(MeldKind.GROUP) == "group"
    assert str(MeldKind.SEQUENCE) == "sequence"


def test_meld_text_puts_a_high_ace_after_the_king():
    assert meld_text(mask_of("AH QH KH")) == "QH KH AH"
    assert meld_text(mask_of("AS JS QS KS")) == "JS QS KS AS"
    assert meld_text(mask_of("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")) == "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
    assert meld_text(mask_of("3C AC 2C")) == "AC 2C 3C"
    assert meld_text(mask_of("AC AD AH AS")) == "AC AD AH AS"
    assert meld_text(mask_of("KC KH KS")) == "KC KH KS"
    assert meld_text(mask_of("10H 8H 9H")) == "8H 9H TH"


# --- laying off (R6) --------------------------------------------------------------------------


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_r6_3_three_eights_accept_the_fourth(ace):
    meld = mask_of("8C 8D 8S")
    assert can_lay_off(meld, parse_card("8H"), ace)
    assert lay_off_fits(meld, ace) == mask_of("8H")
    for code in ("8C", "7H", "9H", "9C", "AS"):
        assert not can_lay_off(meld, parse_card(code), ace)
    assert lay_off_fits(mask_of("8C 8D 8H 8S"), ace) == 0


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_r6_3_eight_nine_ten_of_hearts_accept_seven_and_jack(ace):
    meld = mask_of("8H 9H TH")
    assert can_lay_off(meld, parse_card("7H"), ace)
    assert can_lay_off(meld, parse_card("JH"), ace)
    assert lay_off_fits(meld, ace) == mask_of("7H JH")
    # and both, one after the other (R6.1: several cards in a row)
    assert can_lay_off(meld | mask_of("7H"), parse_card("JH"), ace)
    assert lay_off_fits(meld | mask_of("7H JH"), ace) == mask_of("6H QH")
    for code in ("6H", "QH", "9H", "7D", "JS", "8C"):
        assert not can_lay_off(meld, parse_card(code), ace)


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_r6_3_three_four_five_of_clubs_accept_six_then_seven(ace):
    meld = mask_of("3C 4C 5C")
    assert can_lay_off(meld, parse_card("6C"), ace)
    assert not can_lay_off(meld, parse_card("7C"), ace)
    longer = meld | mask_of("6C")
    assert can_lay_off(longer, parse_card("7C"), ace)
    assert lay_off_fits(meld, ace) == mask_of("2C 6C")
    assert lay_off_fits(longer, ace) == mask_of("2C 7C")


def test_r9_1_lay_off_a_high_ace_only_when_ace_high_or_low():
    jqk = mask_of("JH QH KH")
    assert not can_lay_off(jqk, parse_card("AH"))
    assert can_lay_off(jqk, parse_card("AH"), Ace.HIGH_OR_LOW)
    assert lay_off_fits(jqk) == mask_of("TH")
    assert lay_off_fits(jqk, Ace.HIGH_OR_LOW) == mask_of("TH AH")


def test_r5_3_no_lay_off_that_wraps_around():
    qka = mask_of("QH KH AH")
    assert not can_lay_off(qka, parse_card("2H"), Ace.HIGH_OR_LOW)
    assert lay_off_fits(qka, Ace.HIGH_OR_LOW) == mask_of("JH")
    a23 = mask_of("AD 2D 3D")
    for ace in (Ace.LOW, Ace.HIGH_OR_LOW):
        assert not can_lay_off(a23, parse_card("KD"), ace)
        assert lay_off_fits(a23, ace) == mask_of("4D")
    # 2..K takes the ace at either end: the whole suit, one legal meld either way
    two_to_king = mask_of("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    assert lay_off_fits(two_to_king, Ace.LOW) == mask_of("AS")
    assert lay_off_fits(two_to_king, Ace.HIGH_OR_LOW) == mask_of("AS")
    whole_suit = two_to_king | mask_of("AS")
    assert lay_off_fits(whole_suit, Ace.LOW) == 0
    assert lay_off_fits(whole_suit, Ace.HIGH_OR_LOW) == 0


@pytest.mark.parametrize("ace", BOTH_ACES)
def test_lay_off_fits_every_meld_matches_reference(ace):
    legal = reference_melds(ace)
    for meld in meld_table(ace):
        fits = lay_off_fits(meld, ace)
        expected = sum(1 << c for c in range(52) if not meld >> c & 1 and (meld | 1 << c) in legal)
        assert fits == expected, meld_text(meld)
        assert fits & meld == 0
        for c in range(52):
            assert can_lay_off(meld, c, ace) == bool(fits >> c & 1)
        if is_group(meld):
            assert fits.bit_count() == 4 - meld.bit_count()
        else:
            assert fits.bit_count() <= 2


# --- least deadwood: examples ------------------------------------------------------------------


def test_min_deadwood_examples():
    assert min_deadwood("AS 2S 3S 7H 7D 7C KH") == 10
    assert min_deadwood("AS 2S 3S KH") == 10
    assert min_deadwood("7H 7D 7C 8H 9H") == 14
    assert min_deadwood("7C 7D 7H 7S 8H 9H") == 0  # a triple from the four, the fourth 7 in 7-8-9
    assert min_deadwood("7C 7D 7H 7S 8H 9H 8S 9S") == 14  # two sequences take two 7s; 7C 7D are left
    assert min_deadwood("KS") == 10
    assert min_deadwood("") == 0
    assert min_deadwood("AC AD AH") == 0
    assert min_deadwood("AC AD") == 2


def test_r5_3_q_k_a_is_deadwood_in_basic_rummy():
    assert min_deadwood("QS KS AS") == 21
    assert min_deadwood("QS KS AS", rules=BASIC) == 21
    assert min_deadwood("QS KS AS", rules=Rules(ace_points=15)) == 35


def test_r9_1_q_k_a_melds_with_ace_high_or_low():
    assert min_deadwood("QS KS AS", rules=ACE_HIGH) == 0
    assert min_deadwood("QS KS AS", rules=Rules.preset("ace_high")) == 0
    assert min_deadwood("QS KS AS 2S 3S", rules=ACE_HIGH) == 5  # the ace serves one sequence only
    assert min_deadwood("QS KS AS 2S 3S 4S", rules=ACE_HIGH) == 0  # Q-K-A and 2-3-4
    assert min_deadwood("QS KS AS 2S 3S 4S", rules=BASIC) == 20  # A-2-3-4, the Q and K left
    arrangement = best_arrangement("QH KH AH 5C", rules=ACE_HIGH)
    assert str(arrangement) == "QH KH AH | deadwood 5C (5)"


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_r5_3_r9_1_k_a_2_never_melds(rules):
    ace = rules.ace_value
    assert min_deadwood("KS AS 2S", rules=rules) == 10 + ace + 2
    assert min_deadwood("KS AS 2S 3S", rules=rules) == 10  # only A-2-3
    assert min_deadwood("QS KS AS 2S", rules=rules) == (2 if rules.ace is Ace.HIGH_OR_LOW else 23)


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_r5_3_a_2_3_melds_in_both(rules):
    assert min_deadwood("AD 2D 3D", rules=rules) == 0
    assert best_arrangement("3D AD 2D 9C", rules=rules) == Arrangement((mask_of("AD 2D 3D"),), mask_of("9C"), 9)


def test_r9_2_ace_value_counts_in_deadwood():
    assert min_deadwood("AS 5C", rules=BASIC) == 6
    assert min_deadwood("AS 5C", rules=ACE_HIGH) == 20
    assert min_deadwood("AS 5C", rules=Rules(ace_points=15)) == 20
    assert min_deadwood("AS 5C", rules=Rules(ace="high_or_low", ace_points=1)) == 6
    assert min_deadwood("AS 5C", rules=Rules(ace_points=0)) == 5


def test_min_deadwood_input_forms_agree():
    for cards in ["AS 2S 3S 7H", "as,2s,3s,7h", ["AS", "2S", "3S", "7H"], [39, 40, 41, 32], ("as", 40, "3S", "7h")]:
        assert min_deadwood(cards) == 7
        assert best_arrangement(cards).deadwood == 7
    assert min_deadwood(iter(["TD", "JD", "QD", "10C"])) == 10
    assert min_deadwood("10D JD QD TC") == 10


def test_min_deadwood_rejects_bad_cards():
    with pytest.raises(CardError, match="given twice"):
        min_deadwood("AS as")
    with pytest.raises(CardError, match="'ZZ'"):
        best_arrangement("AS ZZ")
    with pytest.raises(CardError, match="bare int"):
        min_deadwood(5)


def test_best_arrangement_str():
    assert str(best_arrangement("7H 7D 7C 8H 9H")) == "7H 8H 9H | deadwood 7C 7D (14)"
    assert str(best_arrangement("AS 2S 3S")) == "AS 2S 3S | deadwood - (0)"
    assert str(best_arrangement("KS 2C")) == "deadwood 2C KS (12)"


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_full_deck_has_no_deadwood(rules):
    assert min_deadwood(list(range(52)), rules=rules) == 0
    assert min_deadwood(" ".join(CODES), rules=rules) == 0
    arrangement = best_arrangement(range(52), rules=rules)
    check_arrangement(arrangement, FULL_DECK, rules, 0)
    assert arrangement.deadwood_cards == 0
    direct = arranger(rules)._arrange_by_ranks(FULL_DECK)
    check_arrangement(direct, FULL_DECK, rules, 0)


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_deck_less_thirty_cards(rules):
    rng = random.Random(52)
    for _ in range(3):
        mask = FULL_DECK
        for c in rng.sample(range(52), 30):
            mask &= ~(1 << c)
        check_arrangement(best_arrangement(mask_list(mask), rules=rules), mask, rules, oracle_deadwood(mask, rules))


def test_arranger_is_shared_per_ace_setting_and_value():
    assert arranger() is arranger(Rules())
    assert arranger(Rules(n_players=5, going_out="discard")) is arranger(BASIC)
    assert arranger(ACE_HIGH) is arranger(Rules.preset("ace_high"))
    assert arranger(ACE_HIGH) is not arranger(BASIC)
    assert arranger(Rules(ace_points=15)) is not arranger(BASIC)
    assert arranger(ACE_HIGH).ace is Ace.HIGH_OR_LOW
    assert arranger(ACE_HIGH).ace_value == 15


def test_reference_oracle_itself():
    # the reference must agree with hand-worked answers before it judges anything
    assert oracle_deadwood(mask_of("AS 2S 3S 7H 7D 7C KH"), BASIC) == 10
    assert oracle_deadwood(mask_of("7C 7D 7H 7S 8H 9H"), BASIC) == 0
    assert oracle_deadwood(mask_of("QS KS AS"), BASIC) == 21
    assert oracle_deadwood(mask_of("QS KS AS"), ACE_HIGH) == 0
    assert oracle_deadwood(mask_of("KS AS 2S"), ACE_HIGH) == 27


# --- least deadwood against the reference ------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=200, deadline=None)
@given(mask=small_holdings, form=forms)
def test_min_deadwood_matches_reference_small_holdings(rules, mask, form):
    expected = oracle_deadwood(mask, rules)
    assert min_deadwood(as_input(mask, form), rules=rules) == expected
    check_arrangement(best_arrangement(as_input(mask, form), rules=rules), mask, rules, expected)
    dead = arranger(rules).deadwood_cards(mask)
    assert dead & ~mask == 0
    assert points(dead, ace_value=rules.ace_value) == expected
    assert oracle_deadwood(mask ^ dead, rules) == 0


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=120, deadline=None)
@given(mask=rank_heavy_holdings(), form=forms)
def test_min_deadwood_matches_reference_rank_heavy_holdings(rules, mask, form):
    assert group_ranks_count(mask) > arranger(rules).MAX_ENUMERATED_GROUP_RANKS  # the dynamic programme's path
    expected = oracle_deadwood(mask, rules)
    assert min_deadwood(as_input(mask, form), rules=rules) == expected
    check_arrangement(best_arrangement(as_input(mask, form), rules=rules), mask, rules, expected)
    dead = arranger(rules).deadwood_cards(mask)
    assert points(dead, ace_value=rules.ace_value) == expected
    assert oracle_deadwood(mask ^ dead, rules) == 0


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=200, deadline=None)
@given(mask=st.one_of(small_holdings, rank_heavy_holdings()))
def test_has_meld_is_true_exactly_when_a_reference_meld_lies_within_the_holding_r5(rules, mask):
    has = arranger(rules).has_meld(mask)
    assert has == any(meld & mask == meld for meld in reference_melds(rules.ace))
    if not has:  # the fast path of greedy's play: arrange would find nothing to meld
        assert arranger(rules).arrange(mask).melds == ()


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=200, deadline=None)
@given(mask=st.one_of(small_holdings, rank_heavy_holdings()), pick=st.integers(0, 51))
def test_in_meld_is_true_exactly_when_a_reference_meld_holds_the_card_r5(rules, mask, pick):
    cards = [c for c in range(52) if mask >> c & 1]
    card = cards[pick % len(cards)]
    in_meld = arranger(rules).in_meld(card, mask)
    assert in_meld == any(meld >> card & 1 and meld & mask == meld for meld in reference_melds(rules.ace))
    if not in_meld:  # greedy's draw leans on this: such a card only adds its points to the deadwood
        card_value = points(1 << card, ace_value=rules.ace_value)
        assert oracle_deadwood(mask, rules) == oracle_deadwood(mask ^ 1 << card, rules) + card_value


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=100, deadline=None)
@given(mask=st.one_of(small_holdings, rank_heavy_holdings()))
def test_arrange_by_ranks_matches_reference(rules, mask):
    # the dynamic programme is exact for any holding, not only the ones routed to it
    expected = oracle_deadwood(mask, rules)
    check_arrangement(arranger(rules)._arrange_by_ranks(mask), mask, rules, expected)


@pytest.mark.parametrize("rules", RULE_SETS)
@settings(max_examples=60, deadline=None)
@given(mask=rank_heavy_holdings(min_ranks=5, min_size=15))
def test_arrange_by_ranks_matches_reference_large(rules, mask):
    expected = oracle_deadwood(mask, rules)
    check_arrangement(arranger(rules)._arrange_by_ranks(mask), mask, rules, expected)


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_seeded_random_holdings_match_reference(rules):
    rng = random.Random(20240101)
    for _ in range(2000):
        size = rng.randint(1, 13)
        cards = rng.sample(range(52), size)
        mask = sum(1 << c for c in cards)
        expected = oracle_deadwood(mask, rules)
        assert min_deadwood(cards, rules=rules) == expected, " ".join(CODES[c] for c in cards)
        check_arrangement(best_arrangement(cards, rules=rules), mask, rules, expected)


@pytest.mark.parametrize("rules", [BASIC, ACE_HIGH])
def test_seeded_rank_heavy_holdings_match_reference(rules):
    # a few hundred deterministic holdings with 4-5 ranks of 3+ cards, near each other in rank
    rng = random.Random(7)
    for _ in range(300):
        ranks = rng.sample([0, 1, 2, 3, 9, 10, 11, 12], rng.randint(4, 5))
        mask = 0
        for rank in ranks:
            for suit in rng.sample(range(4), rng.randint(3, 4)):
                mask |= 1 << (13 * suit + rank)
        assert group_ranks_count(mask) >= 4
        expected = oracle_deadwood(mask, rules)
        assert min_deadwood(mask_list(mask), rules=rules) == expected
        check_arrangement(best_arrangement(mask_list(mask), rules=rules), mask, rules, expected)
        check_arrangement(arranger(rules)._arrange_by_ranks(mask), mask, rules, expected)
