"""The ladder in the report: what was measured first, then what the fit forecasts (issue 42, part 4).

The section opens with a lead built from measured shares (`lead`: who tops the ladder, and how
often it beat the reference and the next strategy in the games they played), then the measured
share of each pair of strategies (`head_to_head`: head to head where they played so, else the
table where they met most). Only then the fit (`rummysim.analysis.ladder`, Bradley-Terry and
Plackett-Luce; docs/metrics.md, "The ladder"): the fit test said plainly first, each forecast that
lies outside its pairing's measured interval where the test rejects or cannot be run dropped and
flagged in words (never printed as a number), then the ratings with the forecasts that hold. A
rating only bounded (it won or lost every game) is "at least" or "at most", never a number. Where
the ladder is what the experiment asks (`leads`), the report opens with it, before any verdict.
"""

from __future__ import annotations

import math

from rummysim.analysis import Analysis, Estimate
from rummysim.analysis.ladder import FitTest, Ladder, Pairing, Rating, Status
from rummysim.report.ladder_chart import draw_ladder as draw_ladder  # drawn there, importable from here as before
from rummysim.report.verdicts import lineup_words
from rummysim.report.wording import p_text
from rummysim.specs import strategy_label

NUMBER = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


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


def head_to_head(ladder: Ladder) -> list[Pairing]:
    """Return one measured pairing per pair of fitted strategies that met, in the ladder's order: head to head
    (2 players) where they played so, else at the table where they met in most games."""
    best: dict[frozenset[str], Pairing] = {}
    for p in ladder.pairings:
        key = frozenset((p.strategy, p.opponent))
        if not p.fitted or not p.share.n:
            continue
        held = best.get(key)
        if held is None or (p.seats == 2, p.share.n) > (held.seats == 2, held.share.n):
            best[key] = p
    place = {r.strategy: i for i, r in enumerate(ladder.ratings)}
    return sorted(best.values(), key=lambda p: (place[p.strategy], place[p.opponent]))


def _between(found: list[Pairing], s: str, t: str) -> Pairing | None:
    return next((p for p in found if {p.strategy, p.opponent} == {s, t}), None)


def _as_seen_by(p: Pairing, s: str) -> Estimate:
    """Return the pairing's measured share as `s`'s: how often its best seat finished ahead."""
    e = p.share
    return e if p.strategy == s else Estimate(1 - e.value, 1 - e.high, 1 - e.low, e.n)


def _lineup(analysis: Analysis, p: Pairing) -> str:
    """Return the lineup of a pairing's table in words: ``cautious against two greedy``, ``a table of greedy,
    cautious, montecarlo and expert``."""
    condition = analysis.experiment.condition(p.condition)
    labels = [strategy_label(spec) for spec in condition.players]
    if len(set(labels)) < len(labels):
        return lineup_words(condition)
    return f"a table of {', '.join(labels[:-1])} and {labels[-1]}"


def _clause(analysis: Analysis, p: Pairing, s: str, opponent: str, *, only: bool = False) -> str:
    """Return ``beats `greedy` in about 99 of 100 two-player games (99.2% [97.8, 99.7] of 400)``: what `s` did
    against the other in one pairing, measured, with its table size, games and (at a table) lineup."""
    e = _as_seen_by(p, s)
    how = "only " if only else ""
    verb = "beats" if p.seats == 2 else "finishes ahead of"
    where = "" if p.seats == 2 else f", {_lineup(analysis, p)}"
    size = NUMBER.get(p.seats, str(p.seats))
    return f"{verb} {opponent} in {how}{chance_text(e.value)} {size}-player games ({_percent(e)} of {e.n:,}{where})"


