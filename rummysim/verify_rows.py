"""The rules' checks of `rummysim verify`, game by game: the tables read in row batches, so memory stays flat.

`check_tables` reads ``hands.parquet`` and ``games.parquet`` side by side in batches of
`BATCH_ROWS` rows (pyarrow's ``ParquetFile.iter_batches``), cuts them into blocks of whole
games (the rows of a batch's last game wait for the next batch) and checks each block:
the rows every game x seat and hand x seat implies, each seat's seating (R3.4), the
points (R8, R12.3) and the scores (R11). What holds across games (no game missing or
given twice, the turns' count) is kept as a number per condition. Memory is then a batch
and one game, whatever the number of rows; the answer is the same for any batch size
(`Problems` keeps each check's first rows and counts the rest).

rummysim writes each table ordered by condition (in the experiment's order) and game,
each game's rows together (a chunk holds whole games, merged in order); a table that is
not is named as one problem, and its rows are not checked game by game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from rummysim.cards import card_code, card_points
from rummysim.design import Experiment
from rummysim.moves import WentOutBy
from rummysim.results import SCHEMAS
from rummysim.rules import StockOut
from rummysim.seating import seat_table
from rummysim.specs import strategy_label

BATCH_ROWS = 1 << 18
"""Rows read at once from each table: about 60 MB of hand rows as pandas, a few times that while checked."""
SHOWN = 3
"""Rows named per problem; the rest are counted."""


def _mix(z: np.ndarray) -> np.ndarray:
    """Return SplitMix64's step of each value: a golden-ratio increment, then its finalizer (wrapping uint64)."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class Problems:
    """Problems found block by block, one line per check and table: its first `SHOWN` rows and how many more.

    Every check is called for every block, so the lines keep the order of the checks
    whatever the blocks (an empty frame records its place).
    """

    def __init__(self) -> None:
        self.found: dict[tuple[str, str], tuple[list[str], list[int]]] = {}

    def add(self, frame: pd.DataFrame, what: str, where: str, *, count: int | None = None) -> bool:
        """Count a check's offending rows (naming the first `SHOWN`); return True if there were any.

        `count`: how many there are, if `frame` holds only the first.
        """
        shown, counted = self.found.setdefault((where, what), ([], [0]))
        if frame.empty:
            return False
        keys = [c for c in ("condition", "game", "hand", "seat") if c in frame.columns]
        if len(shown) < SHOWN:
            rows = frame[keys].head(SHOWN - len(shown)).to_dict("records")
            shown += [", ".join(f"{k} {row[k]}" for k in keys) for row in rows]
        counted[0] += len(frame) if count is None else count
        return True

    def lines(self) -> list[str]:
        """Return one line per check that found rows, in the order of the checks."""
        return [
            f"{where}: {what}: {'; '.join(shown)}" + (f" (and {count[0] - SHOWN} more)" if count[0] > SHOWN else "")
            for (where, what), (shown, count) in self.found.items()
            if count[0]
        ]


def _bad_rows(problems: Problems, frame: pd.DataFrame, what: str, where: str) -> bool:
    return problems.add(frame, what, where)


@dataclass
class Tally:
    """What the checks keep across blocks: each condition's next game, the turns, the hands to replay."""

    next_game: dict[str, int] = field(default_factory=dict)
    turns: int = 0
    sample: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["condition", "game", "hand", "key"]))
    disorder: str | None = None
    """Where a table is not in rummysim's order (then its rows are not checked game by game)."""


