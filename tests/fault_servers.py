"""Servers on 127.0.0.1 that misbehave, for the tests and ``scripts/reliability.py``: an HTTP
server of the mini split whose one file is endless, trickles or stalls, and a TCP listener that
is not a Dask scheduler. Each stops by itself (a bounded number of bytes or seconds) or when
its ``with`` block ends."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import http.server
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

from pushgen.publishing import registry

GENERATED = Path(__file__).resolve().parents[1] / "generated"
REMOTE = "pushgen-remote"  # the mini split under a name no package ships, so it is downloaded
MODES = ("normal", "endless", "trickle", "stall")


def remote_entry() -> registry.StandardSplit:
    return dataclasses.replace(registry.lookup("pushgen-mini-v4"), name=REMOTE)


class FaultyHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the files; ``server.target`` as ``server.mode`` says: endless (no length, 64 KiB
    blocks up to 128 MiB), trickle (a byte a second) or stall (headers, then nothing)."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        server = self.server
        if not self.path.endswith(server.target) or server.mode == "normal":
            return super().do_GET()
        self.send_response(200)
        if server.mode != "endless":
            self.send_header("Content-Length", str(server.size))
        self.end_headers()
        try:
            for _ in range(2048 if server.mode == "endless" else 60):
                if server.mode == "endless":
                    self.wfile.write(b"\0" * 65536)
                    continue
                if server.mode == "trickle":
                    self.wfile.write(b"\0")
                    self.wfile.flush()
                if server.ended.wait(1.0):
                    return
        except OSError:  # the client stopped reading
            return


@contextlib.contextmanager
def faulty_server(root: Path) -> Iterator[http.server.ThreadingHTTPServer]:
    """A server of the mini split as ``pushgen-remote/v4`` (copied under ``root``); set its
    ``mode`` to make its first file misbehave. Its URL: ``data_url(server)``."""
    entry = remote_entry()
    shutil.copytree(GENERATED / "pushgen-mini" / "v4", root / REMOTE / "v4")
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(FaultyHandler, directory=str(root)))
    httpd.daemon_threads = True
    httpd.target, listed = next(iter(entry.files.items()))
    httpd.size, httpd.mode, httpd.ended = listed["bytes"], "normal", threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd
    finally:
        httpd.ended.set()
        httpd.shutdown()
        httpd.server_close()


def data_url(server: http.server.HTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@contextlib.contextmanager
def listener(greeting: bytes = b"") -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts one connection, sends ``greeting`` and then waits:
    not a Dask scheduler (which speaks first with a length-prefixed handshake)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(30)
    ended = threading.Event()

    def serve() -> None:
        try:
            connection, _ = server.accept()
        except OSError:
            return
        with connection:
            connection.sendall(greeting)
            ended.wait(30)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        ended.set()
        server.close()


@contextlib.contextmanager
def remote_registered() -> Iterator[registry.StandardSplit]:
    """The registry with ``pushgen-remote-v4`` in it (as the monkeypatched ``remote`` fixture)."""
    entry = remote_entry()
    original = registry.load_registry
    registry.load_registry = lambda: (*registry.read_registry(), entry)
    try:
        yield entry
    finally:
        registry.load_registry = original
