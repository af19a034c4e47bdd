"""The ladder in the report: a lead a player can read, the ladder table, the pairings beneath it, and its chart.

The ratings come from `rummysim.analysis.ladder` (Bradley-Terry and Plackett-Luce by maximum
likelihood; docs/metrics.md, "The ladder"). A rating is shown as a log-strength and as the chance
to beat the reference bot in a two-player game; a strategy whose rating is only bounded (it won or
lost every game against the others) is shown as "at least" or "at most", never as a number. Where
the ladder is what the experiment asks (`leads`), the report opens with it, before any verdict.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display is needed, or used

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit, logit

from rummysim.analysis import Analysis, Estimate
from rummysim.analysis.ladder import Ladder, Pairing, Rating, Status
from rummysim.report.wording import p_text

COLOR = plt.get_cmap("tab10")(0)


def chance_text(p: float) -> str:
    """Return a probability as games out of ten (or a hundred near 0 or 1), for a player.

    >>> chance_text(0.872), chance_text(0.97), chance_text(0.0004)
    ('about 9 of 10', 'about 97 of 100', 'almost none')
    """
    if not math.isfinite(p):
        return "an unknown share"
    if 0.05 <= p <= 0.95:
        return f"about {round(10 * p)} of 10"
    hundred = round(100 * p)
    return "almost none" if hundred == 0 else "nearly all" if hundred == 100 else f"about {hundred} of 100"


def _percent(e: Estimate) -> str:
    """Return a chance in percent with its interval, or its bound: ``87.2% [85.5, 88.7]``, ``at most 0.18%``."""
    digits = 1 if all(0.001 <= x <= 0.999 for x in (e.low, e.high) if math.isfinite(x)) else 2
    if math.isnan(e.value):
        if math.isfinite(e.low):
            return f"at least {100 * e.low:.{digits}f}%"
        return f"at most {100 * e.high:.{digits}f}%" if math.isfinite(e.high) else "not estimable"
    ends = ", ".join("n/a" if math.isnan(x) else f"{100 * x:.{digits}f}" for x in (e.low, e.high))
    return f"{100 * e.value:.{digits}f}% [{ends}]"


def rating_text(r: Rating) -> str:
    """Return a rating with its interval, ``1.92 [1.77, 2.06]``, or its bound (`Status`)."""
    e = r.rating
    if r.status is Status.REFERENCE:
        return "0 (reference)"
    if r.status is Status.AT_LEAST:
        return f"at least {e.low:+.2f}"
    if r.status is Status.AT_MOST:
        return f"at most {e.high:+.2f}"
    if r.status is Status.APART:
        return "not estimable (never met the others)"
    ends = ", ".join("unbounded" if math.isnan(x) else f"{x:+.2f}" for x in (e.low, e.high))
    return f"{e.value:+.2f} [{ends}]"


def leads(analysis: Analysis, ladder: Ladder) -> bool:
    """Whether the ladder is the report's answer: it rates more conditions than the planned comparisons compare.

    A round robin of bots (experiments/bots.yaml) asks how strong each is, and a comparison of
    rules beside it (its pairing without the going-rummy bonus) is a side question; an
    experiment of rules that also seats several pairings asks about the rules, its verdicts first.
    """
    compared = {name for c in analysis.comparisons for name in (c.reference, c.other)}
    return len(ladder.conditions) > len(compared)


def lead(ladder: Ladder) -> str:
    """Return the ladder's first sentence: who tops it, and how often it beats the reference."""
    top, ref = ladder.ratings[0], ladder.reference
    chance = ladder.win_probability(top.strategy)
    if top.status is Status.AT_LEAST:
        return f"`{top.strategy}` tops the ladder: it won every game against the others, so it beats `{ref}` in at least {100 * chance.low:.1f}% of two-player games."  # noqa: E501
    text = (
        f"`{top.strategy}` tops the ladder: it beats `{ref}` in {chance_text(chance.value)} two-player games "
        f"({_percent(chance)})"
    )
    second = ladder.ratings[1] if len(ladder.ratings) > 1 else None
    if second is not None and second.strategy != ref and second.status in (Status.FITTED, Status.REFERENCE):
        close = ladder.win_probability(top.strategy, second.strategy)
        if not close.low > 0.5:  # the top two are not told apart
            text += (
                f", though it is not shown to be ahead of `{second.strategy}` (it would beat it in "
                f"{_percent(close)} of two-player games)"
            )
        else:
            text += f", and `{second.strategy}`, the next, in {_percent(close)} of them"
    order = ", ".join(f"`{r.strategy}`" for r in ladder.ratings if r.status is not Status.APART)
    return text + f". Strongest first: {order}."


