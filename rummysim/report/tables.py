"""The report's tables as text: conditions, seats, strategies, comparisons, every metric, a grid's effects.

Each function returns a pandas frame of strings for ``to_markdown``; the numbers are the
analysis's own (`rummysim.analysis.Analysis`), shown with enough digits that no value
falls outside its interval (`rummysim.report.wording.num`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rummysim.analysis import DESCRIPTIONS, Analysis, Estimate
from rummysim.report.wording import interval, num, p_text, pp, rounded, settings_said
from rummysim.seating import DEFAULT_SEATING
from rummysim.specs import strategy_name

GRID = (
    "### The grid: main effects and interactions (descriptive: uncorrected)\n\nEach factor's main effect is the "
    "average change from its reference level (its first) to the level shown, over the other factors' levels; an "
    "interaction A × B is how much A's change differs at B's level from at B's reference level (0 when the effects "
    "add up). 95% intervals over games (percentile bootstrap; the delta method from 5,000 games a cell), cells that "
    "share deals taken together (paired). "
    "No planned test covers them and they are not corrected, so the Answer claims none of them."
)
UNITS = {
    "first_seat_advantage_game": (100.0, "first seat's edge, game level (pp)"),
    "first_seat_advantage_hand": (100.0, "first player's edge in a hand (pp)"),
    "dealer_advantage_hand": (100.0, "dealer's edge in a hand (pp)"),
    "hands_per_game": (1.0, "game length (hands)"),
    "order": (1.0, "Order"),
}


def grid_text(analysis: Analysis) -> pd.DataFrame:
    """Return a grid's effects as text: arm, measure, effect, estimate [95%]."""
    rows = []
    for effect in analysis.effects:
        scale, label = UNITS.get(effect.measure, (1.0, effect.measure.replace("_", " ")))
        e = effect.estimate
        value, low, high = rounded(e.value * scale, e.low * scale, e.high * scale, least=2 if scale > 1 else 3,
                                   sign="+")  # fmt: skip
        shown = f"{value} {interval(low, high)}" if np.isfinite(e.low) else value
        rows.append({"arm": effect.arm or "every cell", "measure": label, "kind": effect.kind, "effect": effect.term,
                     "estimate [95%]": shown, "games": e.n})  # fmt: skip
    return pd.DataFrame(rows)


def _interval(value: float, low: float, high: float, *, scale: float = 1.0, digits: int = 3) -> str:
    """Return ``value [low, high]`` with enough digits that no end rounds onto another or onto zero (`num`)."""
    if pd.isna(value):
        return "n/a"
    return num(Estimate(value * scale, low * scale, high * scale, 0), digits=digits)


def conditions_table(analysis: Analysis) -> pd.DataFrame:
    """Return the conditions: players (with their seating where it is not the rotation, R3.4), the rules that
    differ from the first, games and hands."""
    experiment = analysis.experiment
    base = settings_said(experiment.conditions[0].rules.to_dict())
    rows = []
    for c in analysis.conditions:
        condition = experiment.condition(c.name)
        rules = settings_said(condition.rules.to_dict())
        changed = ", ".join(f"{k}={v}" for k, v in rules.items() if base.get(k) != v) or "as the first"
        players = ", ".join(strategy_name(str(p["strategy"])) for p in condition.players)
        if condition.seating != DEFAULT_SEATING and len(condition.players) > 2:  # at 2 players the seatings agree
            players += f" ({condition.seating.replace('_', ' ')} around the table)"
        rows.append({"condition": c.name, "players": players, "rules": changed, "games": c.games,
                     "decided games": c.decided_games, "hands": c.hands})  # fmt: skip
    return pd.DataFrame(rows)


def seats_wide(analysis: Analysis) -> pd.DataFrame:
    """Return seat win shares, % [95% Wilson interval], one row per condition and level."""
    rows = []
    for c in analysis.conditions:
        for level, shares, test in (("hand", c.seat_hand, c.uniform_hand), ("game", c.seat_game, c.uniform_game)):
            row = {"condition": c.name, "level": level}
            row.update({f"position {p}": pp(e, signed=False, unit="%") for p, e in enumerate(shares)})
            row["chi-square p"] = p_text(test.p)
            row["Cohen's w"] = f"{test.w:.3f}"
            rows.append(row)
    return pd.DataFrame(rows).fillna("")


