"""pooch's downloader with limits: a file stops at its listed size, at a total time limit, and
when no byte arrives for a while, so no server can fill the disk or hold a download (and the
cache lock) for ever.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import requests
import urllib3
from tqdm.auto import tqdm

CHUNK_BYTES = 1 << 16
STALL_SECONDS = 60.0  # the longest wait for the next bytes
MIN_SECONDS = 120.0  # every file may take this long, however small
MIN_BYTES_PER_SECOND = 50_000  # and longer files this rate


class DownloadStopped(requests.RequestException):
    """A download stopped by its limits (the message says which)."""


def time_limit(size: int) -> float:
    """The seconds a file of ``size`` bytes may take."""
    return MIN_SECONDS + size / MIN_BYTES_PER_SECOND


@dataclass
class LimitedDownloader:
    """A pooch downloader (``fetcher.fetch(name, downloader=...)``) of a file of ``size`` bytes."""

    size: int
    progressbar: tqdm | None = None

    def __call__(self, url: str, output_file: str, pooch: object = None) -> None:
        limit = time_limit(self.size)
        deadline = time.monotonic() + limit
        received = 0
        try:
            with requests.get(url, stream=True, timeout=(STALL_SECONDS, STALL_SECONDS)) as response, \
                    open(output_file, "wb") as sink:
                response.raise_for_status()
                # read1: whatever has arrived, so a trickle meets the deadline too
                while chunk := response.raw.read1(CHUNK_BYTES, decode_content=True):
                    received += len(chunk)
                    if received > self.size:
                        raise DownloadStopped(f"the server sent more than the listed {self.size:,} bytes")
                    if time.monotonic() > deadline:
                        raise DownloadStopped(f"it took longer than the {limit:.0f} s allowed for "
                                              f"{self.size:,} bytes ({received:,} arrived)")
                    sink.write(chunk)
                    if self.progressbar is not None:
                        self.progressbar.update(len(chunk))
        except urllib3.exceptions.ReadTimeoutError:
            raise DownloadStopped(f"no data arrived for {STALL_SECONDS:.0f} s") from None
        except urllib3.exceptions.HTTPError as error:  # the connection broke off
            raise requests.exceptions.ChunkedEncodingError(str(error)) from None
