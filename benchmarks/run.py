"""Measure lnbook against PyTorch and against its own slow paths; write the results.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py           # the one command: measure, write both files
    .venv/bin/python benchmarks/run.py --tiny    # seconds: small sizes, 2 rounds (the tests)
    .venv/bin/python benchmarks/render.py        # rewrite the page's part from results.json

Writes ``benchmarks/results.json`` and, from it alone, the generated part of the benchmarks
page, ``book/_generated/benchmarks_results.md`` (see ``benchmarks/render.py``).

How it measures. Each benchmark has two sides, A and B, named in its ratio A/B (lnbook and the
comparison; for the SVD route, the SVD route and lnbook; RMSNorm and LayerNorm). After a
warm-up, each side's calls per timing are calibrated so that one timing lasts at least
``--min-time`` seconds; then the two sides are timed in turn, A, B, A, B, ... for ``--rounds``
rounds, and the figure reported is the median over rounds of the ratio A/B of the two
timings of one round, with its spread (min, max, quartiles). A neighbour that slows the
machine for a while spoils the ratios of the rounds it overlaps; as long as they are fewer
than half of the rounds, the median stays between the smallest and the largest ratio of the
unspoiled rounds.

Threads: both sides of every race run on the same number of threads n, and numpy's OpenBLAS
is limited to n threads with threadpoolctl (which also reports the kernel in use):

- ``layer_norm``, ``jacobian``: lnbook with ``threads=n`` against PyTorch after
  ``torch.set_num_threads(n)``, for n in THREAD_COUNTS (1, 2).
- ``layer_norm_stream``: ``lnbook.layer_norm(..., threads=n)`` against one streaming pass
  ``np.multiply(z, gamma, out=buf)`` split into n contiguous blocks of rows, the calling
  thread doing the first and a pool of n - 1 threads the others (numpy releases Python's lock
  inside the loop), for n in THREAD_COUNTS.
- ``operator_norm``: 1 thread only. ``lnbook.operator_norm`` takes no ``threads`` argument
  and runs on the calling thread; the SVD route runs with OpenBLAS limited to 1 thread.
- ``rms_norm`` (no target, information only): ``lnbook.rms_norm(z)`` against
  ``lnbook.core(z, threads=1)`` at 1 thread. ``rms_norm`` takes no ``threads`` argument and
  uses one thread per CPU the calling thread may run on, so the calling thread is pinned to
  one CPU (``os.sched_setaffinity``) for this race and its affinity restored after. Then
  ``torch.nn.functional.rms_norm(t, (d,), eps=EPS)`` against
  ``torch.nn.functional.layer_norm(t, (d,), eps=EPS)`` at 1 and 2 threads. Same size as
  ``layer_norm`` (4096 x 1024 float64 in the full run), no gain or bias on either side.

Other processes. Around each race (and the whole run) the script reads the machine's busy
CPU time from ``/proc/stat`` (user + nice + system + irq + softirq, all CPUs) and this
process's own CPU time (``time.process_time()``: every thread, user and system); the
difference over the wall time is "other processes' CPU, cores", the CPU that processes other
than the benchmark used on average during the race. ``benchmarks/render.py`` calls the
machine quiet when it stays at or below ``render.QUIET_CORES`` in every race. The 1-minute
load average (which counts the benchmark's own threads) is recorded beside it as
information. The hypervisor's steal time is recorded apart (it is not a process here).

Keys of ``results.json``: ``machine`` (conditions, ``other processes' CPU`` over the run),
``sizes``, ``results`` and ``runs`` (one entry per ``--runs``: each race's median by name,
the worst ulp, the load, other processes' CPU). ``results`` maps ``layer_norm``,
``layer_norm_stream``, ``jacobian``, ``rms_norm`` to lists of races and ``operator_norm`` to
a list of one race, ``accuracy`` to the accuracy table. A race has ``name``, ``ratio`` (what
A / B is), ``shape``, ``dtype``, ``compared_with``, ``threads``, ``load before``/``after``,
``other processes' CPU`` (``cores`` and the seconds it comes from), ``result`` (``median``,
``q1``, ``q3``, ``min``, ``max``, ``per round``, ``seconds per call`` of A and B, ...),
``target`` (``comparison``, ``bound``; None for ``rms_norm``) and ``met`` (None without a
target). ``results["rms_norm"]`` holds the races named
"rms_norm vs layer_norm, lnbook, 1 thread", "rms_norm vs layer_norm, torch, 1 thread" and
"rms_norm vs layer_norm, torch, 2 threads"; their ratio is RMSNorm's time over LayerNorm's
(A = RMSNorm, B = LayerNorm; the saving is 1 - ratio), and ``result["median"]`` is the
figure to read.

The OpenBLAS variables ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE``, which some machines
set to pin an old kernel, are removed before anything is imported: run as a script, this file
re-executes itself without them (``--keep-openblas-env`` keeps them) and records both the
caller's values and the kernel that ran. Nothing here is a test and nothing asserts a speed.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import os
import pathlib
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPENBLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
REMOVED_ENV = "LNBOOK_BENCH_REMOVED_ENV"  # how the re-executed child learns what was removed



def _without_openblas_env(argv: list[str]) -> None:
    """Re-execute this script without the OpenBLAS variables (they act at library load)."""
    found = {k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    if not found or "--keep-openblas-env" in argv:
        return
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_VARIABLES}
    env[REMOVED_ENV] = json.dumps(found)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, str(pathlib.Path(__file__).resolve()), *argv],
              env)


if __name__ == "__main__":
    _without_openblas_env(sys.argv[1:])  # before numpy loads OpenBLAS

import numpy as np  # noqa: E402

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import render  # noqa: E402  (benchmarks/render.py)

import lnbook  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results.json"
SEED = 20240607
EPS = 1e-5
THREAD_COUNTS = (1, 2)

# Sizes of the full run and of the tiny mode the test suite uses.
FULL = {"layer_norm": (4096, 1024), "jacobian": (256, 64), "operator_norm": (10_000, 64),
        "accuracy d": 64, "accuracy n": 4, "offsets": [10.0**k for k in range(10)],
        "spreads": [1e-6, 1e-3, 1.0, 1e3], "rounds": 15, "min time": 0.1}
TINY = {"layer_norm": (64, 32), "jacobian": (8, 8), "operator_norm": (50, 8),
        "accuracy d": 8, "accuracy n": 2, "offsets": [1.0, 1e6], "spreads": [1e-3, 1.0],
        "rounds": 2, "min time": 0.0}

# issue 12's targets: (ratio, comparison, bound); a comparison of None: no target
TARGETS = {
    "layer_norm": ("lnbook / torch", "<=", 1.0),
    "layer_norm_stream": ("lnbook / streaming pass", "<=", 4.0),
    "jacobian": ("lnbook / torch", "<=", 0.7),
    "operator_norm": ("SVD route / lnbook", ">=", 100.0),
    "rms_norm": ("RMSNorm / LayerNorm", None, None),
    "accuracy": ("worst lnbook error, ulp", "<=", 4.0),
}

# how the lnbook functions without a ``threads`` argument run (checked against the sources:
# operator_norm computes on the calling thread, rms_norm goes through the layer's kernel)
NO_THREADS_ARGUMENT = {
    "operator_norm": "no threads argument; computes on the calling thread",
    "rms_norm": "no threads argument; one thread per CPU the calling thread may run on",
}


# --- timing ------------------------------------------------------------------------------


def _time(f: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        f()
    return time.perf_counter() - start


def calibrate(f: Callable[[], object], min_time: float) -> int:
    """Calls per timing so that one timing lasts at least ``min_time`` seconds."""
    number = 1
    while True:
        t = _time(f, number)
        if t >= min_time or number >= 1 << 20:
            return number
        number = number * 2 if t == 0 else max(2 * number, int(number * min_time / t) + 1)


def interleaved(a: Callable[[], object], b: Callable[[], object], rounds: int,
                min_time: float) -> dict:
    """Time ``a`` and ``b`` in turn (a, b, a, b, ...); summarize the per-round ratio a/b."""
    a(), b()  # warm up: caches, lazy imports, first-call tracing
    na, nb = calibrate(a, min_time), calibrate(b, min_time)
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(_time(a, na) / na)
        tb.append(_time(b, nb) / nb)
    ratios = np.array(ta) / np.array(tb)
    q1, median, q3 = np.percentile(ratios, [25, 50, 75])
    return {"median": float(median), "min": float(ratios.min()), "max": float(ratios.max()),
            "q1": float(q1), "q3": float(q3), "rounds": len(ratios),
            "per round": [float(r) for r in ratios],
            "seconds per call": {"A": float(np.median(ta)), "B": float(np.median(tb))},
            "calls per timing": {"A": na, "B": nb}}


def verdict(value: float, comparison: str, bound: float) -> bool:
    return bool(value <= bound) if comparison == "<=" else bool(value >= bound)


# --- other processes' CPU ----------------------------------------------------------------


def cpu_sample() -> dict | None:
    """Now: wall clock, the machine's busy and steal CPU time, this process's CPU time (s).

    ``busy`` is user + nice + system + irq + softirq of the aggregate ``cpu`` line of
    ``/proc/stat`` (every CPU; guest time is already inside user and nice), ``own`` is
    ``time.process_time()`` (every thread of this process, user and system). None without
    ``/proc/stat`` (not Linux).
    """
    try:
        line = pathlib.Path("/proc/stat").read_text().split("\n", 1)[0]
    except OSError:
        return None
    fields = [int(x) for x in line.split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields + [0] * (8 - len(fields))
    tick = os.sysconf("SC_CLK_TCK")
    return {"wall": time.perf_counter(), "busy": (user + nice + system + irq + softirq) / tick,
            "steal": steal / tick, "own": time.process_time()}


def other_cpu(before: dict | None, after: dict | None) -> dict | None:
    """Other processes' CPU between two samples, in cores: (busy - own) / wall.

    The machine's busy CPU time less this process's own, over the wall time between the
    samples: the average number of CPUs that processes other than this one kept busy. (It
    can come out a little below 0: ``/proc/stat`` counts in clock ticks, 10 ms each.)
    """
    if before is None or after is None:
        return None
    wall = after["wall"] - before["wall"]
    busy, own = after["busy"] - before["busy"], after["own"] - before["own"]
    steal = after["steal"] - before["steal"]
    return {"cores": (busy - own) / wall, "busy, s": busy, "own, s": own, "wall, s": wall,
            "steal, cores": steal / wall}


def benchmark(key: str, a: Callable, b: Callable, cfg: dict, **fields) -> dict:
    """One interleaved race, the load and other processes' CPU around it, and its verdict."""
    what, comparison, bound = TARGETS[key]
    load_before = list(os.getloadavg())
    before = cpu_sample()
    ratio = interleaved(a, b, cfg["rounds"], cfg["min time"])
    cpu = other_cpu(before, cpu_sample())
    target = None if comparison is None else {"comparison": comparison, "bound": bound}
    out = {"ratio": what, **fields, "load before": load_before,
           "load after": list(os.getloadavg()), "other processes' CPU": cpu, "result": ratio,
           "target": target,
           "met": None if target is None else verdict(ratio["median"], comparison, bound)}
    return out


