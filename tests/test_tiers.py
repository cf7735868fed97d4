"""The test command's own machinery (tools/tiers.py): its arguments, its counts, its refusal
to run the site tier without Chromium, and its search for processes a tier left running."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lnbook_tiers", ROOT / "tools" / "tiers.py")
assert _spec is not None and _spec.loader is not None
tiers = importlib.util.module_from_spec(_spec)
sys.modules["lnbook_tiers"] = tiers  # tools/ is not a package; its dataclass looks itself up
_spec.loader.exec_module(tiers)


@pytest.mark.parametrize(("argv", "parsed"), [
    ([], (None, set(), [])),
    (["fast", "-k", "eps"], ("fast", set(), ["-k", "eps"])),
    (["--skip", "site"], (None, {"site"}, [])),
    (["--skip=site,binder", "--", "-x"], (None, {"site", "binder"}, ["-x"])),
    (["--skip", "site", "--skip", "book", "-k", "eps"], (None, {"site", "book"}, ["-k", "eps"])),
])
def test_arguments(argv, parsed):
    assert tiers.parse(argv) == parsed


def test_unknown_tier_after_skip_is_refused():
    with pytest.raises(SystemExit, match="--skip sight: no such tier"):
        tiers.parse(["--skip", "sight"])
    with pytest.raises(SystemExit, match="not with one tier"):
        tiers.parse(["--skip", "site", "fast"])


def test_counts_from_a_junit_report(tmp_path):
    """passed = tests - skipped - failures - errors, summed over the suites."""
    report = tmp_path / "junit.xml"
    report.write_text('<testsuites><testsuite tests="10" skipped="2" failures="1" errors="1"/>'
                      '<testsuite tests="5" skipped="0" failures="0" errors="0"/></testsuites>')
    # 10 - 2 - 1 - 1 = 6 in the first suite, 5 in the second
    assert tiers.junit_counts(report) == {"passed": 11, "skipped": 2, "failed": 2}


def test_missing_chromium_is_named_when_not_root(monkeypatch, tmp_path):
    monkeypatch.setattr(tiers, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setattr(tiers.os, "geteuid", lambda: 1000)
    with pytest.raises(SystemExit, match=r"apt-get install -y chromium[\s\S]*--skip site"):
        tiers.ensure_chromium()


def test_a_process_left_in_a_session_is_found():
    """A process started in a new session is listed until it ends."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                               start_new_session=True)
    try:
        time.sleep(0.2)
        found = tiers.session_processes(sleeper.pid)
        assert [line.split()[0] for line in found] == [str(sleeper.pid)], found
    finally:
        sleeper.kill()
        sleeper.wait()
    assert tiers.session_processes(sleeper.pid) == []


# a child that burns 0.6 s of CPU and that its parent never reaps: the parent waits for the
# end of a pipe the child holds (EOF when the child has exited), then exits without wait()
ORPHAN = ("import os, time\n"
          "r, w = os.pipe()\n"
          "if os.fork() == 0:\n"
          "    os.close(r)\n"
          "    end = time.process_time() + 0.6\n"
          "    while time.process_time() < end:\n"
          "        pass\n"
          "    os._exit(0)\n"
          "os.close(w)\n"
          "os.read(r, 1)\n"
          "os._exit(0)\n")


def test_cpu_of_a_process_that_outlives_its_parent(tmp_path):
    """The summary's CPU time counts processes that their parent never reaps (Chromium's under
    pytest-playwright: 161 s of rusage against 753 s measured), or says it is a lower bound.
    On a machine that allows no control group, the fallback is checked: labelled, not exact."""
    meter = tiers.CpuMeter("test")
    try:
        if meter.exact:
            subprocess.run(meter.wrap([sys.executable, "-c", ORPHAN]), check=True)
            # the child's 0.6 s is in the group, though nothing waited for it
            assert meter.seconds() >= 0.55
    finally:
        meter.close()
    tiers.CpuMeter.V1 = tiers.CpuMeter.V2 = tmp_path  # no control group here
    try:
        fallback = tiers.CpuMeter("test")
        assert not fallback.exact and fallback.seconds() is None
        assert fallback.wrap(["true"]) == ["true"]
        line = tiers.Result("fast", cpu=1.0, cpu_exact=fallback.exact).line()
        assert line.endswith("s CPU or more (reaped processes only)")
    finally:
        tiers.CpuMeter.V1 = pathlib.Path("/sys/fs/cgroup/cpuacct")
        tiers.CpuMeter.V2 = pathlib.Path("/sys/fs/cgroup")


