"""Benchmarks behind ``rummysim bench``: figures printed, never asserted in tests.

Each figure is the median of several timed repeats on one process:

- ``hands_per_second``: 2-player greedy-vs-greedy hands through `play_hand`, records
  included, fresh deals from the seed streams;
- ``min_deadwood_per_second``: `Arranger.deadwood` (what bots call) on uniform random
  10-card holding masks, memo cleared first;
- ``min_deadwood_api_per_second``: the public `rummysim.min_deadwood` on lists of card ints;
- ``compiled_hands_per_second``: 2-player greedy hands through the compiled engine
  (`rummysim.compiled`), whole games into Arrow tables, records included, one process;
  ``compiled_bots`` the same for each compiled bot against itself, with its ratio to greedy.

With ``--bots``, ``decision_us_<bot>`` is each built-in bot's mean time per decision
(`bench_decisions`), and ``decision_us_montecarlo_python_playouts`` montecarlo's with
its playouts in Python rather than compiled. With ``--report-rows N``, `bench_report`
plays about N hand x seat rows and times their report, with its peak memory.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from rummysim.arrangement import arranger, min_deadwood
from rummysim.engine import play_hand
from rummysim.rules import Rules
from rummysim.strategies.greedy import Greedy


def _median_rate(run: Callable[[], int], repeats: int) -> tuple[float, list[float]]:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        count = run()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates), rates


def bench_hands(*, n_hands: int = 2000, repeats: int = 5, seed: int = 2026) -> tuple[float, list[float]]:
    """Return greedy 2-player hands per second (median, all repeats)."""
    rules = Rules()
    bots = [Greedy(), Greedy()]

    def run() -> int:
        for hand in range(n_hands):
            play_hand(bots, rules=rules, seed=seed, game=0, hand=hand, dealer=hand % 2)
        return n_hands

    return _median_rate(run, repeats)


def random_holdings(n: int, *, size: int = 10, seed: int = 2026) -> list[int]:
    """Return `n` uniform random holdings of `size` cards, as masks."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52)).argsort(axis=1)[:, :size]
    return [int(sum(1 << int(c) for c in row)) for row in keys]


