"""A seed nobody chose (issue 43, part 4): the organiser's committed secret, each entry's nonce, the seed derived.

The protocol of `rummysim.commitments`, from ``rummysim commit`` to ``rummysim verify``: the
seed is recomputed here from its published formula with hashlib alone; a missing or wrong
nonce disqualifies its entry before anything is written; a manifest whose reveal does not
give its seed is refused wherever it is read; and a secret swapped mid-run is refused by the
resume and by verify without a replay.
"""

from __future__ import annotations

import hashlib
import json
import stat

import pytest
import yaml
from click.testing import CliRunner
from conftest import stop_chunks_after

from rummysim.cli import main
from rummysim.commitments import derive, secret_path, sha256
from rummysim.errors import ConfigError
from rummysim.experiment import load_experiment
from rummysim.manifest import CHECKSUM, digest
from rummysim.results import load_results
from rummysim.runner import run_experiment
from rummysim.secret_seed import SECRET_FILE
from rummysim.seeding import Secret
from rummysim.verify import verify_results

BOT = "from rummysim.strategies.greedy import Greedy\n\n\nclass {name}(Greedy):\n    pass\n"
NONCES = {"alice.py:Alice": "a1" * 16, "bob.py:Bob": "b2" * 16}


def _tournament(tmp_path, *, nonces=NONCES, entries=None, games=12, players=None):
    """Write two entries, draw the organiser's secret with `rummysim commit`, and write the file; return its path."""
    for name in ("Alice", "Bob"):
        (tmp_path / "entries").mkdir(exist_ok=True)
        (tmp_path / "entries" / f"{name.lower()}.py").write_text(BOT.format(name=name))
    path = tmp_path / "cup.yaml"
    done = CliRunner().invoke(main, ["commit", str(path)])
    assert done.exit_code == 0, done.output
    commitment = next(line.split()[1] for line in done.output.splitlines() if line.startswith("secret_sha256:"))
    if entries is None:
        entries = {f"entries/{label.split('.')[0]}.py:{label.split(':')[1]}": sha256(n) for label, n in nonces.items()}
    spec = {
        "name": "cup", "question": "Which entry wins most?", "games": games,
        "seed": {"secret_sha256": commitment, "entries": entries},
        "players": players or ["entries/alice.py:Alice", "greedy", "entries/bob.py:Bob"],
    }  # fmt: skip
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    (tmp_path / "nonces.yaml").write_text(yaml.safe_dump(nonces))
    return path


def _independent_seed(secret: Secret, nonces: list[str]) -> int:
    """The seed as docs/tournaments.md states it, written out with hashlib alone."""
    data = b"".join(len(n).to_bytes(4, "little") + n.encode() for n in nonces)
    key = int(secret).to_bytes(16, "little")
    return int.from_bytes(hashlib.blake2b(data, digest_size=16, key=key, person=b"rummysim-draw").digest(), "little")


def test_commit_draws_the_secret_once_keeps_it_private_and_prints_its_sha256(tmp_path):
    path = tmp_path / "cup.yaml"
    first = CliRunner().invoke(main, ["commit", str(path)])
    again = CliRunner().invoke(main, ["commit", str(path)])
    assert first.exit_code == again.exit_code == 0
    kept = secret_path(path)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    secret = Secret.revealed(kept.read_text().strip())
    assert f"secret_sha256: {hashlib.sha256(secret.reveal.encode()).hexdigest()}" in first.output.splitlines()
    assert "kept, not drawn again" in again.output  # a second draw would be a second chance at the seed
    assert [line for line in again.output.splitlines() if line.startswith("secret_sha256")] == [
        line for line in first.output.splitlines() if line.startswith("secret_sha256")
    ]


def test_nonce_prints_a_fresh_nonce_and_its_sha256():
    outputs = [CliRunner().invoke(main, ["nonce"]).output for _ in range(2)]
    lines = [
        dict(line.split(": ", 1) for line in out.splitlines() if not line.startswith("rummysim")) for out in outputs
    ]
    assert lines[0]["nonce"] != lines[1]["nonce"]
    for drawn in lines:
        assert len(drawn["nonce"]) == 32 and hashlib.sha256(drawn["nonce"].encode()).hexdigest() == drawn["sha256"]


def test_the_seed_is_the_keyed_hash_of_the_nonces_in_seat_order():
    secret = Secret(12345)
    nonces = ["x" * 32, "y" * 40]
    assert derive(secret, nonces) == _independent_seed(secret, nonces)
    assert derive(secret, nonces[::-1]) != derive(secret, nonces)  # seat order counts
    assert derive(Secret(12346), nonces) != derive(secret, nonces)  # so does the secret
    assert derive(secret, ["ab" * 16, "c" * 32]) != derive(secret, ["ab" * 16 + "c", "c" * 31])  # length-prefixed


