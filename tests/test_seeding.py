"""The random streams (rummysim.seeding): counter-based, versioned, and never mixed across versions."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.replay import replay_hand
from rummysim.runner import run_experiment
from rummysim.seeding import (
    M64,
    STREAMS,
    Stream,
    below,
    derive,
    draw,
    first_dealer,
    hand_key,
    mix64,
    permutation,
    root,
    strategy_rng,
)


def fisher_yates(key: int, n: int) -> list[int]:
    """The shuffle as the module's docstring states it, one draw at a time."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = below(draw(key, n - 1 - i), i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@given(st.integers(0, M64), st.integers(0, 60))
def test_the_vectorised_shuffle_is_fisher_yates_over_the_stream(key, n):
    assert permutation(key, n) == fisher_yates(key, n)


def test_splitmix64_matches_its_published_first_outputs():
    # SplitMix64 seeded with 0: its first outputs (Vigna's reference implementation, splitmix64.c)
    assert [draw(0, i) for i in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert mix64(0) == 0


def test_keys_differ_for_every_path_and_any_seed_size():
    keys = {
        derive(root(seed), 0, game, hand) for seed in (0, 1, 2**64, 2**64 + 1) for game in range(5) for hand in range(5)
    }
    assert len(keys) == 4 * 25
    assert root(5) != root(5 + 2**64)


def test_a_shuffle_puts_each_card_everywhere_about_equally():
    """R3.1: a shuffled deck; 52 x 52 positions over 5,200 shuffles, each cell near 100."""
    counts = Counter()
    for hand in range(5_200):
        for position, card in enumerate(permutation(hand_key(3, 0, hand), 52)):
            counts[position, card] += 1
    assert len(counts) == 52 * 52
    assert min(counts.values()) > 50 and max(counts.values()) < 160


def test_the_first_dealer_is_every_seat_about_equally():
    """R3.1: the first dealer drawn at random."""
    seats = Counter(first_dealer(1, game, 4) for game in range(4_000))
    assert sorted(seats) == [0, 1, 2, 3] and min(seats.values()) > 900


def test_a_bot_stream_comes_from_its_generator_and_repeats():
    a, b = Stream(strategy_rng(9, 0, 1)), Stream(strategy_rng(9, 0, 1))
    assert [a.below(10) for _ in range(20)] == [b.below(10) for _ in range(20)]
    c = Stream(strategy_rng(9, 0, 0))
    assert [c.below(1000) for _ in range(5)] != [Stream(strategy_rng(9, 0, 1)).below(1000) for _ in range(5)]


SPEC = {
    "name": "tiny", "question": "Does it run?", "seed": 11, "games": 2, "players": ["greedy", "uniform"],
    "rules": {"target_score": 40}, "conditions": {"basic": {}},
}  # fmt: skip


def test_a_folder_made_under_other_streams_is_not_resumed(tmp_path):
    run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=tmp_path, n_jobs=1)
    state_path = tmp_path / "tiny" / "run.json"
    state = json.loads(state_path.read_text())
    assert state["streams"] == STREAMS
    state["streams"] = STREAMS - 1
    state_path.write_text(json.dumps(state))
    with pytest.raises(ConfigError, match=rf"made under random streams v{STREAMS - 1}, .* cannot resume them"):
        run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=tmp_path, n_jobs=1)


def test_a_folder_made_under_other_streams_is_not_replayed(tmp_path):
    results = run_experiment(parse_experiment(SPEC, source="tiny.yaml"), out=tmp_path, n_jobs=1)
    assert results.manifest["streams"] == STREAMS
    assert replay_hand(results.folder, condition="basic", game=0, hand=0).mismatches == ()
    manifest = json.loads((results.folder / "manifest.json").read_text())
    del manifest["streams"], manifest["manifest_sha256"]  # a manifest from before the streams had a version
    (results.folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match=r"made under random streams v1, .* cannot replay its hands; play it again"):
        replay_hand(results.folder, condition="basic", game=0, hand=0)
