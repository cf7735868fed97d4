"""The portability tier: every chapter's stored outputs, reproduced on other CPUs' code paths.

The stored outputs were made on one machine. A reader's machine picks a different OpenBLAS
kernel (``OPENBLAS_CORETYPE``, chosen from the CPU at load time) and a different numpy SIMD
level (numpy's runtime dispatch, limited by ``NPY_DISABLE_CPU_FEATURES``). Each variant below
re-runs every chapter under nbval in a subprocess whose environment is the caller's minus every
``OPENBLAS_*`` and ``NPY_*`` variable, plus the variant's own. Each variant emulates one real
CPU generation in both libraries at once:

============  =====================  ==================================================
variant       OpenBLAS kernel        numpy dispatch targets switched off
============  =====================  ==================================================
skylakex      SkylakeX (AVX-512)     none (this machine's default)
zen           Zen (AVX2)             X86_V4, AVX512_ICL, AVX512_SPR (no AVX-512)
haswell       Haswell (AVX2)         X86_V4, AVX512_ICL, AVX512_SPR (no AVX-512)
sandybridge   Sandybridge (AVX)      X86_V3 and above (baseline X86_V2 only)
prescott      Prescott (SSE3)        X86_V3 and above (baseline X86_V2 only)
============  =====================  ==================================================

numpy 2.4 names its x86 dispatch targets X86_V3, X86_V4, AVX512_ICL and AVX512_SPR
(``numpy._core._multiarray_umath.__cpu_dispatch__``) and silently ignores names it does not
know, such as the pre-2.4 ``AVX2`` or ``AVX512F``. So every kernel the variant starts records,
from an IPython startup file, which dispatch targets are enabled and which OpenBLAS kernel is
loaded; the test asserts that the intended ones are really off and the intended kernel is on.

Variants run two at a time (``LNBOOK_PORTABILITY_JOBS``). The variant that equals this
machine's default code path is skipped: the book tier's plain nbval run (no variable set)
already runs it. Select this tier with
``pytest -m portability tests/test_portability.py``; deselect it with ``-m "not portability"``.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
DISPATCH_TARGETS = ("X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR")
NO_AVX512 = ("X86_V4", "AVX512_ICL", "AVX512_SPR")
ONLY_BASELINE = ("X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR")

# variant -> (OPENBLAS_CORETYPE, numpy dispatch targets switched off, kernel OpenBLAS reports).
# The reported name is the kernel table OpenBLAS actually loads: this numpy's bundled
# scipy-openblas runs "Zen" with its Haswell kernels and "Prescott" with its Katmai table;
# asserting it proves the variable was read (an unknown name would leave SkylakeX here).
VARIANTS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "skylakex": ("SkylakeX", (), "SkylakeX"),
    "zen": ("Zen", NO_AVX512, "Haswell"),
    "haswell": ("Haswell", NO_AVX512, "Haswell"),
    "sandybridge": ("Sandybridge", ONLY_BASELINE, "Sandybridge"),
    "prescott": ("Prescott", ONLY_BASELINE, "Katmai"),
}

pytestmark = [pytest.mark.portability, pytest.mark.book]

# Run at the start of every kernel of a variant: record what the kernel really uses.
PROBE = r"""
import ctypes, glob, json, os
import numpy
from numpy._core import _multiarray_umath as _mu

def _lnbook_openblas_core():
    libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs",
                                  "libscipy_openblas*.so"))
    for lib in libs:
        dll = ctypes.CDLL(lib)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename"):
            f = getattr(dll, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return None

with open(os.environ["LNBOOK_PORTABILITY_PROBE"], "a") as _f:
    _f.write(json.dumps({
        "features": {k: bool(_mu.__cpu_features__.get(k)) for k in _mu.__cpu_dispatch__},
        "dispatch": list(_mu.__cpu_dispatch__),
        "openblas": _lnbook_openblas_core(),
    }) + "\n")
del _f, _lnbook_openblas_core, _mu
"""


@functools.cache
def default_openblas_kernel() -> str:
    """The OpenBLAS kernel this machine loads when no variable chooses one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_"))}
    with tempfile.TemporaryDirectory() as tmp:
        env["LNBOOK_PORTABILITY_PROBE"] = str(pathlib.Path(tmp) / "probe.jsonl")
        subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, timeout=120)
        return json.loads((pathlib.Path(tmp) / "probe.jsonl").read_text())["openblas"]


