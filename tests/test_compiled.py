"""The compiled engine against the reference engine: the same tables, row for row, on the same seed.

The reference engine (rummysim.engine, rummysim.game) is the specification; the compiled
engine (rummysim.compiled) is a second implementation of rules R3 to R11 and of the bots
with a compiled twin. `differences` plays the same chunk of games on both and names the
first row that differs; `test_a_planted_difference_is_caught` mutates one rule of the
reference engine at a time and checks that the comparison fails.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rummysim import compiled
from rummysim import seeding as reference
from rummysim.cards import parse_cards, points
from rummysim.chunks import Chunk, play_chunk
from rummysim.compiled import bits
from rummysim.dealing import deal
from rummysim.design import Condition
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.records import HandRecord, hand_records, recompute_points
from rummysim.rules import PRESETS, Rules
from rummysim.runner import run_experiment

KERNELS = compiled.load()

TUNED = [
    {"strategy": "rummy_hunter", "patience": 2, "danger": 4},
    {"strategy": "cautious", "caution": 3.5, "hope": 0.5, "blind": 1.0},
    "greedy",
]
LINEUPS = {
    "greedy": lambda n: ["greedy"] * n,
    "uniform": lambda n: ["uniform"] * n,
    "mixed": lambda n: (["cautious", "greedy", "rummy_hunter", "uniform", "greedy", "cautious"])[:n],
    "tuned": lambda n: (TUNED * 2)[:n],
}
VARIANTS = {
    "big_holdings": dict(cards_dealt=14, target_score=80),  # arrangements by the rank programme
    "aces_seven": dict(ace="high_or_low", ace_points=7, rummy_multiplier=3),
    "no_target": dict(target_score=None, max_hands=4),
    "short_stalls": dict(stall_after_rebuilds=0, stall_after_turns=30, stall_after_hands=2),
    "one_rebuild": dict(stall_after_rebuilds=1, going_out="discard", target_score=60),
}


def tables(condition: Condition, *, engine: str, seed: int, games: int) -> dict[str, pd.DataFrame]:
    chunk = Chunk(0, condition, seed, 0, games, False, engine=engine)
    return {kind: table.to_pandas() for kind, table in play_chunk(chunk)[1].items()}


def differences(condition: Condition, *, seed: int = 7, games: int = 4) -> str | None:
    """Return the first difference between the engines' tables of a condition, or None if they are equal."""
    ref = tables(condition, engine="python", seed=seed, games=games)
    fast = tables(condition, engine="compiled", seed=seed, games=games)
    for kind in ("hands", "games"):
        a, b = ref[kind], fast[kind]
        if len(a) != len(b):
            return f"{condition.name}: {kind}: {len(a)} rows against {len(b)}"
        unequal = ~((a == b) | (a.isna() & b.isna())).all(axis=1)
        if unequal.any():
            row = int(np.flatnonzero(unequal.to_numpy())[0])
            return f"{condition.name}: {kind} row {row}: {a.iloc[row].to_dict()} against {b.iloc[row].to_dict()}"
    return None


def grid(preset_names, sizes, lineups, variants=("",)):
    for preset, n, lineup, variant in itertools.product(preset_names, sizes, lineups, variants):
        try:
            rules = PRESETS[preset].replace(n_players=n, **VARIANTS.get(variant, {}))
        except ConfigError:
            continue  # more cards dealt than the deck holds (R3.2)
        players = tuple({"strategy": p} if isinstance(p, str) else dict(p) for p in LINEUPS[lineup](n))
        yield Condition(f"{preset}-{n}-{lineup}-{variant}", rules, players)


DEFAULT_GRID = [
    *grid(PRESETS, range(2, 7), ["mixed"]),
    *grid(["basic"], [2, 4], ["greedy", "uniform", "tuned"]),
    *grid(["basic", "ace_high"], [2, 3], ["mixed"], list(VARIANTS)),
]


@pytest.mark.parametrize("condition", DEFAULT_GRID, ids=lambda c: c.name)
def test_the_engines_play_the_same_rows(condition):
    assert differences(condition) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    "condition", list(grid(PRESETS, range(2, 7), list(LINEUPS), ["", *VARIANTS])), ids=lambda c: c.name
)
def test_the_engines_play_the_same_rows_in_thousands_of_games(condition):
    assert differences(condition, seed=2026, games=12) is None


