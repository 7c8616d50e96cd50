"""The install line of an extra fits how pushgen was installed (pip's direct_url.json, PEP 610)."""

from __future__ import annotations

import json
import shlex
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from pushgen import extras
from pushgen.extras import install_line

CHECKOUT = Path(__file__).resolve().parents[1]


class Installed:
    def __init__(self, direct_url: dict | None) -> None:
        self.text = None if direct_url is None else json.dumps(direct_url)

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return self.text


@pytest.mark.parametrize(("direct_url", "line"), [
    ({"url": "file:///home/me/pushgen", "dir_info": {"editable": True}},
     "pip install -e '/home/me/pushgen[bench]'"),
    ({"url": "file:///home/me/pushgen", "dir_info": {}}, "pip install '/home/me/pushgen[bench]'"),
    ({"url": "file:///home/me/my%20files/pushgen-0.3.0-py3-none-any.whl", "archive_info": {}},
     "pip install '/home/me/my files/pushgen-0.3.0-py3-none-any.whl[bench]'"),
    ({"url": "https://github.com/pushgen/pushgen", "vcs_info": {"vcs": "git", "commit_id": "0" * 40}},
     "pip install 'pushgen[bench]'"),
    (None, "pip install 'pushgen[bench]'"),
])
def test_the_line_names_the_source_pushgen_came_from(direct_url, line, monkeypatch):
    monkeypatch.setattr(metadata, "distribution", lambda name: Installed(direct_url))
    assert install_line("bench") == line


def test_the_printed_line_names_this_checkout_and_an_extra_it_declares():
    """Where pushgen is installed from a checkout (as here), the line names that folder, whose
    pyproject.toml declares the extra; ``pip install 'folder[extra]'`` is pip's form for it."""
    source = extras.installed_from()
    if source is None or not Path(source[0]).is_dir():
        pytest.skip("pushgen is not installed from a checkout here")
    folder, editable = source
    project = tomllib.loads((Path(folder) / "pyproject.toml").read_text())["project"]
    declared = project["optional-dependencies"]
    for extra in ("bench", "plot", "ml", "dask", "ope", "rl"):
        assert extra in declared
        arguments = shlex.split(install_line(extra))
        assert arguments == ["pip", "install", *(["-e"] if editable else []), f"{folder}[{extra}]"]
