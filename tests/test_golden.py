"""A golden transcript of one seeded hand, so that any change of behaviour is seen.

If a change is intended, regenerate with ``RUMMYSIM_UPDATE_GOLDEN=1 pytest tests/test_golden.py``
and review the diff of ``tests/golden/`` like code.
"""

from __future__ import annotations

import os
from pathlib import Path

from rummysim.cards import to_text
from rummysim.engine import play_hand
from rummysim.rules import Rules
from rummysim.seeding import strategy_rng
from rummysim.strategies import make_strategy

GOLDEN = Path(__file__).parent / "golden"


def transcript(*, rules: Rules, specs: list[str], seed: int, game: int, hand: int, dealer: int) -> str:
    bots = [make_strategy(s, rng=strategy_rng(seed, game, seat)) for seat, s in enumerate(specs)]
    result = play_hand(bots, rules=rules, seed=seed, game=game, hand=hand, dealer=dealer, names=specs, trace=True)
    lines = [f"rules: {rules.to_dict()}", f"seed={seed} game={game} hand={hand} dealer={dealer} players={specs}"]
    for t in result.turns:
        lines.append(
            f"turn {t.turn:>3} seat {t.seat} draws {t.pile:<7} {t.drew}"
            f" | plays {t.plays or '-'} | discards {t.discard or '-'} | holds {t.holding}"
        )
    ended = result.events[-1]
    lines.append(
        f"end: winner={result.winner} points={result.points} by={result.went_out_by} "
        f"rummy={result.went_rummy} stalled={result.stalled}"
    )
    lines += [f"seat {seat} left: {to_text(h) or '-'}" for seat, h in enumerate(ended.holdings)]
    for row in result.records:
        lines.append(str(row))
    return "\n".join(lines) + "\n"


CASES = {
    "greedy_vs_uniform_basic.txt": dict(rules=Rules(), specs=["greedy", "uniform"], seed=2026, game=3, hand=1),
    "greedy_x3_ace_high_discard.txt": dict(
        rules=Rules(n_players=3, ace="high_or_low", going_out="discard"),
        specs=["greedy", "greedy", "greedy"],
        seed=7,
        game=0,
        hand=0,
    ),
}


def test_golden_transcripts_are_unchanged():
    for name, case in CASES.items():
        text = transcript(dealer=0, **case)
        path = GOLDEN / name
        if os.environ.get("RUMMYSIM_UPDATE_GOLDEN"):
            path.write_text(text)
        assert path.read_text() == text, f"{name} changed; see the module docstring"
