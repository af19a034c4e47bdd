"""Issue 43 part 1: a sealed bot is sealed from the first line of its file: nothing of it runs in the organiser's
process, not its import, its class body or its ``__init__`` (validate, run, replay, verify --replay)."""

from __future__ import annotations

import hashlib
import sys
import textwrap

import pytest
import yaml
from click.testing import CliRunner

from rummysim.cli import main
from rummysim.errors import ConfigError
from rummysim.experiment import parse_experiment
from rummysim.game import play_game
from rummysim.replay import replay_hand
from rummysim.rules import Rules
from rummysim.runner import run_experiment
from rummysim.strategies import sandbox
from rummysim.strategies.sealed import SealedPool
from rummysim.verify import verify_results

pytestmark = pytest.mark.skipif(sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}")

STRANGER = textwrap.dedent(
    """
    import os
    MARK = {mark!r}

    def _mark(where):
        try:  # outside the sandbox this file is written; inside, the host's folders are not there to write to
            with open(MARK, "a") as f:
                f.write(where + "\\n")
        except OSError:
            pass

    _mark("import")

    from rummysim.strategies.greedy import Greedy

    class Stranger(Greedy):
        name = "stranger"
        _mark("class body")

        def __init__(self, *, rng=None, keen=1):
            super().__init__(rng=rng)
            _mark("__init__")
    """
)
BROKEN = "raise RuntimeError('refuses to be imported')\n"


@pytest.fixture
def stranger(tmp_path):
    mark = tmp_path / "ran_here.txt"
    path = tmp_path / "stranger.py"
    path.write_text(STRANGER.format(mark=str(mark)))
    (tmp_path / "broken.py").write_text(BROKEN)
    return path, mark


def _experiment(path, *, cls="Stranger", isolate=True, file=None, **params):
    path = path if file is None else path.with_name(file)
    return {
        "name": "sealed", "question": "Does a sealed bot stay sealed?", "seed": 4, "games": 3, "isolate": isolate,
        "players": [{"strategy": f"{path}:{cls}", **params}, "greedy"], "rules": {"target_score": 40},
    }  # fmt: skip


def _ran_here(mark) -> list[str]:
    return mark.read_text().splitlines() if mark.exists() else []


def test_parse_validate_run_replay_and_verify_never_run_a_sealed_file_here(stranger, tmp_path):
    path, mark = stranger
    data = _experiment(path)
    experiment = parse_experiment(data, source="sealed.yaml")
    assert _ran_here(mark) == []
    file = tmp_path / "sealed.yaml"
    file.write_text(yaml.safe_dump(data))
    said = CliRunner().invoke(main, ["validate", str(file), "--pilot", "0"])
    assert said.exit_code == 0, said.output
    results = run_experiment(experiment, out=tmp_path / "out", n_jobs=1, quiet=True)
    assert results.games["game"].nunique() == 3
    replay = replay_hand(results.folder, condition="default", game=1, hand=0)
    assert replay.matches, replay.lines[-3:]
    checked = verify_results(results.folder, replay=2, sample_seed=1)
    assert checked.ok, checked.problems
    assert _ran_here(mark) == [], "a sealed plug-in's code ran in the organiser's process"
    module = "rummysim_plugin_" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]  # as the registry
    assert module not in sys.modules, "its module was loaded here"
    entry = results.manifest["plugins"][f"{path}:Stranger"]
    assert entry["file"] == str(path) and len(entry["sha256"]) == 64  # its source recorded without importing it


def test_the_same_bot_in_process_is_imported_here_as_it_plays_here(stranger):
    path, mark = stranger
    parse_experiment(_experiment(path, isolate=False), source="sealed.yaml")
    assert _ran_here(mark) == ["import", "class body"]