def _blocks(path: Path, batch_rows: int, codes: dict[str, int]) -> Iterator[pd.DataFrame]:
    """Yield a table's rows in blocks of whole games, each with ``code``: its condition's place (-1: none)."""
    carry = None
    for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_rows):
        rows = batch.to_pandas()
        rows["code"] = rows.condition.map(codes).fillna(-1).astype("int64")
        if carry is not None:
            rows = pd.concat([carry, rows], ignore_index=True)
        other = np.flatnonzero(
            (rows.condition.to_numpy() != rows.condition.iat[-1]) | (rows.game.to_numpy() != rows.game.iat[-1])
        )
        cut = int(other[-1]) + 1 if len(other) else 0
        carry = rows.iloc[cut:].reset_index(drop=True)
        if cut:
            yield rows.iloc[:cut]
    if carry is not None and len(carry):
        yield carry


def _up_to(rows: pd.DataFrame, code: int, game: int) -> np.ndarray:
    """Return which rows are of a game at or before (condition `code`, `game`) in the tables' order."""
    return ((rows.code < code) | ((rows.code == code) & (rows.game <= game))).to_numpy()


def _in_order(rows: pd.DataFrame, last: tuple[int, int], kind: str, tally: Tally, where: str) -> tuple[int, int]:
    """Note in `tally` if the block's games do not follow each other and `last`; return the block's last game."""
    known = rows[rows.code >= 0]
    if known.empty:
        return last
    keys = known[["code", "game"]].drop_duplicates()
    keys = pd.concat([pd.DataFrame([last], columns=["code", "game"]), keys], ignore_index=True)
    later = (keys.code.diff() > 0) | ((keys.code.diff() == 0) & (keys.game.diff() > 0))
    if not later.iloc[1:].all() and tally.disorder is None:
        bad = keys.iloc[1:][~later.iloc[1:]].iloc[0]
        tally.disorder = (f"{where}: rows are not in the order rummysim writes them (by condition, then game, each "
                          f"game's rows together) at game {bad.game} of condition #{bad.code}; not checked game by "
                          "game")  # fmt: skip
    return int(keys.code.iat[-1]), int(keys.game.iat[-1])


def paired_blocks(folder: Path, experiment: Experiment, batch_rows: int, tally: Tally
                  ) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:  # fmt: skip
    """Yield (hands, games) rows of the same whole games, walking both tables in their order."""
    codes = {c.name: i for i, c in enumerate(experiment.conditions)}
    games = _blocks(folder / "games.parquet", batch_rows, codes)
    pending = pd.DataFrame()
    done = False
    last = {"hands": (-1, -1), "games": (-1, -1)}
    for hands in _blocks(folder / "hands.parquet", batch_rows, codes):
        last["hands"] = _in_order(hands, last["hands"], "hands", tally, str(folder / "hands.parquet"))
        code, game = last["hands"]
        while not done and (pending.empty or _up_to(pending, code, game).all()):
            block = next(games, None)
            if block is None:
                done = True
            else:
                last["games"] = _in_order(block, last["games"], "games", tally, str(folder / "games.parquet"))
                pending = pd.concat([pending, block], ignore_index=True)
        if tally.disorder:
            return
        mine = _up_to(pending, code, game) if len(pending) else np.zeros(0, dtype=bool)
        yield hands, pending[mine]
        pending = pending[~mine].reset_index(drop=True)
    empty = SCHEMAS["hands"].empty_table().to_pandas().assign(code=np.zeros(0, dtype="int64"))
    if len(pending):
        yield empty, pending
    for block in games:
        last["games"] = _in_order(block, last["games"], "games", tally, str(folder / "games.parquet"))
        if tally.disorder:
            return
        yield empty, block


def check_block(experiment: Experiment, hands: pd.DataFrame, games: pd.DataFrame, where: Callable[[str], str],
                problems: Problems, tally: Tally) -> None:  # fmt: skip
    """Check a block of whole games: its rows (R3.4), points (R8, R12.3) and scores (R11); tally what spans blocks."""
    _check_rows(experiment, hands, games, where, problems, tally)
    _check_points(experiment, hands, where("hands"), problems)
    _check_scores(experiment, hands, games, where, problems)
    tally.turns += int(hands.drop_duplicates(["condition", "game", "hand"]).turns.sum())


