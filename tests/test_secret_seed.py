"""Secret seeds (issue 22, part 1): a bot learns nothing that leads to the deals; the run commits, keeps, reveals.

The attacks of the issue are kept here: a bot that tries the public seeds people pick
until one gives its own key, and one that redeals small seeds until one deals its own
holding. Both win against a public seed and lose against a secret one.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import stat

import numpy as np
import pytest
from click.testing import CliRunner

from rummysim import seeding
from rummysim.chunks import Chunk, play_chunk
from rummysim.cli import main
from rummysim.dealing import deal
from rummysim.design import Condition
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.results import load_results
from rummysim.rules import Rules
from rummysim.runner import run_experiment
from rummysim.secret_seed import SECRET_FILE, keep
from rummysim.seeding import Secret, hand_key, strategy_key

SMALL_SEEDS = range(3000)
"""The seeds an attacker tries first: every shipped experiment uses 2026."""


def _experiment(seed: object = "secret", games: int = 12) -> object:
    return parse_experiment(
        {"name": "sealed_deals", "question": "q?", "seed": seed, "games": games, "players": ["greedy", "cautious"],
         "conditions": {"basic": {}}},
        source="t.yaml",
    )  # fmt: skip


def _seed_from_key(key: int, game: int, seat: int) -> int | None:
    """The attack: try small seeds until one gives the bot's own key."""
    return next((s for s in SMALL_SEEDS if strategy_key(s, game, seat) == key), None)


def _seed_from_holding(holding: list[int], rules: Rules, game: int, hand: int, seat: int, dealer: int) -> int | None:
    """The other attack: redeal small seeds until one deals the bot's own holding."""
    for candidate in SMALL_SEEDS:
        if deal(rules, dealer=dealer, key=hand_key(candidate, game, hand)).holdings[seat] == holding:
            return candidate
    return None


def test_a_bot_finds_a_public_seed_from_its_own_key_but_not_a_secret_one():
    assert _seed_from_key(strategy_key(2026, 5, 1), 5, 1) == 2026
    secret = Secret()
    assert _seed_from_key(strategy_key(secret, 5, 1), 5, 1) is None


def test_a_bot_redeals_a_public_seed_from_its_holding_but_not_a_secret_one():
    rules = Rules()

    def holding(seed: int) -> list[int]:
        return deal(rules, dealer=0, key=hand_key(seed, 3, 2)).holdings[1]

    assert _seed_from_holding(holding(1234), rules, 3, 2, 1, 0) == 1234
    assert _seed_from_holding(holding(Secret()), rules, 3, 2, 1, 0) is None


def test_a_secret_keys_other_streams_than_the_public_seed_of_the_same_number():
    secret = Secret(2026)
    assert secret == 2026  # an int, so it goes wherever a seed goes
    assert hand_key(secret, 0, 0) != hand_key(2026, 0, 0)  # the cached per-game key is typed
    assert hand_key(2026, 0, 0) == seeding.derive(seeding.root(2026), seeding.HAND, 0, 0)
    assert strategy_key(secret, 0, 1) != strategy_key(2026, 0, 1)
    assert seeding.game_key(secret, 4) != seeding.game_key(2026, 4)


def test_a_secrets_text_never_shows_its_bits_and_it_pickles_as_a_secret():
    secret = Secret()
    for text in (str(secret), repr(secret), f"{secret}", json.dumps(_experiment().to_dict())):
        assert secret.reveal not in text and str(int(secret)) not in text
    assert str(secret).startswith("secret-") and secret.commitment.startswith(str(secret)[7:])
    again = pickle.loads(pickle.dumps(secret))
    assert type(again) is Secret and again == secret
    assert Secret.revealed(secret.reveal) == secret
    assert secret.commitment == hashlib.sha256(secret.reveal.encode()).hexdigest()


@pytest.mark.parametrize("bad", ["Secret", "2026", 1.5, -1, None])
def test_a_seed_that_is_not_a_number_or_secret_is_one_line(bad):
    with pytest.raises(ConfigError, match="seed"):
        _experiment(seed=bad)


def test_both_engines_play_the_same_rows_under_a_secret():
    condition = Condition("mixed", Rules(n_players=3), ("greedy", "cautious", "uniform"))
    secret = Secret()
    python, compiled = (
        {k: t.to_pandas() for k, t in play_chunk(Chunk(0, condition, secret, 0, 6, False, engine=e))[1].items()}
        for e in ("python", "compiled")
    )
    for kind in ("hands", "games"):
        assert python[kind].equals(compiled[kind]), kind
    public = play_chunk(Chunk(0, condition, int(secret), 0, 6, False, engine="compiled"))[1]["hands"].to_pandas()
    assert not public.equals(compiled["hands"])


def test_a_secret_run_commits_before_play_and_reveals_it_at_the_end(tmp_path, capsys):
    results = run_experiment(_experiment(), out=tmp_path, n_jobs=1)
    folder = results.folder
    state_text = (folder / "run.json").read_text()
    state, manifest = json.loads(state_text), json.loads((folder / "manifest.json").read_text())
    reveal = manifest["secret"]
    assert reveal not in state_text and "secret" not in state and manifest["experiment"]["seed"] == "secret"
    assert state["secret_sha256"] == manifest["secret_sha256"] == hashlib.sha256(reveal.encode()).hexdigest()
    assert manifest["secret_sha256"] in capsys.readouterr().err
    assert load_results(folder).experiment.seed == Secret.revealed(reveal)
    assert not (folder / SECRET_FILE).exists()  # revealed: no longer kept apart


