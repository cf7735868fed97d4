"""Measure lnbook against PyTorch and against the routes its closed forms replace.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py --runs 4  # measure; write results.json and the page
    .venv/bin/python benchmarks/run.py --tiny    # seconds: tiny sizes, 2 rounds (the tests)

Writes ``benchmarks/results.json`` and, from it alone, the generated part of the benchmarks
page (``benchmarks/render.py``). Each race has two sides, A and B, named in its ratio A/B,
timed in turn on one thread; the method (calibration, interleaved rounds, other processes'
CPU, the OpenBLAS variables) is the page's "How the figures are taken" (book/benchmarks.md).
Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import datetime
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

if __name__ == "__main__":  # re-execute without the OpenBLAS variables before numpy loads them
    found = {k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    if found and "--keep-openblas-env" not in sys.argv[1:]:
        env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_VARIABLES}
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, str(pathlib.Path(__file__).resolve()),
                                   *sys.argv[1:]], env | {REMOVED_ENV: json.dumps(found)})

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import render  # noqa: E402  (benchmarks/render.py)

import lnbook  # noqa: E402

SEED = 20240607
EPS = 1e-5
FULL = {"layer_norm": (4096, 1024), "jacobian": (256, 64), "operator_norm": (10_000, 64),
        "accuracy d": 64, "accuracy n": 4, "offsets": [10.0**k for k in range(10)],
        "spreads": [1e-6, 1e-3, 1.0, 1e3], "rounds": 15, "min time": 0.1}
TINY = {"layer_norm": (64, 32), "jacobian": (8, 8), "operator_norm": (50, 8),
        "accuracy d": 8, "accuracy n": 2, "offsets": [1.0, 1e6], "spreads": [1e-3, 1.0],
        "rounds": 2, "min time": 0.0}
# issue 12's targets: (ratio, target or None)
TARGETS = {
    "layer_norm": ("lnbook / torch", {"comparison": "<=", "bound": 1.0}),
    "layer_norm_stream": ("lnbook / streaming pass", {"comparison": "<=", "bound": 4.0}),
    "jacobian": ("lnbook / torch", {"comparison": "<=", "bound": 0.7}),
    "operator_norm": ("SVD route / lnbook", {"comparison": ">=", "bound": 100.0}),
    "rms_norm": ("RMSNorm / LayerNorm", None),
    "accuracy": ("worst lnbook error, ulp", {"comparison": "<=", "bound": 4.0}),
}


def _time(f: Callable[[], object], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        f()
    return time.perf_counter() - start


def calibrate(f: Callable[[], object], min_time: float) -> int:
    """Calls per timing so that one timing lasts at least ``min_time`` seconds."""
    number = 1
    while (t := _time(f, number)) < min_time and number < 1 << 20:
        number = number * 2 if t == 0 else max(2 * number, int(number * min_time / t) + 1)
    return number


def interleaved(a: Callable[[], object], b: Callable[[], object], rounds: int,
                min_time: float) -> dict:
    """Time ``a`` and ``b`` in turn; summarize the per-round ratio a/b."""
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
            "seconds per call": {"A": float(np.median(ta)), "B": float(np.median(tb))}}


def cpu_sample() -> dict | None:
    """Now: wall clock, the machine's busy CPU time (user + nice + system + irq + softirq of
    /proc/stat's cpu line) and this process's CPU time, in seconds; None off Linux."""
    try:
        fields = [int(x) for x in pathlib.Path("/proc/stat").read_text().split()[1:8]]
    except OSError:
        return None
    user, nice, system, _, _, irq, softirq = fields
    return {"wall": time.perf_counter(), "own": time.process_time(),
            "busy": (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")}


def other_cpu(before: dict | None, after: dict | None) -> dict | None:
    """Other processes' CPU between two samples, in cores: (busy - own) / wall (a little
    below 0 is possible: /proc/stat counts in clock ticks of 10 ms)."""
    if before is None or after is None:
        return None
    wall = after["wall"] - before["wall"]
    busy, own = after["busy"] - before["busy"], after["own"] - before["own"]
    return {"cores": (busy - own) / wall, "busy, s": busy, "own, s": own, "wall, s": wall}


def race(key: str, name: str, a: Callable, b: Callable, cfg: dict, **fields) -> dict:
    """One interleaved race, other processes' CPU during it, and its verdict."""
    what, target = TARGETS[key]
    before = cpu_sample()
    result = interleaved(a, b, cfg["rounds"], cfg["min time"])
    return {"name": name, "ratio": what, **fields, "other processes' CPU": other_cpu(
        before, cpu_sample()), "result": result, "target": target,
        "met": None if target is None else render.met(result["median"], target)}