def lead(analysis: Analysis, ladder: Ladder) -> str:
    """Return the ladder's first sentence: who tops it, then how often it beat the reference and the next
    strategy in the games they played (measured shares, never the fit's forecast), then the order."""
    top, ref = ladder.ratings[0], ladder.reference
    found = head_to_head(ladder)
    text = f"`{top.strategy}` tops the ladder"
    if top.status is Status.AT_LEAST:
        text += " (it won every game against the others, so its rating is only bounded)"
    mine = [p for p in found if top.strategy in (p.strategy, p.opponent)]
    first = _between(found, top.strategy, ref) or max(mine, key=lambda p: p.share.n, default=None)
    if first is not None:
        other = first.opponent if first.strategy == top.strategy else first.strategy
        text += f": measured, it {_clause(analysis, first, top.strategy, f'`{other}`')}"
        second = next((r for r in ladder.ratings[1:] if r.status is not Status.APART), None)
        if second is not None and second.strategy != other:
            text += _second(analysis, found, top.strategy, second.strategy)
    order = ", ".join(f"`{r.strategy}`" for r in ladder.ratings if r.status is not Status.APART)
    return text + f". Strongest first: {order}."


def _second(analysis: Analysis, found: list[Pairing], top: str, second: str) -> str:
    """Return the lead's clause on the next strategy: ahead of it, not told apart, behind it, or never met."""
    p = _between(found, top, second)
    name = f"`{second}`, the next,"
    if p is None:
        return f"; it never met `{second}`, the next, so how often it beats it was not measured"
    e = _as_seen_by(p, top)
    if e.low > 0.5:
        return f", and {_clause(analysis, p, top, name)}"
    if e.high < 0.5:
        return f", but it {_clause(analysis, p, top, name, only=True)}: behind it where they met"
    told = _clause(analysis, p, top, f"`{second}`")
    return f", though it is not shown to be ahead of `{second}`, the next: it {told}"


def _measured_row(analysis: Analysis, p: Pairing) -> str:
    verb = "beats" if p.seats == 2 else "finishes ahead of"
    lineup = "" if p.seats == 2 else f" ({_lineup(analysis, p)})"
    pair = f"`{p.strategy}` {verb} `{p.opponent}`{lineup}"
    return f"| {pair} | {p.seats} | {p.share.n:,} | {_percent(p.share)} | `{p.condition}` |"


