"""The experiment as a value all the way down: a manifest reads back into the same typed `Experiment`."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.design import from_manifest
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.measures import MEASURES
from rummysim.runner import run_experiment

ROOT = Path(__file__).parent.parent
SPEC = {
    "name": "typed",
    "question": "Does it read back?",
    "seed": 12,
    "games": 3,
    "players": ["greedy", {"strategy": "rummy_hunter", "patience": 4}],
    "rules": {"target_score": 40},
    "time_limit": 2,
    "margin": {"first_seat_edge": "0.5 pp", "order": 0.03},
    "conditions": {
        "basic": {},
        "high": {"rules": {"ace": "high_or_low", "going_out": "discard"}, "games": 2, "isolate": True},
        "three": {"players": ["greedy", "greedy", "cautious"], "description": "a third seat"},
    },
}


def test_a_manifest_reads_back_into_the_experiment_it_records():
    experiment = parse_experiment(SPEC, source="typed.yaml")
    manifest = json.loads(json.dumps({"rummysim_version": "0.1.0", "source": "typed.yaml",
                                      "experiment": experiment.to_dict()}))  # fmt: skip
    again = from_manifest(manifest, source="manifest.json")
    assert again == experiment
    assert again.fingerprint() == experiment.fingerprint()
    assert again.condition("high").rules.ace_value == 15 and again.condition("three").rules.n_dealt == 7


def test_a_manifest_keeps_the_margins_and_an_older_manifest_reads_with_the_defaults():
    """A manifest from before `margin:` (the committed one without the key) reads back with the defaults."""
    experiment = parse_experiment(SPEC, source="typed.yaml")
    defaults = {name: m.margin for name, m in MEASURES.items()}
    assert experiment.margin == defaults | {"first_seat_edge": 0.5, "order": 0.03}
    assert experiment.to_dict()["margin"]["first_seat_edge"] == "0.5 pp"
    assert experiment.to_dict()["margin"]["game_length"] == "5%"  # R11's length: a share of the reference's level
    committed = json.loads((ROOT / "results" / "acehigh" / "manifest.json").read_text())
    assert committed["experiment"].pop("margin")["first_seat_edge"] == "1 pp"
    assert from_manifest(committed, source="manifest.json").margin == defaults


def test_results_give_their_experiment_typed(tmp_path):
    experiment = parse_experiment({**SPEC, "conditions": {"basic": {}}}, source="typed.yaml")
    results = run_experiment(experiment, out=tmp_path, n_jobs=1, quiet=True)
    assert results.experiment == dataclasses.replace(experiment, source="typed.yaml")


def manifest_with(**rules):
    experiment = parse_experiment(SPEC, source="typed.yaml").to_dict()
    experiment["conditions"][1]["rules"].update(rules)
    return {"rummysim_version": "9.9.0", "experiment": experiment}


def test_a_manifest_of_an_unknown_rule_is_a_one_line_error():
    with pytest.raises(ConfigError) as error:
        from_manifest(manifest_with(jokers=2), source="results/x/manifest.json")
    message = str(error.value)
    assert message.startswith("results/x/manifest.json: experiment.conditions[1].rules.jokers: not a rule setting of ")
    assert "written by rummysim 9.9.0" in message and "\n" not in message


def test_a_manifest_of_a_bad_rule_value_names_it():
    with pytest.raises(ConfigError, match=r"experiment.conditions\[1\].rules.ace: 'sideways' is not one of"):
        from_manifest(manifest_with(ace="sideways"), source="m.json")


def test_a_manifest_missing_a_key_names_it():
    manifest = manifest_with()
    del manifest["experiment"]["seed"]
    with pytest.raises(ConfigError, match=r"^m.json: experiment.seed: missing; not a manifest this version"):
        from_manifest(manifest, source="m.json")


def test_replay_of_a_manifest_from_another_version_is_a_one_line_error(tmp_path):
    folder = tmp_path / "typed"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps(manifest_with(jokers=2)))
    result = CliRunner().invoke(main, ["replay", str(folder), "--condition", "high", "--game", "0", "--hand", "0"])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert "rules.jokers: not a rule setting of rummysim" in result.output