def bench(torch, cfg: dict) -> dict:
    """Every race, on one thread, and the accuracy table."""
    F = torch.nn.functional
    rng = np.random.default_rng(SEED)
    B, d = cfg["layer_norm"]
    z, gamma, beta = rng.normal(size=(B, d)), rng.normal(size=d), rng.normal(size=d)
    t, g, b = torch.from_numpy(z), torch.from_numpy(gamma), torch.from_numpy(beta)
    shape = {"shape": [B, d], "dtype": "float64"}
    buf = np.empty_like(z)
    results = {
        "layer_norm": [race(
            "layer_norm", "layer_norm", lambda: lnbook.layer_norm(z, gamma, beta, eps=EPS),
            lambda: F.layer_norm(t, (d,), g, b, EPS), cfg, **shape,
            compared_with="torch.nn.functional.layer_norm",
            check={"max |lnbook - torch|": float(np.abs(
                lnbook.layer_norm(z, gamma, beta, eps=EPS) - F.layer_norm(t, (d,), g, b, EPS)
                .numpy()).max())})],
        "layer_norm_stream": [race(
            "layer_norm_stream", "layer_norm vs streaming pass",
            lambda: lnbook.layer_norm(z, gamma, beta, eps=EPS),
            lambda: np.multiply(z, gamma, out=buf), cfg, **shape,
            compared_with="np.multiply(z, gamma, out=buf)")],
        "rms_norm": [race(
            "rms_norm", "rms_norm vs layer_norm, lnbook", lambda: lnbook.rms_norm(z, eps=EPS),
            lambda: lnbook.core(z, eps=EPS), cfg, **shape, measured="lnbook.rms_norm(z)",
            compared_with="lnbook.core(z)"), race(
            "rms_norm", "rms_norm vs layer_norm, torch", lambda: F.rms_norm(t, (d,), eps=EPS),
            lambda: F.layer_norm(t, (d,), eps=EPS), cfg, **shape,
            measured="torch.nn.functional.rms_norm(t, (d,), eps=EPS)",
            compared_with="torch.nn.functional.layer_norm(t, (d,), eps=EPS)")],
    }
    B, d = cfg["jacobian"]
    z = rng.normal(size=(B, d))
    t = torch.from_numpy(z)
    batched = torch.func.vmap(torch.func.jacrev(lambda x: F.layer_norm(x, (d,), eps=EPS)))
    results["jacobian"] = [race(
        "jacobian", "jacobian", lambda: lnbook.jacobian(z, eps=EPS), lambda: batched(t), cfg,
        shape=[B, d], dtype="float64",
        compared_with="torch.func.vmap(torch.func.jacrev(F.layer_norm))",
        check={"max |lnbook - torch|": float(np.abs(lnbook.jacobian(z, eps=EPS)
                                                    - batched(t).numpy()).max())})]
    B, d = cfg["operator_norm"]
    z = rng.normal(size=(B, d))
    J = lnbook.jacobian(z, eps=EPS)

    def svd_route():
        return np.linalg.norm(J, 2, axis=(-2, -1))

    # A = the SVD route, B = the closed form: A / B is how many times faster the closed form is
    results["operator_norm"] = [race(
        "operator_norm", "operator_norm against the SVD route", svd_route,
        lambda: lnbook.operator_norm(z, eps=EPS), cfg, shape=[B, d], dtype="float64",
        compared_with="np.linalg.norm(J, 2, axis=(-2, -1)), J = lnbook.jacobian(z) built "
                      "beforehand",
        check={"max relative difference": float(np.abs(
            svd_route() / lnbook.operator_norm(z, eps=EPS) - 1).max())})]
    results["accuracy"] = accuracy(torch, cfg)
    return results


