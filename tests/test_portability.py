"""The portability tier: every chapter's stored outputs, reproduced on other CPUs' code paths.

The stored outputs were made on one machine. A reader's machine picks a different OpenBLAS
kernel (``OPENBLAS_CORETYPE``, chosen from the CPU at load time) and a different numpy SIMD
level (numpy's runtime dispatch, limited by ``NPY_DISABLE_CPU_FEATURES``). Each variant below
re-runs every chapter (``tools/execute.py``) in a subprocess whose environment is the caller's
minus every ``OPENBLAS_*`` and ``NPY_*`` variable, plus the variant's own. Each variant emulates
one real CPU generation in both libraries at once:

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

numpy 2.4's names are checked against the running numpy below. The kernel table OpenBLAS
loads is read with threadpoolctl (``architecture``: OpenBLAS's own core name).

Every chapter runs once per configuration (``tests/chapters.py``: one execution by
``tools/execute.py``, read by every check). A configuration is what the kernels really run:
the kernel table OpenBLAS reports and the numpy targets switched off. OpenBLAS names a table by
comparing its pointer with its tables (``openblas_get_corename``), so two variants that report
the same table with the same targets off run the same code with the same parameters: this
OpenBLAS has no Zen table of its own and runs "Zen" on its Haswell table, so the zen variant
checks, by a probe started with ``OPENBLAS_CORETYPE=Zen``, that it loads that table, and reads
the haswell variant's run. A variant whose variables load this machine's default code path
(the same OpenBLAS table and thread count, the same numpy targets enabled, as a python started
with the book tier's environment: skylakex where that default is SkylakeX's table; haswell,
and so zen, where it is Haswell's without AVX-512) is skipped once its probe has shown that its
variables load what they name: the book tier's own run (tests/test_notebooks.py, no variable
set) already runs that code. Select
this tier with ``pytest -m portability tests/test_portability.py``; deselect it with
``-m "not portability"``.
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

import pytest
from chapters import CHAPTERS, cell_difference, code_cells, default_environment, stored_code_cells

ROOT = pathlib.Path(__file__).resolve().parent.parent
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

# Run at the start of every kernel of a variant (and by the probe): record what it really uses.
PROBE = r"""
import json, os
import numpy
from numpy._core import _multiarray_umath as _mu
from threadpoolctl import threadpool_info as _pools

_blas = next((p for p in _pools() if p.get("internal_api") == "openblas"), {})
with open(os.environ["LNBOOK_PORTABILITY_PROBE"], "a") as _f:
    _f.write(json.dumps({
        "features": {k: bool(_mu.__cpu_features__.get(k)) for k in _mu.__cpu_dispatch__},
        "dispatch": list(_mu.__cpu_dispatch__),
        "openblas": _blas.get("architecture"),
        "threads": _blas.get("num_threads"),
    }) + "\n")
del _f, _pools, _mu, _blas
"""


def base_environment() -> dict[str, str]:
    """The caller's environment without any OPENBLAS_* or NPY_* variable."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_"))}


def probe(env: dict[str, str]) -> dict:
    """What a python started with ``env`` loads: numpy's enabled targets, OpenBLAS's table."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(env, LNBOOK_PORTABILITY_PROBE=str(pathlib.Path(tmp) / "probe.jsonl"))
        subprocess.run([sys.executable, "-c", PROBE], env=env, check=True, timeout=120)
        return json.loads((pathlib.Path(tmp) / "probe.jsonl").read_text())


def variant_variables(name: str) -> dict[str, str]:
    coretype, disabled, _ = VARIANTS[name]
    variables = {"OPENBLAS_CORETYPE": coretype}
    if disabled:
        variables["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    return variables


@functools.cache
def default_probe() -> dict:
    """What the book tier's own run loads (tests/chapters.py's default environment)."""
    return probe(default_environment())


def code_path(found: dict) -> tuple:
    """What decides a kernel's arithmetic, from a probe: the OpenBLAS kernel table and its
    thread count, and the numpy dispatch targets enabled."""
    return (found["openblas"], found["threads"],
            tuple(sorted(t for t, on in found["features"].items() if on)))


@functools.cache
def variant_probe(name: str) -> dict:
    """What a python started under the variant's variables loads."""
    return probe({**base_environment(), **variant_variables(name)})


def configuration(name: str) -> str:
    """The run a variant reads: that of the variant with the same reported table and targets
    off whose OPENBLAS_CORETYPE names the table (haswell's for zen), else the first such."""
    _, disabled, _ = VARIANTS[name]
    key = (variant_probe(name)["openblas"], disabled)
    same = [other for other in VARIANTS
            if (variant_probe(other)["openblas"], VARIANTS[other][1]) == key]
    owner = next((other for other in same if VARIANTS[other][0] == key[0]), same[0])
    return f"portability-{owner}"


def variant_environment(name: str, home: pathlib.Path) -> dict[str, str]:
    """The caller's environment without OPENBLAS_*/NPY_* variables, plus the variant's, and
    the probe every kernel runs at its start."""
    env = {**base_environment(), **variant_variables(name)}
    startup = home / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-lnbook-portability-probe.py").write_text(PROBE)
    env["IPYTHONDIR"] = str(home / "ipython")
    env["LNBOOK_PORTABILITY_PROBE"] = str(home / "probe.jsonl")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def unavailable(variant: str) -> str | None:
    """Why a variant's code path cannot be loaded on this machine, or None."""
    if variant == "skylakex":
        from numpy._core import _multiarray_umath as mu

        if not mu.__cpu_features__.get("AVX512_SKX"):
            return "this CPU has no AVX-512: OpenBLAS cannot load its SkylakeX kernel here"
    return None