def _check_rows(experiment: Experiment, hands: pd.DataFrame, games: pd.DataFrame, where: Callable[[str], str],
                problems: Problems, tally: Tally) -> None:  # fmt: skip
    """Check every game x seat and every hand x seat is there once, each seat playing its rotation (R3.4)."""
    names = [c.name for c in experiment.conditions]
    for kind, frame in (("hands", hands), ("games", games)):
        extra = frame[frame.code < 0]
        _bad_rows(problems, extra, f"rows of no condition of the experiment ({', '.join(names)})", where(kind))
        keys = ["condition", "game", "hand", "seat"] if kind == "hands" else ["condition", "game", "seat"]
        _bad_rows(problems, frame[frame.duplicated(keys)], "rows given twice", where(kind))
    for condition in experiment.conditions:
        n, n_games = condition.rules.n_players, experiment.games_of(condition)
        labels = np.array([strategy_label(p) for p in condition.players], dtype=object)
        g = games[games.condition == condition.name]
        played = np.unique(g.game.to_numpy())
        _bad_rows(problems, g[g.game >= n_games], f"rows of games past the experiment's {n_games}", where("games"))
        expected = pd.MultiIndex.from_product([played[played < n_games], range(n)], names=["game", "seat"])
        missing = expected.difference(pd.MultiIndex.from_frame(g[["game", "seat"]])).to_frame(index=False)
        start = tally.next_game.get(condition.name, 0)
        skipped = np.setdiff1d(np.arange(start, played[-1] if len(played) else start), played)
        tally.next_game[condition.name] = max(start, int(played[-1]) + 1 if len(played) else start)
        missing = pd.concat([_all_seats(skipped, n), missing], ignore_index=True).sort_values(["game", "seat"])
        _bad_rows(problems, missing.assign(condition=condition.name),
                  f"missing game x seat rows ({n_games} games of {n} seats)", where("games"))  # fmt: skip
        for kind, frame in (("games", g), ("hands", hands[hands.condition == condition.name])):
            table = seat_table(n, condition.seating)
            seated = labels[table[frame.game.to_numpy() % len(table), frame.seat.to_numpy()]]
            wrong = frame[frame.strategy.to_numpy() != seated]
            _bad_rows(problems, wrong, "a seat plays another strategy than its seating gives (R3.4)", where(kind))
        h = hands[hands.condition == condition.name]
        per_game = h.groupby("game").agg(rows=("seat", "size"), hands=("hand", "nunique"), low=("hand", "min"),
                                         high=("hand", "max"))  # fmt: skip
        n_hands = g.groupby("game").n_hands.first()
        table = per_game.reindex(n_hands.index).assign(n_hands=n_hands)
        bad = table[(table.rows != table.n_hands * n) | (table.hands != table.n_hands) | (table.low != 0)
                    | (table.high != table.n_hands - 1)]  # fmt: skip
        frame = bad.reset_index()[["game"]].assign(condition=condition.name)
        _bad_rows(problems, frame, "games whose hands x seats are not all there once (games.n_hands)", where("hands"))


def _all_seats(games: np.ndarray, n: int) -> pd.DataFrame:
    """Return a (game, seat) row for every seat of each game."""
    return pd.DataFrame({"game": np.repeat(games, n), "seat": np.tile(np.arange(n), len(games))})


def check_end(experiment: Experiment, where: Callable[[str], str], problems: Problems, tally: Tally) -> None:
    """Name the games missing after each condition's last game in the tables."""
    for condition in experiment.conditions:
        n, n_games = condition.rules.n_players, experiment.games_of(condition)
        first = tally.next_game.get(condition.name, 0)
        if first < n_games:
            shown = _all_seats(np.arange(first, min(first + SHOWN, n_games)), n).assign(condition=condition.name)
            what = f"missing game x seat rows ({n_games} games of {n} seats)"
            problems.add(shown, what, where("games"), count=(n_games - first) * n)


