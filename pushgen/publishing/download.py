"""Fetch a standard split: from the copy shipped with the package, the cache, a download, or by
regenerating it from its recipe. Every copy is checked before it is returned.

Downloads come from ``$PUSHGEN_DATA_URL/<name>/<version>/<file>`` (default ``DEFAULT_DATA_URL``
at the split's own revision, ``StandardSplit.published_at``: a tag or commit, never a branch)
into ``<cache>/<name>/<version>/``, where ``<cache>`` is ``$PUSHGEN_CACHE`` or the user cache
folder. pooch checks every downloaded file against the registry's sha256; a split folder appears
in the cache only once every file passed (or, when regenerated, once its content fingerprint
matched the published one). A copy, shipped or cached, is used while its tables pass the checks
of its own ``split.json`` and its fingerprint is the published one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import platformdirs

from pushgen.data.dataset import DatasetError, atomic_folder
from pushgen.data.outputs import kind_named, writer_lock
from pushgen.data.verify import verify_split
from pushgen.progress import shown
from pushgen.publishing.registry import StandardSplit, environment, lookup
from pushgen.splits import SPLIT_FILE
from pushgen.splits.scorer import SCORER_TRUTH

if TYPE_CHECKING:  # the network layer is imported only when something is downloaded
    import pooch
    import requests

# {revision}: a split's own tag or commit (``StandardSplit.published_at``), never a branch that moves
DEFAULT_DATA_URL = "https://raw.githubusercontent.com/pushgen/pushgen/{revision}/generated"
DATA_URL_ENV = "PUSHGEN_DATA_URL"
CACHE_ENV = "PUSHGEN_CACHE"
CREDENTIALS = re.compile(r"://[^/@\s'\"]*@")  # the user:password@ of a URL


class DownloadError(DatasetError):
    """A file that could not be fetched, or that failed its checksum (nothing was kept); a user name
    and password in a URL of the message are left out."""

    def __init__(self, message: str) -> None:
        super().__init__(CREDENTIALS.sub("://", message))


class FingerprintMismatch(DatasetError):
    """A regenerated split whose content differs from the published one."""


def cache_dir(cache: Path | None = None) -> Path:
    """Where downloaded and regenerated splits are kept."""
    if cache is not None:
        return Path(cache)
    return Path(os.environ.get(CACHE_ENV) or platformdirs.user_cache_dir("pushgen"))


def data_url(url: str | None = None, revision: str = "") -> str:
    """The base URL of the split files; ``{revision}`` in it becomes the split's revision."""
    url = (url or os.environ.get(DATA_URL_ENV) or DEFAULT_DATA_URL).rstrip("/")
    url = url.replace("{revision}", revision)
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError as error:
        raise DownloadError(f"{DATA_URL_ENV} is not a usable URL ({error}); got {url!r}") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise DownloadError(f"{DATA_URL_ENV} must be an http(s) URL; got {url!r}")
    return url


def shipped_folders(entry: StandardSplit) -> list[Path]:
    """Where a copy may ship: inside the installed package, or the source tree's ``generated/``."""
    packaged = resources.files("pushgen") / "_standard" / entry.name / entry.version
    return [Path(str(packaged)),
            Path(__file__).resolve().parents[2] / "generated" / entry.name / entry.version]


def checked_copy(entry: StandardSplit, folder: Path) -> Path | None:
    """``folder`` if it holds a copy of ``entry``: its tables pass the checks of its ``split.json``,
    whose fingerprint is the published one (a download's files passed the registry's sha256, a
    regeneration's content matched the fingerprint)."""
    try:
        description = verify_split(folder)
    except DatasetError:
        return None
    return folder if description.get("fingerprint") == entry.fingerprint else None


def shipped_copy(entry: StandardSplit) -> Path | None:
    return next((folder for folder in shipped_folders(entry) if checked_copy(entry, folder)), None)