def _pairing_row(analysis: Analysis, p: Pairing) -> str:
    n = analysis.experiment.condition(p.condition).rules.n_players
    verb = "beats" if n == 2 else "finishes ahead of"
    forecast = "n/a" if math.isnan(p.predicted) else f"{100 * p.predicted:.1f}%"
    where = f"`{p.condition}`" + ("" if p.fitted else " (not in the ladder)")
    pair = f"`{p.strategy}` {verb} `{p.opponent}`"
    return f"| {where} | {n} | {pair} | {p.share.n:,} | {_percent(p.share)} | {forecast} |"


def ladder_lines(ladder: Ladder) -> list[str]:
    """Return the ladder in markdown: a lead a player can read, then the ladder table (`ladder_notes` and
    `pairing_lines` follow)."""
    ref = ladder.reference
    lines = [lead(ladder), "", f"| | strategy | rating [95% interval] | beats `{ref}` (two players) | games |"]
    lines.append("| ---: | --- | --- | --- | ---: |")
    for i, r in enumerate(ladder.ratings, start=1):
        chance = "–" if r.strategy == ref else _percent(ladder.win_probability(r.strategy))
        lines.append(f"| {i} | `{r.strategy}` | {rating_text(r)} | {chance} | {r.games:,} |")
    return lines


def ladder_notes(analysis: Analysis, ladder: Ladder) -> str:
    """Return how the ladder was fitted and what it leaves out, one paragraph under its table and chart."""
    ref = ladder.reference
    games = sum(int(analysis.frames[name]["decided"].sum()) for name in ladder.conditions)
    how = "the final scores' order" if ladder.ranking == "final scores" else "the winner"
    words = [
        f"Each rating is a log-strength fitted by maximum likelihood over {games:,} decided games of "
        f"{len(ladder.conditions)} conditions under the same rules (Bradley-Terry for two players, Plackett-Luce on "
        f"{how} for more), with 95% bootstrap intervals; `{ref}`, the weakest with a rating of its own, is the "
        f"reference at 0, and a rating r means beating `{ref}` in a share 1/(1 + e^−r) of two-player games.",
    ]
    for r in ladder.ratings:
        if r.status in (Status.AT_LEAST, Status.AT_MOST):
            side = "ahead of" if r.status is Status.AT_LEAST else "behind"
            words.append(
                f"`{r.strategy}` only ever finished {side} the others it met, so its rating is only bounded: "
                f"{rating_text(r)} (it beats `{ref}` in {_percent(ladder.win_probability(r.strategy))} of games)."
            )
        elif r.status is Status.APART:
            words.append(f"`{r.strategy}` never met the strategies of the ladder: it has no rating on their scale.")
    for name, why in ladder.left_out.items():
        words.append(f"`{name}` is not in the ladder ({why}); its pairing is shown with the others.")
    if ladder.df and ladder.fit_p < 0.05:
        words.append(
            f"One scale does not describe every pairing (likelihood-ratio test against each condition's own "
            f"ratings, p = {p_text(ladder.fit_p)} on {ladder.df} df): where a pairing's share differs from the "
            "ladder's forecast, one bot does better against the other than the ratings say."
        )
    return " ".join(words)