def bench_deadwood(*, n_holdings: int = 200_000, repeats: int = 5) -> dict[str, Any]:
    """Return min-deadwood calls per second on random 10-card holdings (mask and public API)."""
    holdings = random_holdings(n_holdings)
    rules = Rules()
    arr = arranger(rules)

    def run_masks() -> int:
        arr.clear_cache()
        deadwood = arr.deadwood
        for mask in holdings:
            deadwood(mask)
        return len(holdings)

    as_lists = [[c for c in range(52) if mask >> c & 1] for mask in holdings[: n_holdings // 4]]

    def run_api() -> int:
        arr.clear_cache()
        for cards in as_lists:
            min_deadwood(cards, rules=rules)
        return len(as_lists)

    mask_rate, mask_rates = _median_rate(run_masks, repeats)
    api_rate, api_rates = _median_rate(run_api, repeats)
    return {
        "min_deadwood_per_second": mask_rate,
        "min_deadwood_runs": mask_rates,
        "min_deadwood_api_per_second": api_rate,
        "min_deadwood_api_runs": api_rates,
    }


def bench_compiled(*, games: int = 1000, repeats: int = 5) -> dict[str, Any]:
    """Return the compiled engine's hands per second: greedy 2 players, and each compiled bot against itself.

    Each run plays `games` whole games into the runner's Arrow tables (records included).
    Without the compiled engine, say why instead.
    """
    import rummysim.compiled as compiled

    clock = time.perf_counter()
    try:
        kernels = compiled.load()
    except RuntimeError as error:
        return {"compiled_unavailable": str(error)}
    from rummysim.compiled.layout import POLICIES

    figures: dict[str, Any] = {"compiled_load_seconds": time.perf_counter() - clock}
    rules = Rules()
    bots: dict[str, dict[str, float]] = {}
    for name in ("greedy", *(t for t in POLICIES if t != "greedy")):  # expert's searches: --bots
        lineup = [name, name]

        def run(lineup: list[str] = lineup) -> int:
            return int(kernels.play_chunk_tables("bench", rules, lineup, seed=2026, start=0, stop=games)[1])

        rate, runs = _median_rate(run, repeats)
        bots[name] = {"hands_per_second": rate, "of_greedy": rate / bots["greedy"]["hands_per_second"] if bots else 1.0}
        if name == "greedy":
            figures.update(compiled_hands_per_second=rate, compiled_hands_runs=runs)
    figures["compiled_bots"] = bots
    return figures


def run_benchmarks(*, quick: bool = False) -> dict[str, Any]:
    """Run every benchmark and return the figures with the machine they ran on."""
    scale = 10 if quick else 1
    hands, hand_runs = bench_hands(n_hands=2000 // scale, repeats=3 if quick else 5)
    figures: dict[str, Any] = {"hands_per_second": hands, "hands_runs": hand_runs}
    figures.update(bench_deadwood(n_holdings=200_000 // scale, repeats=3 if quick else 5))
    figures.update(bench_compiled(games=1000 // scale, repeats=3 if quick else 5))
    figures["machine"] = {
        "python": platform.python_version(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
    }
    return figures


def _greedy_experiment(games: int, name: str = "bench") -> Any:
    from rummysim.experiment import parse_experiment

    return parse_experiment(
        {"name": name, "question": "How fast?", "seed": 2026, "games": games, "players": ["greedy", "greedy"]},
        source="<bench>",
    )


def bench_runner(*, hands: int = 20_000, repeats: int = 3) -> dict[str, Any]:
    """Return the runner's figures on a greedy 2-player run of about `hands` hands.

    ``bare_hands_per_second``: a plain loop of `play_game` in this process;
    ``runner_1_hands_per_second`` and ``runner_2_hands_per_second``: `run_experiment` with
    one and two workers, Parquet files included; their ratio is the speed-up, and the
    runner's overhead is 1 - runner_1 / bare.
    """
    import tempfile

    from rummysim.game import play_game
    from rummysim.runner import run_experiment

    rules = Rules()
    games, counted = 0, 0
    while counted < hands:  # how many games make about `hands` hands
        counted += play_game(["greedy", "greedy"], rules=rules, seed=2026, game=games).games[0].n_hands
        games += 1
    experiment = _greedy_experiment(games)

    def bare() -> int:
        return sum(
            play_game(["greedy", "greedy"], rules=rules, seed=2026, game=g).games[0].n_hands for g in range(games)
        )

    def runner(n_jobs: int) -> Callable[[], int]:
        def run() -> int:
            with tempfile.TemporaryDirectory() as out:
                results = run_experiment(experiment, out=out, n_jobs=n_jobs, quiet=True)
                return int(results.manifest["hands_played_this_run"])

        return run

    bare_rate, bare_runs = _median_rate(bare, repeats)
    one, one_runs = _median_rate(runner(1), repeats)
    two, two_runs = _median_rate(runner(2), repeats)
    return {
        "runner_hands": counted,
        "runner_games": games,
        "bare_hands_per_second": bare_rate,
        "runner_1_hands_per_second": one,
        "runner_2_hands_per_second": two,
        "runner_speedup_2_workers": two / one,
        "runner_overhead": 1 - one / bare_rate,
        "runner_runs": {"bare": bare_runs, "jobs_1": one_runs, "jobs_2": two_runs},
    }


class _PeakMemory:
    """Sample the resident memory of this process and all its children (the workers)."""

    def __init__(self, interval: float = 0.1) -> None:
        import threading

        import psutil

        self._process = psutil.Process()
        self._interval = interval
        self._stop = threading.Event()
        self.peak_total = self.peak_parent = self.peak_worker = 0
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                parent = self._process.memory_info().rss
                workers = [c.memory_info().rss for c in self._process.children(recursive=True)]
            except psutil.Error:
                continue
            self.peak_parent = max(self.peak_parent, parent)
            self.peak_worker = max([self.peak_worker, *workers])
            self.peak_total = max(self.peak_total, parent + sum(workers))
            self._stop.wait(self._interval)

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def bench_memory(*, hands: int = 1_000_000, n_jobs: int = -1) -> dict[str, Any]:
    """Run a greedy 2-player experiment of about `hands` hands; return its peak memory (MiB).

    Memory is sampled every 0.1 s over this process and all its children (the workers):
    the peak of their sum, of the parent alone and of the largest worker.
    """
    import tempfile

    from rummysim.runner import run_experiment

    games = max(1, round(hands / 50))  # greedy 2-player games last about 50 hands
    mib = 2**20
    with tempfile.TemporaryDirectory() as out, _PeakMemory() as memory:
        start = time.perf_counter()
        results = run_experiment(_greedy_experiment(games, "memory"), out=out, n_jobs=n_jobs, quiet=True)
        seconds = time.perf_counter() - start
        played = int(results.manifest["hands_played_this_run"])
        size = sum(p.stat().st_size for p in results.folder.glob("*.parquet"))
    return {
        "memory_hands": played,
        "memory_seconds": seconds,
        "memory_hands_per_second": played / seconds,
        "peak_total_mib": memory.peak_total / mib,
        "peak_parent_mib": memory.peak_parent / mib,
        "peak_worker_mib": memory.peak_worker / mib,
        "parquet_mib": size / mib,
    }


def _timed(cls: type, times: list[float]) -> type:
    """Return a subclass of a bot that appends the seconds of each decision to `times`."""

    def wrap(decision: str) -> Callable[[Any, Any], Any]:
        def method(self: Any, view: Any) -> Any:
            start = time.perf_counter()
            answer = getattr(cls, decision)(self, view)
            times.append(time.perf_counter() - start)
            return answer

        return method

    return type(f"Timed{cls.__name__}", (cls,), {d: wrap(d) for d in ("draw", "play", "discard")})


def bench_decisions(*, hands: int = 300, slow_hands: int = 20) -> dict[str, float]:
    """Return each built-in bot's mean time per decision, in microseconds.

    Each bot plays 2-player hands against greedy (`slow_hands` for a searching bot,
    `hands` for the others), timing all three decisions of every one of its turns. A
    searching bot (montecarlo) is timed twice: with compiled playouts where they load
    (``decision_us_montecarlo``) and with Python ones (``..._python_playouts``); it makes
    the same moves either way.
    """
    from rummysim.strategies import REGISTRY, rollout

    figures = {}
    for name, cls in REGISTRY.items():
        figures[f"decision_us_{name}"] = _mean_decision_us(
            cls, slow_hands if cls.searches or cls.compiled_search else hands
        )
        if cls.searches:
            with rollout.python_only():
                figures[f"decision_us_{name}_python_playouts"] = _mean_decision_us(cls, slow_hands)
    return figures


def _mean_decision_us(cls: type, hands: int) -> float:
    from rummysim.engine import play_hand
    from rummysim.seeding import strategy_rng

    times: list[float] = []
    timed = _timed(cls, times)
    for hand in range(hands):
        bot = timed(rng=strategy_rng(2026, hand, 0))
        play_hand([bot, Greedy()], rules=Rules(), seed=2026, hand=hand, dealer=hand % 2)
    return statistics.fmean(times) * 1e6


def bench_sealed(*, hands: int = 200) -> dict[str, float]:
    """Return the mean time per decision of greedy sealed in its own process, and in process (microseconds).

    Greedy, loaded by path so that it runs sealed (`rummysim.strategies.sealed`), plays
    2-player hands against greedy; each of its decisions is timed from the engine's
    side: the view sent, the bot's answer, the answer read back. The process starts once
    (not counted), as in a run, where it serves every game of a chunk.
    """
    from rummysim.seeding import strategy_key, strategy_rng
    from rummysim.strategies.sealed import Sealed, SealedPool

    sealed_times: list[float] = []
    local_times: list[float] = []
    spec = {"strategy": "rummysim.strategies.greedy:Greedy"}
    with SealedPool() as pool:
        process = pool.bot(0, spec, key=0).process  # start the process outside the timing
        for hand in range(hands):
            sealed = _timed(Sealed, sealed_times)(process, spec, key=strategy_key(2026, hand, 0))
            play_hand([sealed, Greedy()], rules=Rules(), seed=2026, hand=hand, dealer=hand % 2)
            local = _timed(Greedy, local_times)(rng=strategy_rng(2026, hand, 0))
            play_hand([local, Greedy()], rules=Rules(), seed=2026, hand=hand, dealer=hand % 2)
    sealed_us, local_us = statistics.fmean(sealed_times) * 1e6, statistics.fmean(local_times) * 1e6
    return {"decision_us_sealed_greedy": sealed_us, "decision_us_greedy_in_process": local_us,
            "sealed_overhead_us": sealed_us - local_us}  # fmt: skip


SCALE = {
    "name": "scale", "question": "Does playing aces high or low (R9) change who wins?", "seed": 2026, "games": 1,
    "players": ["greedy", "greedy", "greedy"], "rules": {"target_score": 150},
    "conditions": {
        "basic": {}, "ace_high": {"rules": {"ace": "high_or_low"}},
        "basic_skill": {"players": ["cautious", "greedy", "greedy"]},
        "ace_high_skill": {"players": ["cautious", "greedy", "greedy"], "rules": {"ace": "high_or_low"}},
    },
}  # fmt: skip
"""acehigh's four conditions: about 55.7 hand x seat rows a game (docs/benchmarks.md, "The report")."""


def bench_report(*, rows: int = 1_000_000, n_jobs: int = -1) -> dict[str, Any]:
    """Play a run of about `rows` hand x seat rows (compiled engine), then time its report in a fresh process.

    The report runs as ``rummysim report`` would, in a child process that gives its own
    peak resident memory (``getrusage``: the figure GNU time's ``%M`` shows).
    """
    import json
    import subprocess
    import sys
    import tempfile

    import pyarrow.parquet as pq

    from rummysim.experiment import parse_experiment
    from rummysim.runner import run_experiment

    games = max(1, round(rows / (4 * 55.7)))
    child = (
        "import json, resource, sys, time; from rummysim.report import build_report; start = time.perf_counter(); "
        "build_report(sys.argv[1]); print(json.dumps([time.perf_counter() - start, "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]))"
    )
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        results = run_experiment(
            parse_experiment(SCALE, source="<bench>"), out=out, n_jobs=n_jobs, games=games, chunk_games=2000
        )
        played = time.perf_counter() - start
        done = subprocess.run(
            [sys.executable, "-c", child, str(results.folder)], check=True, capture_output=True, text=True
        )
        seconds, peak_kb = json.loads(done.stdout.strip().splitlines()[-1])
        n_rows = pq.ParquetFile(results.folder / "hands.parquet").metadata.num_rows
    return {
        "report_rows": n_rows,
        "report_games": 4 * games,
        "report_play_seconds": played,
        "report_seconds": seconds,
        "report_peak_mib": peak_kb / 1024,  # ru_maxrss is in KiB on Linux
    }
