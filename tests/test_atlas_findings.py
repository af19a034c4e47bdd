"""The atlas's sentences say no more than their corrected tests (issue 42, part 3): rule findings, largest, fairness."""

from __future__ import annotations

import pandas as pd

from rummysim.report import atlas_findings as said

EDGE = {"margin": "0.5 pp", "unit": " pp", "scale": "100", "digits": "2"}
LENGTH = {"margin": "5%", "unit": "%", "scale": "100", "digits": "1"}
NOUN = "the first player's edge in a hand"


def frame(rows: list[tuple[int, float, float, float, str]], base: float = 20.0) -> pd.DataFrame:
    return pd.DataFrame([{"rule": "block rummy", "players": p, "change": c * base, "low": lo * base,
                          "high": hi * base, "answer": a, "base": base, "shown_change": c, "shown_low": lo,
                          "shown_high": hi} for p, c, lo, hi, a in rows])  # fmt: skip


def test_r12_3_a_rule_shown_to_shorten_games_at_every_size_is_said_in_percent():
    rows = frame([(2, -0.20, -0.22, -0.18, "Yes"), (3, -0.10, -0.12, -0.02, "Yes, of unclear size")])
    assert said.rule_finding("block rummy", rows, noun="game length", amount=LENGTH) == (
        "With block rummy, games are 10.0 to 20.0% shorter at every table size from 2 to 3 players "
        "(each interval clear of zero)."
    )


def test_a_rule_answered_no_at_every_size_changes_it_by_less_than_the_margin():
    rows = frame([(2, 0.001, -0.002, 0.004, "No"), (3, -0.001, -0.004, 0.002, "No")], base=0.01)
    assert said.rule_finding("no bonus", rows, noun=NOUN, amount=EDGE) == (
        "With no bonus, the first player's edge in a hand changes by less than 0.5 pp at every table size from 2 to "
        "3 players."
    )


def test_a_sentence_needs_every_size_decided_alike():
    mixed = frame([(2, 0.01, 0.005, 0.015, "Yes"), (3, -0.01, -0.015, -0.005, "Yes")])
    unclear = frame([(2, 0.01, 0.005, 0.015, "Yes"), (3, 0.01, -0.02, 0.04, "Can't tell")])
    half = frame([(2, 0.001, -0.002, 0.004, "No"), (3, 0.01, -0.02, 0.04, "Can't tell")])
    for rows in (mixed, unclear, half):
        assert said.rule_finding("x", rows, noun=NOUN, amount=EDGE) is None


def test_the_largest_change_is_picked_from_the_yes_answers_and_says_it_was_picked():
    rows = frame([(2, 0.004, 0.001, 0.007, "Yes, but small"), (5, 0.0306, 0.021, 0.040, "Yes"),
                  (6, 0.05, -0.01, 0.11, "Can't tell")], base=0.0068)  # fmt: skip
    rows["rule"] = ["block rummy", "block rummy", "aces high or low"]
    sentence = said.largest(rows, noun=NOUN, amount=EDGE, level=0.99997)
    assert sentence is not None
    assert sentence.startswith(
        "The largest change one rule makes to the first player's edge in a hand, picked from all 3 single-rule "
        "changes: block rummy at 5 players, +3.06 pp [+2.10, +4.00], from 0.68 pp under basic rummy"
    )
    assert "99.997%" in sentence and "holds for the one picked" in sentence
    assert said.largest(rows.iloc[[0, 2]], noun=NOUN, amount=EDGE, level=0.99) is None


def fairness(shown: list[bool]) -> pd.DataFrame:
    return pd.DataFrame([{"condition": f"c{i}", "players": 4, "unfairness": 1e-4 * i, "basic": 4e-4,
                          "change": 1e-4 * i - 4e-4, "se": 1e-4, "p": 0.001, "shown": s}
                         for i, s in enumerate(shown)])  # fmt: skip


def test_no_rule_set_shown_fairer_is_said_so_and_survivors_are_named_once_when_they_play_alike():
    none = said.fairness_sentences(fairness([False, False]), {}, [], alpha=0.01)
    assert none == ["At 4 players, basic rummy's seats win shares of the hands that differ from the fair share (25%) "
                    "by 1.00 pp on average (root mean square); no rule set is shown fairer to every seat (2 tested, "
                    "one-sided, Holm)."]  # fmt: skip
    words = {"c0": "block rummy", "c1": "block rummy, taking the discard only to play it", "c2": "no bonus"}
    found = said.fairness_sentences(fairness([True, True, False]), words, [["c0", "c1"]], alpha=0.01)
    assert found[0].endswith(
        "fairer to every seat (3 tested, one-sided, Holm at 1% over the sizes): block rummy = block rummy, taking "
        "the discard only to play it (0.00 pp)."
    )
    assert "no bonus" not in found[0]