def pairing_lines(analysis: Analysis, ladder: Ladder) -> list[str]:
    """Return each condition's pairings in markdown, with the ladder's forecast of each."""
    lines = ["Each pairing, with the ladder's forecast of it:", ""]
    lines.append("| condition | players | pairing | games | share [95% interval] | ladder's forecast |")
    lines.append("| --- | ---: | --- | ---: | --- | ---: |")
    lines += [_pairing_row(analysis, p) for p in ladder.pairings]
    return lines


def draw_ladder(ladder: Ladder, path_without_suffix: Path | str) -> Path:
    """Draw the ladder (ratings with 95% intervals, strongest on top) as PNG and SVG; return the PNG's path."""
    path = Path(path_without_suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    ratings = list(ladder.ratings)
    with plt.rc_context({"svg.hashsalt": "rummysim", "svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(8.0, 1.2 + 0.45 * len(ratings)), layout="constrained")
        try:
            _draw(ax, ladder, ratings)
            handles, labels = ax.get_legend_handles_labels()
            order = sorted(range(len(labels)), key=lambda i: not labels[i].startswith("rating"))
            fig.legend([handles[i] for i in order], [labels[i] for i in order], loc="outside lower center", ncol=2,
                       fontsize=8)  # fmt: skip
            fig.savefig(path.with_suffix(".png"), dpi=110)
            fig.savefig(path.with_suffix(".svg"), metadata={"Date": None})
        finally:
            plt.close(fig)
    return path.with_suffix(".png")


def _draw(ax: plt.Axes, ladder: Ladder, ratings: list[Rating]) -> None:
    y = np.arange(len(ratings))[::-1]
    ends = [x for r in ratings for x in (r.rating.value, r.rating.low, r.rating.high) if math.isfinite(x)]
    span = (max(ends) - min(ends)) or 1.0
    shown = fitted = False
    for yi, r in zip(y, ratings, strict=True):
        e = r.rating
        if r.status in (Status.FITTED, Status.REFERENCE):
            error = [[max(e.value - e.low, 0.0)], [max(e.high - e.value, 0.0)]] if math.isfinite(e.low) else None
            ax.errorbar(e.value, yi, xerr=error, fmt="o", color=COLOR, capsize=4,
                        label=None if fitted else "rating, 95% bootstrap interval")  # fmt: skip
            fitted = True
        elif r.status in (Status.AT_LEAST, Status.AT_MOST):
            bound, way = (e.low, 1) if r.status is Status.AT_LEAST else (e.high, -1)
            ax.annotate("", xy=(bound + way * 0.15 * span, yi), xytext=(bound, yi),
                        arrowprops={"arrowstyle": "->", "color": "grey"})  # fmt: skip
            ax.plot(bound, yi, "|", color="grey", markersize=12, label=None if shown else "one-sided 95% bound")
            shown = True
        else:
            ax.text(min(ends) if ends else 0.0, yi, "not estimable", va="center", fontsize=8, color="grey")
    ax.axvline(0.0, color="black", linewidth=0.8, linestyle="dashed")
    ax.set_yticks(y, [r.strategy for r in ratings])
    ax.set_xlim(min(ends) - 0.2 * span, max(ends) + 0.2 * span)
    ax.set_ylim(-0.7, len(ratings) - 0.3)
    ax.set_xlabel(f"rating: log-strength against {ladder.reference} (dashed, 0)")
    ax.grid(axis="x", alpha=0.3)
    top = ax.secondary_xaxis(
        "top", functions=(lambda x: 100 * expit(x), lambda p: logit(np.clip(np.asarray(p) / 100, 1e-12, 1 - 1e-12)))
    )
    low, high = ax.get_xlim()
    ticks = [t for t in (0.1, 1, 5, 20, 50, 80, 95, 99, 99.9) if low <= logit(t / 100) <= high]
    top.set_xticks(ticks, [f"{t:g}" for t in ticks])
    top.set_xlabel(f"chance to beat {ladder.reference} in a two-player game, %")
    ax.set_title("The ladder: maximum-likelihood ratings (Bradley-Terry, Plackett-Luce)", fontsize=9)
