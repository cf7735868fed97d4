"""Measure lnbook against PyTorch and against its own slow paths; write book/benchmarks.md.

Usage (from the repository root)::

    .venv/bin/python benchmarks/run.py            # a few minutes on 2 cores
    .venv/bin/python benchmarks/run.py --tests    # also times tools/test (much longer)

Every figure is measured in this one run, on this machine: speeds as ratios of best-of-N
wall times (timeit style, the two sides interleaved so that a busy neighbour slows both),
accuracy in ulps against the correctly rounded core of :mod:`lnbook.reference`. Nothing here
is a test and nothing asserts a speed; the page reports pass or fail against each target.

On a machine that sets OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) to work around old OpenBLAS
builds, numpy's LAPACK runs a slower kernel; to measure the current numpy, unset both for
this command alone: ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python
benchmarks/run.py``. The page records which kernel ran.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lnbook  # noqa: E402

PAGE = ROOT / "book" / "benchmarks.md"
RESULTS = ROOT / "benchmarks" / "results.json"
SEED = 20240607


# --- timing ------------------------------------------------------------------------------


def _number(f, min_time: float) -> int:
    """Calls per timing so that one timing lasts at least ``min_time`` seconds."""
    number = 1
    while True:
        t = timeit.timeit(f, number=number)
        if t >= min_time or number >= 1 << 20:
            return number
        number *= 2 if t == 0 else max(2, int(min_time / t) + 1)


def best_of(fs: dict, repeat: int = 7, min_time: float = 0.05) -> dict:
    """Best seconds per call of each function, timings interleaved round-robin."""
    for f in fs.values():
        f()  # warm up (caches, lazy imports, first-call tracing)
    numbers = {k: _number(f, min_time) for k, f in fs.items()}
    best = {k: float("inf") for k in fs}
    for _ in range(repeat):
        for k, f in fs.items():
            t = timeit.timeit(f, number=numbers[k]) / numbers[k]
            best[k] = min(best[k], t)
    return best


def race(out: dict, fs: dict, repeat: int) -> dict:
    """Time lnbook against torch (when ``fs`` has it) and record the ratio against the target."""
    best = best_of(fs, repeat=repeat)
    out.update(best)
    if "torch" in fs:
        out["ratio"] = best["lnbook"] / best["torch"]
        out["pass"] = out["ratio"] <= out["target"]
    return out


def fmt_time(t: float | None) -> str:
    if t is None:
        return "–"
    if t >= 1:
        return f"{t:.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.1f} µs"


# --- the machine -------------------------------------------------------------------------


def machine() -> dict:
    info = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "lnbook": lnbook.__version__,
        "platform": platform.platform(),
        "cores": os.cpu_count(),
    }
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 2**20:.0f} GiB"
                break
    except OSError:
        pass
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = "not installed"
    try:
        import mpmath

        info["mpmath"] = mpmath.__version__
    except ImportError:
        info["mpmath"] = "not installed"
    env = {k: os.environ[k] for k in OPENBLAS_VARIABLES if k in os.environ}
    info["OpenBLAS variables"] = ", ".join(f"{k}={v}" for k, v in env.items()) or "unset"
    info["numpy BLAS"] = blas_kernel()
    return info


# --- the measurements --------------------------------------------------------------------


def bench_layer_norm(torch) -> dict:
    """lnbook.layer_norm against torch.nn.functional.layer_norm, (4096, 1024) float64."""
    rng = np.random.default_rng(SEED)
    z = rng.normal(size=(4096, 1024))
    gamma, beta = rng.normal(size=1024), rng.normal(size=1024)
    out = {"shape": "(4096, 1024)", "target": 1.5}
    fs = {"lnbook": lambda: lnbook.layer_norm(z, gamma, beta, eps=1e-5)}
    if torch is not None:
        t, g, b = torch.from_numpy(z), torch.from_numpy(gamma), torch.from_numpy(beta)
        fs["torch"] = lambda: torch.nn.functional.layer_norm(t, (1024,), g, b, 1e-5)
        diff = np.abs(fs["lnbook"]() - fs["torch"]().numpy()).max()
        out["max |difference|"] = float(diff)
    return race(out, fs, repeat=15)


OPENBLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def blas_kernel() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if not blas:
        return "unknown"
    p = blas[0]
    return (f"{p.get('internal_api')} {p.get('version')}, kernel {p.get('architecture')}, "
            f"{p.get('num_threads')} threads")


def bench_operator_norm_current_blas() -> dict:
    """The operator_norm benchmark in a child process without the OpenBLAS variables.

    The SVD is the only step that runs numpy's LAPACK. Where the machine sets
    OPENBLAS_CORETYPE to pin an old kernel, the child runs without it (this command only,
    never the tests), so that lnbook's closed form races the current kernel.
    """
    if not any(k in os.environ for k in OPENBLAS_VARIABLES):
        return bench_operator_norm()
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_VARIABLES}
    proc = subprocess.run([sys.executable, __file__, "--only", "operator_norm"], env=env,
                          capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout)
    result["OpenBLAS variables"] = "unset for this step"
    return result


def bench_operator_norm() -> dict:
    """Closed-form operator norm against the SVD of the Jacobian, (10^4, 64)."""
    z = np.random.default_rng(SEED).normal(size=(10_000, 64))
    J = lnbook.jacobian(z)

    def svd_norm():
        return np.linalg.norm(J, 2, axis=(-2, -1))

    closed = lnbook.operator_norm(z)
    rel = float(np.abs(svd_norm() / closed - 1).max())
    best = best_of({"closed form": lambda: lnbook.operator_norm(z), "SVD": svd_norm},
                   repeat=3, min_time=0.02)
    t_jac = best_of({"jacobian": lambda: lnbook.jacobian(z)}, repeat=3, min_time=0.02)
    out = {"shape": "(10000, 64)", "target": 100.0, "max relative difference": rel,
           "jacobian": t_jac["jacobian"], "BLAS": blas_kernel(), **best}
    out["ratio"] = best["SVD"] / best["closed form"]
    out["pass"] = out["ratio"] >= out["target"]
    return out


def bench_jacobian(torch) -> dict:
    """Batched lnbook.jacobian against torch.func.vmap(torch.func.jacrev(layer_norm))."""
    z = np.random.default_rng(SEED).normal(size=(256, 64))
    out = {"shape": "(256, 64)", "target": 1.0}
    fs = {"lnbook": lambda: lnbook.jacobian(z, eps=1e-5)}
    if torch is not None:
        t = torch.from_numpy(z)

        def one(x):
            return torch.nn.functional.layer_norm(x, (64,), eps=1e-5)

        batched = torch.func.vmap(torch.func.jacrev(one))
        fs["torch"] = lambda: batched(t)
        out["max |difference|"] = float(np.abs(fs["lnbook"]() - fs["torch"]().numpy()).max())
    return race(out, fs, repeat=9)


RATIOS = (1.0, 1e3, 1e6, 1e9)  # |mu| / sigma
SPREADS = (1e-6, 1e-3, 1.0, 1e3)  # sigma; q = sigma^2 against eps = 1e-5


def bench_accuracy(torch, d: int = 64, n: int = 16) -> dict:
    """Worst normwise error in ulps of the float64 core, lnbook and torch, on hostile records."""
    try:
        from lnbook.reference import exact_core, ulp_error
    except ImportError as exc:
        return {"skipped": f"lnbook.reference is not available ({exc})"}
    eps = 1e-5
    x = np.random.default_rng(SEED).standard_normal((n, d))
    table = {}
    for ratio in RATIOS:
        for spread in SPREADS:
            # z = sigma (r 1 + x), rounded to float64; the exact core is that of the rounded z
            z = spread * (ratio + x)
            exact = exact_core(z, eps=eps)
            row = {"lnbook": float(ulp_error(lnbook.core(z, eps=eps), exact).max())}
            if torch is not None:
                u = torch.nn.functional.layer_norm(torch.from_numpy(z), (d,), eps=eps).numpy()
                row["torch"] = float(ulp_error(u, exact).max())
            table[f"{ratio:g}|{spread:g}"] = row
    worst = max(r["lnbook"] for r in table.values())
    out = {"d": d, "records per cell": n, "eps": eps, "table": table, "target": 4.0,
           "lnbook worst": worst, "pass": worst <= 4.0}
    if torch is not None:
        out["torch worst"] = max(r["torch"] for r in table.values())
    return out


def bench_chapters() -> dict:
    """Wall time of executing every chapter in a fresh kernel, in a temporary copy of book/."""
    spec = importlib.util.spec_from_file_location("lnbook_execute", ROOT / "tools" / "execute.py")
    execute_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(execute_module)
    times, failed = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        book = pathlib.Path(tmp) / "book"
        shutil.copytree(ROOT / "book", book)
        for path in sorted(book.glob("*.ipynb")):
            start = time.perf_counter()
            try:
                execute_module.execute(path)
            except Exception as exc:  # a broken chapter is reported, not fatal here
                failed[path.stem] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1]}"
            times[path.stem] = time.perf_counter() - start
    return {"chapters": times, "failed": failed, "total": sum(times.values()),
            "target per chapter": 10.0, "pass": max(times.values()) < 10.0 and not failed}


def bench_tests(command: list[str]) -> dict:
    """Wall time of the whole test command."""
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else ""
    failed = [line.split(" - ")[0] for line in lines if line.startswith(("FAILED", "ERROR"))]
    return {"command": " ".join(command), "seconds": elapsed, "exit code": proc.returncode,
            "summary": summary, "failed": failed, "date": machine()["date"]}


# --- the page ----------------------------------------------------------------------------


def verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("**pass**" if ok else "**missed**")


def render(info: dict, r: dict) -> str:
    ln, op, jac, acc, ch = (r[k] for k in ("layer_norm", "operator_norm", "jacobian",
                                           "accuracy", "chapters"))
    tests = r.get("tests")
    have_torch = "torch" in ln
    lines = [
        "(ch-benchmarks)=",
        "# Benchmarks",
        "",
        "How fast and how accurate lnbook is, measured against PyTorch and against the slow",
        "paths it replaces. Every figure on this page comes from one run of",
        "`benchmarks/run.py` on the machine described below, which rewrote this page. Speeds",
        "are compared as ratios of best-of-N wall times, the two sides measured in turn so",
        "that a busy machine slows both; the absolute times are for orientation only. No test",
        "asserts a speed: a missed target is reported here, not failed in CI.",
        "",
        "## What is measured",
        "",
        "- **layer_norm**: {func}`lnbook.layer_norm` with a gain and a bias on a (4096, 1024)",
        "  float64 batch, against `torch.nn.functional.layer_norm`. Target: at most 1.5 times",
        "  PyTorch's time.",
        "- **operator_norm**: the closed form of {func}`lnbook.operator_norm`",
        "  ({ref}`ch-sensitivity`) on (10⁴, 64) records, against the largest singular value",
        "  of each record's {func}`lnbook.jacobian` (`np.linalg.norm(J, 2, axis=(-2, -1))`, an",
        "  SVD of ten thousand 64 × 64 matrices; the time to build the Jacobians is not",
        "  counted). Target: at least 100 times faster.",
        "- **jacobian**: {func}`lnbook.jacobian` on a (256, 64) batch, against",
        "  `torch.func.vmap(torch.func.jacrev(layer_norm))`. Target: no slower.",
        "- **accuracy**: the worst normwise error of {func}`lnbook.core` in float64, in ulps of",
        "  the largest component of the correctly rounded core (`lnbook.reference.exact_core`,",
        "  `lnbook.reference.ulp_error`; see {ref}`ch-floating-point`), on records",
        "  $z = \\sigma(r\\mathbf 1 + x)$ with $x$ a seeded standard normal draw, offsets",
        "  $r = |\\mu|/\\sigma$ up to $10^9$ and spreads $\\sigma$ whose variance lies far",
        "  below and far above $\\varepsilon = 10^{-5}$; beside it, PyTorch's float64 error on",
        "  the same records. Target: lnbook at most 4 ulp everywhere.",
        "- **chapters**: the wall time of executing every chapter in a fresh kernel (the logic",
        "  of `tools/execute.py`, run on a temporary copy of `book/`). Target: under 10 s each.",
        "- **tests**: the wall time of the whole test command, `tools/test` (optional:",
        "  `--tests`).",
        "",
        "## How to rerun",
        "",
        "```bash",
        ".venv/bin/python benchmarks/run.py            # a few minutes",
        ".venv/bin/python benchmarks/run.py --tests    # also times tools/test (long)",
        "```",
        "",
        "On a machine that sets `OPENBLAS_CORETYPE` and `OPENBLAS_L2_SIZE` (a workaround for",
        "old OpenBLAS builds that pins a slower kernel), the script runs the one step that",
        "uses numpy's LAPACK, the SVD, in a child process without them, so that the closed",
        "form races the current kernel; every other step, the chapters and the tests run in",
        "the environment as it is. The tables record which kernel ran.",
        "",
        "## Machine and versions",
        "",
        "| | |",
        "|---|---|",
    ]
    for key in ("date", "cpu", "cores", "memory", "platform", "python", "numpy", "torch",
                "torch threads", "mpmath", "lnbook", "numpy BLAS", "OpenBLAS variables"):
        if key in info:
            lines.append(f"| {key} | {info[key]} |")
    if "OpenBLAS variables" in r["operator_norm"]:
        lines.append(f"| numpy BLAS for the SVD step | {r['operator_norm']['BLAS']} |")
    lines += [
        "",
        "## Speed",
        "",
        "| benchmark | lnbook | compared with | time | ratio | target | result |",
        "|---|---|---|---|---|---|---|",
    ]
    if have_torch:
        lines.append(f"| layer_norm {ln['shape']} | {fmt_time(ln['lnbook'])} | "
                     f"torch layer_norm | {fmt_time(ln['torch'])} | "
                     f"{ln['ratio']:.2f} × torch's time | ≤ 1.5 × | {verdict(ln['pass'])} |")
    else:
        lines.append(f"| layer_norm {ln['shape']} | {fmt_time(ln['lnbook'])} | torch not "
                     "installed | – | – | ≤ 1.5 × | – |")
    lines.append(f"| operator_norm {op['shape']} | {fmt_time(op['closed form'])} | SVD of the "
                 f"Jacobians | {fmt_time(op['SVD'])} | {op['ratio']:,.0f} × faster | ≥ 100 × | "
                 f"{verdict(op['pass'])} |")
    if have_torch:
        lines.append(f"| jacobian {jac['shape']} | {fmt_time(jac['lnbook'])} | "
                     f"torch vmap(jacrev) | {fmt_time(jac['torch'])} | "
                     f"{jac['ratio']:.2f} × torch's time | ≤ 1 × | {verdict(jac['pass'])} |")
    else:
        lines.append(f"| jacobian {jac['shape']} | {fmt_time(jac['lnbook'])} | torch not "
                     "installed | – | – | ≤ 1 × | – |")
    lines += [
        "",
        f"Building the 10⁴ Jacobians that the SVD needs takes {fmt_time(op['jacobian'])} more;",
        f"the two norms agree to a relative {op['max relative difference']:.1e}. The SVD ran on"
        f" {op['BLAS']}"
        + (" (OpenBLAS variables unset for this step)." if "OpenBLAS variables" in op else "."),
    ]
    if have_torch:
        lines.append(f"lnbook and PyTorch agree to {ln['max |difference|']:.1e} (layer_norm) "
                     f"and {jac['max |difference|']:.1e} (jacobian), largest absolute "
                     "difference.")
    lines += ["", "## Accuracy in ulps", ""]
    if "skipped" in acc:
        lines.append(f"Not measured: {acc['skipped']}.")
    else:
        who = "lnbook / torch" if have_torch else "lnbook"
        lines += [
            f"Worst error over {acc['records per cell']} records of $d = {acc['d']}$ features "
            f"in each cell ({who}), $\\varepsilon = 10^{{-5}}$. Columns: the spread "
            "$\\sigma$ (variance $\\sigma^2$); rows: the offset ratio $r = |\\mu|/\\sigma$.",
            "",
            "| $r$ \\\\ $\\sigma$ | " + " | ".join(f"{s:g} (q = {s * s:g})" for s in SPREADS)
            + " |",
            "|---|" + "---|" * len(SPREADS),
        ]
        for ratio in RATIOS:
            cells = []
            for spread in SPREADS:
                row = acc["table"][f"{ratio:g}|{spread:g}"]
                cell = f"{row['lnbook']:.2g}"
                if have_torch:
                    cell += f" / {row['torch']:.3g}"
                cells.append(cell)
            lines.append(f"| {ratio:g} | " + " | ".join(cells) + " |")
        lines += [
            "",
            f"Worst lnbook error: **{acc['lnbook worst']:.2g} ulp** (target ≤ 4: "
            f"{verdict(acc['pass'])})."
            + (f" Worst PyTorch error: {acc['torch worst']:.3g} ulp." if have_torch else ""),
            "PyTorch's float64 kernel loses accuracy as the offset grows because it does not",
            "correct the rounding error of its mean; lnbook's corrected two-pass mean",
            "({ref}`ch-floating-point`) keeps the error at a few ulps.",
        ]
    lines += [
        "",
        "## Wall times",
        "",
        "| chapter | execution |",
        "|---|---|",
    ]
    for name, t in ch["chapters"].items():
        failure = f" (failed: {ch['failed'][name]})" if name in ch.get("failed", {}) else ""
        lines.append(f"| {name} | {t:.1f} s{failure} |")
    lines += [
        f"| **all chapters** | **{ch['total']:.1f} s** |",
        "",
        f"Slowest chapter: {max(ch['chapters'].values()):.1f} s (target < 10 s each: "
        f"{verdict(ch['pass'])}). Each includes starting a kernel.",
        "",
    ]
    if tests is None:
        lines.append("The whole test command has not been timed yet (`--tests`).")
    else:
        carried = "" if tests.get("this run") else f" (measured on {tests['date']})"
        lines.append(f"The whole test command, `{tests['command']}`, took "
                     f"{tests['seconds']:.0f} s{carried} and exited with code "
                     f"{tests['exit code']} (`{tests['summary']}`).")
        if tests.get("failed"):
            lines += ["", "Failed in that run:", ""]
            lines += [f"- `{name}`" for name in tests["failed"]]
    missed = []
    if have_torch and not ln["pass"]:
        missed.append(
            f"layer_norm took {ln['ratio']:.2f} times PyTorch's time. lnbook computes the mean"
            " twice (the corrected two-pass algorithm that the accuracy row depends on) in "
            "single-threaded numpy, while PyTorch fuses the statistics into one threaded "
            "kernel.")
    if not op["pass"]:
        missed.append(f"operator_norm was only {op['ratio']:.0f} times faster than the SVD.")
    if have_torch and not jac["pass"]:
        missed.append(f"jacobian took {jac['ratio']:.2f} times PyTorch's time.")
    if "skipped" not in acc and not acc["pass"]:
        missed.append(f"the worst lnbook error was {acc['lnbook worst']:.2g} ulp, above 4.")
    if ch.get("failed"):
        missed.append(f"chapters failed to execute: {', '.join(ch['failed'])}.")
    if max(ch["chapters"].values()) >= 10.0:
        missed.append("a chapter took 10 s or more to execute.")
    close = []
    if have_torch and ln["pass"] and ln["ratio"] > 0.85 * ln["target"]:
        close.append(f"layer_norm ({ln['ratio']:.2f} × against ≤ 1.5 ×)")
    if have_torch and jac["pass"] and jac["ratio"] > 0.85 * jac["target"]:
        close.append(f"jacobian ({jac['ratio']:.2f} × against ≤ 1 ×)")
    lines += ["", "## Notes", ""]
    if missed:
        lines += ["Targets missed in this run:", ""] + [f"- {m}" for m in missed] + [""]
    else:
        lines += ["Every target was met in this run.", ""]
    if close:
        lines += [f"Met with a small margin, so a busier run may miss it: {'; '.join(close)}.",
                  ""]
    lines += [
        "{func}`lnbook.layer_norm` and {func}`lnbook.core` work through the records a block",
        "of about 2¹⁶ numbers at a time (512 KiB, which stays in cache), centring, dividing",
        "and applying the gain and bias in place; every sum is numpy's pairwise sum along the",
        "last axis, which keeps wide records within a few ulps. Without the blocks,",
        "layer_norm took 1.7 to 1.8 times PyTorch's time in our measurements on this machine.",
        "",
        "The machine has two cores and is shared, so absolute times move from run to run by",
        "tens of percent; ratios move less, because both sides are measured in turn. numpy",
        "runs these element-wise kernels on one thread, PyTorch on "
        + (f"{info.get('torch threads')}." if have_torch else "its own thread pool."),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", nargs="?", const="tools/test", default=None,
                        metavar="COMMAND", help="also time the whole test command "
                        "(default: tools/test)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the page")
    parser.add_argument("--render", action="store_true",
                        help="rewrite the page from benchmarks/results.json; measure nothing")
    parser.add_argument("--only", choices=["operator_norm"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.render:
        saved = json.loads(RESULTS.read_text())
        PAGE.write_text(render(saved["machine"], saved["results"]))
        print(f"wrote {PAGE.relative_to(ROOT)} from {RESULTS.relative_to(ROOT)}")
        return 0
    if args.only == "operator_norm":
        print(json.dumps(bench_operator_norm()))
        return 0
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch is not installed: the PyTorch comparisons are skipped", flush=True)
    info = machine()
    for k, v in info.items():
        print(f"{k:>20s}: {v}")
    results = {}
    steps = [("layer_norm", lambda: bench_layer_norm(torch)),
             ("operator_norm", bench_operator_norm_current_blas),
             ("jacobian", lambda: bench_jacobian(torch)),
             ("accuracy", lambda: bench_accuracy(torch)),
             ("chapters", bench_chapters)]
    for name, step in steps:
        print(f"\n== {name}", flush=True)
        start = time.perf_counter()
        results[name] = step()
        shown = {k: v for k, v in results[name].items() if k not in ("table", "chapters")}
        print(json.dumps(shown, indent=1, default=str))
        print(f"({time.perf_counter() - start:.1f} s)", flush=True)
    if args.tests:
        print(f"\n== tests: {args.tests}", flush=True)
        results["tests"] = bench_tests(args.tests.split())
        results["tests"]["this run"] = True
        print(json.dumps(results["tests"], indent=1))
    elif RESULTS.exists():
        previous = json.loads(RESULTS.read_text()).get("results", {}).get("tests")
        if previous:
            previous["this run"] = False
            results["tests"] = previous
    if not args.no_write:
        PAGE.write_text(render(info, results))
        RESULTS.write_text(json.dumps({"machine": info, "results": results}, indent=1,
                                      default=str) + "\n")
        print(f"\nwrote {PAGE.relative_to(ROOT)} and {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
