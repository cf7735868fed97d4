"""The benchmark runs end to end and the page is a function of its results. No timing is
asserted: the tiny mode runs each race on toy sizes for two rounds, only to show that the
script works and writes a complete results file, from which the page's part is rendered."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RACES = ["layer_norm", "layer_norm vs streaming pass", "jacobian",
         "operator_norm against the SVD route", "rms_norm vs layer_norm, lnbook",
         "rms_norm vs layer_norm, torch"]


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny(torch, tmp_path_factory):
    """One tiny run of two runs, in a separate process, with an OpenBLAS variable set by its
    caller."""
    out = tmp_path_factory.mktemp("bench")
    files = {"results": out / "results.json", "page": out / "page.md", "figure": out / "r.svg"}
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--tiny",
                           "--runs", "2", *[f"--{k}={v}" for k, v in files.items()]],
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "OPENBLAS_CORETYPE": "Haswell"},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert files["figure"].read_bytes().startswith(b"<?xml")
    return json.loads(files["results"].read_text()), files["page"].read_text()


def check_fields(data: dict) -> None:
    """Every race has its sides, its per-round ratios and its verdict; every run its
    medians; the OpenBLAS variables were removed during the measurement."""
    render = load("render")
    assert [r["name"] for r in render.races(data["results"])] == RACES
    for r in render.races(data["results"]):
        q = r["result"]
        assert q["min"] <= q["q1"] <= q["median"] <= q["q3"] <= q["max"]
        assert len(q["per round"]) == q["rounds"] == data["sizes"]["rounds"]
        assert r["met"] == (None if r["target"] is None else render.met(q["median"], r["target"]))
    acc = data["results"]["accuracy"]
    assert [len(row["lnbook"]) for row in acc["rows"]] == [len(acc["offsets"])] * len(acc["rows"])
    assert data["runs"][-1]["medians"] == {r["name"]: r["result"]["median"]
                                           for r in render.races(data["results"])}
    assert data["machine"]["OpenBLAS variables during the measurement"] == {}


def test_the_tiny_run_writes_every_field_and_its_page(tiny):
    data, page = tiny
    check_fields(data)
    assert data["machine"]["mode"] == "tiny" and len(data["runs"]) == 2
    assert data["machine"]["OpenBLAS variables in the caller's environment"] == {
        "OPENBLAS_CORETYPE": "Haswell"} and "`run.py` removed them" in page
    assert page == load("render").render(data)
    # five verdicts of the last run, five over the runs; the RMSNorm races have none
    assert page.count("**met**") + page.count("**not met**") == 10
    assert "## Run to run" in page and "| rms_norm vs layer_norm, torch |" in page


def test_the_page_is_its_committed_results():
    """The page cannot go stale: its generated part and figure are functions of the file."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    check_fields(data)
    assert data["machine"]["mode"] == "full" and data["sizes"]["rounds"] == 15
    assert render.PAGE_PART.read_text() == render.render(data)
    assert render.FIGURE.read_bytes() == render.figure_svg(data)
    assert "```{include} _generated/benchmarks_results.md" in (
        ROOT / "book" / "benchmarks.md").read_text()


def test_verdicts_follow_the_data():
    """Made-up runs: the operator norm at 300×, 200×, 50× against ≥ 100× is met on the median
    of the runs although the last run missed; a median moved to 50× flips the summary; other
    processes at 0.37 cores in one race make the machine busy, naming the race."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    (race,) = data["results"]["operator_norm"]
    data["runs"] = [{**data["runs"][-1], "medians": {**data["runs"][-1]["medians"],
                                                      race["name"]: v}} for v in (300, 200, 50)]
    page = render.render(data)
    assert f"| {race['name']} | 300× | 200× | 50.0× | 200× | ≥ 100× | **met** |" in page
    race["result"]["median"] = 50.0
    for r in render.races(data["results"]):
        r["other processes' CPU"]["cores"] = 0.37 if r is race else 0.02
    page = render.render(data)
    assert f"{race['name']} (50.0×, target ≥ 100×)" in page.split("Not met")[1].split("\n")[0]
    assert f"other processes used 0.37 cores during the race {race['name']}" in page


def test_other_processes_cpu_on_given_numbers():
    """(busy - own) / wall: 25 s of busy CPU, 15 s of it this process's, over 10 s of wall
    time, leave 1 core to other processes."""
    run = load("run")
    cpu = run.other_cpu({"wall": 100.0, "busy": 1000.0, "own": 50.0},
                        {"wall": 110.0, "busy": 1025.0, "own": 65.0})
    assert cpu == {"cores": 1.0, "busy, s": 25.0, "own, s": 15.0, "wall, s": 10.0}
    assert run.other_cpu(None, cpu) is None


def test_the_static_page_says_what_run_does():
    """The page's hand-written text names run.py's settings: 15 rounds, 100 ms, one thread,
    the 0.1-core threshold of a quiet machine."""
    run, render = load("run"), load("render")
    assert run.FULL["rounds"] == 15 and run.FULL["min time"] == 0.1
    text = " ".join((ROOT / "book" / "benchmarks.md").read_text().split())
    assert "(15 by default)" in text and "(100 ms in a full run" in text
    assert "every race runs on one thread" in text
    assert f"at or below {render.QUIET_CORES:g} core in every race" in text
