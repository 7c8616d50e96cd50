"""The standard splits: what ``pushgen/publishing/registry.json`` says each published name and version holds.

A standard split has a ``name`` (``pushgen``, ``pushgen-mini``) and a ``version`` (``v1``);
users may type them together as ``pushgen-v1``, or the name alone for its latest version.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from pushgen.data.dataset import DatasetError
from pushgen.data.outputs import sha256_file
from pushgen.data.recipe import Recipe
from pushgen.model.engagement import MODEL_VERSION
from pushgen.splits import SCORER_MODEL_FILE, SPLIT_FILE, SplitSpec
from pushgen.text_tables import aligned_table, counted, html_table

REGISTRY_FILE = Path(__file__).with_name("registry.json")
VERSION = re.compile(r"v(\d+)")
LABEL = re.compile(r"(?P<name>.+)-(?P<version>v\d+)")
RECORDED_PACKAGES = ("numpy", "scipy", "pandas", "pyarrow", "faker")


class UnknownSplit(DatasetError):
    """A name or version that the registry does not hold (the message lists what it does)."""


@dataclass(frozen=True)
class StandardSplit:
    """One published split: its recipe, content fingerprint and files."""

    name: str
    version: str
    title: str
    description: str
    recipe: dict
    split: dict
    fingerprint: str
    fingerprints: dict[str, str]
    rows: dict[str, int]
    files: dict[str, dict]  # relative path -> {"bytes": int, "sha256": str}
    pushgen_version: str | None = None
    environment: dict[str, str] = field(default_factory=dict)
    supersedes: str | None = None  # the label of the version this one replaces
    engagement_model: int = 1  # the engagement model version that simulated it
    revision: str | None = None  # the repository tag or commit whose generated/ holds the files

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"

    def __repr__(self) -> str:
        return (f"<StandardSplit {self.label}: {counted(self.users, 'user')} "
                f"({self.cold_start_users} cold start), "
                f"{counted(self.months, 'month') if self.months else '- months'}, {self.bytes / 1e6:.1f} MB, "
                f"fingerprint {self.fingerprint[:16]}>")

    def _repr_html_(self) -> str:
        return SplitList([self])._repr_html_()

    @property
    def published_at(self) -> str:
        """The immutable revision (a git tag or commit) the files are downloaded from: the
        registry's ``revision``, or else the tag named after the split (``pushgen-v2``)."""
        return self.revision or self.label

    @property
    def users(self) -> int:
        return self.recipe["users"]

    @property
    def cold_start_users(self) -> int:
        return self.split["cold_start_users"]

    @property
    def months(self) -> int | None:
        return self.recipe.get("months")

    @property
    def bytes(self) -> int:
        return sum(f["bytes"] for f in self.files.values())

    def make_recipe(self) -> Recipe:
        """The recipe to regenerate this split; an error if this pushgen simulates another model."""
        if self.engagement_model != MODEL_VERSION:
            from pushgen._version import __version__

            raise DatasetError(f"{self.label} was simulated with engagement model {self.engagement_model}; "
                               f"this pushgen {__version__} simulates model {MODEL_VERSION} and cannot "
                               f"regenerate it: {other_model_advice(self.label)}")
        return Recipe.from_dict(self.recipe)

    def make_spec(self) -> SplitSpec:
        return SplitSpec(**self.split)


def version_number(version: str) -> int:
    match = VERSION.fullmatch(version)
    if match is None:
        raise ValueError(f"a version is 'v' and a number, e.g. v1; got {version!r}")
    return int(match.group(1))


@cache
def read_registry(path: Path = REGISTRY_FILE) -> tuple[StandardSplit, ...]:
    if not Path(path).is_file():
        return ()
    document = json.loads(Path(path).read_text())
    return tuple(StandardSplit(**entry) for entry in document["splits"])


class SplitList(list[StandardSplit]):
    """The standard splits, shown as a short table (one line each) in a terminal or notebook."""

    HEADER = ("split", "users", "cold start", "months", "size", "status")

    def _rows(self) -> list[tuple[str, ...]]:
        labels = {entry.supersedes: entry.label for entry in self if entry.supersedes}
        return [(e.label, str(e.users), str(e.cold_start_users), str(e.months or "-"),
                 f"{e.bytes / 1e6:.1f} MB",
                 f"superseded by {labels[e.label]}" if e.label in labels else "current") for e in self]

    def __repr__(self) -> str:
        return "\n".join(aligned_table(list(self.HEADER), self._rows()))

    def _repr_html_(self) -> str:
        return html_table(self.HEADER, self._rows(), caption="pushgen standard splits",
                          right=[False, True, True, True, True, False])


def load_registry() -> tuple[StandardSplit, ...]:
    """Every standard split the installed package knows of."""
    return read_registry(REGISTRY_FILE)


def list_splits() -> SplitList:
    """The standard splits, by name and then version (a list that shows itself as a table).

    Returns
    -------
    SplitList
        A list of ``StandardSplit`` (``name``, ``version``, users, months, files, whether
        current), shown as the table ``pushgen list`` prints.

    Examples
    --------
    >>> import pushgen
    >>> [f"{s.name}-{s.version}" for s in pushgen.list_splits()][:3]
    ['pushgen-v1', 'pushgen-v2', 'pushgen-v3']
    """
    return SplitList(sorted(load_registry(), key=lambda s: (s.name, version_number(s.version))))


