"""What the benchmark scripts share."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def pushgen_command() -> list[str]:
    """The installed ``pushgen`` entry point beside this interpreter (no shell shims)."""
    beside = Path(sys.executable).parent / "pushgen"
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("pushgen")
    return [found] if found else [sys.executable, "-m", "pushgen"]