def accuracy(torch, cfg: dict) -> dict:
    """Worst error in ulps of lnbook.core and of torch's float64 layer_norm against the
    correctly rounded core, on records sigma (r 1 + x) (lnbook.fp.offset_errors)."""
    def torch_core(z, eps):
        return torch.nn.functional.layer_norm(torch.from_numpy(z), (z.shape[-1],),
                                              eps=eps).numpy()

    rows = [{"spread": s, **{side: [float(e) for e in lnbook.fp.offset_errors(
        cfg["offsets"], f=fn, sigma=s, d=cfg["accuracy d"], n=cfg["accuracy n"], eps=EPS)]
        for side, fn in (("lnbook", lnbook.core), ("torch", torch_core))}}
        for s in cfg["spreads"]]
    worst = {side: max(max(r[side]) for r in rows) for side in ("lnbook", "torch")}
    what, target = TARGETS["accuracy"]
    return {"name": "accuracy on the hostile grid", "ratio": what, "d": cfg["accuracy d"],
            "records per offset": cfg["accuracy n"], "eps": EPS, "offsets": cfg["offsets"],
            "rows": rows, "worst": worst, "target": target,
            "met": render.met(worst["lnbook"], target),
            "reference": "lnbook.fp.offset_errors with lnbook.core and with torch's layer_norm"}


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine(torch, removed: dict) -> dict:
    """The conditions of the run: CPU, versions, numpy's BLAS, the OpenBLAS variables."""
    cpu = next((line.split(":", 1)[1].strip() for line in pathlib.Path(
        "/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")), "unknown"
               ) if pathlib.Path("/proc/cpuinfo").exists() else "unknown"
    blas = next((p for p in threadpool_info() if p.get("user_api") == "blas"), {})
    changed = " (with uncommitted changes)" if _git("status", "--porcelain", "--", "lnbook") \
        else ""
    during = {k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(),
        "python": platform.python_version(), "numpy": np.__version__,
        "torch": torch.__version__, "mpmath": mpmath.__version__, "lnbook": lnbook.__version__,
        "lnbook commit": _git("rev-parse", "--short", "HEAD") + changed,
        "numpy BLAS": {"library": blas.get("internal_api", "none loaded"),
                       "version": blas.get("version"), "kernel": blas.get("architecture")},
        "OpenBLAS variables in the caller's environment": removed or during,
        "OpenBLAS variables during the measurement": during,
    }


def measure(torch, cfg: dict, removed: dict) -> dict:
    """One run: the conditions, every race and the accuracy."""
    start, cpu_start = time.perf_counter(), cpu_sample()
    info = machine(torch, removed)
    torch.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        results = bench(torch, cfg)
    for r in render.races(results):
        print(f"   {r['name']}: {r['ratio']} = {r['result']['median']:.3g}; met: {r['met']}")
    info["other processes' CPU"] = other_cpu(cpu_start, cpu_sample())
    info["wall time, s"] = round(time.perf_counter() - start, 1)
    return {"machine": info, "sizes": cfg, "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", action="store_true", help="tiny sizes, 2 rounds (seconds)")
    parser.add_argument("--runs", type=int, default=1, help="complete runs, one after another")
    parser.add_argument("--results", type=pathlib.Path, default=render.RESULTS)
    parser.add_argument("--page", type=pathlib.Path, default=render.PAGE_PART)
    parser.add_argument("--figure", type=pathlib.Path, default=render.FIGURE)
    parser.add_argument("--keep-openblas-env", action="store_true",
                        help="measure with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE as they are")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    cfg, mode = (TINY, "tiny") if args.tiny else (FULL, "full")
    import torch

    runs = []
    for i in range(args.runs):
        print(f"=== run {i + 1} of {args.runs}")
        data = measure(torch, cfg, json.loads(os.environ.get(REMOVED_ENV, "{}")))
        runs.append({"medians": {r["name"]: r["result"]["median"]
                                 for r in render.races(data["results"])},
                     "accuracy, worst ulp": data["results"]["accuracy"]["worst"]["lnbook"],
                     "other processes' CPU, cores": (data["machine"]["other processes' CPU"]
                                                     or {}).get("cores")})
    data["runs"] = runs  # the last run in full, every run's medians
    data["machine"].update(mode=mode, command="python benchmarks/run.py " + " ".join(sys.argv[1:]))
    args.results.write_text(json.dumps(data, indent=1) + "\n")
    render.write(data, args.page, args.figure)
    print(f"wrote {args.results}, {args.page} and {args.figure}")


if __name__ == "__main__":
    main()