def offer(hands: pd.DataFrame, tally: Tally, *, n: int, seed: int) -> None:
    """Keep, of the hands seen so far, the `n` whose keyed hash of (seed, condition, game, hand) is least.

    So the sample is drawn across the whole run, the same for any batch size, and a
    different `seed` draws another.
    """
    if not n or hands.empty:
        return
    one = hands.drop_duplicates(["condition", "game", "hand"])[["condition", "code", "game", "hand"]]
    u = np.uint64
    key = _mix(u(seed % 2**64) ^ _mix(one.code.to_numpy().astype(u) + u(1)))
    key = _mix(key ^ one.game.to_numpy().astype(u))
    key = _mix(key ^ one.hand.to_numpy().astype(u))
    chosen = one.drop(columns="code").assign(key=key)
    chosen = pd.concat([tally.sample, chosen], ignore_index=True) if len(tally.sample) else chosen
    tally.sample = chosen.nsmallest(n, "key")


def _check_points(experiment: Experiment, hands: pd.DataFrame, where: str, problems: Problems) -> None:
    """Check every holding's points and every hand's points from the holdings left (R8, R12.3)."""
    for condition in experiment.conditions:
        rules = condition.rules
        h = hands[hands.condition == condition.name]
        values = {card_code(c): card_points(c, ace_value=rules.ace_value) for c in range(52)}
        cards = h.holding_end.str.split().explode()
        recomputed = cards.map(values).fillna(0).groupby(level=0).sum().astype("int64")
        _bad_rows(problems, h[recomputed.reindex(h.index).to_numpy() != h.holding_points.to_numpy()],
                  "holding_points is not the points of holding_end (R8.2)", where)  # fmt: skip
        key = ["game", "hand"]
        total = h.groupby(key).holding_points.transform("sum")
        winners = h.groupby(key).won.transform("sum")
        multiplier = np.where(h.went_rummy, rules.rummy_multiplier, 1)
        _bad_rows(problems, h[h.multiplier != multiplier],
                  f"multiplier is not {rules.rummy_multiplier} for going rummy, else 1 (R8.3)", where)  # fmt: skip
        _bad_rows(problems, h[(winners != (~h.stalled).astype(int))],
                  "a hand that did not stall has not exactly one winner, or a stalled hand has one (R8.1, R10.2)",
                  where)  # fmt: skip
        blocked = _check_endings(h, blocks=rules.stock_out is StockOut.BLOCK, where=where, problems=problems)
        winner = h[h.won & ~blocked]
        owed = (total[winner.index] - winner.holding_points) * winner.multiplier
        _bad_rows(problems, winner[winner.points != owed],
                  "the winner's points are not the others' holding points times the multiplier (R8.1, R8.3)",
                  where)  # fmt: skip
        winner = h[h.won & blocked]
        seats = h.groupby(key).seat.transform("size")
        owed = total[winner.index] - seats[winner.index] * winner.holding_points
        _bad_rows(problems, winner[winner.points != owed],
                  "the points of a blocked hand's winner are not the sum over the others of their holding points "
                  "less the winner's (R12.3)", where)  # fmt: skip
        _bad_rows(problems, h[~h.won & (h.points != 0)], "a seat that did not go out scored points (R8.1)", where)


ENDED_BY = frozenset(e.value for e in WentOutBy)
"""The values of ``went_out_by`` (R7.1, R12.3); null is a hand stalled under R10.2."""


