"""Run the test tiers: what ``tools/test`` runs once the environment exists.

Usage (through tools/test, which first creates .venv with tools/setup-env):

    tools/test [--skip TIER ...]            every tier; the ones named after --skip are left out
    tools/test TIER [pytest args]           one tier: lint | fast | slow | book | site | binder
    tools/test [--skip TIER ...] -- ARGS    every tier, ARGS passed to each pytest tier

The full command runs the tiers side by side, as independent streams that keep both cores busy
(measured in the README): the site build, then the site tier (the longest, at normal priority);
and at a lower priority the book tier; the binder tier; lint, then fast, then slow. Each tier's
output is printed when it ends (never interleaved), then one summary line per tier: its passed,
skipped and failed counts (from pytest's JUnit XML report), its wall-clock time and the CPU time
of its processes. Every skip prints its reason (``-rfEs``). In the full command a test that
skips for a missing dependency fails (``LNBOOK_STRICT=1``: tests/conftest.py turns every skip
that is not declared there into a failure), so a tier cannot pass without having run; ``--skip
TIER`` is how a tier is left out, and the summary says so. A full run without ``--skip`` then
rewrites the verification page's results (tests/verification/build.py) and, when every tier
passed, runs tests/verification on what it has just written.

Each tier's processes see its name in ``LNBOOK_TIER``. Each tier runs in a session of its own
(setsid); a process of that session still running when
the tier ends fails the tier, is named and is ended. The site tier needs Debian's Chromium at
/usr/bin/chromium: when it is missing, the command installs it with apt-get (as root) or stops
before running anything, naming the package and the command to install it.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() \
    else sys.executable
TIERS = ("lint", "fast", "slow", "book", "site", "binder")
CHROMIUM = pathlib.Path("/usr/bin/chromium")
# the full command's streams: each runs its tiers one after the other, all streams at once.
# The first is the longest (the build, then the site tier: about 400 s alone on 2 cores); the
# others run at a lower priority (LOWER), so that it gets the CPU it can use and they take the
# rest, instead of each stream getting an equal share and the longest ending last
STREAMS = (("build", "site"), ("book",), ("binder",), ("lint", "fast", "slow"))
LOWER = 10  # nice value; each tier is a session (an autogroup) of its own, so both are set


def cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def pytest(*args: str) -> list[str]:
    return [PY, "-m", "pytest", "-rfEs", *args]


def commands(tier: str, extra: list[str]) -> list[list[str]]:
    """The commands of a tier, run one after the other (pytest ones get a JUnit report)."""
    n = str(cpus())
    if tier == "lint":
        return [[PY, "-m", "ruff", "check", "."], [PY, "-m", "mypy"],
                [str(pathlib.Path(PY).parent / "zizmor"), "--offline", "--no-progress",
                 ".github/workflows"],
                [PY, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                 *map(str, sorted((ROOT / ".github" / "workflows").glob("*.yml")))],
                [PY, "-m", "check_jsonschema", "--builtin-schema", "vendor.citation-file-format",
                 "CITATION.cff"]]
    if tier == "fast":
        # only the files of this tier are collected (collecting the others imports JAX,
        # playwright and every notebook: 3 s); one pytest-xdist worker per core, each taking
        # the next test when it is free (measured alone here: 18 s wall and 31 CPU-s against
        # one process's 25 s and 24 CPU-s)
        return [pytest(*fast_files(), "-m", "not slow and not book and not site and not binder",
                       "-p", "no:playwright", "-p", "no:base_url", "-n", n,
                       "--dist", "worksteal", *extra)]
    if tier == "slow":
        # one process: two pytest-xdist workers cost 65 CPU-s against 55 (15 s less wall-clock
        # time alone, measured under load; beside the other tiers the CPU counts)
        return [pytest("tests", "-m", "slow", "-p", "no:xdist", *extra)]
    if tier == "book":
        return [pytest("tests/test_notebooks.py", "tests/test_portability.py", *extra)]
    if tier == "site":
        # the browser tests, and the PDF's checks (tests/pdf/test_pdf.py, on the PDF that
        # tools/build-site built beside the HTML)
        return [pytest("tests/site", "tests/pdf/test_pdf.py", "-n", n, "--dist", "loadscope",
                       *extra)]
    if tier == "binder":
        return [pytest("tests/test_binder.py", *extra)]
    if tier == "build":
        return [["tools/build-site"]]
    raise ValueError(f"unknown tier {tier!r} (one of: {', '.join(TIERS)})")


def _conftest():
    sys.path.insert(0, str(ROOT / "tests"))
    import conftest

    return conftest


def site_is_stale() -> str | None:
    return _conftest().site_is_stale()


def fast_files() -> list[str]:
    """lnbook/ and the test files no other tier claims (tests/conftest.py's TIER_OF_FILE)."""
    claimed = _conftest().TIER_OF_FILE
    return (["lnbook"] + [f"tests/{p.name}" for p in sorted((ROOT / "tests").glob("test_*.py"))
                          if p.name not in claimed]
            # the verification page against its results file; what the PDF cannot carry
            + ["tests/verification", "tests/pdf/test_pdf_sources.py"])


def ensure_chromium() -> None:
    """Install Debian's Chromium when it is missing and we are root; otherwise stop, naming it."""
    if CHROMIUM.exists():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"tools/test: {CHROMIUM} is missing: installing Debian's chromium (apt-get)",
              flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], check=True, env=env)
        if CHROMIUM.exists():
            return
    raise SystemExit(
        f"tools/test: the site tier needs Debian's Chromium at {CHROMIUM}, which is missing.\n"
        "  Install it (as root): apt-get install -y chromium\n"
        "  or leave the tier out: tools/test --skip site")


