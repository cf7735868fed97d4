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

pytestmark = pytest.mark.usefixtures("torch")  # the benchmarks time PyTorch beside lnbook


def load(name: str):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RACE_FIELDS = {"name", "ratio", "shape", "dtype", "compared_with", "threads", "load before",
               "load after", "other processes' CPU", "result", "target", "met"}
CPU_FIELDS = {"cores", "busy, s", "own, s", "wall, s", "steal, cores"}
RMS_NAMES = ["rms_norm vs layer_norm, lnbook, 1 thread", "rms_norm vs layer_norm, torch, 1 thread",
             "rms_norm vs layer_norm, torch, 2 threads"]
RESULT_FIELDS = {"median", "min", "max", "q1", "q3", "rounds", "per round", "seconds per call",
                 "calls per timing"}
MACHINE_FIELDS = {"date", "cpu", "cores", "cores available", "platform", "python", "numpy",
                  "torch", "torch default threads", "mpmath", "lnbook", "lnbook commit",
                  "OpenBLAS variables in the caller's environment",
                  "OpenBLAS variables during the measurement", "numpy BLAS", "lnbook threads",
                  "load before", "load after", "other processes' CPU", "wall time, s", "mode",
                  "command"}


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
                          "rms_norm", "accuracy"}
    # every race at equal thread counts on its two sides
    for key in ("layer_norm", "jacobian"):
        assert [r["threads"]["torch"] for r in res[key]] == [1, 2]
        assert [r["threads"]["lnbook"] for r in res[key]] == [1, 2]
        assert [r["threads"]["numpy BLAS"] for r in res[key]] == [1, 2]
    assert [(r["threads"]["lnbook"], r["threads"]["streaming pass"])
            for r in res["layer_norm_stream"]] == [(1, 1), (2, 2)]
    (op,) = res["operator_norm"]
    assert op["threads"] == {"lnbook": 1, "numpy BLAS (SVD)": 1}
    assert [r["name"] for r in res["rms_norm"]] == RMS_NAMES
    lnbook_rms, *torch_rms = res["rms_norm"]
    assert lnbook_rms["threads"]["lnbook.core"] == 1
    assert lnbook_rms["threads"]["lnbook.rms_norm"].startswith("1 (no threads argument")
    assert [r["threads"]["torch"] for r in torch_rms] == [1, 2]
    races = [r for key in ("layer_norm", "layer_norm_stream", "jacobian", "operator_norm",
                           "rms_norm") for r in res[key]]
    for race in races:
        assert RACE_FIELDS <= race.keys(), race["name"]
        assert RESULT_FIELDS <= race["result"].keys()
        q = race["result"]
        assert q["min"] <= q["q1"] <= q["median"] <= q["q3"] <= q["max"]
        assert len(q["per round"]) == q["rounds"] == data["sizes"]["rounds"]
        assert len(race["load before"]) == 3 and len(race["load after"]) == 3
        assert race["other processes' CPU"].keys() == CPU_FIELDS
        if race["name"] in RMS_NAMES:
            assert race["target"] is None and race["met"] is None
            assert race["ratio"] == "RMSNorm / LayerNorm"
            continue
        bound, comparison = race["target"]["bound"], race["target"]["comparison"]
        assert race["met"] == (q["median"] <= bound if comparison == "<=" else
                               q["median"] >= bound)
    assert data["machine"]["other processes' CPU"].keys() == CPU_FIELDS
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
        assert isinstance(run["other processes' CPU, cores"], float)
        assert isinstance(run["other processes' CPU, most in one race, cores"], float)
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
    # seven races with a target and the accuracy each carry one verdict for the last run
    # (speed table, accuracy line) and one over the two runs (run-to-run table); the three
    # RMSNorm races have none ("—" in both tables)
    assert page.count("**met**") + page.count("**not met**") == 16
    for name in RMS_NAMES:
        assert page.count(f"| {name} |") == 2
        for row in page.split("\n"):
            if row.startswith(f"| {name} |"):
                assert row.endswith("| — | — |"), row
    assert "## Run to run" in page and "Met by the median over the 2 runs" in page


def test_committed_results_are_complete():
    data = json.loads((ROOT / "benchmarks" / "results.json").read_text())
    check_fields(data, "full")
    assert data["machine"]["OpenBLAS variables during the measurement"] == {}
    if data["sizes"]["rounds"] < 9:
        # the page says so ("a trial of the script"); the lead's quiet run replaces it
        assert "a trial of the script" in load("render").render(data)
        pytest.xfail(f"placeholder results: {data['sizes']['rounds']} rounds, until a full run")


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
    (race,) = data["results"]["operator_norm"]
    race["result"]["median"] = 50.0  # run.py's own verdict left as it was
    race["met"] = True
    page = render.render(data)
    assert "operator_norm against the SVD route, 1 thread (50.0×, target ≥ 100×)" in page.split(
        "Not met")[1].split("\n")[0]


