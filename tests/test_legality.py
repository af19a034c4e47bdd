"""The legality API a bot asks before it answers: `PlayerView.can_...` / `explain_...` / `apply_plays`.

Each is the engine's own check (R4.1-R4.7, R5, R6, R7.2, R12.1, R12.2), so a bot never
re-derives a rule: these tests hold the answers to the rules on positions built by hand.
"""

from __future__ import annotations

from rummysim.cards import parse_card, parse_cards
from rummysim.moves import LayOff, Meld, Pile
from rummysim.rules import Rules
from rummysim.strategies.base import PlayerView
from rummysim.table import TableMeld


def view(holding: str, *, rules: Rules | None = None, pile: str = "KD", table=(), drawn=None, taken=None,
         melded=(False, False)) -> PlayerView:  # fmt: skip
    cards = parse_cards(holding)
    return PlayerView(
        seat=0, n_players=2, dealer=1, rules=rules or Rules(), hand=0, turn=2, holding=cards,
        drawn=None if drawn is None else parse_card(drawn), taken=None if taken is None else parse_card(taken),
        table=tuple(TableMeld(parse_cards(m), seat) for m, seat in table),
        discard_pile=tuple(parse_card(c) for c in pile.split()), stock_size=20,
        holding_sizes=(cards.bit_count(), 7), has_melded=melded, scores=(0, 0), n_rebuilds=0, history=(),
    )  # fmt: skip


def test_R4_6_the_discard_pile_may_be_drawn_from_only_when_it_holds_a_card():
    assert view("2C 3C", pile="KD").can_draw(Pile.DISCARD)
    empty = view("2C 3C", pile="KD")._replace(discard_pile=())
    assert not empty.can_draw(Pile.DISCARD)
    assert empty.explain_draw(Pile.DISCARD).rule == "R4.6"
    assert empty.can_draw("stock")
    assert view("2C").explain_draw("sideways").rule == "R4.1"


def test_R4_5_the_card_taken_may_not_be_discarded_and_a_card_not_held_never():
    seen = view("KD 2C 3C 9H", drawn="KD", taken="KD")
    assert not seen.can_discard(parse_card("KD"))
    assert seen.explain_discard("KD").rule == "R4.5"
    assert seen.explain_discard("4S").rule == "R4.3"
    assert seen.can_discard("9H")


def test_R12_1_a_lay_off_before_your_first_meld_is_explained_and_a_meld_first_makes_it_legal():
    rules = Rules(lay_off="after_meld")
    seen = view("6H 2C 3C 4C 9S", rules=rules, table=[("7H 8H 9H", 1)], drawn="9S")
    lay_off = LayOff.of("6H", 0)
    assert seen.explain_plays([lay_off]).rule == "R12.1"
    assert seen.can_play([Meld.of("2C 3C 4C"), lay_off])
    assert not seen.can_play([lay_off, Meld.of("2C 3C 4C")])  # a meld later in the turn does not count
    assert view("6H 2C 9S", table=[("7H 8H 9H", 1)], drawn="9S").can_play([lay_off])  # lay_off: any
    applied = seen.apply_plays([Meld.of("2C 3C 4C"), lay_off])
    assert applied.holding == parse_cards("9S")
    assert [m.cards for m in applied.table] == [parse_cards("6H 7H 8H 9H"), parse_cards("2C 3C 4C")]


def test_R12_2_a_plan_that_keeps_the_taken_card_is_explained_before_and_after_the_draw():
    rules = Rules(take_discard="must_use")
    before = view("5D 6D 2C 3C 4C 9S", rules=rules, pile="7D")
    assert before.can_play([Meld.of("5D 6D 7D")], taken=parse_card("7D"))  # judged as if 7D were taken
    assert before.explain_plays([Meld.of("2C 3C 4C")], taken=parse_card("7D")).rule == "R12.2"
    after = view("5D 6D 7D 2C 3C 4C 9S", rules=rules, pile="", drawn="7D", taken="7D")._replace(discard_pile=())
    assert after.explain_plays([]).rule == "R12.2"
    assert after.can_play([Meld.of("2C 3C 4C"), Meld.of("5D 6D 7D")])
    assert view("5D 6D 7D 2C 3C 4C 9S", drawn="7D", taken="7D").can_play([])  # take_discard: free


def test_R7_2_and_R4_7_plans_that_leave_no_card_or_only_the_taken_one_are_explained():
    out = view("2C 3C 4C 5H 6H 7H", rules=Rules(going_out="discard"), drawn="7H")
    assert out.explain_plays([Meld.of("2C 3C 4C"), Meld.of("5H 6H 7H")]).rule == "R7.2"
    assert out.can_play([Meld.of("2C 3C 4C")])
    taken = view("2C 3C 4C 9S", drawn="9S", taken="9S")
    assert taken.explain_plays([Meld.of("2C 3C 4C")]).rule == "R4.7"
