"""Cards as ints, masks and text codes; card points (R1.2, R8.2, R9.2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummysim.cards import (
    ACE,
    CODES,
    FULL_DECK,
    KING,
    LANE,
    N_CARDS,
    card_code,
    card_points,
    cards_of,
    highest_card,
    iter_cards,
    lane_points,
    n_cards,
    parse_card,
    parse_cards,
    points,
    rank_of,
    rank_span,
    suit_of,
    to_text,
)
from rummysim.errors import CardError, ConfigError, RummysimError

SUIT_NAMES = "CDHS"
RANK_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
FACE_POINTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]  # R8.2, ace at 1


def card(rank: int, suit: str) -> int:
    """Return the card int of a rank 0..12 and a suit letter, written out independently of the package."""
    return SUIT_NAMES.index(suit) * 13 + rank


masks = st.integers(min_value=0, max_value=FULL_DECK)
nonempty_masks = st.integers(min_value=1, max_value=FULL_DECK)


# --- card ints (R1.2) -------------------------------------------------------------------


def test_r1_2_card_int_is_suit_times_13_plus_rank():
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13
    assert parse_card("AH") == 26
    assert parse_card("AS") == 39
    assert parse_card("KS") == 51
    assert parse_card("TD") == 13 + 9
    for suit_index, suit in enumerate(SUIT_NAMES):
        for rank, name in enumerate(RANK_NAMES):
            c = parse_card(name + suit)
            assert c == suit_index * 13 + rank
            assert rank_of(c) == rank
            assert suit_of(c) == suit_index


def test_r1_2_deck_has_52_distinct_codes():
    assert N_CARDS == 52
    assert len(CODES) == 52
    assert len(set(CODES)) == 52
    assert ACE == 0 and KING == 12
    assert FULL_DECK == (1 << 52) - 1
    assert LANE == 0b1_1111_1111_1111
    assert parse_cards(" ".join(CODES)) == FULL_DECK


def test_codes_in_accept_ten_as_t_or_10_and_any_case():
    td = card(9, "D")
    for code in ("TD", "td", "tD", "Td", "10D", "10d", " 10D ", "\tTD\n"):
        assert parse_card(code) == td, code
    assert parse_card("as") == parse_card("AS") == card(0, "S")
    assert parse_card("kh") == card(12, "H")
    assert parse_card("jc") == card(10, "C")
    assert parse_card("qd") == card(11, "D")
    assert parse_card("2s") == card(1, "S")


def test_codes_out_are_canonical():
    assert card_code(card(9, "D")) == "TD"
    assert card_code(parse_card("10h")) == "TH"
    assert card_code(0) == "AC"
    assert card_code(51) == "KS"
    assert [card_code(c) for c in range(52)] == [r + s for s in SUIT_NAMES for r in "A23456789TJQK"]


def test_parse_card_accepts_and_checks_card_ints():
    assert parse_card(0) == 0
    assert parse_card(51) == 51
    for bad in (52, -1, 100):
        with pytest.raises(CardError, match=str(bad)):
            parse_card(bad)


@pytest.mark.parametrize("bad", [True, False, 1.0, None, b"AS", ("A", "S")])
def test_parse_card_rejects_non_cards(bad):
    with pytest.raises(CardError):
        parse_card(bad)


@pytest.mark.parametrize("bad", [52, -1, 1.0, "AS"])
def test_card_code_rejects_non_card_ints(bad):
    with pytest.raises(CardError, match="not a card int"):
        card_code(bad)


def test_card_code_rejects_bool_like_parse_card():
    # parse_card refuses True/False as card ints (R1.2); card_code should agree rather than print 2C
    with pytest.raises(CardError):
        parse_card(True)
    with pytest.raises(CardError, match="not a card int"):
        card_code(True)


@pytest.mark.parametrize(
    "code", ["ZZ", "1S", "11H", "AX", "A", "S", "", "  ", "10", "AS2", "A S", "0S", "1OD", "KK", "XS", "TT"]
)
def test_bad_code_raises_card_error_naming_the_code(code):
    with pytest.raises(CardError) as info:
        parse_card(code)
    message = str(info.value)
    assert repr(code) in message
    assert "R1.2" in message


def test_bad_code_inside_parse_cards_names_the_code():
    with pytest.raises(CardError, match="'QX'"):
        parse_cards("AS 2S QX 3S")
    with pytest.raises(CardError, match="'1D'"):
        parse_cards(["AS", "1D"])


def test_card_error_is_a_config_error():
    assert issubclass(CardError, ConfigError)
    assert issubclass(CardError, RummysimError)
    assert issubclass(CardError, ValueError)


# --- sets of cards --------------------------------------------------------------------------


def test_parse_cards_forms_agree():
    expected = (1 << card(0, "S")) | (1 << card(9, "D")) | (1 << card(12, "H"))
    assert parse_cards("AS TD KH") == expected
    assert parse_cards("as 10d kh") == expected
    assert parse_cards("AS,TD,KH") == expected
    assert parse_cards("AS, 10D ,KH") == expected
    assert parse_cards(["AS", "10D", "KH"]) == expected
    assert parse_cards(("as", "td", "kh")) == expected
    assert parse_cards([card(0, "S"), card(9, "D"), card(12, "H")]) == expected
    assert parse_cards(iter(["AS", card(9, "D"), "kh"])) == expected
    assert parse_cards("") == 0
    assert parse_cards([]) == 0
    assert parse_cards("AC 2C") == 0b11


@pytest.mark.parametrize(
    "cards", ["AS as", "TD 10D", "KH 2C kh", ["AS", "as"], ["TD", 22], [0, 0], [39, "AS"], "10c tc"]
)
def test_r1_2_duplicate_cards_rejected(cards):
    with pytest.raises(CardError, match="given twice"):
        parse_cards(cards)


def test_duplicate_message_names_the_card_canonically():
    with pytest.raises(CardError, match="card TD is given twice"):
        parse_cards("10d td")


@pytest.mark.parametrize("bare", [0, 5, 51, 1 << 40, True])
def test_parse_cards_rejects_a_bare_int(bare):
    with pytest.raises(CardError, match="bare int"):
        parse_cards(bare)


def test_parse_cards_rejects_out_of_range_ints_in_an_iterable():
    with pytest.raises(CardError, match="52"):
        parse_cards([0, 52])
    with pytest.raises(CardError):
        parse_cards([True])


def test_to_text_is_suit_then_rank_order():
    assert to_text(parse_cards("3s KH as 2S")) == "KH AS 2S 3S"
    assert to_text(parse_cards("KS AC TD 10H")) == "AC TD TH KS"
    assert to_text(0) == ""
    assert to_text(FULL_DECK) == " ".join(CODES)


def test_iter_cards_cards_of_and_n_cards():
    mask = parse_cards("KS AC TD 5H")
    assert list(iter_cards(mask)) == [0, 22, 30, 51]
    assert cards_of(mask) == [0, 22, 30, 51]
    assert n_cards(mask) == 4
    assert n_cards(0) == 0
    assert cards_of(0) == []
    assert n_cards(FULL_DECK) == 52


def test_rank_span_marks_ranks_present_in_any_suit():
    assert rank_span(parse_cards("AC AS 7H KD")) == (1 << 0) | (1 << 6) | (1 << 12)
    assert rank_span(0) == 0
    assert rank_span(FULL_DECK) == LANE


@settings(max_examples=300, deadline=None)
@given(mask=masks)
def test_round_trip_mask_to_text_to_parse_cards(mask):
    text = to_text(mask)
    assert parse_cards(text) == mask
    assert parse_cards(text.lower()) == mask
    assert parse_cards(text.split()) == mask
    assert parse_cards(cards_of(mask)) == mask
    assert parse_cards(text.replace("T", "10")) == mask
    assert len(text.split()) == n_cards(mask) == bin(mask).count("1")
    assert cards_of(mask) == [c for c in range(52) if mask >> c & 1]


@settings(max_examples=100, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=1, max_size=52, unique=True), data=st.data())
def test_round_trip_codes_in_any_order_and_case(cards, data):
    codes = [CODES[c] for c in cards]
    codes = [data.draw(st.sampled_from([code, code.lower(), code.replace("T", "10")])) for code in codes]
    assert parse_cards(" ".join(codes)) == sum(1 << c for c in cards)


# --- points (R8.2, R9.2) --------------------------------------------------------------------


def test_r8_2_card_points_ace_one_number_cards_face_value_faces_ten():
    for suit in SUIT_NAMES:
        for rank in range(13):
            assert card_points(card(rank, suit)) == FACE_POINTS[rank]
    assert card_points(parse_card("AS")) == 1
    assert card_points(parse_card("7D")) == 7
    assert card_points(parse_card("10H")) == 10
    assert card_points(parse_card("JC")) == 10
    assert card_points(parse_card("QD")) == 10
    assert card_points(parse_card("KS")) == 10


def test_r9_2_ace_value_changes_only_the_ace():
    for suit in SUIT_NAMES:
        assert card_points(card(0, suit), ace_value=15) == 15
        assert card_points(card(0, suit), ace_value=0) == 0
        assert card_points(card(0, suit), ace_value=11) == 11
        for rank in range(1, 13):
            assert card_points(card(rank, suit), ace_value=15) == FACE_POINTS[rank]


def test_r8_2_points_of_a_mask():
    assert points(parse_cards("AS KH 7D")) == 18
    assert points(parse_cards("AS KH 7D"), ace_value=15) == 32
    assert points(0) == 0
    assert points(0, ace_value=15) == 0
    assert points(parse_cards("AC AD AH AS")) == 4
    assert points(parse_cards("AC AD AH AS"), ace_value=15) == 60
    one_suit = sum(FACE_POINTS)
    assert one_suit == 85
    assert points(FULL_DECK) == 4 * 85
    assert points(FULL_DECK, ace_value=15) == 4 * (85 + 14)


@pytest.mark.parametrize("ace_value", [0, 1, 11, 15])
@settings(max_examples=150, deadline=None)
@given(mask=masks)
def test_points_is_sum_of_card_points(ace_value, mask):
    expected = sum((ace_value if c % 13 == 0 else FACE_POINTS[c % 13]) for c in range(52) if mask >> c & 1)
    assert points(mask, ace_value=ace_value) == expected
    assert points(mask, ace_value=ace_value) == sum(card_points(c, ace_value=ace_value) for c in iter_cards(mask))


@pytest.mark.parametrize("ace_value", [1, 15])
def test_lane_points_table(ace_value):
    table = lane_points(ace_value)
    assert len(table) == 1 << 13
    assert table[0] == 0
    values = [ace_value, *FACE_POINTS[1:]]
    for rank in range(13):
        assert table[1 << rank] == values[rank]
    for lane in (0b101, 0b1_0000_0000_0001, LANE, 0b0_1110_0000_1110, 0b1_1111_1111_1110):
        assert table[lane] == sum(values[r] for r in range(13) if lane >> r & 1)
    assert table[LANE] == 84 + ace_value
    assert lane_points(ace_value) is table  # built once per ace value


@pytest.mark.parametrize("ace_value", [1, 15])
def test_lane_points_every_entry(ace_value):
    table = lane_points(ace_value)
    values = [ace_value, *FACE_POINTS[1:]]
    for lane in range(1 << 13):
        total = 0
        for r in range(13):
            if lane >> r & 1:
                total += values[r]
        assert table[lane] == total


# --- highest card (R8.2) --------------------------------------------------------------------


def test_highest_card_picks_most_points():
    assert card_code(highest_card(parse_cards("TS KC 9H"))) == "KC"
    assert card_code(highest_card(parse_cards("2C 9H 5D"))) == "9H"
    assert card_code(highest_card(parse_cards("AC"))) == "AC"
    assert card_code(highest_card(parse_cards("AC 2D"))) == "2D"


def test_highest_card_ace_high_value_wins_r9_2():
    assert card_code(highest_card(parse_cards("AC KS QH"), ace_value=15)) == "AC"
    assert card_code(highest_card(parse_cards("AC KS QH"))) == "KS"
    assert card_code(highest_card(parse_cards("AC AD 9S"), ace_value=15)) == "AD"


def test_highest_card_tie_broken_by_higher_rank_then_suit():
    # all 10 points: K beats Q beats J beats T
    assert card_code(highest_card(parse_cards("TS JC QD KC"))) == "KC"
    assert card_code(highest_card(parse_cards("TS JC QD"))) == "QD"
    assert card_code(highest_card(parse_cards("TS JC"))) == "JC"
    # same rank: spades, hearts, diamonds, clubs
    assert card_code(highest_card(parse_cards("KC KD KH KS"))) == "KS"
    assert card_code(highest_card(parse_cards("KC KD KH"))) == "KH"
    assert card_code(highest_card(parse_cards("KC KD"))) == "KD"
    assert card_code(highest_card(parse_cards("7C 7D 2S"))) == "7D"
    # an ace worth 10 ties with the ten-point cards and, being rank 0, loses the tie
    assert card_code(highest_card(parse_cards("AS TC"), ace_value=10)) == "TC"


def test_highest_card_of_no_cards_is_an_error():
    with pytest.raises(CardError, match="no cards"):
        highest_card(0)


@pytest.mark.parametrize("ace_value", [1, 10, 15])
@settings(max_examples=200, deadline=None)
@given(mask=nonempty_masks)
def test_highest_card_matches_reference(ace_value, mask):
    def key(c: int) -> tuple[int, int, int]:
        rank = c % 13
        value = ace_value if rank == 0 else FACE_POINTS[rank]
        return (value, rank, c // 13)

    expected = max((c for c in range(52) if mask >> c & 1), key=key)
    assert highest_card(mask, ace_value=ace_value) == expected
