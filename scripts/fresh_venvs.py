"""The README's test command on a fresh clone, with the newest and with the oldest dependencies.

    python scripts/fresh_venvs.py [--which newest|oldest|both] [--ref HEAD] [--work DIR]

For each resolution: clone this repository (committed state at ``--ref``) into a new folder,
make a brand-new venv, run ``pip install ".[test]" && python -m pytest`` in the clone, and print
the versions of numpy, pandas, pyarrow and faker it resolved and pytest's last line.
"newest" is what pip picks today; "oldest" pins every dependency of pyproject.toml (core and the
``test`` extra) to its lower bound through a constraints file (``PIP_CONSTRAINT``), the way a
resolver's "lowest" mode would. Exit 1 if either run fails.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
REPORTED = ("numpy", "pandas", "pyarrow", "faker", "scipy")


def lower_bounds(pyproject: Path, pip: Path) -> list[str]:
    """``name==lowest`` for every core and test requirement: the oldest release the index has that
    its specifier allows (a bound such as ``pandas-stubs>=2.1`` need not be a release itself)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    pins = {}
    for line in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        requirement = Requirement(line)
        if any(spec.operator in (">=", "==", "~=") for spec in requirement.specifier):
            allowed = [v for v in released(requirement.name, pip) if v in requirement.specifier]
            pins[requirement.name.lower()] = min(allowed, key=Version)
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def released(name: str, pip: Path) -> list[str]:
    """The versions of ``name`` the package index offers (``pip index versions``)."""
    listing = subprocess.run([str(pip), "index", "versions", name], capture_output=True, text=True,
                             check=True).stdout
    line = next(line for line in listing.splitlines() if line.startswith("Available versions:"))
    versions = []
    for text in line.split(":", 1)[1].split(","):
        with contextlib.suppress(InvalidVersion):
            if not Version(text.strip()).is_prerelease:
                versions.append(text.strip())
    return versions


def run(command: list[str] | str, cwd: Path, env: dict[str, str], log: Path) -> int:
    with log.open("a") as out:
        out.write(f"$ {command}\n")
        out.flush()
        return subprocess.run(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                              shell=isinstance(command, str)).returncode


def fresh_run(which: str, ref: str, work: Path) -> tuple[bool, str]:
    clone, venv, log = work / f"clone-{which}", work / f"venv-{which}", work / f"{which}.log"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "--quiet", ref], cwd=clone, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PIP_CONSTRAINT")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    if which == "oldest":
        constraints = work / "oldest-constraints.txt"
        constraints.write_text("\n".join(lower_bounds(clone / "pyproject.toml", venv / "bin" / "pip")) + "\n")
        env["PIP_CONSTRAINT"] = str(constraints)
    # the README's command, exactly (in the clone, on the venv's pip and python)
    code = run('pip install ".[test]" && python -m pytest', clone, env, log)
    versions = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "from importlib.metadata import version as v; "
         f"print(', '.join(f'{{p}} {{v(p)}}' for p in {REPORTED!r}))"],
        capture_output=True, text=True, env=env).stdout.strip() or "(install failed)"
    last = next((line for line in reversed(log.read_text().splitlines()) if line.strip()), "")
    return code == 0, f"{which}: {versions}\n  {last}\n  log: {log}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--which", choices=("newest", "oldest", "both"), default="both")
    parser.add_argument("--ref", default="HEAD", help="the commit to clone [default: HEAD]")
    parser.add_argument("--work", type=Path, default=None,
                        help="folder for the clones, venvs and logs [default: a new temporary one]")
    args = parser.parse_args()
    ref = subprocess.run(["git", "rev-parse", args.ref], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    work = args.work or Path(tempfile.mkdtemp(prefix="pushgen-fresh-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"commit {ref[:12]}, work folder {work}", flush=True)
    passed = True
    for which in ("newest", "oldest") if args.which == "both" else (args.which,):
        ok, summary = fresh_run(which, ref, work)
        passed &= ok
        print(summary, flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