def test_a_running_secret_is_kept_for_its_owner_only_and_a_stopped_run_resumes_under_it(tmp_path):
    secret = Secret()
    assert keep(tmp_path, secret, None) is secret
    kept = tmp_path / SECRET_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and kept.read_text().strip() == secret.reveal
    resumed = keep(tmp_path, Secret(), {"secret_sha256": secret.commitment})  # a new draw, the old run's state
    assert resumed == secret and type(resumed) is Secret
    with pytest.raises(ConfigError, match="does not match the commitment"):
        keep(tmp_path, Secret(), {"secret_sha256": Secret().commitment})
    assert keep(tmp_path, 2026, None) == 2026  # a public seed is kept nowhere


def test_an_extended_or_copied_secret_run_plays_on_under_its_secret_and_force_draws_a_new_one(tmp_path):
    first = run_experiment(_experiment(games=6), out=tmp_path, n_jobs=1)
    before = first.hands.copy().reset_index(drop=True)
    again = run_experiment(_experiment(games=8), out=tmp_path, n_jobs=1)  # finished: extended under its reveal
    assert again.hands[again.hands.game < 6].reset_index(drop=True).equals(before)
    (again.folder / "run.json").unlink()  # results copied without their state
    copied = run_experiment(_experiment(games=10), out=tmp_path, n_jobs=1)
    assert copied.hands[copied.hands.game < 6].reset_index(drop=True).equals(before)
    assert copied.experiment.seed == first.experiment.seed
    forced = run_experiment(_experiment(games=6), out=tmp_path, n_jobs=1, force=True)
    assert forced.experiment.seed != first.experiment.seed
    assert not forced.hands.reset_index(drop=True).equals(before)


def test_a_revealed_secret_given_back_stays_a_secret():
    secret = Secret()
    replayed = _experiment(seed=2026).with_overrides(seed=secret)
    assert type(replayed.seed) is Secret and replayed.seed == secret
    assert replayed.to_dict()["seed"] == "secret"


def test_an_edited_reveal_is_refused_and_verify_replays_a_secret_run(tmp_path):
    folder = run_experiment(_experiment(), out=tmp_path, n_jobs=1).folder
    outcome = CliRunner().invoke(main, ["verify", str(folder), "--replay", "4"])
    assert outcome.exit_code == 0, outcome.output
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["secret"] = f"{(int(manifest['secret'], 16) ^ 1):032x}"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="does not match the commitment"):
        load_results(folder).experiment  # noqa: B018


def test_the_secret_seed_flag_plays_a_public_file_under_a_secret(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("name: flag\nquestion: q?\nseed: 7\ngames: 4\nplayers: [greedy, greedy]\n")
    outcome = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "--secret-seed", "--no-report",
                                        "-q", "--jobs", "1"])  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    manifest = json.loads((tmp_path / "flag" / "manifest.json").read_text())
    assert manifest["experiment"]["seed"] == "secret" and len(manifest["secret"]) == 32
    assert np.uint64(int(manifest["secret"], 16) & ((1 << 64) - 1)) != np.uint64(7)


@pytest.mark.parametrize("isolate", [False, True])
def test_a_secret_run_warns_when_plug_in_bots_play_in_process_where_they_could_read_it(tmp_path, capsys, isolate):
    bot = tmp_path / "mine.py"
    bot.write_text("from rummysim.strategies.greedy import Greedy\n\nclass Mine(Greedy):\n    name = 'mine'\n")
    experiment = parse_experiment(
        {"name": "plug", "question": "q?", "seed": "secret", "games": 2, "isolate": isolate,
         "players": [f"{bot}:Mine", "greedy"]},
        source="t.yaml",
    )  # fmt: skip
    run_experiment(experiment, out=tmp_path, n_jobs=1)
    warned = "plug-in bots that play in process can read it" in capsys.readouterr().err
    assert warned is not isolate


def test_a_seed_and_a_secret_seed_together_are_one_line_and_nothing_is_written(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("name: both\nquestion: q?\nseed: 7\ngames: 4\nplayers: [greedy, greedy]\n")
    outcome = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path), "--seed", "3", "--secret-seed"])
    assert outcome.exit_code == 2 and "--seed and --secret-seed: give one, not both" in outcome.output
    assert not (tmp_path / "both").exists()


def test_a_secret_run_warns_when_sealed_bots_play_without_the_sandbox(tmp_path, capsys):
    bot = tmp_path / "mine.py"
    bot.write_text("from rummysim.strategies.greedy import Greedy\n\nclass Mine(Greedy):\n    name = 'mine'\n")
    experiment = parse_experiment(
        {"name": "bare", "question": "q?", "seed": "secret", "games": 2, "isolate": True, "sandbox": False,
         "players": [f"{bot}:Mine", "greedy"]},
        source="t.yaml",
    )  # fmt: skip
    run_experiment(experiment, out=tmp_path, n_jobs=1)
    assert "sealed bots without the sandbox can read it" in capsys.readouterr().err