class CpuMeter:
    """The CPU time of a tier's processes, those that outlive their parents included.

    The processes a tier starts that are never reaped by their parent (Chromium's, which
    pytest-playwright's driver leaves to init) are missing from the rusage of the reaped ones:
    measured on the site tier, 161 s of rusage against 753 s of CPU. So, where this process
    may create a control group (root, cgroup v1's cpuacct or cgroup v2 writable), each command
    runs in a group of its own and the group's CPU time is read when it ends; otherwise the
    rusage of the reaped processes is taken, and the summary says that it is a lower bound.
    """

    V1 = pathlib.Path("/sys/fs/cgroup/cpuacct")
    V2 = pathlib.Path("/sys/fs/cgroup")

    def __init__(self, name: str):
        self.group: pathlib.Path | None = None
        for root, usage in ((self.V1, "cpuacct.usage"), (self.V2, "cpu.stat")):
            # a cgroup root: v1's cpuacct hierarchy, or the unified (v2) one
            if not (root / "cgroup.procs").exists() or (
                    root == self.V2 and not (root / "cgroup.controllers").exists()):
                continue
            group = root / f"lnbook-{name}-{os.getpid()}"
            try:
                group.mkdir(exist_ok=True)
                if (group / usage).exists():
                    self.group, self.usage = group, usage
                    break
                group.rmdir()
            except OSError:
                continue

    @property
    def exact(self) -> bool:
        return self.group is not None

    def wrap(self, command: list[str]) -> list[str]:
        """``command``, started inside the group (it moves itself in before it runs)."""
        if self.group is None:
            return command
        procs = self.group / "cgroup.procs"
        return ["/bin/sh", "-c", f'echo $$ > "{procs}" && exec "$@"', "sh", *command]

    def seconds(self) -> float | None:
        if self.group is None:
            return None
        text = (self.group / self.usage).read_text()
        if self.usage == "cpuacct.usage":
            return int(text) / 1e9
        fields = dict(line.split() for line in text.splitlines())
        return int(fields["usage_usec"]) / 1e6

    def close(self) -> None:
        """Remove the group; a process that has just exited may hold it for a moment."""
        for _ in range(50) if self.group is not None else ():
            try:
                self.group.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)


@dataclass
class Result:
    tier: str
    returncode: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    cpu_exact: bool = True  # False: the rusage of reaped processes only (a lower bound)
    counts: dict[str, int] = field(default_factory=dict)
    log: str = ""
    leftovers: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.leftovers

    def line(self) -> str:
        c = self.counts
        counts = f"{c.get('passed', 0)} passed, {c.get('skipped', 0)} skipped, " \
                 f"{c.get('failed', 0)} failed"
        verdict = "ok" if self.ok else "FAILED"
        bound = "" if self.cpu_exact else " or more (reaped processes only)"
        return f"{self.tier:7} {verdict:6} {counts:38} {self.wall:6.0f} s wall " \
               f"{self.cpu:6.0f} s CPU{bound}"


