"""Is an address a Dask scheduler? A Dask TCP listener speaks first: on every connection it
sends its handshake, a message that starts with its length (8 bytes). Anything else (nothing
within the timeout, a web server's text) is refused in one line before Dask's client is made,
which would otherwise wait past its timeout or read text as a length."""

from __future__ import annotations

import socket
import struct
import time

from pushgen.data.outputs import DatasetError

HEADER = struct.Struct("Q")  # Dask's frame length prefix (native byte order, as Dask writes it)
MAX_HANDSHAKE_BYTES = 1 << 20


class NotAScheduler(DatasetError):
    """An address that is not a reachable Dask scheduler."""


def host_and_port(address: str) -> tuple[str, int] | None:
    """The host and port of a TCP scheduler address (None: another transport, not probed)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        return (parse_host_port(location) if scheme == "tcp" else None)
    except (ValueError, TypeError):
        raise NotAScheduler(f"--scheduler {address!r} is not a Dask scheduler address "
                            "(tcp://HOST:PORT)") from None


def check_scheduler(address: str, timeout: float) -> None:
    """Refuse (``NotAScheduler``) an address that does not answer as a Dask scheduler in ``timeout`` s."""
    where = host_and_port(address)
    if where is None:
        return
    deadline = time.monotonic() + timeout
    received = b""
    try:
        with socket.create_connection(where, timeout=timeout) as connection:
            while len(received) < HEADER.size:
                connection.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = connection.recv(HEADER.size - len(received))
                if not chunk:
                    break
                received += chunk
    except TimeoutError:
        raise NotAScheduler(f"{address} did not answer as a Dask scheduler within {timeout:g} s "
                            "(is it another service?)") from None
    except OSError as error:
        raise NotAScheduler(f"cannot reach the Dask scheduler {address}: "
                            f"{error.strerror or error}") from None
    if len(received) < HEADER.size or not HEADER.size <= HEADER.unpack(received)[0] <= MAX_HANDSHAKE_BYTES:
        raise NotAScheduler(f"{address} does not speak Dask's protocol (is it another service?)")
