"""The wheel's build hook: compiles the model's kernels ahead of time (``pushgen.model.ahead_of_time``).

A regular wheel carries the extension and its table; an editable install finds them beside the
kernels in the checkout. Where they cannot be compiled (no C compiler), the wheel is built
without them and numba compiles every kernel at its first call, as in a library process.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUILD_SCRIPT = Path("pushgen") / "model" / "ahead_of_time_build.py"


class KernelsBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        model = Path(self.root) / BUILD_SCRIPT.parent
        editable = version == "editable"
        folder = model if editable else Path(tempfile.mkdtemp(prefix="pushgen-kernels-"))
        self._scratch = None if editable else folder
        self.app.display_info("pushgen: compiling the model's kernels ahead of time")
        run = subprocess.run([sys.executable, str(Path(self.root) / BUILD_SCRIPT), str(folder)],
                             capture_output=True, text=True, cwd=self.root)
        if run.returncode != 0:
            lines = run.stderr.strip().splitlines() or ["no output"]
            reason = next((line for line in reversed(lines) if "Error" in line), lines[-1]).split(". ")[0]
            self.app.display_warning(f"pushgen: the model's kernels were not compiled ahead of time "
                                     f"({reason}); numba will compile them at their first use")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if not editable:
            for built in run.stdout.split():
                build_data["force_include"][built] = f"{BUILD_SCRIPT.parent.as_posix()}/{Path(built).name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_scratch", None) is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
