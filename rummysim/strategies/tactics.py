"""Small pure helpers that bots share: listing legal plays and laying off what fits."""

from __future__ import annotations

from collections.abc import Sequence

import rummysim.core as core
from rummysim.cards import iter_cards
from rummysim.melds import can_lay_off, lay_off_table, meld_table
from rummysim.moves import LayOff
from rummysim.rules import Ace, GoingOut, Rules


def melds_in(holding: int, ace: Ace) -> list[int]:
    """Return every legal meld that the holding could play (R5)."""
    return [m for m in meld_table(ace) if m & holding == m]


def lay_offs_in(holding: int, table: Sequence[int], ace: Ace) -> list[LayOff]:
    """Return every single lay-off the holding could make on the table (R6.1)."""
    return [
        LayOff(card, i) for card in iter_cards(holding) for i, meld in enumerate(table) if can_lay_off(meld, card, ace)
    ]


def fitting_cards(table: Sequence[int], ace: Ace) -> int:
    """Return the mask of every card that could be laid off somewhere on the table (R6.1)."""
    fits_of = lay_off_table(ace)
    fits = 0
    for meld in table:
        fits |= fits_of[meld]
    return fits


def lay_off_all(holding: int, table: list[int], ace: Ace) -> tuple[list[LayOff], int]:
    """Lay off every card that fits, repeating so chains fit too (R6.1, R6.3).

    `table` (the melds' masks) is updated in place; return the lay-offs and the holding left.
    Each pass lays off on every meld in turn the lowest card that fits it.
    """
    fits_of = lay_off_table(ace)
    plays: list[LayOff] = []
    while holding:
        laid = False
        for i, meld in enumerate(table):
            fit = fits_of[meld] & holding
            if fit:
                low = fit & -fit  # the lowest card that fits
                plays.append(LayOff(low.bit_length() - 1, i))
                holding ^= low  # place((play,), holding=holding, melds=table), written out
                table[i] = meld | low
                laid = True
        if not laid:
            break
    return plays, holding


def discardable(holding: int, taken: int | None) -> int:
    """Return the cards of a holding that may be discarded: all but one just taken (R4.5, `core.discardable`)."""
    return core.discardable(holding, core.NO_CARD if taken is None else taken)


def leaves_legal_holding(holding: int, *, n_played: int, rules: Rules, taken: int | None) -> bool:
    """Return True if plays leaving this holding are allowed (R4.7, R7.2, `core.leaves_legal_holding`)."""
    discard_to_go_out = rules.going_out is GoingOut.DISCARD
    return core.leaves_legal_holding(holding, n_played, discard_to_go_out, core.NO_CARD if taken is None else taken)