# --- threads and BLAS --------------------------------------------------------------------


def blas_info() -> dict:
    """numpy's BLAS as threadpoolctl reports it: library, version, kernel in use, threads."""
    from threadpoolctl import threadpool_info

    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if not pools:
        return {"source": "threadpoolctl package", "library": "none loaded"}
    p = pools[0]
    return {"source": "threadpoolctl package", "library": p.get("internal_api"),
            "version": p.get("version"), "kernel": p.get("architecture"),
            "threads": p.get("num_threads")}


def set_blas_threads(n: int) -> None:
    """Let numpy's BLAS use ``n`` threads from now on (threadpoolctl)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=n, user_api="blas")


def lnbook_threads(fn: Callable) -> tuple[bool, str]:
    """Whether ``fn`` takes ``threads``, and what it uses when not told."""
    try:
        parameter = inspect.signature(fn).parameters.get("threads")
    except (TypeError, ValueError):
        parameter = None
    if parameter is None:
        return False, NO_THREADS_ARGUMENT[fn.__name__]
    default = ("None: one thread per CPU the calling thread may run on"
               if parameter.default is None else repr(parameter.default))
    return True, f"threads argument, default {default}"


def call_lnbook(fn: Callable, *args, threads: int | None = None, **kwargs):
    """``fn(*args, **kwargs)``, passing ``threads`` when ``fn`` takes it."""
    takes, _ = lnbook_threads(fn)
    if takes and threads is not None:
        kwargs["threads"] = threads
    return lambda: fn(*args, **kwargs)


# --- the machine -------------------------------------------------------------------------


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine(removed: dict) -> dict:
    info = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": "unknown",
        "cores": os.cpu_count(),
        "cores available": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "lnbook": lnbook.__version__,
        "lnbook commit": _git("rev-parse", "--short", "HEAD")
        + (" (with uncommitted changes)" if _git("status", "--porcelain", "--", "lnbook")
           else ""),
        "lnbook path": str(pathlib.Path(lnbook.__file__).resolve().parent.relative_to(ROOT))
        if pathlib.Path(lnbook.__file__).resolve().is_relative_to(ROOT)
        else str(pathlib.Path(lnbook.__file__).resolve().parent),
    }
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch default threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    try:
        import mpmath

        info["mpmath"] = mpmath.__version__
    except ImportError:
        info["mpmath"] = None
    info["OpenBLAS variables in the caller's environment"] = removed or {
        k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    info["OpenBLAS variables during the measurement"] = {
        k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    info["numpy BLAS"] = blas_info()
    info["lnbook threads"] = {name: lnbook_threads(getattr(lnbook, name))[1]
                              for name in ("layer_norm", "core", "jacobian", "operator_norm",
                                           "rms_norm")}
    return info


# --- the measurements --------------------------------------------------------------------


def races_per_thread_count(torch, key: str, fn: Callable, args: tuple, kwargs: dict,
                           other: Callable, compared_with: str, shape: list[int],
                           cfg: dict) -> list[dict]:
    """``fn(*args, **kwargs)`` against ``other()`` at each of THREAD_COUNTS (both sides)."""
    out = []
    for n in THREAD_COUNTS:
        torch.set_num_threads(n)
        set_blas_threads(n)
        a = call_lnbook(fn, *args, threads=n, **kwargs)
        diff = float(np.abs(a() - other().numpy()).max())
        takes, _ = lnbook_threads(fn)
        out.append(benchmark(
            key, a, other, cfg, name=f"{key}, {n} thread{'s' * (n > 1)}",
            shape=shape, dtype="float64", compared_with=compared_with,
            threads={"lnbook": n if takes else 1, "torch": torch.get_num_threads(),
                     "numpy BLAS": blas_info().get("threads")},
            check={"max |lnbook - torch|": diff}))
    return out


def bench_layer_norm(torch, cfg: dict) -> list[dict]:
    """lnbook.layer_norm against torch.nn.functional.layer_norm, at 1 and 2 threads."""
    B, d = cfg["layer_norm"]
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=(B, d))
    gamma, beta = rng.normal(size=d), rng.normal(size=d)
    t, g, b = torch.from_numpy(z), torch.from_numpy(gamma), torch.from_numpy(beta)
    return races_per_thread_count(
        torch, "layer_norm", lnbook.layer_norm, (z, gamma, beta), {"eps": EPS},
        lambda: torch.nn.functional.layer_norm(t, (d,), g, b, EPS),
        "torch.nn.functional.layer_norm", [B, d], cfg)


def streaming_pass(z: np.ndarray, gamma: np.ndarray, buf: np.ndarray, n: int,
                   pool: ThreadPoolExecutor | None) -> Callable[[], None]:
    """``np.multiply(z, gamma, out=buf)`` on ``n`` threads: n contiguous blocks of rows, the
    calling thread doing the first and ``pool`` (n - 1 threads) the others."""
    if n == 1:
        return lambda: np.multiply(z, gamma, out=buf)
    edges = np.linspace(0, z.shape[0], n + 1).astype(int)
    blocks = [slice(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:])]

    def one(block: slice) -> None:
        np.multiply(z[block], gamma, out=buf[block])

    def run() -> None:
        futures = [pool.submit(one, block) for block in blocks[1:]]
        one(blocks[0])
        for f in futures:
            f.result()

    return run


def bench_stream(cfg: dict) -> list[dict]:
    """lnbook.layer_norm on n threads against one streaming pass on n threads."""
    B, d = cfg["layer_norm"]
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=(B, d))
    gamma, beta = rng.normal(size=d), rng.normal(size=d)
    buf = np.empty_like(z)
    out = []
    for n in THREAD_COUNTS:
        set_blas_threads(n)
        pool = ThreadPoolExecutor(n - 1, thread_name_prefix="stream") if n > 1 else None
        try:
            a = call_lnbook(lnbook.layer_norm, z, gamma, beta, eps=EPS, threads=n)
            b = streaming_pass(z, gamma, buf, n, pool)
            b()
            diff = float(np.abs(buf - z * gamma).max())
            out.append(benchmark(
                "layer_norm_stream", a, b, cfg,
                name=f"layer_norm vs streaming pass, {n} thread{'s' * (n > 1)}",
                shape=[B, d], dtype="float64",
                compared_with="np.multiply(z, gamma, out=buf)"
                + (f", {n} blocks of rows on {n} threads" if n > 1 else ""),
                threads={"lnbook": n, "streaming pass": n},
                check={"max |pass - z gamma|": diff}))
        finally:
            if pool is not None:
                pool.shutdown()
    return out


def bench_jacobian(torch, cfg: dict) -> list[dict]:
    """Batched lnbook.jacobian against torch.func.vmap(torch.func.jacrev(layer_norm))."""
    B, d = cfg["jacobian"]
    z = np.random.default_rng(SEED).normal(size=(B, d))
    t = torch.from_numpy(z)

    def one(x):
        return torch.nn.functional.layer_norm(x, (d,), eps=EPS)

    batched = torch.func.vmap(torch.func.jacrev(one))
    return races_per_thread_count(
        torch, "jacobian", lnbook.jacobian, (z,), {"eps": EPS}, lambda: batched(t),
        "torch.func.vmap(torch.func.jacrev(F.layer_norm))", [B, d], cfg)


def bench_operator_norm(cfg: dict) -> list[dict]:
    """Closed-form operator norm against the largest singular value of each Jacobian, both on
    1 thread (operator_norm takes no threads argument; OpenBLAS limited to 1 thread)."""
    B, d = cfg["operator_norm"]
    z = np.random.default_rng(SEED).normal(size=(B, d))
    set_blas_threads(1)
    J = lnbook.jacobian(z, eps=EPS, threads=1)

    def svd_route():
        return np.linalg.norm(J, 2, axis=(-2, -1))

    closed = lnbook.operator_norm(z, eps=EPS)
    rel = float(np.abs(svd_route() / closed - 1).max())
    # the SVD route is A and the closed form B: the ratio A / B is how many times faster
    # the closed form is
    out = benchmark("operator_norm", svd_route, lambda: lnbook.operator_norm(z, eps=EPS), cfg,
                    name="operator_norm against the SVD route, 1 thread", shape=[B, d],
                    dtype="float64",
                    compared_with="np.linalg.norm(J, 2, axis=(-2, -1)), J = lnbook.jacobian(z)"
                    " built beforehand",
                    threads={"lnbook": 1, "numpy BLAS (SVD)": blas_info().get("threads")},
                    check={"max relative difference": rel})
    return [out]


def bench_rms_norm(torch, cfg: dict) -> list[dict]:
    """RMSNorm against LayerNorm (no gain, no bias): lnbook at 1 thread, torch at 1 and 2."""
    B, d = cfg["layer_norm"]
    z = np.random.default_rng(SEED).normal(size=(B, d))
    t = torch.from_numpy(z)
    F = torch.nn.functional
    out = []
    # lnbook.rms_norm uses one thread per CPU the calling thread may run on: pin it to one
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    set_blas_threads(1)
    torch.set_num_threads(1)
    if cpus is not None:
        os.sched_setaffinity(0, {cpus[0]})
    try:
        allowed = len(os.sched_getaffinity(0)) if cpus is not None else os.cpu_count()
        diff = float(np.abs(lnbook.rms_norm(z, eps=EPS)
                            - F.rms_norm(t, (d,), eps=EPS).numpy()).max())
        out.append(benchmark(
            "rms_norm", lambda: lnbook.rms_norm(z, eps=EPS),
            lambda: lnbook.core(z, eps=EPS, threads=1), cfg,
            name="rms_norm vs layer_norm, lnbook, 1 thread", shape=[B, d], dtype="float64",
            measured="lnbook.rms_norm(z)", compared_with="lnbook.core(z, threads=1)",
            threads={"lnbook.rms_norm": f"{allowed} (no threads argument; the calling thread "
                                        f"pinned to {allowed} CPU{'s' * (allowed > 1)})",
                     "lnbook.core": 1},
            check={"max |lnbook.rms_norm - F.rms_norm|": diff}))
    finally:
        if cpus is not None:
            os.sched_setaffinity(0, set(cpus))
    for n in THREAD_COUNTS:
        torch.set_num_threads(n)
        set_blas_threads(n)
        check = {"max |lnbook.rms_norm - F.rms_norm|":
                 float(np.abs(lnbook.rms_norm(z, eps=EPS)
                              - F.rms_norm(t, (d,), eps=EPS).numpy()).max()),
                 "max |lnbook.core - F.layer_norm|":
                 float(np.abs(lnbook.core(z, eps=EPS)
                              - F.layer_norm(t, (d,), eps=EPS).numpy()).max())}
        out.append(benchmark(
            "rms_norm", lambda: F.rms_norm(t, (d,), eps=EPS),
            lambda: F.layer_norm(t, (d,), eps=EPS), cfg,
            name=f"rms_norm vs layer_norm, torch, {n} thread{'s' * (n > 1)}", shape=[B, d],
            dtype="float64",
            measured="torch.nn.functional.rms_norm(t, (d,), eps=EPS)",
            compared_with="torch.nn.functional.layer_norm(t, (d,), eps=EPS)",
            threads={"torch": torch.get_num_threads()},
            check=check))
    return out


def bench_accuracy(torch, cfg: dict) -> dict:
    """Worst error in ulps of lnbook.core and torch's float64 layer_norm on the hostile grid.

    lnbook.fp.offset_errors draws records z = sigma (r 1 + x) for each offset r = |mu|/sigma and
    compares a core with the correctly rounded one (lnbook.exact_core).
    """
    d, n = cfg["accuracy d"], cfg["accuracy n"]
    offsets = np.array(cfg["offsets"])

    def torch_core(z, eps):
        return torch.nn.functional.layer_norm(torch.from_numpy(z), (z.shape[-1],),
                                              eps=eps).numpy()

    load_before = list(os.getloadavg())
    rows = []
    for spread in cfg["spreads"]:
        row = {"spread": spread}
        for side, fn in (("lnbook", lnbook.core), ("torch", torch_core)):
            row[side] = [float(e) for e in lnbook.fp.offset_errors(offsets, f=fn, sigma=spread,
                                                                   d=d, n=n, eps=EPS)]
        rows.append(row)
    worst = {side: max(max(r[side]) for r in rows) for side in ("lnbook", "torch")}
    what, comparison, bound = TARGETS["accuracy"]
    return {"name": "accuracy on the hostile grid", "ratio": what, "d": d,
            "records per offset": n, "eps": EPS, "offsets": offsets.tolist(), "rows": rows,
            "worst": worst, "load before": load_before, "load after": list(os.getloadavg()),
            "target": {"comparison": comparison, "bound": bound},
            "met": verdict(worst["lnbook"], comparison, bound),
            "reference": "lnbook.fp.offset_errors with lnbook.core and with torch's layer_norm"}


def measure(cfg: dict, removed: dict, log=print) -> dict:
    try:
        import torch
    except ImportError as exc:
        raise SystemExit("benchmarks/run.py compares lnbook with PyTorch, which is not "
                         f"installed here ({exc}); install the project's test tooling") from exc

    start = time.perf_counter()
    cpu_start = cpu_sample()
    info = machine(removed)
    info["load before"] = list(os.getloadavg())
    info["mode"] = cfg["mode"]
    default_threads = torch.get_num_threads()
    steps = [("layer_norm", lambda: bench_layer_norm(torch, cfg)),
             ("layer_norm_stream", lambda: bench_stream(cfg)),
             ("jacobian", lambda: bench_jacobian(torch, cfg)),
             ("operator_norm", lambda: bench_operator_norm(cfg)),
             ("rms_norm", lambda: bench_rms_norm(torch, cfg)),
             ("accuracy", lambda: bench_accuracy(torch, cfg))]
    results = {}
    try:
        for name, step in steps:
            log(f"== {name}")
            t0 = time.perf_counter()
            results[name] = step()
            for r in results[name] if isinstance(results[name], list) else [results[name]]:
                if "result" in r:
                    q, cpu = r["result"], r["other processes' CPU"]
                    log(f"   {r['name']}: {r['ratio']} = {q['median']:.3g} "
                        f"(min {q['min']:.3g}, max {q['max']:.3g}); met: {r['met']}; "
                        "other processes' CPU: "
                        + ("unknown" if cpu is None else f"{cpu['cores']:.2f} cores"))
                else:
                    log(f"   {r['name']}: worst {r['worst']}; met: {r['met']}")
            log(f"   ({time.perf_counter() - t0:.1f} s)")
    finally:
        torch.set_num_threads(default_threads)
    info["load after"] = list(os.getloadavg())
    info["other processes' CPU"] = other_cpu(cpu_start, cpu_sample())
    info["wall time, s"] = round(time.perf_counter() - start, 1)
    info["command"] = "python benchmarks/run.py" + (" --tiny" if cfg["mode"] == "tiny" else "")
    return {"machine": info, "sizes": {k: v for k, v in cfg.items() if k != "mode"},
            "results": results}


def run_summary(data: dict) -> dict:
    """One run in brief: each race's median ratio, lnbook's worst ulp, the load around it and
    other processes' CPU (over the run, and the most during one race)."""
    races = render.races(data["results"])
    per_race = [r["other processes' CPU"] for r in races]
    run_cpu = data["machine"]["other processes' CPU"]
    return {"medians": {r["name"]: r["result"]["median"] for r in races},
            "accuracy, worst ulp": data["results"]["accuracy"]["worst"]["lnbook"],
            "load before": data["machine"]["load before"],
            "load after": data["machine"]["load after"],
            "other processes' CPU, cores": None if run_cpu is None else run_cpu["cores"],
            "other processes' CPU, most in one race, cores":
            None if None in per_race else max(c["cores"] for c in per_race)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true",
                        help="small sizes and 2 rounds, for the test suite (seconds)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 15; tiny 2)")
    parser.add_argument("--results", type=pathlib.Path, default=RESULTS,
                        help="where to write the results (default benchmarks/results.json)")
    parser.add_argument("--page", type=pathlib.Path, default=render.PAGE_PART,
                        help="where to write the page's generated part")
    parser.add_argument("--figure", type=pathlib.Path, default=render.FIGURE,
                        help="where to write the figure of per-round ratios (SVG)")
    parser.add_argument("--keep-openblas-env", action="store_true",
                        help="measure with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE as they are")
    parser.add_argument("--runs", type=int, default=1,
                        help="complete runs, one after another (default 1): the page shows "
                             "each run's medians and judges the median over the runs")
    args = parser.parse_args(argv)
    cfg = dict(TINY if args.tiny else FULL, mode="tiny" if args.tiny else "full")
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    removed = json.loads(os.environ.get(REMOVED_ENV, "{}"))
    runs = []
    for i in range(args.runs):
        if args.runs > 1:
            print(f"=== run {i + 1} of {args.runs}")
        data = measure(cfg, removed)
        runs.append(run_summary(data))
    # the last run in full, and every run's medians
    data["runs"] = runs
    if args.rounds:
        data["machine"]["command"] += f" --rounds {args.rounds}"
    if args.runs > 1:
        data["machine"]["command"] += f" --runs {args.runs}"
    args.results.write_text(json.dumps(data, indent=1) + "\n")
    render.write(data, args.page, args.figure)
    print(f"wrote {args.results}, {args.page} and {args.figure} in "
          f"{data['machine']['wall time, s']} s")
    return 0



if __name__ == "__main__":
    sys.exit(main())