def _pay_one_more(mask, *, ace_value=1):
    return points(mask, ace_value=ace_value) + (mask > 0)


def _deal_from_the_dealer(rules, *, dealer, key):
    return deal(rules, dealer=(dealer - 1) % rules.n_players, key=key)


def _no_rummy_multiplier(**fields):
    if fields["went_rummy"]:
        fields["points"] //= fields["multiplier"]
    return hand_records(**fields)


def _lowest_card(mask, **_):
    return (mask & -mask).bit_length() - 1


PLANTS = {
    "R8.2 a card scores one more": ("rummysim.ending.points", _pay_one_more),
    "R10.1 the rebuilt stock is not shuffled": ("rummysim.engine.permutation", lambda key, n: list(range(n))),
    "R3.1 the deal starts at the dealer": ("rummysim.engine.deal", _deal_from_the_dealer),
    "R8.3 going rummy is not multiplied": ("rummysim.ending.hand_records", _no_rummy_multiplier),
    "greedy discards its lowest deadwood": ("rummysim.strategies.greedy.highest_card", _lowest_card),
}


@pytest.mark.parametrize("plant", list(PLANTS))
def test_a_planted_difference_is_caught(plant, monkeypatch):
    """Mutating one rule of the reference engine makes the comparison fail on the default grid."""
    monkeypatch.setattr(*PLANTS[plant])
    found = next((d for d in map(differences, DEFAULT_GRID) if d is not None), None)
    assert found is not None, f"{plant}: not caught"


@pytest.mark.parametrize("condition", DEFAULT_GRID[:8] + DEFAULT_GRID[-5:], ids=lambda c: c.name)
def test_every_card_is_accounted_for_and_points_recompute_in_compiled_tables(condition):
    """R1.2 after every turn (the kernel's audit), R8 and R11 from the tables alone."""
    rules = condition.rules
    out, _ = KERNELS.play_chunk_tables(condition.name, rules, condition.players, seed=3, start=0, stop=6, audit=True)
    hands, games = out["hands"].to_pandas(), out["games"].to_pandas()
    fields = list(HandRecord._fields)
    for _, rows in hands.groupby(["game", "hand"]):
        assert list(rows.seat) == list(range(rules.n_players))
        masks = [parse_cards(h) for h in rows.holding_end]
        assert sum(m.bit_count() for m in masks) == len(
            set().union(*[{c for c in range(52) if m >> c & 1} for m in masks])
        )
        assert list(rows.holding_points) == [points(m, ace_value=rules.ace_value) for m in masks]
        records = [HandRecord(**{f: (None if pd.isna(v) else v) for f, v in zip(fields, r, strict=True)})
                   for r in rows[fields].itertuples(index=False)]  # fmt: skip
        assert recompute_points(records, rules=rules) == rows.points.sum()
        assert rows.won.sum() == (0 if rows.stalled.iloc[0] else 1)
    last = hands.groupby(["game", "seat"]).score.last().reset_index()
    merged = games.merge(last, on=["game", "seat"], suffixes=("", "_hands"))
    assert (merged.score == merged.score_hands).all()
    assert (games.hands_won == hands.groupby(["game", "seat"]).won.sum().to_numpy()).all()


def test_the_streams_are_the_seeding_modules_numbers():
    rng = random.Random(5)
    for _ in range(300):
        key, n, step = rng.getrandbits(64), rng.randint(0, 60), rng.getrandbits(40)
        cards = np.arange(100, 100 + n)
        bits.shuffle(np.uint64(key), cards, n)
        assert list(cards) == [100 + i for i in reference.permutation(key, n)]
        assert int(bits.derive(np.uint64(key), step)) == reference.derive(key, step)
        assert int(bits.draw(np.uint64(key), step)) == reference.draw(key, step)
        assert bits.below(np.uint64(bits.draw(np.uint64(key), 0)), n + 1) == reference.below(
            reference.draw(key, 0), n + 1
        )


