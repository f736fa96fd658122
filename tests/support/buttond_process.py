"""Starting the real buttond binary for the Python test suites (browser, hostile input, MQTT,
README): one place that knows where the binary is, how to read the port it bound, where its
log goes, and how to find a free port for something else (a broker)."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
LISTENING = re.compile(r"msg=listening url=(http://\S+?)/?(\s|$)")


def binary() -> Path:
    """BUTTOND_BIN, else the release build in the repo."""
    env = os.environ.get("BUTTOND_BIN")
    path = Path(env) if env else REPO / ".build" / "release" / "buttond"
    return path if path.is_absolute() else REPO / path


def launch(data_dir: str, log, *extra: str, env: dict | None = None, cwd: str | None = None,
           timeout: float = 20) -> tuple[subprocess.Popen, str | None]:
    """Runs `buttond serve --port 0` on 127.0.0.1 with stderr to `log`; returns the process and
    its base URL once it logged `listening`, or None for the URL if it did not start in time."""
    proc = subprocess.Popen(
        [str(binary()), "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", data_dir,
         "--public-dir", str(REPO / "public"), *extra],
        stdout=subprocess.DEVNULL, stderr=log, cwd=cwd or data_dir, env=env,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        match = LISTENING.search(Path(log.name).read_text(errors="replace"))
        if match:
            return proc, match.group(1)
        time.sleep(0.05)
    return proc, None


def stop(proc: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port() -> int:
    """A loopback port nothing listened on a moment ago (for a broker; buttond takes port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Started:
    """A running buttond: its process, base URL, log (in test-artifacts/) and data directory."""
    proc: subprocess.Popen
    base: str
    log_path: Path
    data_dir: str
    log: IO


def start_server(suite: str, name: str, *extra: str, data_subdir: str = "", env: dict | None = None,
                 cwd_in_data: bool = False) -> Started:
    """`buttond serve --port 0 EXTRA` in a fresh temporary directory (`data_subdir` inside it as
    --data-dir, if given), logging to test-artifacts/SUITE-NAME.log; fails the test, with the
    log, if the binary is missing or does not start."""
    import pytest

    path = binary()
    if not path.exists():
        pytest.fail(f"buttond binary not found at {path} (build it with `make release` or set BUTTOND_BIN)")
    ARTIFACTS.mkdir(exist_ok=True)
    data_dir = tempfile.mkdtemp(prefix=f"buttond-{suite}-{name}-")
    log_path = ARTIFACTS / f"{suite}-{name}.log"
    log = open(log_path, "w")
    proc, base = launch(data_dir + data_subdir, log, *extra, env=env, cwd=data_dir if cwd_in_data else None)
    if base is None:
        proc.kill()
        proc.wait()
        log.close()
        pytest.fail(f"buttond did not start; log:\n{log_path.read_text(errors='replace')}")
    return Started(proc, base, log_path, data_dir, log)


def stop_server(started: Started, timeout: float = 15) -> None:
    """Stops it (SIGTERM, then SIGKILL), closes its log and removes its directory."""
    stop(started.proc, timeout=timeout)
    started.log.close()
    shutil.rmtree(started.data_dir, ignore_errors=True)