def junit_counts(path: pathlib.Path) -> dict[str, int]:
    """passed, skipped, failed (failures and errors) of a pytest JUnit XML report."""
    root = ElementTree.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    tests = sum(int(s.get("tests", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    return {"passed": tests - skipped - failed, "skipped": skipped, "failed": failed}


def session_processes(sid: int) -> list[str]:
    """"PID command" of the live processes of session ``sid`` (from /proc)."""
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            fields = text[text.rindex(")") + 2:].split()
            if int(fields[3]) != sid or fields[0] in ("Z", "X"):
                continue
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError, IndexError):
            continue
        found.append(f"{stat.parent.name} {command.decode(errors='replace')[:200]}")
    return found


def lowered(command: list[str], nice: int) -> list[str]:
    """``command`` at a lower priority: its session's autogroup set to ``nice`` and the process
    niced by ``nice``. Without CAP_SYS_ADMIN (a container's root) the kernel takes one autogroup
    write per 100 ms on the whole machine and refuses the others (EAGAIN): the streams start
    together, so the write is tried again, for at most 2 s."""
    if not nice:
        return command
    group = "/proc/self/autogroup"
    return ["/bin/sh", "-c",
            f'if [ -w {group} ]; then i=0; until echo {nice} > {group}; do i=$((i + 1)); '
            f'[ $i -ge 20 ] && break; sleep 0.1; done 2>/dev/null; fi; '
            f'exec nice -n {nice} "$@"', "sh", *command]


def run_tier(tier: str, extra: list[str], env: dict[str, str], stream: bool,
             nice: int = 0) -> Result:
    """Run a tier's commands in a new session; collect counts, times and leftovers."""
    result = Result(tier)
    start = time.monotonic()
    log_lines: list[str] = []
    meter = CpuMeter(tier)
    result.cpu_exact = meter.exact
    with tempfile.TemporaryDirectory(prefix=f"lnbook-{tier}-") as tmp:
        for i, command in enumerate(commands(tier, extra)):
            report = pathlib.Path(tmp) / f"junit-{i}.xml"
            if "pytest" in command:
                command = [*command, f"--junitxml={report}", "-o", "junit_family=xunit2"]
            process = subprocess.Popen(meter.wrap(lowered(command, nice)), cwd=ROOT,
                                       env={**env, "LNBOOK_TIER": tier},
                                       start_new_session=True,
                                       stdout=None if stream else subprocess.PIPE,
                                       stderr=subprocess.STDOUT, text=True)
            if not stream:
                out = process.stdout
                assert out is not None
                log_lines.append(out.read())
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            time.sleep(0.5)  # processes of the session still shutting down
            left = session_processes(process.pid)
            for entry in left:
                try:
                    os.kill(int(entry.split()[0]), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            result.leftovers += left
            # the group's CPU time so far (every command of the tier ran in it), else the
            # reaped processes'
            measured = meter.seconds()
            result.cpu = measured if measured is not None else \
                result.cpu + usage.ru_utime + usage.ru_stime
            if report.exists():
                for key, value in junit_counts(report).items():
                    result.counts[key] = result.counts.get(key, 0) + value
            elif "pytest" not in command:
                key = "passed" if process.returncode == 0 else "failed"
                result.counts[key] = result.counts.get(key, 0) + 1
            if process.returncode != 0:
                result.returncode = process.returncode
                if tier == "build":
                    break
    meter.close()
    result.wall = time.monotonic() - start
    result.log = "".join(log_lines)
    if result.leftovers:
        result.log += (f"tools/test: tier {tier} left processes running (ended now):\n  "
                       + "\n  ".join(result.leftovers) + "\n")
    return result


def environment(strict: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE",
                                                             "OPENBLAS_L2_SIZE")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["LNBOOK_SITE_TIER"] = "1"  # the site tier's tests run (or fail) on the build it made
    if strict:
        env["LNBOOK_STRICT"] = "1"
    return env


def parse(argv: list[str]) -> tuple[str | None, set[str], list[str]]:
    skip: set[str] = set()
    args = list(argv)
    while args and args[0] in ("--skip",) or (args and args[0].startswith("--skip=")):
        option = args.pop(0)
        value = option.split("=", 1)[1] if "=" in option else (args.pop(0) if args else "")
        for name in filter(None, value.split(",")):
            if name not in TIERS:
                raise SystemExit(f"tools/test: --skip {name}: no such tier "
                                 f"(one of: {', '.join(TIERS)})")
            skip.add(name)
    if args and args[0] in TIERS:
        if skip:
            raise SystemExit("tools/test: --skip goes with the full command, not with one tier")
        return args[0], skip, args[1:]
    if args and args[0] == "--":
        args = args[1:]
    return None, skip, args


def one_tier(tier: str, extra: list[str]) -> int:
    if tier == "site":
        ensure_chromium()
        reason = site_is_stale()
        if reason:
            print(f"tools/test: {reason}: building the site", flush=True)
            build = run_tier("build", [], environment(False), stream=True)
            if not build.ok:
                print(f"tools/test: {build.line()}")
                return 1
    result = run_tier(tier, extra, environment(False), stream=True)
    print(result.log, end="")
    print(f"tools/test: {result.line()}")
    return 0 if result.ok else 1


def every_tier(skip: set[str], extra: list[str]) -> int:
    if "site" not in skip:
        ensure_chromium()
    build_needed = "site" not in skip and site_is_stale()
    env = environment(strict=True)
    # one id for every test session of this full run: each records what it established
    # (tests/verification/record.py), and the verification page is rebuilt from those records
    env["LNBOOK_RUN_ID"] = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{os.getpid()}"
    results: dict[str, Result] = {}
    lock = threading.Lock()
    start = time.monotonic()

    def stream(tiers: tuple[str, ...]) -> None:
        nice = 0 if tiers == STREAMS[0] else LOWER
        for tier in tiers:
            if tier in skip or (tier == "build" and not build_needed):
                continue
            if tier == "site" and "build" in results and not results["build"].ok:
                results["site"] = Result("site", returncode=1,
                                         log="tools/test: the site build failed\n")
                continue
            result = run_tier(tier, [] if tier == "build" else extra, env, stream=False, nice=nice)
            with lock:
                results[tier] = result
                print(f"=== tools/test: tier {tier} ({result.wall:.0f} s)\n{result.log}",
                      end="", flush=True)

    threads = [threading.Thread(target=stream, args=(s,)) for s in STREAMS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - start
    print("tools/test: tier    result passed/skipped/failed                     wall        CPU")
    for tier in ("build", *TIERS):
        if tier in results:
            print(f"tools/test: {results[tier].line()}")
        elif tier in skip:
            print(f"tools/test: {tier:7} not run: left out (--skip {tier})")
    bound = "" if all(r.cpu_exact for r in results.values()) else \
        " or more (reaped processes only: this machine allows no control group)"
    print(f"tools/test: {wall:.0f} s in all, {sum(r.cpu for r in results.values()):.0f} s CPU"
          f"{bound} on {cpus()} CPUs (load average {os.getloadavg()[0]:.1f} at the end)")
    failed = [t for t, r in results.items() if not r.ok]
    if not skip:
        failed += publish(env, checked=not failed)
    if failed:
        print(f"tools/test: FAILED tiers: {' '.join(failed)}", flush=True)
    else:
        left_out = f" (left out: {', '.join(sorted(skip))})" if skip else ""
        print(f"tools/test: every tier passed{left_out}")
    total = {k: sum(r.counts.get(k, 0) for r in results.values())
             for k in ("passed", "failed", "skipped")}
    # a tier that failed with no failed test (a leftover process, a crash) counts as one
    total["failed"] += sum(1 for r in results.values() if not r.ok and not r.counts.get("failed"))
    total["failed"] += sum(1 for step in failed if step not in results)  # the page or its check
    # the closing line, in the plain form CI reads
    print(f"total: {total['passed']} passed, {total['failed']} failed, "
          f"{total['skipped']} skipped")
    return 1 if failed else 0


def publish(env: dict[str, str], checked: bool) -> list[str]:
    """What this full run established, passed or not, for the book's verification page: rewrite
    tests/verification/results.json and book/_generated/verification_results.md (commit both
    after a passing run). After a passing run (``checked``), the fast tier's checks of that pair
    run again on what was just written, so that a results file the fast tier would refuse fails
    this run, not the next one. Returns the names of the steps that failed."""
    page = subprocess.run([PY, "tests/verification/build.py", "--run", env["LNBOOK_RUN_ID"]],
                          cwd=ROOT, env=env)
    if page.returncode:
        return ["verification-page"]
    if not checked:
        return []
    print("tools/test: the verification page and its results file, as just written:", flush=True)
    # without the run's id: this check is not one of the run's records
    check = subprocess.run(pytest("-q", "-p", "no:cacheprovider", "tests/verification"),
                           cwd=ROOT, env={k: v for k, v in env.items() if k != "LNBOOK_RUN_ID"})
    return ["verification-check"] if check.returncode else []


def main(argv: list[str]) -> int:
    tier, skip, extra = parse(argv)
    if tier is not None:
        return one_tier(tier, extra)
    return every_tier(skip, extra)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
