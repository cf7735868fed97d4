"""Measure lnbook against PyTorch and against its own slow paths; write the results.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py           # the one command: measure, write both files
    .venv/bin/python benchmarks/run.py --tiny    # seconds: small sizes, 2 rounds (the tests)
    .venv/bin/python benchmarks/render.py        # rewrite the page's part from results.json

Writes ``benchmarks/results.json`` and, from it alone, the generated part of the benchmarks
page, ``book/_generated/benchmarks_results.md`` (see ``benchmarks/render.py``).

How it measures. Each benchmark has two sides, A (lnbook) and B (the comparison). After a
warm-up, each side's calls per timing are calibrated so that one timing lasts at least
``--min-time`` seconds; then the two sides are timed in turn, A, B, A, B, ... for ``--rounds``
rounds, and the figure reported is the median over rounds of the ratio A/B of the two
timings of one round, with its spread (min, max, quartiles). A neighbour that slows the
machine during one round slows both sides of that round, and the median ignores the rounds
it spoils. PyTorch runs at 1 and at 2 intra-op threads (``torch.set_num_threads``); lnbook
runs at the same count when its functions take a ``threads`` argument, and otherwise on the
one thread numpy's ufuncs use (both counts are recorded). numpy's OpenBLAS is set to the
same count with threadpoolctl, which also reports the kernel in use.

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

# issue 12's targets: (ratio, comparison, bound)
TARGETS = {
    "layer_norm": ("lnbook / torch", "<=", 1.0),
    "layer_norm_stream": ("lnbook / streaming pass", "<=", 4.0),
    "jacobian": ("lnbook / torch", "<=", 0.7),
    "operator_norm": ("SVD route / lnbook", ">=", 100.0),
    "accuracy": ("worst lnbook error, ulp", "<=", 4.0),
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


def benchmark(key: str, a: Callable, b: Callable, cfg: dict, **fields) -> dict:
    """One interleaved race with the load average around it and the target's verdict."""
    what, comparison, bound = TARGETS[key]
    load_before = list(os.getloadavg())
    ratio = interleaved(a, b, cfg["rounds"], cfg["min time"])
    out = {"ratio": what, **fields, "load before": load_before,
           "load after": list(os.getloadavg()), "result": ratio,
           "target": {"comparison": comparison, "bound": bound},
           "met": verdict(ratio["median"], comparison, bound)}
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
        return False, "1 (numpy ufuncs run on one thread; no threads argument)"
    return True, f"threads argument, default {parameter.default!r}"


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
                              for name in ("layer_norm", "jacobian", "operator_norm")}
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


def bench_stream(cfg: dict) -> dict:
    """lnbook.layer_norm against one streaming pass over the same array."""
    B, d = cfg["layer_norm"]
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=(B, d))
    gamma, beta = rng.normal(size=d), rng.normal(size=d)
    buf = np.empty_like(z)
    set_blas_threads(max(THREAD_COUNTS))
    a = call_lnbook(lnbook.layer_norm, z, gamma, beta, eps=EPS)  # lnbook's default threads
    takes, policy = lnbook_threads(lnbook.layer_norm)
    return benchmark("layer_norm_stream", a, lambda: np.multiply(z, gamma, out=buf), cfg,
                     name="layer_norm against one streaming pass", shape=[B, d],
                     dtype="float64", compared_with="np.multiply(z, gamma, out=buf)",
                     threads={"lnbook": policy, "streaming pass": 1})


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


def bench_operator_norm(cfg: dict) -> dict:
    """Closed-form operator norm against the largest singular value of each Jacobian."""
    B, d = cfg["operator_norm"]
    z = np.random.default_rng(SEED).normal(size=(B, d))
    set_blas_threads(max(THREAD_COUNTS))
    J = lnbook.jacobian(z, eps=EPS)

    def svd_route():
        return np.linalg.norm(J, 2, axis=(-2, -1))

    closed = lnbook.operator_norm(z, eps=EPS)
    rel = float(np.abs(svd_route() / closed - 1).max())
    # the SVD route is B and the closed form A; the ratio wanted is B / A
    out = benchmark("operator_norm", svd_route, lambda: lnbook.operator_norm(z, eps=EPS), cfg,
                    name="operator_norm against the SVD route", shape=[B, d], dtype="float64",
                    compared_with="np.linalg.norm(J, 2, axis=(-2, -1)), J = lnbook.jacobian(z)"
                    " built beforehand",
                    threads={"lnbook": 1, "numpy BLAS (SVD)": blas_info().get("threads")},
                    check={"max relative difference": rel})
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
    info = machine(removed)
    info["load before"] = list(os.getloadavg())
    info["mode"] = cfg["mode"]
    default_threads = torch.get_num_threads()
    steps = [("layer_norm", lambda: bench_layer_norm(torch, cfg)),
             ("layer_norm_stream", lambda: bench_stream(cfg)),
             ("jacobian", lambda: bench_jacobian(torch, cfg)),
             ("operator_norm", lambda: bench_operator_norm(cfg)),
             ("accuracy", lambda: bench_accuracy(torch, cfg))]
    results = {}
    try:
        for name, step in steps:
            log(f"== {name}")
            t0 = time.perf_counter()
            results[name] = step()
            for r in results[name] if isinstance(results[name], list) else [results[name]]:
                if "result" in r:
                    q = r["result"]
                    log(f"   {r['name']}: {r['ratio']} = {q['median']:.3g} "
                        f"(min {q['min']:.3g}, max {q['max']:.3g}); met: {r['met']}")
                else:
                    log(f"   {r['name']}: worst {r['worst']}; met: {r['met']}")
            log(f"   ({time.perf_counter() - t0:.1f} s)")
    finally:
        torch.set_num_threads(default_threads)
    info["load after"] = list(os.getloadavg())
    info["wall time, s"] = round(time.perf_counter() - start, 1)
    info["command"] = "python benchmarks/run.py" + (" --tiny" if cfg["mode"] == "tiny" else "")
    return {"machine": info, "sizes": {k: v for k, v in cfg.items() if k != "mode"},
            "results": results}


def run_summary(data: dict) -> dict:
    """One run in brief: each race's median ratio, lnbook's worst ulp, the load around it."""
    res = data["results"]
    races = [r for key in ("layer_norm", "layer_norm_stream", "jacobian", "operator_norm")
             for r in (res[key] if isinstance(res[key], list) else [res[key]])]
    return {"medians": {r["name"]: r["result"]["median"] for r in races},
            "accuracy, worst ulp": res["accuracy"]["worst"]["lnbook"],
            "load before": data["machine"]["load before"],
            "load after": data["machine"]["load after"]}


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
    if args.runs > 1:
        data["machine"]["command"] += f" --runs {args.runs}"
    args.results.write_text(json.dumps(data, indent=1) + "\n")
    render.write(data, args.page, args.figure)
    print(f"wrote {args.results}, {args.page} and {args.figure} in "
          f"{data['machine']['wall time, s']} s")
    return 0



if __name__ == "__main__":
    sys.exit(main())