SPEC = {
    "name": "tiny", "question": "Same on both engines?", "seed": 5, "games": 6,
    "players": ["greedy", "cautious", "rummy_hunter"],
    "conditions": {"basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}},
                   "hunted": {"players": ["uniform", "rummy_hunter", "greedy"], "engine": "python"}},
}  # fmt: skip


def assert_same_tables(a, b):
    for kind in ("hands", "games"):
        pd.testing.assert_frame_equal(getattr(a, kind), getattr(b, kind))


def test_a_run_is_the_same_on_either_engine_and_its_manifest_says_which_played(tmp_path):
    experiment = parse_experiment(SPEC, source="tiny.yaml")
    fast = run_experiment(experiment, out=tmp_path / "auto", n_jobs=2, chunk_games=2)
    slow = run_experiment(experiment, out=tmp_path / "python", n_jobs=1, engine="python")
    assert_same_tables(fast, slow)
    engines = {name: e["engine"] for name, e in fast.manifest["engines"].items()}
    assert engines == {"basic": "compiled", "ace_high": "compiled", "hunted": "python"}
    assert {e["engine"] for e in slow.manifest["engines"].values()} == {"python"}


def test_auto_falls_back_to_the_reference_engine_with_a_notice_and_the_same_tables(tmp_path, monkeypatch, capsys):
    experiment = parse_experiment(SPEC, source="tiny.yaml")
    fast = run_experiment(experiment, out=tmp_path / "compiled", n_jobs=1)
    monkeypatch.setenv(compiled.SWITCH, "0")
    monkeypatch.setattr(compiled, "_loaded", None)
    fallback = run_experiment(experiment, out=tmp_path / "fallback", n_jobs=1)
    notice = capsys.readouterr().err.strip().splitlines()
    assert notice == [
        f"rummysim: the compiled engine is switched off ({compiled.SWITCH}=0); "
        "playing on the reference engine, with the same results"
    ]
    assert {e["engine"] for e in fallback.manifest["engines"].values()} == {"python"}
    assert_same_tables(fast, fallback)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": ["montecarlo", "greedy"], "engine": "compiled"},
         r"tiny.yaml: engine \(condition basic\): compiled cannot play it: montecarlo has no compiled twin"),
        ({"time_limit": 5, "engine": "compiled"}, r"compiled cannot play it: time_limit times decisions"),
        ({"engine": "fast"}, r"tiny.yaml: engine: 'fast' is not one of auto, python, compiled"),
    ],
)  # fmt: skip
def test_an_engine_that_cannot_play_a_condition_is_a_one_line_error(tmp_path, change, message):
    spec = {**SPEC, "conditions": {"basic": {}}, **change}
    with pytest.raises(ConfigError, match=message):
        run_experiment(parse_experiment(spec, source="tiny.yaml"), out=tmp_path, n_jobs=1)


def test_the_engine_never_changes_the_fingerprint():
    a = parse_experiment({**SPEC, "engine": "python"}, source="tiny.yaml")
    b = parse_experiment(SPEC, source="tiny.yaml")
    assert a.fingerprint() == b.fingerprint()


@pytest.mark.parametrize("ace", ["low", "high_or_low"])
def test_the_lay_off_fits_of_every_legal_meld_are_the_references(ace):
    """R6.1: a card lays off when the meld with it is a legal meld; every meld a table can hold is in the table."""
    from rummysim.compiled.state import lay_off_fits
    from rummysim.melds import lay_off_fits as reference_fits
    from rummysim.melds import meld_table

    rules = Rules(ace=ace)
    tables = KERNELS.tables_of(rules)
    for meld in meld_table(rules.ace):
        assert lay_off_fits(tables[0], meld) == reference_fits(meld, rules.ace), meld


def test_the_compiled_bench_reports_each_compiled_bot_against_greedy():
    from rummysim.benchmarks import bench_compiled

    figures = bench_compiled(games=4, repeats=1)
    bots = figures["compiled_bots"]
    assert list(bots) == ["greedy", "uniform", "rummy_hunter", "cautious"]
    assert bots["greedy"]["of_greedy"] == 1.0
    for rates in bots.values():
        assert rates["hands_per_second"] > 0
        assert rates["of_greedy"] == pytest.approx(rates["hands_per_second"] / figures["compiled_hands_per_second"])


