"""The portability tier: every chapter's stored outputs, reproduced on other CPUs' code paths.

The stored outputs were made on one machine. A reader's machine picks another OpenBLAS kernel
(``OPENBLAS_CORETYPE``, chosen from the CPU at load time) and another numpy SIMD level (numpy's
runtime dispatch, limited by ``NPY_DISABLE_CPU_FEATURES``). Each variant of
``chapters.VARIANTS`` emulates one CPU generation in both libraries:

============  =====================  ==================================================
variant       OpenBLAS kernel        numpy dispatch targets switched off
============  =====================  ==================================================
skylakex      SkylakeX (AVX-512)     none (this machine's default)
zen           Zen (AVX2)             X86_V4, AVX512_ICL, AVX512_SPR (no AVX-512)
haswell       Haswell (AVX2)         X86_V4, AVX512_ICL, AVX512_SPR (no AVX-512)
sandybridge   Sandybridge (AVX)      X86_V3 and above (baseline X86_V2 only)
prescott      Prescott (SSE3)        X86_V3 and above (baseline X86_V2 only)
============  =====================  ==================================================

Each re-runs every chapter (``chapters.execute``) with the reader's environment minus every
``OPENBLAS_*`` and ``NPY_*`` variable, plus its own. A probe proves that the variables load
what they name (``chapters.check_variant``), and so does every kernel of the run. Variants
whose probes load the same code (kernel table, threads, numpy targets) share one execution:
this OpenBLAS runs "Zen" on its Haswell table. A variant whose code path is this machine's
default is skipped, saying so: the book tier's own run (test_notebooks.py) covers it.

prescott runs in the Binder tier (tests/binder/): its one execution in the fresh environment is
also this tier's oldest code path.
"""

from __future__ import annotations

import pytest
from chapters import (
    BINDER_VARIANT,
    VARIANTS,
    check_variant,
    probe,
    reader_environment,
    variant_environment,
)

pytestmark = pytest.mark.portability  # `-m "not portability"`: the book tier's quicker loop


def code_path(found: dict) -> tuple:
    return found["openblas"], found["threads"], tuple(found["enabled"])


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != BINDER_VARIANT])
def test_chapters_reproduce_under(variant, chapter_runs, pytestconfig):
    """Every chapter's stored outputs come out again, byte for byte, on this code path."""
    default = probe(reader_environment())
    if variant == "skylakex" and "X86_V4" not in default["enabled"]:
        pytest.skip("this CPU has no AVX-512: OpenBLAS cannot load its SkylakeX kernel here")
    env = variant_environment(variant)
    own = probe(env)
    check_variant(variant, own, default)  # first: the variables do what they say
    if code_path(own) == code_path(default):
        table, threads, enabled = code_path(own)
        pytest.skip(f"this machine's default code path (OpenBLAS {table}, {threads} threads; "
                    f"numpy targets on: {', '.join(enabled) or 'none'}): the book tier's own "
                    "run, with no variable set, covers it")
    run = chapter_runs("-".join(map(str, code_path(own))), env, probe=True)
    run.kernels(variant, default)  # every kernel ran the variant's code
    differ = run.differences(pytestconfig)
    coretype, disabled, _ = VARIANTS[variant]
    assert not differ, (
        f"under OPENBLAS_CORETYPE={coretype}, NPY_DISABLE_CPU_FEATURES={' '.join(disabled)!r} "
        "these cells differ from their stored outputs:\n" + "\n\n".join(differ)[-6000:])
