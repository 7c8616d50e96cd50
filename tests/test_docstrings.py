"""The public names' docstrings: their examples run as doctests, and the front door and the
environments keep complete numpydoc docstrings (``python scripts/public_api.py`` counts them all)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import tempfile

import pytest
from scripts_loader import script

import pushgen

public_api = script("public_api")

# these stay complete: the package's front door and every environment
COMPLETE = {
    "pushgen.Dataset", "pushgen.development_split", "pushgen.evaluate", "pushgen.generate",
    "pushgen.is_possible", "pushgen.list_splits", "pushgen.load_split", "pushgen.run_benchmark",
    "pushgen.DatasetError", "pushgen.GenerationError", "pushgen.Priors",
    "pushgen.envs.NotificationGenerationEnv", "pushgen.envs.NotificationInboxEnv",
    "pushgen.envs.NotificationSelectionEnv", "pushgen.envs.NotificationGenerationVectorEnv",
    "pushgen.envs.NotificationSelectionVectorEnv",
}


def documented() -> dict[str, object]:
    """Each public function and class once, under its first public name."""
    seen, out = set(), {}
    for module, name, value in public_api.public_names():
        if (inspect.isclass(value) or inspect.isfunction(value)) and id(value) not in seen:
            seen.add(id(value))
            out[f"{module}.{name}"] = value
    return out


def with_examples() -> list[tuple[str, doctest.DocTest]]:
    finder = doctest.DocTestFinder(recurse=False)
    return [(name, test) for name, value in documented().items()
            for test in finder.find(value, name=name, globs={}) if test.examples]


def other_examples() -> list[tuple[str, doctest.DocTest]]:
    """The examples in the package's other docstrings (private names, modules): kept true too."""
    public = {(test.filename, test.lineno) for _, test in with_examples()}
    out = []
    for info in pkgutil.walk_packages(pushgen.__path__, "pushgen."):
        if info.name.endswith("__main__"):  # importing it runs the program
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # a module of an extra that is not installed
            continue
        out += [(test.name, test) for test in doctest.DocTestFinder().find(module, info.name)
                if test.examples and (test.filename, test.lineno) not in public]
    return out


def test_the_front_door_and_the_environments_are_complete():
    names = documented()
    assert set(names) >= COMPLETE
    assert [name for name in sorted(COMPLETE) if not public_api.complete(names[name])] == []


def test_completeness_asks_for_the_sections():
    def bare(x: int) -> int:
        """Twice ``x``."""
        return 2 * x

    def full(x: int) -> int:
        """Twice ``x``.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int
            Twice it.

        Examples
        --------
        >>> full(2)
        4
        """
        return 2 * x

    assert not public_api.complete(bare) and public_api.complete(full)


@pytest.mark.parametrize(("name", "test"), with_examples() + other_examples(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_examples_run(name, test, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # examples' mkdtemp() folders go with it
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