def test_no_test_of_this_session_takes_torch_unless_slow(request):
    """Every test that takes the torch fixture is marked slow (tests/conftest.py), so the
    fast tier, which deselects slow tests, never imports PyTorch."""
    unmarked = [item.nodeid for item in request.session.items
                if "torch" in getattr(item, "fixturenames", ())
                and item.get_closest_marker("slow") is None]
    assert not unmarked, unmarked


def test_a_lowered_command_runs_niced_in_a_niced_autogroup():
    """The full command's lower streams: the process and its session's autogroup at LOWER
    (a kernel without autogroups has no /proc/self/autogroup: only the nice value counts)."""
    group = pathlib.Path("/proc/self/autogroup")
    probe = [sys.executable, "-c",
             "import os, pathlib; print(os.nice(0)); "
             f"print(pathlib.Path('{group}').read_text().split()[-1])" if group.exists()
             else "import os; print(os.nice(0))"]
    base = os.nice(0)  # the tier may itself run lowered: nice -n adds to it, capped at 19
    for nice in (tiers.LOWER, 0):
        # a new session starts a new autogroup, at nice 0 unless lowered() writes its own
        expected = [str(min(base + nice, 19)), str(nice)][:2 if group.exists() else 1]
        out = subprocess.run(tiers.lowered(probe, nice), start_new_session=True,
                             capture_output=True, text=True, check=True).stdout.split()
        assert out == expected, (nice, out)


@pytest.mark.parametrize("codes, checked, failed, commands", [
    ((0, 0), True, [], 2),
    ((0, 1), True, ["verification-check"], 2),
    ((1,), True, ["verification-page"], 1),
    ((0,), False, [], 1),  # a failed run's page shows the failures: nothing to check
])
def test_the_written_results_are_checked_after_a_passing_run(monkeypatch, codes, checked,
                                                              failed, commands):
    """The full command rewrites the results file and its page, then (after a passing run) runs
    tests/verification on them, without the run's id, and fails when either step fails."""
    calls = []

    def run(command, cwd, env):
        calls.append((command, env))
        return subprocess.CompletedProcess(command, codes[len(calls) - 1])

    monkeypatch.setattr(tiers.subprocess, "run", run)
    assert tiers.publish({"LNBOOK_RUN_ID": "R1", "LNBOOK_STRICT": "1"}, checked) == failed
    assert len(calls) == commands
    assert calls[0][0][1:] == ["tests/verification/build.py", "--run", "R1"]
    if commands == 2:
        assert calls[1][0][-1] == "tests/verification" and "pytest" in calls[1][0]
        assert calls[1][1] == {"LNBOOK_STRICT": "1"}


def test_streams_lowered_together_each_get_their_autogroup():
    """Without CAP_SYS_ADMIN (a container's root: CI) the kernel refuses all but one autogroup
    write per 100 ms; lowered() tries again, so three streams started at once all end up at
    LOWER (with one write each, two stayed at 0: checked). As root, setpriv drops the
    capability; a kernel without autogroups has nothing to check."""
    group = pathlib.Path("/proc/self/autogroup")
    if not group.exists():
        return
    drop = ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"] \
        if os.geteuid() == 0 else []
    probe = ["/bin/sh", "-c", f"cat {group}"]
    runs = [subprocess.Popen(drop + tiers.lowered(probe, tiers.LOWER), start_new_session=True,
                             stdout=subprocess.PIPE, text=True) for _ in range(3)]
    assert [run.communicate()[0].split()[-1] for run in runs] == [str(tiers.LOWER)] * 3