def test_a_tournament_plays_under_the_derived_seed_and_verify_recomputes_it(tmp_path):
    path = _tournament(tmp_path)
    results = run_experiment(path, out=tmp_path / "out", n_jobs=1, nonces=tmp_path / "nonces.yaml", quiet=True)
    secret = Secret.revealed(secret_path(path).read_text().strip())
    seat_order = [NONCES["alice.py:Alice"], NONCES["bob.py:Bob"]]  # as the lineup first seats them
    assert results.experiment.seed == _independent_seed(secret, seat_order)
    manifest = results.manifest
    assert manifest["revealed"] == {"secret": secret.reveal, "nonces": NONCES}
    assert manifest["experiment"]["seed"]["secret_sha256"] == secret.commitment
    assert set(manifest["chunk_seeds"].values()) == {manifest["secret_sha256"]}
    verification = verify_results(results.folder, replay=2)
    assert verification.ok, verification.problems
    assert any("derived again from the committed secret and 2 entries' nonces" in c for c in verification.checked)


def test_other_nonces_deal_other_hands_and_the_same_nonces_the_same(tmp_path):
    def hands(folder, nonces):
        path = _tournament(folder, nonces=nonces)
        return run_experiment(path, out=folder / "out", n_jobs=1, nonces=folder / "nonces.yaml", quiet=True).hands

    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = hands(tmp_path / "a", NONCES)
    again = run_experiment(
        tmp_path / "a" / "cup.yaml", out=tmp_path / "a" / "again", n_jobs=2, chunk_games=5,
        nonces=tmp_path / "a" / "nonces.yaml", quiet=True,
    ).hands  # fmt: skip
    assert first.equals(again)
    other = hands(tmp_path / "b", {**NONCES, "bob.py:Bob": "c3" * 16})
    assert not first["points"].equals(other["points"])


@pytest.mark.parametrize(
    ("nonces", "why"),
    [
        ({"alice.py:Alice": NONCES["alice.py:Alice"]}, "entry bob.py:Bob did not reveal its nonce: it is disqualified"),
        ({**NONCES, "bob.py:Bob": "f" * 32}, "entry bob.py:Bob revealed a nonce whose SHA-256 is not the one"),
        ({**NONCES, "alice.py:Alice": "short"}, "entry alice.py:Alice revealed 'short', not a nonce"),
    ],
)
def test_an_entry_that_does_not_reveal_its_nonce_is_disqualified_before_anything_is_written(tmp_path, nonces, why):
    path = _tournament(tmp_path)
    (tmp_path / "revealed.yaml").write_text(yaml.safe_dump(nonces))
    done = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "out"), "--nonces",
                                     str(tmp_path / "revealed.yaml"), "-q"])  # fmt: skip
    assert done.exit_code == 1
    assert done.output.count("\n") == 1 and why in done.output
    assert not (tmp_path / "out").exists()


def test_a_run_without_the_nonces_or_with_another_secret_is_refused_before_anything_is_written(tmp_path):
    path = _tournament(tmp_path)
    with pytest.raises(ConfigError, match=r"give the revealed nonces \(--nonces FILE"):
        run_experiment(path, out=tmp_path / "out", quiet=True)
    other = tmp_path / "other.secret"
    other.write_text(Secret().reveal + "\n")
    with pytest.raises(
        ConfigError, match=r"does not match seed\.secret_sha256, the commitment published before entries"
    ):
        run_experiment(path, out=tmp_path / "out", nonces=tmp_path / "nonces.yaml", secret=other, quiet=True)
    with pytest.raises(ConfigError, match=r"missing\.yaml: no such nonces file$"):
        run_experiment(path, out=tmp_path / "out", nonces=tmp_path / "missing.yaml", quiet=True)
    with pytest.raises(ConfigError, match=r"entries: is a directory, not a nonces file$"):
        run_experiment(path, out=tmp_path / "out", nonces=tmp_path / "entries", quiet=True)
    assert not (tmp_path / "out").exists()


def test_the_entries_must_be_exactly_the_plugin_bots_that_play(tmp_path):
    with pytest.raises(ConfigError, match=r"seed.entries: bob.py:Bob plays but names no SHA-256 of a nonce"):
        load_experiment(_tournament(tmp_path, entries={"entries/alice.py:Alice": sha256(NONCES["alice.py:Alice"])}))
    entries = {"entries/alice.py:Alice": "a" * 64, "entries/bob.py:Bob": "b" * 64, "carol.py:Carol": "c" * 64}
    with pytest.raises(ConfigError, match=r"seed.entries.'?carol.py:Carol'?: no plug-in bot of that name plays"):
        load_experiment(_tournament(tmp_path, entries=entries))
    with pytest.raises(ConfigError, match=r"seed.entries.entries/bob.py:Bob: 'nope' is not a SHA-256"):
        load_experiment(
            _tournament(tmp_path, entries={"entries/alice.py:Alice": "a" * 64, "entries/bob.py:Bob": "nope"})
        )