def variant_environment(name: str, home: pathlib.Path) -> dict[str, str]:
    """The caller's environment without OPENBLAS_*/NPY_* variables, plus the variant's."""
    coretype, disabled, _ = VARIANTS[name]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_"))}
    env["OPENBLAS_CORETYPE"] = coretype
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    startup = home / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-lnbook-portability-probe.py").write_text(PROBE)
    env["IPYTHONDIR"] = str(home / "ipython")
    env["LNBOOK_PORTABILITY_PROBE"] = str(home / "probe.jsonl")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def run_variant(name: str) -> dict:
    """Run nbval on every chapter under one variant; return its outcome and kernel probes."""
    with tempfile.TemporaryDirectory(prefix=f"lnbook-portability-{name}-") as tmp:
        home = pathlib.Path(tmp)
        env = variant_environment(name, home)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", *[str(p) for p in CHAPTERS], "--nbval",
             "--nbval-current-env", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
             "--color=no", "-W", "ignore::DeprecationWarning"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
        )
        probe = home / "probe.jsonl"
        kernels = [json.loads(line) for line in probe.read_text().splitlines()] \
            if probe.exists() else []
    return {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr,
            "kernels": kernels}


def skip_reason(variant: str) -> str | None:
    """Why a variant need not run on this machine, or None."""
    _, disabled, reported = VARIANTS[variant]
    if variant == "skylakex":
        from numpy._core import _multiarray_umath as mu

        if not mu.__cpu_features__.get("AVX512_SKX"):
            return "this CPU has no AVX-512: OpenBLAS cannot load its SkylakeX kernel here"
    if not disabled and default_openblas_kernel() == reported:
        return (f"this machine's default code path ({reported}, every numpy target): the book "
                "tier's plain nbval run, with no variable set, covers it")
    return None


@pytest.fixture(scope="module")
def outcomes(request):
    """Start the selected variants, LNBOOK_PORTABILITY_JOBS (2) at a time, once per module."""
    selected = [item.callspec.params["variant"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")
                and "variant" in item.callspec.params]
    jobs = int(os.environ.get("LNBOOK_PORTABILITY_JOBS", "2"))
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures: dict[str, Future] = {}
    lock = threading.Lock()
    for name in dict.fromkeys(selected):
        if not skip_reason(name):
            futures[name] = pool.submit(run_variant, name)

    def get(name: str) -> dict:
        with lock:
            if name not in futures:
                futures[name] = pool.submit(run_variant, name)
        return futures[name].result()

    yield get
    pool.shutdown(wait=True, cancel_futures=True)


def failed_cells(stdout: str) -> list[str]:
    return re.findall(r"^FAILED (\S+)", stdout, re.M)


def test_dispatch_target_names_are_numpy_24s():
    """The names this tier disables are the dispatch targets this numpy knows.

    numpy ignores unknown names in NPY_DISABLE_CPU_FEATURES without a word, so a renamed
    target would silently turn a variant into the default one.
    """
    from numpy._core import _multiarray_umath as mu

    assert set(NO_AVX512) | set(ONLY_BASELINE) <= set(DISPATCH_TARGETS)
    assert set(DISPATCH_TARGETS) <= set(mu.__cpu_features__), sorted(mu.__cpu_features__)
    if mu.__cpu_dispatch__:  # an x86-64 build: its dispatch targets are exactly these
        assert tuple(mu.__cpu_dispatch__) == DISPATCH_TARGETS, mu.__cpu_dispatch__


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_chapters_reproduce_under(variant, outcomes):
    """Every chapter's stored outputs come out again, byte for byte, on this code path."""
    coretype, disabled, reported = VARIANTS[variant]
    reason = skip_reason(variant)
    if reason:
        pytest.skip(reason)
    outcome = outcomes(variant)
    assert outcome["kernels"], (
        f"no kernel of the {variant} run reported its CPU features:\n{outcome['stderr'][-3000:]}")
    assert len(outcome["kernels"]) >= len(CHAPTERS), (len(outcome["kernels"]), len(CHAPTERS))
    for kernel in outcome["kernels"]:
        still_on = [t for t in disabled if kernel["features"].get(t)]
        assert not still_on, f"NPY_DISABLE_CPU_FEATURES left {still_on} enabled in a kernel"
        assert kernel["openblas"] == reported, (
            f"OPENBLAS_CORETYPE={coretype} loaded {kernel['openblas']}, not {reported}")
    assert outcome["returncode"] == 0, (
        f"under OPENBLAS_CORETYPE={coretype}, NPY_DISABLE_CPU_FEATURES={' '.join(disabled)!r} "
        f"these cells differ from their stored outputs: {failed_cells(outcome['stdout'])}\n"
        + outcome["stdout"][-6000:]
    )