def metrics_wide(analysis: Analysis) -> pd.DataFrame:
    """Return every metric (rows) by condition (columns) as value [low, high]."""
    table = analysis.metrics_table()
    table["text"] = [
        _interval(v, lo, hi) for v, lo, hi in zip(table["value"], table["low"], table["high"], strict=True)
    ]
    wide = table.pivot(index="metric", columns="condition", values="text")
    wide = wide.reindex(index=list(dict.fromkeys(table["metric"])), columns=[c.name for c in analysis.conditions])
    wide = wide.fillna("n/a")  # a strategy's Order where it holds no seat: never "nan"
    wide.insert(0, "what it is", [DESCRIPTIONS.get(m.split(":")[0], "") for m in wide.index])
    return wide.reset_index()


def comparisons_text(analysis: Analysis) -> pd.DataFrame:
    """Return the comparisons as text: difference [interval], test, p, Holm p, verdict."""
    table = analysis.comparisons_table()
    if table.empty:
        return table
    table["difference [95%]"] = [
        _interval(v, lo, hi) for v, lo, hi in zip(table["difference"], table["low"], table["high"], strict=True)
    ]
    table["p"] = table["p"].map(lambda p: "" if pd.isna(p) else p_text(p))
    table["p_holm"] = table["p_holm"].map(lambda p: "" if pd.isna(p) else p_text(p))
    table["p_fdr"] = table["p_fdr"].map(lambda p: "" if pd.isna(p) else p_text(p))
    table["within_margin"] = table["within_margin"].fillna("")
    table["answer"] = table["answer"].fillna("")
    table["verdict's interval"] = [
        "" if pd.isna(level) else f"{_interval(v, lo, hi)} ({'log ratio, ' if scale == 'log ratio' else ''}{level:.2%})"
        for v, lo, hi, level, scale in zip(
            table["decided"], table["decided_low"], table["decided_high"], table["level"], table["scale"], strict=True
        )
    ]
    for column in ("variance_ratio", "margin", "detectable"):
        table[column] = table[column].map(lambda x: "" if pd.isna(x) else f"{x:.3f}")
    names = {"variance_ratio": "variance vs unpaired", "within_margin": "within ±margin",
             "detectable": "detectable (80%, all at once)"}  # fmt: skip
    table = table.rename(columns=names)
    table["planned"] = table["planned"].map(lambda x: "planned" if x is True else "descriptive" if x is False else "")
    return table[["other", "reference", "planned", "metric", "difference [95%]", "answer", "verdict's interval", "test",
                  "p", "p_holm", "p_fdr", "verdict",
                  "variance vs unpaired", "margin", "within ±margin", "detectable (80%, all at once)"]]  # fmt: skip


def strategies_text(analysis: Analysis) -> pd.DataFrame:
    """Return each condition's strategies: seats, win share of games (%, Wilson) and Order, as text."""
    strategies = analysis.strategies_table()
    if strategies.empty:
        return strategies
    share = zip(strategies["share"], strategies["share_low"], strategies["share_high"], strict=True)
    order = zip(strategies["order"], strategies["order_low"], strategies["order_high"], strict=True)
    return strategies.assign(
        **{
            "win share [95%]": [
                num(Estimate(v * 100, lo * 100, hi * 100, 0), digits=1) if seats < n else "100 (every seat)"
                for (v, lo, hi), seats, n in zip(share, strategies["seats"], strategies["n_players"], strict=True)
            ],
            "Order [95%]": [
                num(Estimate(v, lo, hi, 0)) if seats < n else "n/a (every seat)"
                for (v, lo, hi), seats, n in zip(order, strategies["seats"], strategies["n_players"], strict=True)
            ],
        }
    )[["condition", "strategy", "seats", "n_players", "win share [95%]", "Order [95%]", "games"]]