def discard_stale_copy(entry: StandardSplit, folder: Path) -> None:
    """Remove a cached copy of ``entry`` that no longer passes its checks; refuse if the folder
    holds anything that is not one of the split's files."""
    with writer_lock(folder, "--cache"):
        if not folder.exists() or checked_copy(entry, folder) is not None:
            return
        ours = {*entry.files, *kind_named("split").written_after}
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if not path.is_dir() and relative not in ours:
                raise DatasetError(f"{folder} holds {relative}, which is not a file of {entry.label}; "
                                   "move it away or use another --cache")
        shutil.rmtree(folder)


def where(entry: StandardSplit, cache: Path | None = None) -> str:
    """Where a split is at hand without a download: 'packaged', 'repository' (the source tree's
    ``generated/``; a quick look), 'cached' (a copy whose files pass their checks) or ''."""
    for kind, folder in zip(("packaged", "repository"), shipped_folders(entry), strict=True):
        if folder.is_dir():
            return kind
    if checked_copy(entry, cache_dir(cache) / entry.name / entry.version) is not None:
        return "cached"
    return ""


def fetch_split(
    name: str,
    version: str | None = None,
    cache: Path | None = None,
    regenerate: bool = False,
    *,
    url: str | None = None,
    progress: bool | None = None,
    prefer_packaged: bool = True,
) -> Path:
    """The folder of the standard split ``name`` (``pushgen-v1``, or ``pushgen`` and ``version``).

    A copy shipped with the package comes first (unless ``prefer_packaged`` is false), then the
    cache; otherwise the split is downloaded, or with ``regenerate`` rebuilt from its recipe.
    ``progress`` (default: when stderr is a terminal, unless a command was given ``--quiet``) shows
    progress bars.
    """
    entry = lookup(name, version)
    progress = shown(outside=sys.stderr.isatty()) if progress is None else progress
    if prefer_packaged and not regenerate and (shipped := shipped_copy(entry)) is not None:
        return shipped
    target = cache_dir(cache) / entry.name / entry.version
    if not regenerate and checked_copy(entry, target) is not None:
        return target
    base_url = None if regenerate else data_url(url, entry.published_at)
    created = [folder for folder in (target.parent, *target.parent.parents) if not folder.exists()]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatasetError(f"cannot use the cache folder {target.parent}: {error.strerror}") from None
    try:
        discard_stale_copy(entry, target)
        if base_url is None:  # regenerate
            return regenerate_split(entry, target, progress)
        return download_split(entry, target, base_url, progress)
    except BaseException:
        for folder in created:  # deepest first; only those this call made, and only if empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def download_split(entry: StandardSplit, target: Path, base_url: str, progress: bool) -> Path:
    """Download every file of ``entry`` (pooch checks each against the registry's sha256);
    ``target`` appears only if all pass."""
    import pooch

    with atomic_folder(target, force=True, option="--cache") as work, quiet_pooch():
        registry = {relative: f"sha256:{expected['sha256']}" for relative, expected in entry.files.items()}
        fetcher = pooch.create(path=work, base_url=f"{base_url}/{entry.name}/{entry.version}/",
                               registry=registry, retry_if_failed=0)
        for relative, expected in entry.files.items():
            fetch_file(fetcher, entry, relative, expected["bytes"], progress)
    return target


