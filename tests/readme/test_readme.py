"""The README runs as pasted (issue 17): its quick start, handler walkthrough and client
section, extracted from README.md and run by bash against a live server, the way a reader
would. Only the port (and data directories) change: nothing here may use 8080."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()


def block(after_heading: str) -> str:
    """The first ```sh block after the heading."""
    start = README.index(after_heading)
    match = re.search(r"```sh\n(.*?)```", README[start:], re.S)
    assert match, f"no shell block after {after_heading!r}"
    return match.group(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(script: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs `script` in its own process group (so what it leaves in the background goes too),
    its output to files: a background server keeps a pipe open after the script is done."""
    with tempfile.TemporaryDirectory() as d:
        out_path, err_path = Path(d) / "out", Path(d) / "err"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, stdout=out, stderr=err, start_new_session=True)
            try:
                proc.wait(timeout=timeout)
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        return subprocess.CompletedProcess(proc.args, proc.returncode, out_path.read_text(), err_path.read_text())


@pytest.fixture
def server():
    data = tempfile.mkdtemp(prefix="buttond-readme-")
    log = open(Path(data) / "server.log", "wb")
    proc, base = buttond_process.launch(data, log)
    assert base, "buttond did not start"
    yield base.rsplit(":", 1)[1]
    proc.terminate()
    proc.wait(timeout=20)


def test_the_quick_start_runs_as_pasted(server):
    script = block("## Try it with curl").replace("localhost:8080", f"localhost:{server}")
    # The stream is for "another terminal": here it runs for a second.
    script = script.replace("curl -N ", "timeout 1 curl -N ")
    result = run(script, REPO)
    assert result.returncode == 0, result.stderr
    assert '"error"' not in result.stdout, result.stdout
    for expected in ['"type":"long-press"', '"type":"double-tap"', '"type":"select"', '"option":"movie"']:
        assert expected in result.stdout, expected


def test_the_handler_walkthrough_runs_as_pasted(tmp_path):
    port = free_port()
    script = block("### Handlers: a webhook and a script, end to end")
    script = script.replace("localhost:8080", f"localhost:{port}")
    script = script.replace("buttond serve ", f"buttond serve --port {port} ")
    script = script.replace("--data-dir ./data", f"--data-dir {tmp_path}/data")
    for stale in ["/tmp/sink.jsonl", "/tmp/bd-scripts/log.txt"]:
        Path(stale).unlink(missing_ok=True)
    script = script.replace(".build/release/buttond", str(buttond_process.binary()))
    result = run(script, REPO)
    assert "pressed bell (long-press)" in result.stdout, result.stdout + result.stderr
    assert '"verified": true' in result.stdout, result.stdout
    assert '"status":"ok"' in result.stdout and '"attempts":[' in result.stdout


def test_the_client_section_runs_as_pasted(server, tmp_path):
    script = block("### The client on the same binary")
    script = script.replace("B=.build/release/buttond", f"B={buttond_process.binary()}")
    script = script.replace("$B events --follow", "timeout 1 $B events --follow")
    script = script.replace("--data-dir ./data", f"--data-dir {tmp_path}/none")
    setup = (f"export BUTTOND_SERVER=http://127.0.0.1:{server}\n"
             f"curl -s -XPOST localhost:{server}/api/v1/buttons -d '{{\"id\": \"door\", \"longPressMs\": 500}}' >/dev/null\n")
    result = run(setup + script, REPO)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    types = [re.search(r'"type":"([^"]+)"', line).group(1) for line in lines]
    assert types[:4] == ["touch-down", "long-press", "touch-up-inside", "long-press-end"], result.stdout + result.stderr
    assert "touch-down" in types[4:]
    # The check runs against a directory with no database: it says so, exit 1.
    assert "no database to check" in result.stderr
