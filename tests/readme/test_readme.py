"""The docs run as pasted (issues 17 and 28): every shell block of README.md and docs/*.md,
extracted and run by bash against a live server, the way a reader would. Only the port (and
data directories) change: nothing here may use 8080.

A block is a fence opened with ```sh (or ```bash, ```shell). Each one runs, in a fresh bash,
against a fresh server of its own, unless an HTML comment on the line before its fence (not
shown when the page is rendered) says otherwise:

    <!-- readme-test: skip REASON -->       not run here (docker, systemd, a broker, the two
                                             make commands); the reason is required
    <!-- readme-test: own-server -->        starts `buttond serve` itself: no server is started
                                             for it; its serve line gets a free --port
    <!-- readme-test: expect A '"B"' -->  stdout must hold each string (shell-quoted); an "error" in the
                                             output is then allowed (the block shows one)

Every other block must run with every line succeeding (set -e -o pipefail) and print no
"error". Three blocks have tests of their own with
closer checks (below); they are found by the heading above them, and the generic test leaves
them out. What changes in a block before it runs: localhost:8080 and 127.0.0.1:8080 become
the server's port (BUTTOND_SERVER names it too, for the client commands), `curl -N` and
`events --follow` (a stream "in another terminal") run for a second, .build/release/buttond
is the binary under test, and ./data a temporary directory."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import buttond_process  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
FENCE = re.compile(r"^```(sh|bash|shell)[ \t]*$")
MARK = re.compile(r"^<!--\s*readme-test:\s*(skip|own-server|expect)\b(.*?)-->\s*$")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    heading: str  # the nearest heading above it
    text: str
    mark: str | None = None  # skip, own-server or expect
    argument: str = ""

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every shell block of `page`, with the heading above it and its mark."""
    found: list[Block] = []
    lines = page.read_text().splitlines()
    heading, index = "", 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            heading = line
        if line.startswith("```") and not FENCE.match(line):  # another language: skip past it
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                index += 1
        elif FENCE.match(line):
            start = index
            index += 1
            body: list[str] = []
            while index < len(lines) and not lines[index].startswith("```"):
                body.append(lines[index])
                index += 1
            mark = MARK.match(lines[start - 1]) if start > 0 else None
            found.append(Block(page, start + 1, heading, "\n".join(body) + "\n",
                               mark.group(1) if mark else None, mark.group(2).strip() if mark else ""))
        index += 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]

# The blocks with tests of their own: (page, the heading they stand under).
OWN_TESTS = {
    "quick start": (REPO / "README.md", "## Try it with curl"),
    "handlers": (REPO / "docs" / "handlers.md", "## A webhook and a script, end to end"),
    "client": (REPO / "docs" / "cli.md", "## The commands in five lines"),
}


def block(which: str) -> str:
    """The first shell block under the heading an own test names."""
    page, heading = OWN_TESTS[which]
    match = next((b for b in ALL if b.page == page and b.heading == heading), None)
    assert match, f"no shell block under {heading!r} in {page.name}"
    return match.text


def claimed(b: Block) -> bool:
    return any(b.page == page and b.heading == heading and b is next(
        x for x in ALL if x.page == page and x.heading == heading) for page, heading in OWN_TESTS.values())


def run(script: str, cwd: Path, timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs `script` in its own process group (so what it leaves in the background goes too),
    its output to files: a background server keeps a pipe open after the script is done."""
    with tempfile.TemporaryDirectory() as d:
        out_path, err_path = Path(d) / "out", Path(d) / "err"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, stdout=out, stderr=err,
                                    start_new_session=True, env=env)
            try:
                proc.wait(timeout=timeout)
            finally:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        return subprocess.CompletedProcess(proc.args, proc.returncode, out_path.read_text(), err_path.read_text())


def as_pasted(script: str, port: str, data: Path) -> str:
    """The block as a reader would run it, on this test's port, binary and data directory."""
    script = re.sub(r"(localhost|127\.0\.0\.1):8080", rf"\1:{port}", script)
    script = script.replace("curl -N ", "timeout 1 curl -N ")
    script = re.sub(r"(\S+ events --follow)", r"timeout 1 \1", script)
    script = script.replace(".build/release/buttond", str(buttond_process.binary()))
    script = script.replace("buttond serve ", f"buttond serve --port {port} ")
    script = script.replace("./data", f"{data}/data")
    return script


@pytest.fixture
def server():
    data = tempfile.mkdtemp(prefix="buttond-readme-")
    log = open(Path(data) / "server.log", "wb")
    proc, base = buttond_process.launch(data, log)
    assert base, "buttond did not start"
    yield base.rsplit(":", 1)[1]
    proc.terminate()
    proc.wait(timeout=20)


def test_every_page_has_its_blocks_found():
    """The pages are there and their fences are read (a renamed page would run nothing)."""
    assert len(PAGES) > 10, PAGES
    assert len(ALL) >= 20, [b.name for b in ALL]
    for b in ALL:
        if b.mark == "skip":
            assert b.argument, f"{b.name}: a skipped block says why"


GENERIC = [b for b in ALL if not claimed(b)]


@pytest.mark.parametrize("b", GENERIC, ids=[b.name for b in GENERIC])
def test_the_block_runs_as_pasted(b: Block, tmp_path):
    if b.mark == "skip":
        pytest.skip(b.argument)
    env = dict(os.environ)
    if b.mark == "own-server":
        port, proc = str(buttond_process.free_port()), None
    else:
        data = tempfile.mkdtemp(prefix="buttond-readme-")
        log = open(Path(data) / "server.log", "wb")
        proc, base = buttond_process.launch(data, log)
        assert base, "buttond did not start"
        port = base.rsplit(":", 1)[1]
    env["BUTTOND_SERVER"] = f"http://127.0.0.1:{port}"
    # Every line must succeed, not only the last (a reader would see a failure anywhere).
    strict = "" if b.mark == "expect" else "set -e -o pipefail\n"
    try:
        result = run(strict + as_pasted(b.text, port, tmp_path), REPO, env=env)
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=20)
    shown = f"{b.name} under {b.heading!r}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    if b.mark == "expect":
        for expected in shlex.split(b.argument):
            assert expected in result.stdout, f"{expected!r} not printed: {shown}"
    else:
        assert result.returncode == 0, shown
        assert '"error"' not in result.stdout, shown


def test_the_quick_start_runs_as_pasted(server):
    script = block("quick start").replace("localhost:8080", f"localhost:{server}")
    # The stream is for "another terminal": here it runs for a second.
    script = script.replace("curl -N ", "timeout 1 curl -N ")
    result = run(script, REPO)
    assert result.returncode == 0, result.stderr
    assert '"error"' not in result.stdout, result.stdout
    for expected in ['"type":"long-press"', '"type":"double-tap"', '"type":"select"', '"option":"movie"']:
        assert expected in result.stdout, expected


def test_the_handler_walkthrough_runs_as_pasted(tmp_path):
    port = buttond_process.free_port()
    script = block("handlers")
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
    script = block("client")
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