def measured_lines(analysis: Analysis, ladder: Ladder) -> list[str]:
    """Return the measured share of each pair of strategies that met, as a markdown table (`head_to_head`)."""
    rules = analysis.experiment.condition(ladder.conditions[0]).rules  # one rule set, table size aside
    games = f"games to {rules.target_score} points" if rules.target_score else f"games of {rules.max_hands} hands"
    lines = [
        f"Measured where they met, in {games}: head to head where they played two-player games, "
        "else at the table where they met most (every pairing of every table is under each pairing, below).",
        "",
        "| pairing | players | games | measured share [95% interval] | condition |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    return lines + [_measured_row(analysis, p) for p in head_to_head(ladder)]


def fit_words(ladder: Ladder) -> str:
    """Return what the fit test says, plainly, for the report to say before any forecast."""
    test = f"likelihood-ratio test against each condition's own ratings, p = {p_text(ladder.fit_p)} on {ladder.df} df"
    if ladder.fit_test is FitTest.REJECTED:
        return (
            f"**One scale does not fit these pairings** ({test}): the ratings below are the best single ordering, "
            "not a measurement, and where the ladder's forecast of a pairing lies outside its measured interval it "
            "is dropped: read the measured share."
        )
    if ladder.fit_test is FitTest.UNTESTED:
        return (
            "**Whether one scale fits cannot be tested here**: the test has no residual degrees of freedom (the "
            "ladder's ratings are each condition's own, or these do not exist), so a forecast is kept only where it "
            "lies inside its pairing's measured interval; the others are dropped: read the measured share."
        )
    return f"One scale fits these pairings ({test}): the ladder's forecasts follow, as forecasts."


def flag_text(analysis: Analysis, p: Pairing) -> str:
    """Return why a pairing's forecast is dropped, in words, without the forecast's number."""
    way = "more" if p.predicted > p.share.high else "less"
    size = "2 players" if p.seats == 2 else f"{p.seats} players, {_lineup(analysis, p)}"
    where = f"`{p.strategy}` against `{p.opponent}` ({size}, `{p.condition}`)"
    if p.fitted:
        return (
            f"the one-scale fit does not hold for {where}: measured {_percent(p.share)}, the fit says {way}; read "
            "the measured share"
        )
    return (
        f"the ladder of the fitted rules does not describe {where}: measured {_percent(p.share)}, the ladder "
        f"says {way}; read the measured share"
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _flags(analysis: Analysis, ladder: Ladder) -> list[str]:
    """Return the flag of each dropped forecast of the measured table, then how many more are dropped."""
    shown = head_to_head(ladder)
    lines = [f"- {_capital(flag_text(analysis, p))}." for p in ladder.dropped if p in shown]
    more = len([p for p in ladder.dropped if p not in shown])
    if more:
        many = more > 1
        lines += [""] if lines else []
        lines.append(
            f"{more} {'more ' if lines else ''}forecast{'s' if many else ''}, of pairings at other tables or under "
            f"other rules, {'lie' if many else 'lies'} outside {'their' if many else 'its'} measured interval"
            f"{'s' if many else ''} and {'are' if many else 'is'} dropped (each pairing, below)."
        )
    return lines


def ladder_lines(analysis: Analysis, ladder: Ladder) -> list[str]:
    """Return the ladder in markdown: the lead and the measured shares, then the fit test and each dropped
    forecast, then the ratings with the forecasts that hold (`ladder_notes` and `pairing_lines` follow)."""
    ref = ladder.reference
    lines = [lead(analysis, ladder), "", *measured_lines(analysis, ladder), "", fit_words(ladder)]
    flags = _flags(analysis, ladder)
    lines += ["", *flags] if flags else []
    kept = [r for r in ladder.ratings if r.status is Status.FITTED and ladder.chance_holds(r.strategy)]
    intro = "The ladder's ratings, fitted to every game of these conditions at once"
    if not kept:
        lines += ["", f"{intro}; its forecasts of each strategy's chance to beat `{ref}` are dropped, since the fit "
                  "does not hold for them:", "", "| | strategy | rating [95% interval] | games |",
                  "| ---: | --- | --- | ---: |"]  # fmt: skip
        lines += [f"| {i} | `{r.strategy}` | {rating_text(r)} | {r.games:,} |" for i, r in enumerate(ladder.ratings, 1)]
        return lines
    lines += ["", f"{intro}, with each one's forecast chance to beat `{ref}` in a two-player game:", ""]
    lines += [f"| | strategy | rating [95% interval] | forecast: beats `{ref}` (two players) | games |",
              "| ---: | --- | --- | --- | ---: |"]  # fmt: skip
    for i, r in enumerate(ladder.ratings, start=1):
        chance = "–" if r.strategy == ref else _percent(ladder.win_probability(r.strategy))
        if r.status is Status.FITTED and not ladder.chance_holds(r.strategy):
            chance = f"dropped: the fit does not hold against `{ref}`"
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
        f"reference at 0, and a rating r forecasts beating `{ref}` in a share 1/(1 + e^−r) of two-player games.",
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
    return " ".join(words)


def _pairing_row(analysis: Analysis, ladder: Ladder, p: Pairing) -> str:
    n = analysis.experiment.condition(p.condition).rules.n_players
    verb = "beats" if n == 2 else "finishes ahead of"
    if not math.isfinite(p.predicted):
        forecast = "n/a"
    elif ladder.forecast_holds(p):
        forecast = f"{100 * p.predicted:.1f}%"
    else:
        forecast = f"dropped: the {'fit' if p.fitted else 'ladder of the fitted rules'} says " + (
            "more" if p.predicted > p.share.high else "less"
        )
    where = f"`{p.condition}`" + ("" if p.fitted else " (not in the ladder)")
    pair = f"`{p.strategy}` {verb} `{p.opponent}`"
    return f"| {where} | {n} | {pair} | {p.share.n:,} | {_percent(p.share)} | {forecast} |"


def pairing_lines(analysis: Analysis, ladder: Ladder) -> list[str]:
    """Return each condition's pairings in markdown: the measured share, then the ladder's forecast where it holds."""
    lines = [
        "Each pairing as measured, with the ladder's forecast beside it where it holds (a forecast outside the "
        "measured interval is dropped where the fit test rejects one scale or cannot be run, and under other rules):",
        "",
    ]
    lines.append("| condition | players | pairing | games | measured share [95% interval] | ladder's forecast |")
    lines.append("| --- | ---: | --- | ---: | --- | --- |")
    lines += [_pairing_row(analysis, ladder, p) for p in ladder.pairings]
    return lines
