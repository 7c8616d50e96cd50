"""Machine-readable descriptions of dataset and split folders shared by the cards and Croissant."""

from __future__ import annotations

from importlib.resources import files
from string import Template
from typing import Any

Json = dict[str, Any]  # a JSON object: manifest.json, split.json and the documents built from them


def render_template(name: str, **values: object) -> str:
    """The card template ``templates/<name>`` (``string.Template``) with its ``$names`` filled in."""
    text = files(__package__).joinpath("templates", name).read_text(encoding="utf-8")
    return Template(text).substitute(values)
