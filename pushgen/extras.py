"""The install line of an optional extra, in the form that fits how pushgen was installed.

``pip install "pushgen[bench]"`` works only where pushgen comes from a package index; pushgen
installed from a checkout (``pip install .`` or ``pip install -e .``) or from a wheel file adds
an extra from that same source. pip records the source in the installation's
``direct_url.json`` (PEP 610).
"""

from __future__ import annotations

import json
import shlex
from importlib import metadata
from urllib.parse import urlparse
from urllib.request import url2pathname


def installed_from() -> tuple[str, bool] | None:
    """The local folder or wheel file pushgen was installed from and whether it is editable;
    None for an install from a package index (or none pip recorded)."""
    try:
        direct = json.loads(metadata.distribution("pushgen").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    url = urlparse(str(direct.get("url", "")))
    if url.scheme != "file" or "vcs_info" in direct:
        return None
    return url2pathname(url.path), bool(direct.get("dir_info", {}).get("editable", False))


def install_line(extra: str) -> str:
    """``pip install`` of pushgen with ``extra``: ``'pushgen[extra]'`` from the package index, or
    the checkout (``-e`` if editable) or wheel file pushgen was installed from."""
    source = installed_from()
    if source is None:
        return f"pip install {shlex.quote(f'pushgen[{extra}]')}"
    path, editable = source
    return f"pip install {'-e ' if editable else ''}{shlex.quote(f'{path}[{extra}]')}"
