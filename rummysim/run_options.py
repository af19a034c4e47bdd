"""The options of a run, checked before anything is written: workers, backend and each condition's engine.

`rummysim.runner.run_experiment` calls `check_run_options` before it makes the results
folder, so a run that could not play (``--jobs -5``, ``--backend dask`` without dask,
``engine: compiled`` for a condition only the reference engine can play) ends in one
line and leaves nothing behind, as `rummysim validate` would have said.

>>> check_jobs(-5)
Traceback (most recent call last):
...
rummysim.errors.ConfigError: --jobs: -5 workers; give a number of workers from 1 to 1024, or -1 for every core
"""

from __future__ import annotations

import importlib.util

from rummysim.design import Experiment
from rummysim.engine_choice import choose_engine
from rummysim.errors import ConfigError
from rummysim.excerpt import excerpt

BACKENDS = ("loky", "dask", "sequential")
MAX_JOBS = 1024
"""The most worker processes a run starts on this machine: far more than its cores, fewer than would exhaust it."""


def check_jobs(n_jobs: object) -> int:
    """Return a number of workers if it is -1 (every core) or from 1 to `MAX_JOBS`, else raise `ConfigError`."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (n_jobs == -1 or 1 <= n_jobs <= MAX_JOBS):
        raise ConfigError(
            f"--jobs: {excerpt(n_jobs)} workers; give a number of workers from 1 to {MAX_JOBS}, or -1 for every core"
        )
    return n_jobs


def check_backend(backend: object) -> str:
    """Return a backend if it is one of `BACKENDS` and can run here (dask needs its extra), else raise `ConfigError`."""
    if backend not in BACKENDS:
        raise ConfigError(f"--backend: {excerpt(backend)} is not one of {', '.join(BACKENDS)}")
    if backend == "dask" and importlib.util.find_spec("distributed") is None:
        raise ConfigError("--backend dask needs the dask extra: pip install 'rummysim[dask]'")
    return str(backend)


def check_run_options(experiment: Experiment, *, n_jobs: object, backend: object, trace: bool) -> None:
    """Raise `ConfigError` for options a run could not play with, and for a condition no engine asked can play."""
    check_jobs(n_jobs)
    check_backend(backend)
    for condition in experiment.conditions:
        choose_engine(experiment, condition, trace=trace, load=False)  # judged without compiling