@pytest.mark.parametrize(
    ("file", "cls", "params", "said"),
    [
        (None, "Stranger", {"eager": 2},
         r"condition default, seat 0: strategy '.*stranger.py:Stranger' has no parameter 'eager'; its "
         r"parameters are keen \(checked in its sandbox\)$"),
        ("broken.py", "Broken", {}, r"condition default, seat 0: broken.py:Broken, sealed, raised RuntimeError: "
                                    r"refuses to be imported as it was checked in its sandbox$"),
        (None, "Missing", {},
         r"condition default, seat 0: strategy '.*stranger.py:Missing': .*stranger.py has no Missing \(checked in its "
         r"sandbox\)$"),
    ],
)  # fmt: skip
def test_a_bad_sealed_spec_is_refused_in_one_line_before_anything_is_written(
    stranger, tmp_path, file, cls, params, said
):
    path, mark = stranger
    experiment = parse_experiment(_experiment(path, cls=cls, file=file, **params), source="sealed.yaml")
    with pytest.raises(ConfigError, match=r"^sealed.yaml: " + said) as refused:
        run_experiment(experiment, out=tmp_path / "out", n_jobs=1, quiet=True)
    assert "\n" not in str(refused.value)
    assert not (tmp_path / "out").exists() and _ran_here(mark) == []


LEFTOVER = textwrap.dedent(
    """
    import builtins

    from rummysim.strategies.greedy import Greedy

    class Leaver(Greedy):
        name = "leaver"

        def draw(self, view):
            builtins.LEFT_BY_LEAVER = view.hand  # its holding, left in its process for whoever comes next
            return super().draw(view)

    class Finder(Greedy):
        name = "finder"

        def draw(self, view):
            if hasattr(builtins, "LEFT_BY_LEAVER"):
                raise RuntimeError(f"found another entrant's holding {builtins.LEFT_BY_LEAVER}")
            return super().draw(view)
    """
)


def test_one_process_per_entrant_whatever_seat_it_sits_in(tmp_path):
    """Issue 43 part 3: seats rotate between games (R3.4), and a process never serves another entrant's bot."""
    path = tmp_path / "pair.py"
    path.write_text(LEFTOVER)
    entrants = [f"{path}:Leaver", f"{path}:Finder", f"{path}:Finder"]
    with SealedPool(time_limit=20, sandboxed=True) as pool:
        for game in range(3):  # one pool over the games, as a chunk plays them
            lineup = [entrants[(seat + game) % 3] for seat in range(3)]
            play_game(lineup, rules=Rules(n_players=3, target_score=30), seed=2, game=game, isolate=pool)
        assert len(pool.processes) == 3  # Leaver's, and one for each seat Finder holds at once


@pytest.mark.parametrize(
    ("settings", "warned"),
    [
        ({"seed": 4}, ["seed 4 is public: an entrant who knows it can deal every hand itself; a tournament plays "
                       "seed: secret (docs/tournaments.md)"]),
        ({"seed": "secret"}, []),
        ({"seed": "secret", "sandbox": False}, ["sandbox: false: the sealed bots run without the sandbox, so they can "
                                               "reach the network, this user's files and, by a signal, this user's "
                                               "processes (docs/tournaments.md)"]),
        ({"seed": 4, "isolate": False}, []),
    ],
)  # fmt: skip
def test_validate_warns_of_a_public_seed_and_of_no_sandbox_where_bots_are_sealed(stranger, tmp_path, settings, warned):
    """Issue 43 part 5: one line each on stderr, the file still valid."""
    path, _ = stranger
    file = tmp_path / "sealed.yaml"
    file.write_text(yaml.safe_dump(_experiment(path) | settings))
    said = CliRunner().invoke(main, ["validate", str(file), "--pilot", "0"])
    assert said.exit_code == 0, said.output
    assert said.stderr.splitlines() == [f"rummysim: {line}" for line in warned]


def test_one_spec_seated_twice_has_a_process_for_each_seat_however_it_is_written(tmp_path):
    """A spec written as a name and as a mapping is one entrant: two seats of it at one table, two processes."""
    path = tmp_path / "pair.py"
    path.write_text(LEFTOVER)
    lineup = [f"{path}:Finder", {"strategy": f"{path}:Finder"}, "greedy"]
    with SealedPool(time_limit=20, sandboxed=True) as pool:
        play_game(lineup, rules=Rules(n_players=3, target_score=30), seed=2, isolate=pool)
        assert sorted(copy for _, copy in pool.processes) == [0, 1]