def _check_endings(h: pd.DataFrame, *, blocks: bool, where: str, problems: Problems) -> pd.Series:
    """Check how each hand of one condition ended (R7.1, R10.2, R12.3); return which rows are of blocked hands.

    A blocked hand is won by the one seat with the lowest holding points, never by going rummy;
    a tie for the lowest has no winner and is stalled (R12.3).
    """
    ended_by = h.went_out_by
    _bad_rows(problems, h[ended_by.notna() & ~ended_by.isin(sorted(ENDED_BY))],
              f"went_out_by is not one of {', '.join(sorted(ENDED_BY))} (R7.1, R12.3)", where)  # fmt: skip
    blocked = ended_by == WentOutBy.BLOCK
    unsaid = (h.stalled & ended_by.notna() & ~blocked) | (~h.stalled & ended_by.isna())
    _bad_rows(problems, h[unsaid], "went_out_by does not fit stalled: a stalled hand has none (R10.2) or block "
              "(a tie, R12.3), any other hand one", where)  # fmt: skip
    if not blocks:
        _bad_rows(
            problems, h[blocked], "went_out_by is block, but the condition plays stock_out: rebuild (R12.3)", where
        )
        return blocked
    lowest = h.groupby(["game", "hand"]).holding_points.transform("min")
    at_lowest = h.holding_points == lowest
    tied = at_lowest.groupby([h.game, h.hand]).transform("sum") > 1
    _bad_rows(problems, h[blocked & ((h.won != (at_lowest & ~tied)) | (h.stalled != tied))],
              "in a blocked hand the one seat with the lowest holding points wins, and a tie for it is stalled "
              "with no winner (R12.3)", where)  # fmt: skip
    _bad_rows(problems, h[blocked & (h.went_rummy | (h.multiplier != 1))],
              "a blocked hand went rummy or has a multiplier other than 1 (R12.3)", where)  # fmt: skip
    return blocked


def _check_scores(experiment: Experiment, hands: pd.DataFrame, games: pd.DataFrame, where: Callable[[str], str],
                  problems: Problems) -> None:  # fmt: skip
    """Check the running scores and each game's score, record and winner from its hands (R11)."""
    ordered = hands.sort_values(["code", "game", "seat", "hand"])  # in the experiment's order, whatever the batch
    running = ordered.groupby(["condition", "game", "seat"]).points.cumsum()
    _bad_rows(problems, ordered[ordered.score != running], "score is not the running sum of points (R11)",
              where("hands"))  # fmt: skip
    per_seat = ordered.groupby(["condition", "game", "seat"]).agg(
        score=("points", "sum"), hands_won=("won", "sum"), n_hands=("hand", "size")
    )
    per_hand = hands.drop_duplicates(["condition", "game", "hand"]).groupby(["condition", "game"]).stalled.sum()
    g = games.sort_values(["code", "game", "seat"]).set_index(["condition", "game", "seat"])
    sums = per_seat.reindex(g.index)
    for column in ("score", "hands_won", "n_hands"):
        wrong = g[g[column].to_numpy() != sums[column].to_numpy()].reset_index()
        _bad_rows(problems, wrong, f"{column} does not add up from hands.parquet (R11)", where("games"))
    stalled = per_hand.reindex(g.index.droplevel("seat")).to_numpy()
    _bad_rows(problems, g[g.n_stalled.to_numpy() != stalled].reset_index(),
              "n_stalled is not the count of stalled hands (R10.2)", where("games"))  # fmt: skip
    top = g.groupby(level=["condition", "game"]).score.transform("max")
    leaders = (g.score == top).groupby(level=["condition", "game"]).transform("sum")
    won = (g.score == top) & (leaders == 1) & ~g.stalled
    tied = (g.score == top) & (leaders > 1) & ~g.stalled
    _bad_rows(problems, g[(g.won != won) | (g.tied != tied)].reset_index(),
              "won or tied is not what the final scores give (R11)", where("games"))  # fmt: skip
    for condition in experiment.conditions:
        target = condition.rules.target_score
        if target is None:
            continue
        h = ordered[ordered.condition == condition.name]
        last = h.groupby("game").hand.transform("max")
        early = h[(h.hand < last) & (h.score >= target)]
        _bad_rows(problems, early, f"the game went on after a score reached {target} (R11.1)", where("hands"))