def test_verdict_over_runs_is_on_the_median_of_the_runs():
    """Three made-up runs: 300, 200, 50 for the operator norm and 3.0, 3.5, 5.0 against the
    streaming pass (medians 200 and 3.5: met although the last run missed), 1.2, 1.1, 0.9 for
    the layer on two threads (median 1.1: not met although the last run met it)."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    base = data["runs"][-1]
    # every other race meets its target in every made-up run (its bound halved or doubled)
    base = {**base, "medians": {
        r["name"]: (r["target"]["bound"] * (0.5 if r["target"]["comparison"] == "<=" else 2.0)
                    if r["target"] else 1.0) for r in render.races(data["results"])}}
    made = {"operator_norm against the SVD route, 1 thread": (300.0, 200.0, 50.0),
            "layer_norm, 2 threads": (1.2, 1.1, 0.9),
            "layer_norm vs streaming pass, 2 threads": (3.0, 3.5, 5.0)}
    data["runs"] = [{**base, "medians": {**base["medians"],
                                         **{k: v[i] for k, v in made.items()}}}
                    for i in range(3)]
    page = render.render(data)
    table = page.split("## Run to run")[1].split("## Speed")[0]
    assert ("| operator_norm against the SVD route, 1 thread | 300× | 200× | 50.0× | 200× "
            "| ≥ 100× | **met** |") in table
    assert ("| layer_norm, 2 threads | 1.20× | 1.10× | 0.90× | 1.10× | ≤ 1.00× "
            "| **not met** |") in table
    assert "not met by it: layer_norm, 2 threads (see Run to run)" in page


def test_other_processes_cpu_on_given_numbers():
    """(busy - own) / wall: 25 s of busy CPU on the machine, 15 s of it this process's, over
    10 s of wall time, leave 1 core to other processes; steal is reported apart."""
    run = load("run")
    before = {"wall": 100.0, "busy": 1000.0, "own": 50.0, "steal": 3.0}
    after = {"wall": 110.0, "busy": 1025.0, "own": 65.0, "steal": 4.0}
    cpu = run.other_cpu(before, after)
    assert cpu == {"cores": 1.0, "busy, s": 25.0, "own, s": 15.0, "wall, s": 10.0,
                   "steal, cores": 0.1}
    assert run.other_cpu(None, after) is None
    # a sample of this machine: the fields are the seconds the next sample subtracts
    sample = run.cpu_sample()
    assert sample is None or sample.keys() == {"wall", "busy", "steal", "own"}


def _with_other_cpu(data: dict, cores: dict) -> dict:
    """A copy of ``data`` whose races report the given other processes' CPU (0.02 if unnamed)."""
    render = load("render")
    data = json.loads(json.dumps(data))
    for race in render.races(data["results"]):
        race["other processes' CPU"] = {"cores": cores.get(race["name"], 0.02), "busy, s": 0.0,
                                        "own, s": 0.0, "wall, s": 1.0, "steal, cores": 0.0}
    return data


def test_quiet_or_busy_follows_other_processes_cpu_in_the_file():
    """The verdict reads each race's "other processes' CPU", not the load average: quiet at
    0.1 core or less in every race, busy above, naming the race and its figure."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    assert render.QUIET_CORES == 0.1
    for r in render.races(data["results"]):
        r["load before"] = r["load after"] = [9.0, 9.0, 9.0]  # a load the verdict ignores
    quiet = render.render(_with_other_cpu(data, {"jacobian, 2 threads": 0.1}))
    assert ("The machine was quiet: other processes used at most 0.10 cores during any race "
            "of this run.") in quiet
    busy = render.render(_with_other_cpu(data, {"jacobian, 2 threads": 0.37}))
    assert ("The machine was busy: other processes used 0.37 cores during the race jacobian, "
            "2 threads, above 0.1 core.") in busy
    assert "The machine was quiet" not in busy
    line = [x for x in busy.split("\n") if x.startswith("- **jacobian, 2 threads**")][0]
    assert "Other processes' CPU during the race: 0.37 cores." in line


def test_a_race_without_target_has_no_verdict():
    """RMSNorm against LayerNorm: "—" for target and verdict, its ratio and saving in the
    summary, and not drawn in the figure (which draws races against their targets)."""
    render = load("render")
    data = json.loads(render.RESULTS.read_text())
    first = data["results"]["rms_norm"][0]
    first["result"]["median"] = 0.8
    page = render.render(data)
    assert f"{first['name']}: 0.80× (saving 20 %)" in page
    first["result"]["median"] = 1.25
    assert f"{first['name']}: 1.25× (no saving: 25 % more time)" in render.render(data)
    first["result"]["median"] = 0.8
    row = [x for x in page.split("## Speed")[1].split("\n") if x.startswith(f"| {first['name']} |")]
    assert row[0].endswith("| — | — |")
    from lnbook import figures
    assert set(figures.benchmark_ratios_data(data)["names"]).isdisjoint(RMS_NAMES)
    assert all(r["name"] not in page.split(":alt:")[1].split("\n")[0] for r in
               data["results"]["rms_norm"])


def test_render_knows_the_full_run_and_the_static_page_says_what_run_does():
    """render.py's count of a full run's rounds is run.py's; the page's static text names the
    settings run.py uses (rounds, minimum time, thread counts, the quiet threshold)."""
    run, render = load("run"), load("render")
    assert render.FULL_ROUNDS == run.FULL["rounds"] == 15
    assert run.FULL["min time"] == 0.1 and run.THREAD_COUNTS == (1, 2)
    page = (ROOT / "book" / "benchmarks.md").read_text()
    text = " ".join(page.split())
    assert "(15 by default)" in text and "(100 ms in a full run:" in text
    assert "for n = 1 and n = 2" in text
    assert f"at or below {render.QUIET_CORES:g} core in every race" in text
    from lnbook import _kernel

    assert _kernel._BLOCK * 8 == 2 * 2**20 and "blocks of about 2 MiB" in text