def _reseal(folder, change):
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    manifest.pop(CHECKSUM, None)
    manifest[CHECKSUM] = digest(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))


@pytest.mark.parametrize(
    "change",
    [
        lambda m: m["revealed"]["nonces"].update({"bob.py:Bob": "d4" * 16}),  # a nonce that hashes otherwise
        lambda m: m["revealed"].update({"secret": Secret().reveal}),  # another organiser's secret
        lambda m: m.update({"secret": Secret().reveal}),  # a seed the reveal does not give
    ],
    ids=["nonce", "organiser secret", "seed"],
)
def test_a_manifest_whose_reveal_does_not_give_its_seed_is_refused_wherever_it_is_read(tmp_path, change):
    results = run_experiment(_tournament(tmp_path), out=tmp_path / "out", n_jobs=1, nonces=tmp_path / "nonces.yaml",
                             quiet=True)  # fmt: skip
    _reseal(results.folder, change)
    with pytest.raises(
        ConfigError, match=r"revealed: .* does not match .*; the results cannot be trusted|cannot be trusted"
    ):
        load_results(results.folder).experiment  # noqa: B018 - reading it is the check
    verification = verify_results(results.folder)
    assert not verification.ok


def _swap_secret(folder):
    """The attack: put another secret in .secret and its SHA-256 in run.json, between a stop and the resume."""
    other = Secret()
    (folder / SECRET_FILE).write_text(other.reveal + "\n")
    state = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps(state | {"secret_sha256": other.commitment}))


def test_a_secret_swapped_mid_run_is_refused_by_the_resume(tmp_path, monkeypatch):
    spec = {"name": "swap", "question": "q?", "seed": "secret", "games": 8, "players": ["greedy", "cautious"]}
    path = tmp_path / "swap.yaml"
    path.write_text(yaml.safe_dump(spec))
    real = stop_chunks_after(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(path, out=tmp_path, n_jobs=1, chunk_games=2, quiet=True)
    monkeypatch.setattr("rummysim.chunks.play_chunk", real)
    _swap_secret(tmp_path / "swap")
    with pytest.raises(ConfigError, match=r"was played under a secret seed whose SHA-256 is .* the secret was changed"):
        run_experiment(path, out=tmp_path, n_jobs=1, chunk_games=2, quiet=True)
    assert not (tmp_path / "swap" / "manifest.json").exists()


def test_a_secret_swapped_mid_run_is_refused_by_the_committed_seed(tmp_path, monkeypatch):
    path = _tournament(tmp_path, games=8)
    real = stop_chunks_after(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(path, out=tmp_path / "out", n_jobs=1, chunk_games=2, nonces=tmp_path / "nonces.yaml", quiet=True)
    monkeypatch.setattr("rummysim.chunks.play_chunk", real)
    _swap_secret(tmp_path / "out" / "cup")
    with pytest.raises(
        ConfigError, match="keeps another secret than the committed secret and the revealed nonces give"
    ):
        run_experiment(path, out=tmp_path / "out", n_jobs=1, chunk_games=2, nonces=tmp_path / "nonces.yaml", quiet=True)


def test_verify_refuses_a_manifest_whose_chunks_name_another_seed_without_a_replay(tmp_path):
    spec = {"name": "mixed", "question": "q?", "seed": "secret", "games": 8, "players": ["greedy", "cautious"]}
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump(spec))
    results = run_experiment(path, out=tmp_path, n_jobs=1, chunk_games=2, quiet=True)
    assert verify_results(results.folder).ok
    first = sorted(results.manifest["chunk_seeds"])[0]
    _reseal(results.folder, lambda m: m["chunk_seeds"].update({first: Secret().commitment}))
    verification = verify_results(results.folder)
    assert any(f"chunk {first} was played under the secret seed" in p for p in verification.problems)


def test_verify_of_a_stopped_run_names_a_chunk_played_under_another_secret(tmp_path, monkeypatch):
    spec = {"name": "stopped", "question": "q?", "seed": "secret", "games": 8, "players": ["greedy", "cautious"]}
    path = tmp_path / "stopped.yaml"
    path.write_text(yaml.safe_dump(spec))
    stop_chunks_after(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(path, out=tmp_path, n_jobs=1, chunk_games=2, quiet=True)
    folder = tmp_path / "stopped"
    assert not [p for p in verify_results(folder).problems if "chunk" in p or "chunks" in p]
    _swap_secret(folder)
    problems = verify_results(folder).problems
    assert sum("was played under another secret seed than run.json's" in p for p in problems) == 2, problems