def covered_by_default(variant: str) -> str | None:
    """Why the book tier's own run already runs this variant's code path, or None: a python
    started with the variant's variables loads the same OpenBLAS table with the same threads,
    and has the same numpy targets enabled, as one started with the default environment
    (e.g. haswell on a CPU without AVX-512, whose default is Haswell's table)."""
    own = variant_probe(variant)
    if code_path(own) != code_path(default_probe()):
        return None
    table, threads, enabled = code_path(own)
    return (f"this machine's default code path (OpenBLAS {table}, {threads} threads; numpy "
            f"targets on: {', '.join(enabled) or 'none'}): the book tier's own run, with no "
            "variable set, covers it")


def skip_reason(variant: str) -> str | None:
    """Why a variant need not run on this machine, or None."""
    return unavailable(variant) or covered_by_default(variant)


@pytest.fixture(scope="module")
def variant_runs(request, chapter_runs):
    """Start the runs the selected variants read, one per configuration, in order."""
    selected = [item.callspec.params["variant"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")
                and "variant" in item.callspec.params]

    def submit(name: str):
        run = configuration(name)
        owner = run.removeprefix("portability-")
        return chapter_runs.submit(run, lambda home: variant_environment(owner, home))

    for name in dict.fromkeys(selected):
        if not skip_reason(name):
            submit(name)
    return lambda name: submit(name).result()


def kernel_probes(run) -> list[dict]:
    probe_file = run.folder.parent / "probe.jsonl"
    if not probe_file.exists():
        return []
    return [json.loads(line) for line in probe_file.read_text().splitlines()]


def test_only_the_same_code_path_is_left_to_the_default_run(monkeypatch):
    """A variant is left to the book tier's run only when its probe and the default's agree on
    the OpenBLAS table, its threads and every numpy target; one difference and it runs."""
    import common

    default = {"openblas": "Haswell", "threads": 2,
               "features": {"X86_V3": True, "X86_V4": False}, "dispatch": ["X86_V3", "X86_V4"]}
    monkeypatch.setattr(sys.modules[__name__], "default_probe", lambda: default)
    for change in ({}, {"openblas": "Sandybridge"}, {"threads": 1},
                   {"features": {"X86_V3": False, "X86_V4": False}},
                   {"features": {"X86_V3": True, "X86_V4": True}}):
        own = {**default, **change}
        monkeypatch.setattr(sys.modules[__name__], "variant_probe", lambda name, own=own: own)
        reason = covered_by_default("haswell")
        if change:
            assert reason is None, change
        else:  # and the full command accepts the skip (tests/common.py's ACCEPTED_SKIPS)
            assert reason.startswith("this machine's default code path (OpenBLAS Haswell, 2 "
                                     "threads; numpy targets on: X86_V3)"), reason
            assert any(re.search(pattern, reason)
                       for pattern in common.ACCEPTED_SKIPS), reason


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
def test_chapters_reproduce_under(variant, variant_runs, pytestconfig):
    """Every chapter's stored outputs come out again, byte for byte, on this code path."""
    coretype, disabled, reported = VARIANTS[variant]
    reason = unavailable(variant)
    if reason:
        pytest.skip(reason)
    own = variant_probe(variant)  # what this variant's variables load, whoever runs it
    assert own["openblas"] == reported, (
        f"OPENBLAS_CORETYPE={coretype} loaded {own['openblas']}, not {reported}")
    assert not [t for t in disabled if own["features"].get(t)], own["features"]
    reason = covered_by_default(variant)  # checked first: the variables do what they say
    if reason:
        pytest.skip(reason)
    run = variant_runs(variant)
    kernels = kernel_probes(run)
    assert kernels, f"no kernel of the {variant} run reported its CPU features:\n" \
                    f"{run.process.stderr[-3000:]}"
    assert len(kernels) >= len(CHAPTERS), (
        f"{len(kernels)} of the {len(CHAPTERS)} chapters' kernels of the {variant} run "
        f"reported their CPU features (tools/execute.py exited {run.process.returncode}):\n"
        f"{run.process.stdout[-2000:]}\n{run.process.stderr[-4000:]}")
    for kernel in kernels:
        still_on = [t for t in disabled if kernel["features"].get(t)]
        assert not still_on, f"NPY_DISABLE_CPU_FEATURES left {still_on} enabled in a kernel"
        assert kernel["openblas"] == reported, (
            f"the {variant} run's kernels loaded {kernel['openblas']}, not {reported}")
    differ = []
    for path in CHAPTERS:
        executed = code_cells(run.notebook(path))
        for index, stored in enumerate(stored_code_cells(path)):
            difference = (cell_difference(stored, executed[index], pytestconfig)
                          if index < len(executed) else "not executed")
            if difference is not None:
                differ.append(f"{path.name}::Cell {index}: {difference}")
    assert not differ, (
        f"under OPENBLAS_CORETYPE={coretype}, NPY_DISABLE_CPU_FEATURES={' '.join(disabled)!r} "
        f"these cells differ from their stored outputs:\n" + "\n\n".join(differ)[-6000:]
    )
