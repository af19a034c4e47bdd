"""A slow, plain oracle of the rules (../shared/RULES.md), written apart from the rules core.

Nothing here imports `rummysim`: each rule is read off the rulebook and written the plainest
way, over cards as (rank, suit) pairs, with rank 1 (ace) to 13 (king) and suit one of
"CDHS", and over lists and counts rather than masks. tests/test_core.py checks every
function of `rummysim.core` against these over many generated inputs; a rule written twice,
once for speed and once for reading, fails a test where the two disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

Card = tuple[int, str]
"""A card: (rank 1 to 13, ace to king; suit "C", "D", "H" or "S")."""

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
SUITS = "CDHS"


def consecutive(ranks: Sequence[int]) -> bool:
    """Return whether the ranks, sorted, go up by one each step."""
    ordered = sorted(ranks)
    return all(ordered[i + 1] == ordered[i] + 1 for i in range(len(ordered) - 1))


# -- melds (R5, R9.1) and laying off (R6.1) ---------------------------------------------------
def is_meld(cards: Sequence[Card], ace_high_or_low: bool) -> bool:
    """R5.1 a group: 3 or 4 cards of one rank. R5.2 a sequence: 3 or more of one suit in consecutive ranks.

    R5.3 the ace is low (A-2-3), never above the king; R9.1 with ace high or low, it may
    also be high (Q-K-A) but not both at once: K-A-2 is never a sequence.
    """
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    ranks = [rank for rank, _ in cards]
    suits = [suit for _, suit in cards]
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len(set(suits)) != 1:
        return False
    if consecutive(ranks):
        return True
    if ace_high_or_low and ACE in ranks:
        return consecutive([14 if rank == ACE else rank for rank in ranks])
    return False


def fits(meld: Sequence[Card], card: Card, ace_high_or_low: bool) -> bool:
    """R6.1 a card lays off on a meld when the meld with it is still a meld (a fourth of a group, a sequence's end)."""
    return card not in meld and is_meld([*meld, card], ace_high_or_low)


def may_lay_off(has_melded: bool, lay_off: str) -> bool:
    """R6.1 anyone may lay off; R12.1 under ``lay_off: after_meld``, only who has melded (earlier this turn counts)."""
    if lay_off == "any":
        return True
    return has_melded


# -- card values (R8.2, R9.2) -----------------------------------------------------------------
def card_value(card: Card, ace_points: int) -> int:
    """R8.2 ace 1 (R9.2: its own setting), number cards their face value, J Q K 10 each."""
    rank, _ = card
    if rank == ACE:
        return ace_points
    if rank in (JACK, QUEEN, KING):
        return 10
    return rank


def hand_value(cards: Sequence[Card], ace_points: int) -> int:
    """The points of every card still held (R8.1, R12.3)."""
    return sum(card_value(card, ace_points) for card in cards)


# -- the deal (R3) ----------------------------------------------------------------------------
def deal(deck: Sequence[int], n_players: int, cards_each: int, dealer: int) -> tuple[list[list[int]], int, list[int]]:
    """R3.2 deal one card at a time, starting at the dealer's left and going clockwise (R3.4), until each
    player has `cards_each`; R3.3 turn the next card up to start the discard pile; the rest is the stock.

    Return (each seat's cards in the order received, the upcard, the stock with its top first).
    """
    holdings: list[list[int]] = [[] for _ in range(n_players)]
    seat = dealer
    position = 0
    for _ in range(cards_each):
        for _ in range(n_players):
            seat = next_seat(seat, n_players)
            holdings[seat].append(deck[position])
            position += 1
    upcard = deck[position]
    stock = list(deck[position + 1 :])
    return holdings, upcard, stock


def next_seat(seat: int, n_players: int) -> int:
    """R3.4 play goes clockwise in seat order, and the deal passes to the left: the seat after this one."""
    seats = list(range(n_players))
    return seats[(seats.index(seat) + 1) % n_players]


# -- the draw and the stock (R4.1, R4.6, R4.8, R10, R12.3) -------------------------------------
def may_take_discard(discard_pile: Sequence[int]) -> bool:
    """R4.1 the top card of the discard pile may be drawn; R4.6 there must be one."""
    return len(discard_pile) > 0


def hand_blocked(stock: Sequence[int], stock_out: str) -> bool:
    """R12.3 under ``stock_out: block``, a turn that starts with an empty stock ends the hand."""
    return stock_out == "block" and len(stock) == 0


def may_rebuild(discard_pile: Sequence[int], rebuilds_so_far: int, stall_after_rebuilds: int) -> bool:
    """R10.1 the discard pile but its top card becomes the new stock; R10.2 the hand stalls instead
    once it was rebuilt `stall_after_rebuilds` times, or when there is nothing under the top card."""
    under_the_top = discard_pile[:-1]
    if len(under_the_top) == 0:
        return False
    return rebuilds_so_far < stall_after_rebuilds


def stalls_before_turn(turns_played: int, stall_after_turns: int) -> bool:
    """R10.2 the hand stalls after `stall_after_turns` turns in all."""
    return turns_played >= stall_after_turns


# -- the plays and the discard (R4.3-R4.7, R7.2, R12.2) -------------------------------------------
def leaves_legal_holding(left: Sequence[int], n_plays: int, going_out: str, taken: int | None) -> bool:
    """Whether a turn's plays (melds and lay-offs) may leave these cards in the holding.

    No plays: nothing to judge. R7.2 under ``going_out: discard`` the plays may not leave no
    card (the last must be discarded). R4.5 and R4.7: they may not leave only the card taken
    from the discard pile this turn, which could then not be discarded.
    """
    if n_plays == 0:
        return True
    if len(left) == 0:
        return going_out == "any"
    return not (taken is not None and list(left) == [taken])


def keeps_taken(left: Sequence[int], taken: int | None, take_discard: str) -> bool:
    """R12.2 under ``take_discard: must_use`` a turn may not end with the taken discard still held."""
    return take_discard == "must_use" and taken is not None and taken in left


def discardable(holding: Sequence[int], taken: int | None) -> list[int]:
    """R4.3 discard a card of the holding; R4.5 not the one taken from the discard pile this turn."""
    return [card for card in holding if card != taken]


def may_discard(card: int, holding: Sequence[int], taken: int | None) -> bool:
    """R4.3, R4.5: the card is one that may be discarded."""
    return card in discardable(holding, taken)


# -- going out and scoring (R7, R8, R12.3) --------------------------------------------------------
def went_rummy(played_before_this_turn: bool) -> bool:
    """R8.3 a player goes rummy by playing out all their cards in one turn, having melded or laid
    off nothing earlier in the hand (earlier discards do not count)."""
    return not played_before_this_turn


def out_score(values: Sequence[int], winner: int, rummy: bool, multiplier: int) -> int:
    """R8.1 the winner scores the value of every card the others still hold; R8.3 times the multiplier if rummy."""
    others = sum(value for seat, value in enumerate(values) if seat != winner)
    return others * multiplier if rummy else others


def block_result(values: Sequence[int]) -> tuple[int | None, int]:
    """R12.3 a blocked hand: the one seat with the lowest hand value wins the sum, over every other
    seat, of that seat's value less its own; a tie for the lowest has no winner and no score.

    Return (the winner or None, the points it scores).
    """
    lowest = min(values)
    holders = [seat for seat, value in enumerate(values) if value == lowest]
    if len(holders) != 1:
        return None, 0
    winner = holders[0]
    return winner, sum(value - lowest for seat, value in enumerate(values) if seat != winner)


def game_over(
    scores: Sequence[int],
    hands_played: int,
    stalled_in_a_row: int,
    target_score: int | None,
    max_hands: int | None,
    stall_after_hands: int,
) -> bool:
    """R11.1 a player reached the target score; R11.2 the set number of hands is played; R10.2 the
    last `stall_after_hands` hands in a row had no winner. ``None``: no target or no number of hands."""
    if target_score is not None and any(score >= target_score for score in scores):
        return True
    if max_hands is not None and hands_played >= max_hands:
        return True
    return stalled_in_a_row >= stall_after_hands