def fetch_file(fetcher: pooch.Pooch, entry: StandardSplit, relative: str, size: int, progress: bool) -> None:
    """One file of the split, of ``size`` bytes; pooch keeps it only if its sha256 is the registry's."""
    import requests
    from tqdm.auto import tqdm  # here: reading a split that is at hand draws no bar

    from pushgen.publishing.transfer import LimitedDownloader

    # a bar with its total: pooch tests the bar's truth, which tqdm refuses without a total
    bar = tqdm(desc=f"{entry.label} {relative}", total=size, unit="B", unit_scale=True,
               leave=False, disable=not progress)
    url = fetcher.get_url(relative)
    try:
        fetcher.fetch(relative, downloader=LimitedDownloader(size, bar if progress else None))
    except requests.RequestException as error:
        offline = isinstance(error, requests.ConnectionError | requests.Timeout)
        raise DownloadError(f"{entry.label}: cannot download {relative} from {url}: "
                            f"{reason(error)}; nothing was kept"
                            + (f". Without network: pushgen download {entry.label} --regenerate "
                               "(rebuilds it from its recipe)" if offline else "")) from None
    except ValueError as error:  # pooch: the sha256 is not the registry's (the file is deleted)
        got = re.search(r"got (\w+)", str(error))
        raise DownloadError(f"{entry.label}: {relative} from {url} failed its checksum: sha256 expected "
                            f"{fetcher.registry[relative].removeprefix('sha256:')}, "
                            f"got {got[1] if got else '?'}; the file was discarded") from None
    finally:
        bar.close()


def reason(error: requests.RequestException) -> str:
    """A one-line reason for a failed request."""
    import requests

    from pushgen.publishing.transfer import STALL_SECONDS

    if isinstance(error, requests.HTTPError) and error.response is not None:
        return f"HTTP {error.response.status_code} {error.response.reason}"
    if isinstance(error, requests.exceptions.ChunkedEncodingError):
        return "the connection broke off before the whole file arrived"
    if isinstance(error, requests.Timeout):
        return f"no answer within {STALL_SECONDS:.0f} s"
    if isinstance(error, requests.ConnectionError):
        return "cannot connect (no network, or a wrong PUSHGEN_DATA_URL?)"
    return " ".join(str(error).split())


@contextlib.contextmanager
def quiet_pooch() -> Iterator[None]:
    """Keep pooch's own log lines (about temporary paths) out of the output."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def regenerate_split(entry: StandardSplit, target: Path, progress: bool) -> Path:
    """Rebuild ``entry`` from its recipe into ``target`` if its content fingerprint matches."""
    from pushgen.publishing.standard import build_split  # here: the simulator, for regenerating only

    return build_split(entry.make_recipe(), entry.make_spec(), target, entry.name, entry.version,
                       force=True, progress=progress,
                       describe=functools.partial(check_regenerated, entry))


FLOATS_DIFFER = ("the data and its outcomes match, only the ground truth's floating-point values differ "
                 "(exp rounds otherwise on another CPU: numpy's without AVX-512, the C library's without "
                 "FMA; or in another numpy)")


def check_regenerated(entry: StandardSplit, folder: Path) -> None:
    split = json.loads((folder / SPLIT_FILE).read_text())
    got = split["fingerprint"]
    if got != entry.fingerprint:
        parts = [part for part, fingerprint in split["fingerprints"].items()
                 if entry.fingerprints.get(part) != fingerprint]
        why = [FLOATS_DIFFER] if parts and all(part.startswith(f"{SCORER_TRUTH}/") for part in parts) else []
        here, there = environment(), entry.environment
        why += [f"{k} {there.get(k)} there, {v} here" for k, v in here.items()
                if there.get(k) not in (None, v)]
        raise FingerprintMismatch(
            f"{entry.label}: the regenerated split does not match the published one: expected "
            f"fingerprint {entry.fingerprint}, got {got}; parts that differ: {', '.join(parts) or 'none'}"
            + "".join(f"; {reason}" for reason in why)
            + f"; nothing was kept. Download it instead: pushgen download {entry.label}")
    from pushgen.publishing.standard import write_metadata

    write_metadata(folder, entry.title, entry.description,
                   standard_url(entry.name, entry.version, entry.published_at))


def standard_url(name: str, version: str, revision: str | None = None) -> str:
    """Where a standard split is published (the folder its files are downloaded from), at its
    revision (by default the tag named after it)."""
    return f"{data_url(DEFAULT_DATA_URL, revision or f'{name}-{version}')}/{name}/{version}"
