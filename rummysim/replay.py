"""Replay one hand of a finished run turn by turn, and check it against the stored rows.

A hand is fully determined by the experiment and its seed (`rummysim.seeding`): the deal
and stock rebuilds by (seed, game, hand), each bot by (seed, game, seat), the first
dealer by (seed, game), and seat s of game g plays the lineup its seating gives (`rummysim.seating`). A hand in
the middle of a game also depends on the hands before it (the scores, the dealer and
what the bots remember), so `replay_hand` plays the game again from its first hand with
the manifest's resolved experiment, exactly as the runner did, and stops after the hand
asked for. Nothing but the seed is stored; the replayed rows must equal those of
``hands.parquet`` (and of ``turns.parquet`` when the run was traced), and the replay
says whether they do.

A run that a bot stopped, or that was interrupted, has no manifest yet: it replays from
``run.json``, the experiment the runner records before any game is played. A hand a bot
stopped replays up to the failure, and says what it was (`Replay.error`); the runner's
message for it names the command (`blame`).

The transcript shows every holding, marked ``[hidden]`` because only its own seat saw
it, or, for one seat, only what that seat could see (R3.3: the stock is face down; every
discard, meld and lay-off is public; holdings are shown at the end for scoring, R8.1).
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rummysim.cards import parse_card
from rummysim.design import Condition, Experiment, check_streams, from_manifest
from rummysim.engine import HandResult
from rummysim.errors import BotError, ConfigError, RummysimError, nearest
from rummysim.game import play_game
from rummysim.moves import Discarded, Drew, HandEnded, HandStarted, LaidOff, Melded, Pile, StockRebuilt, WentOutBy
from rummysim.plugins import check_sandbox
from rummysim.records import HandRecord, TurnRecord
from rummysim.render import ending_lines, event_line, holding_text, piles_text, scores_text, table_lines
from rummysim.results import MANIFEST, load_results
from rummysim.rules import Rules
from rummysim.specs import strategy_label
from rummysim.table import Table, apply_event

HIDDEN = "[hidden]"
STARTED = "run.json"
"""What the runner writes before any game is played (`rummysim.runner.STATE`): the experiment and its seed."""


@dataclass(frozen=True)
class Replay:
    """A replayed hand: its transcript and how it compares with the stored rows."""

    folder: Path
    condition: str
    game: int
    hand: int
    seat: int | None
    """The seat whose view the transcript shows, or None for every holding."""
    lines: tuple[str, ...]
    records: tuple[HandRecord, ...]
    """The replayed rows, one per seat."""
    mismatches: tuple[str, ...]
    """Each difference from the stored rows, as ``seat 1 points: replayed 15, stored 12``."""
    error: BotError | None = None
    """What stopped the hand, if a bot did (an illegal move, or an exception): the transcript ends there."""

    @property
    def matches(self) -> bool:
        """Return True if the replay gave exactly the stored rows."""
        return not self.mismatches

    def __str__(self) -> str:
        return "\n".join(self.lines)


class _Reached(Exception):
    """Stops the replayed game once the hand asked for has been played."""

    def __init__(self, result: HandResult) -> None:
        super().__init__("reached")
        self.result = result


def _condition(experiment: Experiment, name: str, folder: Path) -> Condition:
    for condition in experiment.conditions:
        if condition.name == name:
            return condition
    names = [c.name for c in experiment.conditions]
    close = nearest(name, names)
    hint = f"did you mean {close!r}? " if close else ""
    raise ConfigError(f"--condition {name!r} is not a condition of {folder}; {hint}conditions are {', '.join(names)}")


def _stored(folder: Path, kind: str, condition: str, game: int) -> pd.DataFrame:
    path = folder / f"{kind}.parquet"
    if not path.exists():
        raise ConfigError(f"{folder}: has no {kind}.parquet")
    return pd.read_parquet(path, filters=[("condition", "==", condition), ("game", "==", game)])


def _check_index(value: int, valid: Sequence[int], option: str, where: str) -> None:
    """Raise `ConfigError` unless `value` is one of `valid`; the message names the valid span."""
    if value not in valid:
        noun = option.lstrip("-") + "s"
        span = f"{noun} {valid[0]} to {valid[-1]}" if len(valid) > 1 else f"only {noun[:-1]} {valid[0]}"
        raise ConfigError(f"{option} {value}: {where} has {span}")


def _load(folder: Path) -> tuple[Experiment, dict[str, Any], bool]:
    """Return a run's experiment, its manifest (or ``run.json``) and whether it finished.

    Names the runs inside `folder` if it is their parent.
    """
    if (folder / MANIFEST).exists():
        results = load_results(folder)
        return results.experiment, results.manifest, True
    if (folder / STARTED).exists():
        state = json.loads((folder / STARTED).read_text())
        return from_manifest(state, source=str(folder / STARTED)), state, False
    inside = sorted({str(p.parent) for name in (MANIFEST, STARTED) for p in folder.glob(f"*/{name}")})
    if inside:
        raise ConfigError(f"{folder}: no {MANIFEST} or {STARTED}; the runs in it are {', '.join(inside)}")
    raise ConfigError(f"{folder}: no {MANIFEST} or {STARTED}; not the folder of a run")


def replay_hand(folder: str | Path, *, condition: str, game: int, hand: int, seat: int | None = None) -> Replay:
    """Play a stored hand again from its seed and return its transcript and check.

    `game`, `hand` and `seat` are numbered from 0, as in the tables; with `seat` the
    transcript shows only what that seat could see. Raises `ConfigError` naming the
    valid values when the folder, condition, game, hand or seat is not in the results.
    """
    folder = Path(folder)
    experiment, manifest, finished = _load(folder)
    source = manifest.get("source") or "its experiment file"
    check_streams(
        manifest.get("streams", 1), folder=folder, cannot=f"replay its hands; play it again with: rummysim run {source}"
    )
    spec = _condition(experiment, condition, folder)
    n_games = experiment.games_of(spec)
    _check_index(game, range(n_games), "--game", f"condition {condition}")
    # Committed results may keep only the manifest, and an unfinished run has no tables: the seed alone
    # replays the hand, unchecked.
    stored = _stored(folder, "hands", condition, game) if finished and (folder / "hands.parquet").exists() else None
    if stored is not None:
        hands = sorted(int(h) for h in stored["hand"].unique())
        if not hands:
            raise ConfigError(f"--game {game}: no rows of condition {condition} in {folder / 'hands.parquet'}")
        _check_index(hand, hands, "--hand", f"game {game} of condition {condition}")
    rules, players = spec.rules, spec.lineup(game)
    if seat is not None:
        _check_index(seat, range(rules.n_players), "--seat", f"a table of {rules.n_players} players")
    seed = experiment.seed
    sealed = experiment.isolates(spec)  # its plug-ins sealed as they played: a stranger's code never runs here
    if sealed:
        check_sandbox(experiment)
    result, before, error = _play_to(
        players, rules=rules, seed=seed, game=game, hand=hand, isolate=sealed, time_limit=experiment.time_limit
    )
    mismatches: list[str] = []
    if stored is not None and error is None:
        rows = stored[stored["hand"] == hand].sort_values("seat")
        mismatches = _compare(result.records, rows.to_dict("records"), lambda r: f"seat {r.seat}")
    checked = "hands.parquet"
    if stored is not None and error is None and (folder / "turns.parquet").exists():
        turn_rows = _stored(folder, "turns", condition, game)
        turn_rows = turn_rows[turn_rows["hand"] == hand].sort_values("turn").to_dict("records")
        if len(turn_rows) != len(result.turns):
            mismatches.append(f"turns: replayed {len(result.turns)}, stored {len(turn_rows)}")
        else:
            mismatches += _compare(result.turns, turn_rows, lambda r: f"turn {r.turn}")
        checked += " and turns.parquet"
    who = [f"seat {s} ({strategy_label(p)})" for s, p in enumerate(players)]
    lines = [
        f"Replay of {folder}: condition {condition}, game {game}, hand {hand} (numbered from 0), seed {seed}",
        *_transcript(result, rules=rules, game=game, hand=hand, seat=seat, who=who, before=before),
    ]
    made_by = f"rummysim {manifest.get('rummysim_version')}, commit {manifest.get('git_commit')}"
    if error is not None:
        lines += ["", f"Stopped: {error.what}"]
    elif not finished:
        lines.append(f"Check: none: {folder} is a run that did not finish; this transcript comes from the seed in "
                     f"{STARTED}.")  # fmt: skip
    elif stored is None:
        lines.append(f"Check: none: {folder} keeps no hands.parquet; this transcript comes from the manifest's seed.")
    elif mismatches:
        lines.append(f"Check: the replay does NOT match the stored rows of {checked} (written by {made_by}):")
        lines += [f"  {m}" for m in mismatches]
    else:
        lines.append(f"Check: the replay matches the stored rows of {checked}.")
    return Replay(folder, condition, game, hand, seat, tuple(lines), result.records, tuple(mismatches), error)


def _play_to(
    players: list[Any], *, rules: Rules, seed: int, game: int, hand: int, isolate: bool = False,
    time_limit: float | None = None,
) -> tuple[HandResult, list[int], BotError | None]:  # fmt: skip
    """Play the game as the runner did, traced, until `hand` has been played or a bot stopped it.

    Return the hand, the scores before it and what stopped it (the hand then ends where the bot failed).
    """
    played = []
    scores = [0] * rules.n_players

    def watch(result: HandResult) -> None:
        played.append(result.records[0].hand)
        if result.records[0].hand == hand:
            raise _Reached(result)
        if result.winner is not None:
            scores[result.winner] += result.points

    try:
        play_game(players, rules=rules, seed=seed, game=game, trace=True, on_hand=watch, isolate=isolate,
                  time_limit=time_limit)  # fmt: skip
    except _Reached as reached:
        return reached.result, scores, None
    except BotError as error:
        if error.hand == hand and error.so_far is not None:
            return error.so_far, scores, error
        raise
    raise RummysimError(f"--hand {hand}: game {game} has hands 0 to {played[-1] if played else 0}")


def blame(error: BotError, experiment: Experiment, folder: Path) -> BotError:
    """Return a bot's error during a run, naming its condition and the command that replays the hand.

    The condition is the one of the error's rules and lineup: conditions alike in both play the
    same games, so any of them replays it.
    """
    condition = next((c for c in experiment.conditions if _plays(c, error, experiment)), None)
    if condition is None or error.game is None:
        return error
    command = shlex.join(["rummysim", "replay", str(folder), "--condition", condition.name,
                          "--game", str(error.game), "--hand", str(error.hand or 0)])  # fmt: skip
    return error.placed(
        f"condition {condition.name}, {error.what}; replay the hand: {command}", condition=condition.name
    )


def _plays(condition: Condition, error: BotError, experiment: Experiment) -> bool:
    """Return True if `condition` plays the game a bot's error happened in."""
    assert error.game is not None
    if error.game >= experiment.games_of(condition) or error.rules not in (None, condition.rules):
        return False
    lineup = [strategy_label(p) for p in condition.lineup(error.game)]
    if error.names:
        return list(error.names) == lineup
    return error.seat is not None and error.seat < len(lineup) and lineup[error.seat] == error.strategy


