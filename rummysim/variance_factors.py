"""Tighter designs, measured: each one's variance factor against the design the experiments use (docs/metrics.md).

Today every condition plays fresh deals, game g its own, the lineup rotated by g, and two
conditions at one table size play the same deals, so their changes are paired. Two designs
promise tighter answers from the same games; this module plays both and measures them:

- **Duplicate deals**: each deal played n times, the lineup rotated through every seat (a
  block of n games shares its deals and first dealer, as bridge's duplicate boards do). The
  unit of analysis becomes the block: its games' influence values are summed.
- **Regression on the deal**: what the deal alone predicts, as control variates. Each seat's
  least deadwood at the deal (R3.2, R5) less the seats' mean, and its share of the least
  deadwood, have mean 0 over deals, the seats' holdings being exchangeable; summed over a
  game's hands for the seat measured (the first player, or the measured strategy), they are
  subtracted from each game's influence value with the least-squares coefficient.

A variance factor is the variance of an estimate under the design over its variance under
today's, for the same number of games: below 1 the design needs that share of the games for
the same interval. Each has a 95% percentile interval over bootstrap resamples of the units.
Run ``python -m rummysim.variance_factors`` to measure them again (about a minute a table size).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rummysim.analysis.estimates import Z, influence_se, linearised, percentile_interval
from rummysim.arrangement import arranger
from rummysim.dealing import deal
from rummysim.rules import Ace, Rules
from rummysim.seeding import hand_key

MEASURED = "cautious"
"""The strategy whose skill is measured: one cautious player against greedy ones (the experiments' skill lineup)."""
RESAMPLES = 400


@dataclass(frozen=True)
class Factor:
    """A design's variance factor for one estimate, with its 95% interval."""

    design: str
    estimate: str
    players: int
    value: float
    low: float
    high: float


def play(rules: Rules, players: Sequence[dict], *, seed: int, games: int, duplicate: bool) -> dict[str, pd.DataFrame]:
    """Play `games` games compiled, each on its own deals or, `duplicate`, in blocks of n on the block's first deals."""
    import rummysim.compiled as compiled

    n = rules.n_players
    deals = np.arange(games) // n * n if duplicate else None
    tables, _ = compiled.load().play_chunk_tables("design", rules, players, seed=seed, start=0, stop=games, deals=deals)
    return {kind: table.to_pandas() for kind, table in tables.items()}


def influences(tables: dict[str, pd.DataFrame], n: int, games: int) -> dict[str, np.ndarray]:
    """Return each game's influence on the measured share, the first player's hand edge and the game length."""
    hands, outcome = tables["hands"], tables["games"]
    won = hands[hands["won"]]
    decided_hands = np.bincount(won["game"], minlength=games).astype(float)
    first_won = np.bincount(won["game"][won["position"] == 0], minlength=games).astype(float)
    length = np.bincount(hands["game"], minlength=games) / n
    winners = outcome[outcome["won"] & ~outcome["tied"]]
    decided = np.bincount(winners["game"], minlength=games).astype(float)
    measured = np.bincount(winners["game"][winners["strategy"] == MEASURED], minlength=games).astype(float)
    out = {
        "first player's edge in a hand": linearised(first_won - decided_hands / n, decided_hands),
        "game length": length - length.mean(),
    }
    if (outcome["strategy"] == MEASURED).any():
        out["skill (the measured player's share)"] = linearised(measured, decided)
    return out


def opening_covariates(hands: pd.DataFrame, rules: Rules, *, seed: int, games: int) -> dict[str, np.ndarray]:
    """Return per game the deal's control variates (module doc): each has mean 0 over deals (R3.2's exchangeable seats).

    ``first``: the first player's least deadwood at the deal less the seats' mean, and
    ``first_least``: its share of the least, less 1/n, each summed over the game's hands;
    ``measured`` and ``measured_least``: the same for the seat of `MEASURED`.
    """
    n, arrange = rules.n_players, arranger(rules)
    one = hands.drop_duplicates(["game", "hand"])
    seats = hands[hands["strategy"] == MEASURED].set_index(["game", "hand"])["seat"]
    out = {name: np.zeros(games) for name in ("first", "first_least", "measured", "measured_least")}
    for game, number, dealer in one[["game", "hand", "dealer"]].itertuples(index=False):
        holdings = deal(rules, dealer=int(dealer), key=hand_key(seed, int(game), int(number))).holdings
        deadwood = np.array([arrange.deadwood(h) for h in holdings], float)
        least = (deadwood == deadwood.min()) / np.count_nonzero(deadwood == deadwood.min())
        for name, seat in (("first", (dealer + 1) % n), ("measured", seats.get((game, number)))):
            if seat is not None:
                out[name][game] += deadwood[seat] - deadwood.mean()
                out[f"{name}_least"][game] += least[seat] - 1 / n
    return out


def variance_factor(new: np.ndarray, old: np.ndarray, *, rng: np.random.Generator) -> tuple[float, float, float]:
    """Return var(mean over `new`'s units) over var(mean over `old`'s) per game, each unit's value a sum of its games'.

    `new` and `old` hold one value per unit (a block of games, or a game) and cover the same
    number of games each, so the factor is ``var(new)·len(new) / (var(old)·len(old))``.
    """

    def factor(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.var(a, ddof=1) * len(a) / (np.var(b, ddof=1) * len(b)))

    draws = [factor(new[rng.integers(0, len(new), len(new))], old[rng.integers(0, len(old), len(old))])
             for _ in range(RESAMPLES)]  # fmt: skip
    return (factor(new, old), *percentile_interval(np.array(draws)))


def regression_factor(z: np.ndarray, covariates: np.ndarray, *, rng: np.random.Generator) -> tuple[float, float, float]:
    """Return var(z − X·β) / var(z), β by least squares: the share of z's variance the covariates leave."""

    def factor(rows: np.ndarray) -> float:
        x, y = covariates[rows] - covariates[rows].mean(0), z[rows] - z[rows].mean()
        beta = np.linalg.lstsq(x, y, rcond=None)[0]
        return float(np.var(y - x @ beta) / np.var(y))

    n = len(z)
    draws = [factor(rng.integers(0, n, n)) for _ in range(RESAMPLES)]
    return (factor(np.arange(n)), *percentile_interval(np.array(draws)))


def measure(n: int, *, games: int, seed: int, target_score: int = 150) -> list[Factor]:
    """Measure both designs at `n` players on basic rummy and on aces high or low (R9), levels and paired changes."""
    games -= games % n
    rng = np.random.default_rng(seed)
    skill = [{"strategy": MEASURED}] + [{"strategy": "greedy"}] * (n - 1)
    z: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    covariates: dict[str, np.ndarray] = {}
    for ace in ("low", "high_or_low"):
        rules = Rules(n_players=n, target_score=target_score, ace=Ace(ace))
        for design in ("fresh", "duplicate"):
            tables = play(rules, skill, seed=seed, games=games, duplicate=design == "duplicate")
            z[ace, design] = influences(tables, n, games)
            if design == "fresh":
                found = opening_covariates(tables["hands"], Rules(n_players=n), seed=seed, games=games)
                covariates |= {f"{ace} {name}": value for name, value in found.items()}
    factors = []
    for estimate in z["low", "fresh"]:
        who = "measured" if estimate.startswith("skill") else "first"
        for change in (False, True):
            label = f"{estimate}, {'change to aces high' if change else 'level'}"
            fresh, dup = ((z["high_or_low", d][estimate] - z["low", d][estimate]) if change else z["low", d][estimate]
                          for d in ("fresh", "duplicate"))  # fmt: skip
            blocks = dup.reshape(-1, n).sum(axis=1)
            factors.append(Factor("duplicate deals", label, n, *variance_factor(blocks, fresh, rng=rng)))
            sides = ("low", "high_or_low") if change else ("low",)
            x = np.column_stack([covariates[f"{s} {who}{least}"] for s in sides for least in ("", "_least")])
            factors.append(Factor("regression on the deal", label, n, *regression_factor(fresh, x, rng=rng)))
    return factors


def duplicate_coverage(n: int, *, games: int, seed: int, size: int = 1000, samples: int = 1000) -> pd.DataFrame:
    """Return how often 95% intervals from `size` duplicate blocks cover the value over all `games` (the truth).

    Blocked: the delta method over blocks (each block's sums), as a design with duplicate deals must
    be analysed. Naive: over games, as if they were apart. Each of `samples` samples draws `size`
    blocks with replacement from the games played; a row per estimate, with both coverages.
    """
    games -= games % n
    rules = Rules(n_players=n, target_score=150)
    tables = play(rules, [{"strategy": MEASURED}] + [{"strategy": "greedy"}] * (n - 1), seed=seed, games=games,
                  duplicate=True)  # fmt: skip
    outcome, hands = tables["games"], tables["hands"]
    winners = outcome[outcome["won"] & ~outcome["tied"]]
    columns = {
        "skill (the measured player's share)": (
            np.bincount(winners["game"][winners["strategy"] == MEASURED], minlength=games).astype(float),
            np.bincount(winners["game"], minlength=games).astype(float),
        ),
        "game length": (np.bincount(hands["game"], minlength=games) / n, np.ones(games)),
    }
    rng = np.random.default_rng(seed)
    rows = []
    for estimate, (num, den) in columns.items():
        truth = num.sum() / den.sum()
        by_block = num.reshape(-1, n).sum(axis=1), den.reshape(-1, n).sum(axis=1)
        covered = {"blocked": 0, "naive": 0}
        for _ in range(samples):
            blocks = rng.integers(0, len(by_block[0]), size)
            y, x = by_block[0][blocks], by_block[1][blocks]
            played = (blocks[:, None] * n + np.arange(n)).ravel()
            value = y.sum() / x.sum()
            for how, z in (("blocked", linearised(y, x)), ("naive", linearised(num[played], den[played]))):
                covered[how] += abs(value - truth) <= Z * influence_se(z)
        rows.append({"players": n, "estimate": estimate, "blocks": size,
                     **{how: hits / samples for how, hits in covered.items()}})  # fmt: skip
    return pd.DataFrame(rows)


def factors_table(factors: Sequence[Factor]) -> pd.DataFrame:
    """Return the factors as a table: one row per design and estimate, a column per table size."""
    rows = pd.DataFrame(
        {"design": f.design, "estimate": f.estimate, "players": f.players,
         "factor": f"{f.value:.3f} [{f.low:.3f}, {f.high:.3f}]"} for f in factors
    )  # fmt: skip
    table = rows.pivot(index=["design", "estimate"], columns="players", values="factor")
    return table.rename(columns=lambda n: f"{n} players").reset_index().rename_axis(columns=None)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the variance factors of both designs (``python -m rummysim.variance_factors --players 2 3 4``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--games", type=int, default=36000, help="games per rule set and design (default 36000)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--coverage", action="store_true", help="also the coverage of duplicate deals' intervals")
    args = parser.parse_args(argv)
    if min(args.players) < 2 or max(args.players) > 6 or args.games < 4 * max(args.players):
        parser.error("--players are 2 to 6 (R1.1) and --games at least 4 blocks of the largest table")
    if args.coverage:
        found = [duplicate_coverage(n, games=args.games, seed=args.seed) for n in args.players]
        print(pd.concat(found).to_markdown(index=False))
        return
    factors = [f for n in args.players for f in measure(n, games=args.games, seed=args.seed)]
    print(factors_table(factors).to_markdown(index=False))


if __name__ == "__main__":
    main()
