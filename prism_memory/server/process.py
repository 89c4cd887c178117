"""``prism serve`` as a child process: start it on a free loopback port, wait until it answers,
stop or kill it. Used by ``prism bench serve`` and the service tests.

Design: readiness is the server's own answer (``GET /v1/health`` returns 200), polled until an
overall deadline; a child that exits first fails at once with the end of its stderr. Nothing
sleeps a fixed time.

>>> with ServiceProcess.start(path="./.prism", keys_file="keys.json") as svc:  # doctest: +SKIP
...     print(svc.url)
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import ServiceError

__all__ = ["ServiceProcess", "free_port", "write_keys"]


def free_port() -> int:
    """A TCP port nobody listens on right now (loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class ServiceProcess:
    """A running ``prism serve`` child."""

    proc: subprocess.Popen[bytes]
    url: str
    stderr: IO[bytes]

    @classmethod
    def start(
        cls,
        *,
        path: str | os.PathLike[str],
        keys_file: str | os.PathLike[str] | None = None,
        port: int | None = None,
        extra_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        timeout: float = 180.0,
    ) -> ServiceProcess:
        """Start ``prism serve --path path`` and return once ``/v1/health`` answers."""
        port = port or free_port()
        args = [sys.executable, "-m", "prism_memory.cli", "serve", "--path", str(path)]
        args += ["--host", "127.0.0.1", "--port", str(port)]
        if keys_file is not None:
            args += ["--api-keys", str(keys_file)]
        args += list(extra_args)
        stderr = tempfile.TemporaryFile()
        child_env = {**os.environ, **(env or {})}
        child_env.setdefault("HF_HUB_OFFLINE", "1")
        child_env.setdefault("TOKENIZERS_PARALLELISM", "false")
        proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=stderr, env=child_env, start_new_session=True
        )
        svc = cls(proc, f"http://127.0.0.1:{port}", stderr)
        svc.wait_ready(timeout)
        return svc

    def stderr_tail(self, n: int = 2000) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")[-n:]

    def wait_ready(self, timeout: float) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            if self.proc.poll() is not None:
                raise ServiceError(
                    f"prism serve exited with code {self.proc.returncode} before answering: "
                    f"{self.stderr_tail()}"
                )
            try:
                if httpx.get(self.url + "/v1/health", timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise ServiceError(
                    f"prism serve did not answer /v1/health within {timeout:g} s: "
                    f"{self.stderr_tail()}"
                )
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def kill(self) -> None:
        """SIGKILL (no shutdown: what a crash or the OOM killer does)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait for a clean exit (the store is flushed and closed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return int(self.proc.returncode or 0)

    def __enter__(self) -> ServiceProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
        self.stderr.close()


def write_keys(path: Path, keys: dict[str, dict[str, Any]]) -> Path:
    """Write an API keys file (``prism serve --api-keys``) and return its path."""
    import json

    path.write_text(json.dumps(keys), encoding="utf-8")
    return path