def _same(replayed: Any, stored: Any) -> bool:
    missing = stored is None or (isinstance(stored, float) and math.isnan(stored))
    if replayed is None or missing:
        return replayed is None and missing
    return bool(replayed == stored)


def _compare(records: Sequence[HandRecord | TurnRecord], rows: list[dict[str, Any]], label: Any) -> list[str]:
    found = []
    if len(records) != len(rows):
        return [f"rows: replayed {len(records)}, stored {len(rows)}"]
    for record, row in zip(records, rows, strict=True):
        for field, value in record._asdict().items():
            if not _same(value, row.get(field)):
                found.append(f"{label(record)} {field}: replayed {value!r}, stored {row.get(field)!r}")
    return found


def _transcript(
    result: HandResult, *, rules: Rules, game: int, hand: int, seat: int | None, who: list[str], before: list[int]
) -> list[str]:
    """Return the hand turn by turn, rebuilt from its deal, its public events and its trace.

    A hand a bot stopped has no records and no end: its transcript stops at its last event.
    """
    n = rules.n_players
    dealer = next(e.dealer for e in result.events if isinstance(e, HandStarted))
    start = result.deal
    assert start is not None, "play_hand records its deal"
    holdings = list(start.holdings)
    discard_pile = list(start.discard_pile)
    stock_size = len(start.stock)
    table: Table = ()

    def held(s: int) -> str:
        if seat is None:
            return f"{HIDDEN} {holding_text(holdings[s])}"
        if s == seat:
            return holding_text(holdings[s])
        return f"{holdings[s].bit_count()} cards"

    lines = [
        f"Rules: {_rules_text(rules)}",
        f"Seats: {', '.join(who)}; {who[dealer]} deals, {who[(dealer + 1) % n]} plays first (R3.4)",
        f"Scores before the hand: {scores_text(before, who)}",
        "Every holding is shown; [hidden] marks what only its own seat saw."
        if seat is None
        else f"Shown as {who[seat]} saw it: the other holdings are face down; the stock is face down (R3.3).",
        "",
        "Deal:",
        *(f"  {who[s]} holds {held(s)}" for s in range(n)),
        f"  {piles_text(discard_pile, stock_size)}",
    ]
    turns = iter(result.turns)
    changed = False  # the table, this turn
    for event in result.events:
        if isinstance(event, Drew):
            record = next(turns)
            lines += ["", f"Turn {record.turn + 1}: {who[event.seat]} holds {held(event.seat)}"]
            card = event.card if event.card is not None else parse_card(record.drew)
            shown = card if seat in (None, event.seat) else None
            text = event_line(event, who, drawn=shown)
            lines.append(f"  {text} {HIDDEN}" if seat is None and event.pile is Pile.STOCK else f"  {text}")
            if event.pile is Pile.DISCARD:
                discard_pile.pop()
            else:
                stock_size -= 1
            holdings[event.seat] |= 1 << card
            changed = False
        elif isinstance(event, (Melded, LaidOff)):
            holdings[event.seat], table = apply_event(event, holding=holdings[event.seat], table=table)
            changed = True
            lines.append(f"  {event_line(event, who)}")
        elif isinstance(event, Discarded):
            holdings[event.seat] ^= 1 << event.card
            discard_pile.append(event.card)
            lines.append(f"  {event_line(event, who)}")
            lines += _table_block(table, who) if changed else []
            lines.append(f"  {piles_text(discard_pile, stock_size)}")
        elif isinstance(event, StockRebuilt):
            stock_size, discard_pile = event.n_cards, discard_pile[-1:]
            lines.append(f"  {event_line(event, who)}")
        elif isinstance(event, HandEnded):
            if tuple(holdings) != event.holdings:  # the transcript must show what the engine did
                raise RummysimError(f"replay of game {game} hand {hand}: the rebuilt holdings differ from the engine's")
            if event.went_out_by in (WentOutBy.MELD, WentOutBy.LAY_OFF):
                lines += _table_block(table, who)
            lines += [
                "",
                f"End of the hand after {result.records[0].turns} turns:",
                *(f"  {line}" for line in ending_lines(event, who, ace_value=rules.ace_value)),
                f"  scores after the hand: {scores_text([r.score for r in result.records], who)}",
            ]
    return lines


def _table_block(table: Table, who: list[str]) -> list[str]:
    return ["  table:", *(f"    {line}" for line in table_lines(table, who))]


def _rules_text(rules: Rules) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.changes().items()) or "basic rummy"