def _shipped_conditions():
    from pathlib import Path

    from rummysim.engine_choice import needs_reference
    from rummysim.experiment import load_experiment

    for path in sorted((Path(__file__).parent.parent / "experiments").glob("*.yaml")):
        experiment = load_experiment(path)
        conditions = experiment.conditions
        if len(conditions) > 32:  # the atlas (640 cells): each condition's basic rummy and its every-rule cell
            conditions = [
                c for c in conditions if c.name.endswith(("|" + _cell(experiment, 0), "|" + _cell(experiment, -1)))
            ]
        for condition in conditions:
            if needs_reference(experiment, condition, trace=False) is None:
                yield pytest.param(experiment.seed, condition, id=f"{path.stem}-{condition.name}")


def _cell(experiment, level: int) -> str:
    """Return the grid cell's name with every factor at its `level`-th level (0: the reference, -1: the last)."""
    return ",".join(f"{factor}={levels[level]}" for factor, levels in experiment.grid.items())


@pytest.mark.parametrize(("seed", "condition"), list(_shipped_conditions()))
def test_the_shipped_experiments_play_the_same_rows_on_both_engines(seed, condition):
    assert differences(condition, seed=seed, games=3) is None


@pytest.mark.slow
def test_kernels_compile_once_into_the_users_cache_and_load_from_it(tmp_path):
    """Item 5: the first load compiles into $XDG_CACHE_HOME/rummysim/numba-<hash>; the next process reads it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    code = "import rummysim.compiled as c; c.load(); print(c.cache_dir())"
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    folder = first.stdout.strip()
    assert folder.startswith(str(tmp_path / "rummysim" / "numba-"))

    def machine_code():
        return {p.name: p.stat().st_mtime_ns for p in Path(folder).rglob("*.nbc")}

    cached = machine_code()
    assert cached
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert second.stdout.strip() == folder
    assert machine_code() == cached  # read, nothing compiled anew


FUZZ_BOTS = [
    "greedy", "uniform", "cautious", "rummy_hunter", {"strategy": "rummy_hunter", "patience": 0, "danger": 0},
    {"strategy": "cautious", "caution": 0.0, "hope": 9.5, "blind": 3.0}, {"strategy": "rummy_hunter", "patience": 40},
]  # fmt: skip


@st.composite
def conditions(draw):
    """Any rule settings at 2 to 6 players, with any lineup of compiled bots (unseen experiments)."""
    n = draw(st.integers(2, 6))
    settings = {
        "cards_dealt": draw(st.sampled_from([None, 1, 2, 3, 5, 8, 12, 15, 20, 25])),
        "ace": draw(st.sampled_from(["low", "high_or_low"])),
        "ace_points": draw(st.sampled_from([None, 0, 1, 11, 15])),
        "going_out": draw(st.sampled_from(["any", "discard"])),
        "rummy_multiplier": draw(st.sampled_from([1, 2, 4])),
        "target_score": draw(st.sampled_from([None, 1, 25, 100])),
        "max_hands": draw(st.sampled_from([None, 1, 3])),
        "stall_after_rebuilds": draw(st.sampled_from([0, 1, 3])),
        "stall_after_turns": draw(st.sampled_from([1, 7, 60, 1000])),
        "stall_after_hands": draw(st.sampled_from([1, 2, 50])),
    }
    try:
        rules = Rules(n_players=n, **settings)
    except ConfigError:
        assume(False)
    players = tuple(
        {"strategy": p} if isinstance(p, str) else dict(p)
        for p in draw(st.lists(st.sampled_from(FUZZ_BOTS), min_size=n, max_size=n))
    )
    return Condition("fuzz", rules, players), draw(st.integers(0, 10**6))


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much])
@given(conditions())
def test_the_engines_agree_on_any_rules_and_lineup(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=2) is None


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(conditions())
def test_the_engines_agree_on_any_rules_and_lineup_at_length(case):
    condition, seed = case
    assert differences(condition, seed=seed, games=3) is None