def lookup(text: str, version: str | None = None) -> StandardSplit:
    """The standard split named ``text`` (``pushgen-v1``, or ``pushgen`` with ``version``).

    Without a version, the name alone means its latest version; a version may leave out its
    ``v`` (``4`` is ``v4``).
    """
    splits = list_splits()
    if not isinstance(text, str) or not isinstance(version, str | None):
        wrong = text if not isinstance(text, str) else version
        raise UnknownSplit(f"a standard split is named by text, such as 'pushgen' or 'pushgen-v4'; got "
                           f"{type(wrong).__name__} {str(wrong)[:80]!r}; standard splits: "
                           f"{', '.join(s.label for s in splits) or 'none'}")
    if version is not None and version.isascii() and version.isdecimal():
        version = f"v{version}"
    by_name: dict[str, list[StandardSplit]] = {}
    for entry in splits:
        by_name.setdefault(entry.name, []).append(entry)
    name = text
    if text not in by_name and (match := LABEL.fullmatch(text)) and match["name"] in by_name:
        name = match["name"]
        if version is not None and version != match["version"]:
            raise UnknownSplit(f"{text!r} names version {match['version']} but --version is {version}")
        version = match["version"]
    available = ", ".join(s.label for s in splits) or "none"
    if name not in by_name:
        raise UnknownSplit(f"no standard split named {text!r}; standard splits: {available}")
    versions = by_name[name]
    if version is None:
        return versions[-1]
    for entry in versions:
        if entry.version == version:
            return entry
    raise UnknownSplit(f"{name} has no version {version!r}; versions: "
                       f"{', '.join(s.version for s in versions)}")


def identity_problem(folder: Path, description: dict) -> str | None:
    """What is wrong when a split's ``split.json`` gives a standard split's name and version but
    not its content fingerprint (None: it names no standard split, or is that split).

    Examples
    --------
    >>> from pathlib import Path
    >>> claimed = {"name": "pushgen-mini", "version": "v4", "fingerprint": "0" * 64}
    >>> identity_problem(Path("mine"), claimed)[:33]
    'mine calls itself pushgen-mini-v4'
    """
    name, version = description.get("name"), description.get("version")
    entry = next((s for s in list_splits() if (s.name, s.version) == (name, version)), None)
    if entry is None or description.get("fingerprint") == entry.fingerprint:
        return None
    return (f"{folder} calls itself {entry.label}, but its content fingerprint "
            f"{str(description.get('fingerprint'))[:16]}... is not the published "
            f"{entry.fingerprint[:16]}...: it is another split; give it a name of its own in split.json")


def superseded_by(label: str) -> StandardSplit | None:
    """The standard split that replaces ``label``, if a newer version does."""
    return next((s for s in list_splits() if s.supersedes == label), None)


def other_model_advice(label: str) -> str:
    """What to do with a split of another engagement model: its successor, and the pushgen
    release that built it (which regenerates and scores it)."""
    newer = superseded_by(label)
    while newer is not None and (newest := superseded_by(newer.label)) is not None:
        newer = newest  # the current version: the versions between are of other models too
    entry = next((s for s in list_splits() if s.label == label), None)
    advice = [f"use {newer.label}, which supersedes it" if newer else "make a new split with this pushgen"]
    if entry is not None and entry.pushgen_version:
        source = f" (the repository at {entry.revision[:12]})" if entry.revision else ""
        advice.append(f"or install pushgen {entry.pushgen_version}, which built it{source}")
    return ", ".join(advice)


def file_entries(folder: Path) -> dict[str, dict]:
    """Size and sha256 of every file of a split folder, by path relative to it."""
    folder = Path(folder)
    return {
        path.relative_to(folder).as_posix(): {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }


def environment() -> dict[str, str]:
    """Versions of what a split's content depends on, recorded beside its fingerprint."""
    from importlib import metadata  # only here: its import costs every evaluate 10 ms

    versions = {"python": ".".join(map(str, sys.version_info[:3]))}
    for package in RECORDED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def entry_for_folder(folder: Path, title: str, description: str,
                     supersedes: str | None = None) -> StandardSplit:
    """The registry entry of a built standard split folder."""
    folder = Path(folder)
    split = json.loads((folder / SPLIT_FILE).read_text())
    return StandardSplit(
        name=split["name"],
        version=split["version"],
        title=title,
        description=description,
        recipe=split["recipe"],
        split=split["split"],
        fingerprint=split["fingerprint"],
        fingerprints=split["fingerprints"],
        rows={part: values["rows"] for part, values in split["parts"].items()},
        files=file_entries(folder),
        pushgen_version=split.get("pushgen_version"),
        environment=environment(),
        supersedes=supersedes,
        engagement_model=int(json.loads((folder / SCORER_MODEL_FILE).read_text())["model_version"]),
        revision=None,  # the commit that adds the files is recorded once it is on main
    )


def write_registry(entries: list[StandardSplit], path: Path = REGISTRY_FILE) -> Path:
    """Write ``entries`` (sorted by name and version) as the registry file."""
    ordered = sorted(entries, key=lambda s: (s.name, version_number(s.version)))
    document = {"format": 1, "splits": [asdict(entry) for entry in ordered]}
    Path(path).write_text(json.dumps(document, indent=1) + "\n")
    read_registry.cache_clear()
    return Path(path)
