"""What a test session established, kept for the verification page (``book/verification.md``).

A pytest plugin (registered by ``tests/conftest.py``) that writes, when a session ends, one
JSON file under ``_build/verification/``: every test's node id, outcome and duration, the
command's arguments, the tier (``LNBOOK_TIER``, set by ``tools/test``) and run
(``LNBOOK_RUN_ID``, one per full ``tools/test``), and the machine it ran on: Python, numpy's
SIMD levels, the BLAS kernel (threadpoolctl), the versions of the packages that compute the
stored outputs. ``tests/verification/build.py`` reads the files of the last full run. The files
are build products, never committed; under pytest-xdist only the controller writes.
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORDS = ROOT / "_build" / "verification"


def packages() -> dict[str, str]:
    """Versions of the reader's environment (requirements.txt) and of the test runners."""
    from importlib import metadata

    names = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            name = line.split("@")[0].split("[")[0]
            for sep in ("==", ">=", "<=", "~=", "<", ">"):
                name = name.split(sep)[0]
            names.append(name.strip())
    names += ["pytest", "nbval", "nbclient", "jupyter-book", "sphinx"]
    found = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def machine() -> dict:
    """The code paths this process runs: numpy's SIMD levels and the BLAS kernel."""
    import numpy as np
    from numpy._core import _multiarray_umath as umath
    from threadpoolctl import threadpool_info

    blas = [{"library": i.get("internal_api"), "version": i.get("version"),
             "kernel": i.get("architecture"), "threads": i.get("num_threads")}
            for i in threadpool_info() if i.get("user_api") == "blas"]
    features = umath.__cpu_features__
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "numpy": np.__version__,
        "numpy SIMD baseline": list(umath.__cpu_baseline__),
        "numpy SIMD dispatch": [t for t in umath.__cpu_dispatch__ if features.get(t)],
        "blas": blas,
        "OpenBLAS variables": {k: v for k, v in os.environ.items()
                               if k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
    }


class Recorder:
    """Collects the reports of one test session and writes them at its end."""

    def __init__(self, config):
        self.config = config
        self.start = time.time()
        self.tests: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report):
        entry = self.tests.setdefault(report.nodeid, {"outcome": "passed", "seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + report.duration, 3)
        if getattr(report, "user_properties", None):  # record_property: a kernel time
            entry["properties"] = dict(report.user_properties)
        if report.failed:
            entry["outcome"] = "failed"
        elif report.skipped and entry["outcome"] != "failed":
            entry["outcome"] = "skipped"
            if isinstance(report.longrepr, tuple):  # (file, line, "Skipped: reason")
                entry["reason"] = str(report.longrepr[2]).removeprefix("Skipped: ")

    def pytest_sessionfinish(self, session, exitstatus):
        if hasattr(self.config, "workerinput"):  # an xdist worker: the controller records
            return
        RECORDS.mkdir(parents=True, exist_ok=True)
        record = {
            "run": os.environ.get("LNBOOK_RUN_ID", ""),
            "tier": os.environ.get("LNBOOK_TIER", ""),
            "args": [str(a) for a in self.config.invocation_params.args],
            "start": self.start,
            "seconds": round(time.time() - self.start, 1),
            "exitstatus": int(exitstatus),
            "machine": machine(),
            "packages": packages(),
            "tests": self.tests,
        }
        name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(self.start))}-{os.getpid()}.json"
        (RECORDS / name).write_text(json.dumps(record, indent=1, sort_keys=True))
