"""``s3vm app`` stopped with a signal stops the server it started (issue 33, item 13): a
Streamlit child left behind would keep serving the port."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A stand-in for the server: writes its process id, then waits to be stopped.
SERVER = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_command_stops_its_child(tmp_path, name):
    pid_file = tmp_path / "server.pid"
    launcher = ("import sys; from s3vm_cli.commands import serve; "
                f"sys.exit(serve([sys.executable, '-c', {SERVER!r}, {str(pid_file)!r}], '.'))")
    command = subprocess.Popen([sys.executable, "-c", launcher], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):
            assert command.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        child = int(pid_file.read_text())
        command.send_signal(getattr(signal, name))
        code = command.wait(timeout=30)
        assert code == 128 + getattr(signal, name)  # the child's end, as a shell reports it
        assert not alive(child)
    finally:
        command.kill()
        command.wait()
