"""KaTeX's server start in the site build (_ext/lnbook_site.py): a server that creates its
socket file before it listens is connected to, not refused (fast tier, no node, no build).
Every server process started here is killed and reaped when its test ends."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "_ext"))
import lnbook_site as site  # noqa: E402

katex = pytest.importorskip("sphinxcontrib.katex")

# binds (the socket file appears), listens only 0.5 s later, then answers one connection; with
# no connection within 5 s it exits
SLOW_SERVER = """
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
time.sleep(0.5)
s.listen(1)
s.settimeout(5)
c, _ = s.accept()
c.sendall(b"ok")
time.sleep(2)
"""


@pytest.fixture(autouse=True)
def reaped(monkeypatch):
    """Every process the library or the fix starts here, killed and reaped at the test's end."""
    started = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(katex, "Popen", Recorded)
    monkeypatch.setattr(site, "Popen", Recorded)
    yield started
    for process in started:
        process.kill()
        process.communicate(timeout=10)  # reaps it and closes its pipes


@pytest.fixture
def slow_server(monkeypatch, tmp_path):
    command = lambda socket: [sys.executable, "-c", SLOW_SERVER, str(socket)]  # noqa: E731
    monkeypatch.setattr(katex.KaTeXServer, "build_command", classmethod(
        lambda cls, socket: command(socket)))
    return tmp_path


def test_the_library_alone_is_refused(slow_server, reaped):
    """The race the fix is for: sphinxcontrib-katex's own start fails on this server."""
    with pytest.raises(ConnectionRefusedError):
        katex.KaTeXServer.start_server_process(slow_server, 5.0)
    assert len(reaped) == 1  # the server it started, which the fixture ends


def test_patient_start_connects(slow_server):
    process, sock = site.patient_katex_start(katex.KaTeXServer, slow_server, 5.0)
    try:
        assert sock.recv(2) == b"ok"
        assert sock.gettimeout() is None
    finally:
        sock.close()
        process.kill()


def test_patient_start_gives_up_at_the_timeout(monkeypatch, tmp_path):
    monkeypatch.setattr(katex.KaTeXServer, "build_command", classmethod(
        lambda cls, socket: [sys.executable, "-c", "import time; time.sleep(5)"]))
    with pytest.raises(katex.KaTeXError, match="did not came up after 0.3 seconds"):
        site.patient_katex_start(katex.KaTeXServer, tmp_path, 0.3)
