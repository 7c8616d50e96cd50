"""Machine-readable descriptions of dataset and split folders shared by the cards and Croissant."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]  # a JSON object: manifest.json, split.json and the documents built from them
