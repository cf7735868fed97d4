"""The benchmark runs and records every field; the page's generated part is its results file.

No timing is asserted here: the tiny mode runs each race on toy sizes for two rounds, only to
show that the script works end to end and writes a complete results file.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytest.importorskip("torch")


def load(name: str):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RACE_FIELDS = {"name", "ratio", "shape", "dtype", "compared_with", "threads", "load before",
               "load after", "result", "target", "met"}
RESULT_FIELDS = {"median", "min", "max", "q1", "q3", "rounds", "per round", "seconds per call",
                 "calls per timing"}
MACHINE_FIELDS = {"date", "cpu", "cores", "cores available", "platform", "python", "numpy",
                  "torch", "torch default threads", "mpmath", "lnbook", "lnbook commit",
                  "OpenBLAS variables in the caller's environment",
                  "OpenBLAS variables during the measurement", "numpy BLAS", "lnbook threads",
                  "load before", "load after", "wall time, s", "mode", "command"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny run as a separate process, with the OpenBLAS variables set by its caller."""
    out = tmp_path_factory.mktemp("bench")
    results, page, fig = out / "results.json", out / "page.md", out / "ratios.svg"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
           "OPENBLAS_CORETYPE": "Haswell"}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--tiny",
                           "--runs", "2", "--results", str(results), "--page", str(page),
                           "--figure", str(fig)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert fig.read_bytes().startswith(b"<?xml")
    return json.loads(results.read_text()), page.read_text()


def check_fields(data: dict, mode: str) -> None:
    assert MACHINE_FIELDS <= data["machine"].keys()
    assert data["machine"]["mode"] == mode
    assert {"kernel", "threads", "source"} <= data["machine"]["numpy BLAS"].keys()
    res = data["results"]
    assert res.keys() == {"layer_norm", "layer_norm_stream", "jacobian", "operator_norm",
                          "accuracy"}
    for key in ("layer_norm", "jacobian"):
        assert [r["threads"]["torch"] for r in res[key]] == [1, 2]
    races = [*res["layer_norm"], res["layer_norm_stream"], *res["jacobian"],
             res["operator_norm"]]
    for race in races:
        assert RACE_FIELDS <= race.keys(), race["name"]
        assert RESULT_FIELDS <= race["result"].keys()
        q = race["result"]
        assert q["min"] <= q["q1"] <= q["median"] <= q["q3"] <= q["max"]
        assert len(q["per round"]) == q["rounds"] == data["sizes"]["rounds"]
        assert len(race["load before"]) == 3 and len(race["load after"]) == 3
        bound, comparison = race["target"]["bound"], race["target"]["comparison"]
        assert race["met"] == (q["median"] <= bound if comparison == "<=" else
                               q["median"] >= bound)
    acc = res["accuracy"]
    assert len(acc["rows"]) == len(data["sizes"]["spreads"])
    for row in acc["rows"]:
        assert len(row["lnbook"]) == len(row["torch"]) == len(acc["offsets"])
    assert acc["met"] == (acc["worst"]["lnbook"] <= acc["target"]["bound"])
    # every run in brief; the last one is the run recorded in full
    assert data["runs"]
    for run in data["runs"]:
        assert run["medians"].keys() == {r["name"] for r in races}
        assert len(run["load before"]) == len(run["load after"]) == 3
    last = data["runs"][-1]
    assert last["medians"] == {r["name"]: r["result"]["median"] for r in races}
    assert last["accuracy, worst ulp"] == acc["worst"]["lnbook"]


def test_tiny_run_writes_every_field(tiny):
    data, page = tiny
    check_fields(data, "tiny")
    assert data["sizes"]["rounds"] == 2
    assert len(data["runs"]) == 2 and data["machine"]["command"].endswith("--tiny --runs 2")
    # the caller's OpenBLAS variable was removed before numpy loaded, and recorded
    m = data["machine"]
    assert m["OpenBLAS variables in the caller's environment"] == {"OPENBLAS_CORETYPE": "Haswell"}
    assert m["OpenBLAS variables during the measurement"] == {}
    assert "run.py` removed them" in page


def test_tiny_page_part_is_rendered_from_its_results(tiny):
    data, page = tiny
    assert page == load("render").render(data)
    # every race and its verdict appear
    for race in [*data["results"]["layer_norm"], *data["results"]["jacobian"]]:
        assert race["name"] in page
    # six races and the accuracy each carry one verdict for the last run (speed table,
    # accuracy line) and one over the two runs (run-to-run table)
    assert page.count("**met**") + page.count("**not met**") == 14
    assert "## Run to run" in page and "Met by the median over the 2 runs" in page


def test_committed_results_are_complete():
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    check_fields(data, "full")
    assert data["sizes"]["rounds"] >= 9
    assert data["machine"]["OpenBLAS variables during the measurement"] == {}


def test_page_part_matches_committed_results():
    """The page cannot go stale: its generated part is a function of results.json."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    assert render.PAGE_PART.read_text() == render.render(data)
    assert render.FIGURE.read_bytes() == render.figure_svg(data)
    assert f"```{{figure}} _generated/{render.FIGURE.name}" in render.PAGE_PART.read_text()
    assert "```{include} _generated/benchmarks_results.md" in (
        ROOT / "book" / "benchmarks.md").read_text()


def test_render_reports_verdicts_from_the_data():
    """Flip one verdict in a copy of the results: the summary sentence follows the data."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    race = data["results"]["operator_norm"]
    race["result"]["median"] = 50.0  # run.py's own verdict ("met") left as it was
    page = render.render(data)
    assert "operator_norm against the SVD route (50.0×, target ≥ 100×)" in page.split(
        "Not met")[1].split("\n")[0]


def test_verdict_over_runs_is_on_the_median_of_the_runs():
    """Three made-up runs: 300, 200, 50 for the operator norm and 3.0, 3.5, 5.0 against the
    streaming pass (medians 200 and 3.5: met although the last run missed), 1.2, 1.1, 0.9 for
    the layer on two threads (median 1.1: not met although the last run met it)."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    base = data["runs"][-1]
    made = {"operator_norm against the SVD route": (300.0, 200.0, 50.0),
            "layer_norm, 2 threads": (1.2, 1.1, 0.9),
            "layer_norm against one streaming pass": (3.0, 3.5, 5.0)}
    data["runs"] = [{**base, "medians": {**base["medians"],
                                         **{k: v[i] for k, v in made.items()}}}
                    for i in range(3)]
    page = render.render(data)
    table = page.split("## Run to run")[1].split("## Speed")[0]
    assert ("| operator_norm against the SVD route | 300× | 200× | 50.0× | 200× | ≥ 100× "
            "| **met** |") in table
    assert ("| layer_norm, 2 threads | 1.20× | 1.10× | 0.90× | 1.10× | ≤ 1.00× "
            "| **not met** |") in table
    assert "not met by it: layer_norm, 2 threads (see Run to run)" in page
