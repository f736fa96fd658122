"""Starting the real buttond binary for the Python test suites (browser, hostile input):
one place that knows where the binary is and how to read the port it bound."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
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
