"""The Croissant description (``croissant.json``, JSON-LD, Croissant 1.1) of a split or dataset folder.

Every file is a ``cr:FileObject`` with its sha256 (a partitioned table's parts a ``cr:FileSet``);
every table a ``cr:RecordSet`` whose fields take their types from ``pushgen.schemas`` (other
columns from their Arrow type). A feature with a published value list references the
``values/<feature>`` record set, an ``sc:Enumeration`` that holds the list in order. The
tables come from ``split.json`` or ``manifest.json``; nothing depends on the clock, so the file
is the same bytes whenever the folder is.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.data.dataset import CARD, MANIFEST, read_manifest
from pushgen.data.outputs import sha256_file
from pushgen.publishing.cards import Json
from pushgen.publishing.cards.tables import DATASET_TABLES, split_table_description, tables
from pushgen.publishing.croissant_terms import COLUMNS, CONTEXT, CREATOR, KEYWORDS, RAI
from pushgen.publishing.split_card import CARD_FILE, LICENSE_URL, split_label
from pushgen.splits import SPLIT_FILE
from pushgen.text_tables import plural

CROISSANT_FILE = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
SCHEMA_TYPES = {"string": "sc:Text", "boolean": "sc:Boolean", "integer": "sc:Integer",
                "number": "sc:Float"}
ENCODINGS = {".parquet": "application/x-parquet", ".csv": "text/csv", ".json": "application/json",
             ".md": "text/markdown", ".html": "text/html"}
VALUES = "values"


@dataclass(frozen=True)
class Table:
    """A table to describe: its record set's name, what it holds, where it is, its columns."""

    name: str
    description: str
    source: dict[str, dict[str, str]]
    schema: pa.Schema


def arrow_data_type(data_type: pa.DataType) -> str:
    if pa.types.is_dictionary(data_type):
        return arrow_data_type(data_type.value_type)
    if pa.types.is_boolean(data_type):
        return "sc:Boolean"
    if pa.types.is_integer(data_type):
        return "sc:Integer"
    if pa.types.is_floating(data_type):
        return "sc:Float"
    if pa.types.is_timestamp(data_type) or pa.types.is_date(data_type):
        return "sc:DateTime"
    return "sc:Text"


def has_value_set(spec: schemas.Field) -> bool:
    """A feature whose values are a published list (booleans need none: their type says it)."""
    return spec.values is not None and spec.type != "boolean"


def value_set(spec: schemas.Field) -> dict[str, object]:
    """The ``values/<feature>`` record set: the published values in order, with their codes."""
    name = f"{VALUES}/{spec.name}"
    values = spec.values or ()
    return {
        "@type": "cr:RecordSet",
        "@id": name,
        "name": name,
        "description": f"The published values of {spec.name}, in order: code is a value's position "
                       "in the list (pushgen.schemas).",
        "dataType": "sc:Enumeration",
        "key": {"@id": f"{name}/value"},
        "field": [
            {"@type": "cr:Field", "@id": f"{name}/code", "name": "code",
             "description": "Position of the value in the published list.", "dataType": "sc:Integer"},
            {"@type": "cr:Field", "@id": f"{name}/value", "name": "value",
             "description": f"A value of {spec.name}.", "dataType": SCHEMA_TYPES[spec.type]},
        ],
        "data": [{f"{name}/code": code, f"{name}/value": value} for code, value in enumerate(values)],
    }


def column_field(table: Table, column: pa.Field) -> dict[str, object]:
    spec = schemas.fields().get(column.name)
    field: dict[str, object] = {"@type": "cr:Field", "@id": f"{table.name}/{column.name}",
                                "name": column.name}
    if spec is not None:
        field["description"] = spec.description
        field["dataType"] = SCHEMA_TYPES[spec.type]
        if has_value_set(spec):
            field["references"] = {"field": {"@id": f"{VALUES}/{spec.name}/value"}}
    else:
        field["description"] = COLUMNS.get(column.name, f"{column.name} (see the dataset card).")
        field["dataType"] = arrow_data_type(column.type)
    field["source"] = {**table.source, "extract": {"column": column.name}}
    return field


def record_set(table: Table) -> dict[str, object]:
    return {
        "@type": "cr:RecordSet",
        "@id": table.name,
        "name": table.name,
        "description": table.description,
        "field": [column_field(table, column) for column in table.schema],
    }


def file_object(path: str, size: int, sha256: str) -> dict[str, object]:
    return {
        "@type": "cr:FileObject",
        "@id": path,
        "name": path,
        "contentUrl": path,
        "contentSize": f"{size} B",
        "encodingFormat": ENCODINGS[Path(path).suffix],
        "sha256": sha256,
    }


def file_set(pattern: str, description: str) -> dict[str, object]:
    return {
        "@type": "cr:FileSet",
        "@id": pattern,
        "name": pattern,
        "description": description,
        "encodingFormat": ENCODINGS[Path(pattern).suffix],
        "includes": pattern,
    }


def semantic_version(version: str) -> str:
    """Croissant's MAJOR.MINOR.PATCH form of a split version (``v1`` -> ``1.0.0``)."""
    number = version.removeprefix("v")
    return f"{number}.0.0" if number.isdigit() else version


def date_published(recipe: Json) -> str:
    """The last simulated day: a date the recipe fixes, so the file does not change with the clock."""
    start = dt.date.fromisoformat(recipe["start"])
    return (start + dt.timedelta(days=int(recipe["days"]) - 1)).isoformat()


def value_sets(described: Iterable[Table]) -> list[dict[str, object]]:
    used = {column.name for table in described for column in table.schema}
    return [value_set(spec) for name, spec in schemas.fields().items()
            if name in used and has_value_set(spec)]


def document(name: str, description: str, version: str, recipe: Json, cite_as: str,
             distribution: list[dict[str, object]], described: list[Table],
             url: str | None = None) -> dict[str, object]:
    out: dict[str, object] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": name,
        "description": description,
        "license": LICENSE_URL,
        "citeAs": cite_as,
        "creator": CREATOR,
        "datePublished": date_published(recipe),
        "keywords": KEYWORDS,
        "version": version,
        **RAI,
    }
    if url:
        out["url"] = url
    out["distribution"] = distribution
    out["recordSet"] = [*value_sets(described), *(record_set(table) for table in described)]
    return out


def cite(label: str, title: str, fingerprint: str) -> str:
    return (f"@misc{{{label}, title = {{{label}: {title}}}, author = {{{{pushgen developers}}}}, "
            f"note = {{content fingerprint {fingerprint}}}}}")


def described_files(folder: Path, listed: dict[str, Json], extra: Iterable[str]) -> dict[str, Json]:
    """The files a listing gives (bytes, sha256) and the ``extra`` files present beside them."""
    files = dict(listed)
    for name in extra:
        if (folder / name).is_file():
            files[name] = {"bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name)}
    return files


def croissant(folder: Path, title: str | None = None, url: str | None = None) -> dict[str, object]:
    """The Croissant JSON-LD of a split folder (``split.json`` and the card written)."""
    folder = Path(folder)
    description = json.loads((folder / SPLIT_FILE).read_text())
    files = described_files(folder, description["files"], (SPLIT_FILE, CARD_FILE))
    recipe = description["recipe"]
    label = split_label(description)
    described = [
        Table(table, split_table_description(table), {"fileObject": {"@id": paths[0]}},
              pq.read_schema(folder / paths[0]))
        for table, paths in tables(description["files"]).items() if paths[0].endswith(".parquet")
    ]
    return document(
        name=label,
        description=(
            f"{title or 'A pushgen split'}: synthetic smartphone push notifications of "
            f"{recipe['users']} simulated users from pushgen's dynamic Bayesian network (seed "
            f"{recipe['seed']}), split for the EvalUMAP 2019 tasks. Content fingerprint "
            f"{description['fingerprint']}. Everything under scorer/ is the answer key: models must "
            "not read it."
        ),
        version=semantic_version(description.get("version") or description.get("pushgen_version")
                                 or "0.0.0"),
        recipe=recipe,
        cite_as=cite(label, title or "a pushgen split", description["fingerprint"]),
        distribution=[file_object(path, f["bytes"], f["sha256"]) for path, f in sorted(files.items())],
        described=described,
        url=url,
    )


def write_croissant(folder: Path, description: dict[str, object]) -> None:
    """Write ``description`` (``croissant`` or ``dataset_croissant`` of ``folder``) into it."""
    (Path(folder) / CROISSANT_FILE).write_text(json.dumps(description, indent=1) + "\n")


def table_schema(path: Path) -> pa.Schema:
    if path.suffix == ".csv":
        with pacsv.open_csv(path) as reader:
            return reader.schema
    return pq.read_schema(path)


def dataset_croissant(folder: Path) -> dict[str, object]:
    """The Croissant JSON-LD of a dataset folder (``manifest.json`` and the card written)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    recipe = manifest["recipe"]
    files = described_files(folder, {}, (MANIFEST, CARD))
    distribution: list[dict[str, object]] = []
    described = []
    for table, paths in tables(manifest["files"]).items():
        if len(paths) == 1:
            files[paths[0]] = manifest["files"][paths[0]]
            source = {"fileObject": {"@id": paths[0]}}
        else:
            pattern = f"{table}/part-*{Path(paths[0]).suffix}"
            distribution.append(file_set(pattern, f"The parts of {table}, read as one table "
                                                  f"(sha256 of each in {MANIFEST})."))
            source = {"fileSet": {"@id": pattern}}
        if Path(paths[0]).suffix in (".parquet", ".csv"):
            described.append(Table(table, DATASET_TABLES.get(table, f"The table {table}."), source,
                                   table_schema(folder / paths[0])))
    label = (f"pushgen-{recipe['users']}u-{recipe['days']}d-seed{recipe['seed']}-"
             f"{manifest['fingerprints']['notifications'][:12]}")
    distribution = [file_object(path, f["bytes"], f["sha256"]) for path, f in sorted(files.items())
                    ] + distribution
    return document(
        name=label,
        description=(
            f"Synthetic smartphone push notifications of {plural(recipe['users'], 'simulated user')} over "
            f"{plural(recipe['days'], 'day')} from {recipe['start']}, from pushgen's dynamic Bayesian "
            f"network (seed {recipe['seed']}). ground_truth/ holds the simulated user that decided every "
            "action."
        ),
        version=semantic_version(manifest.get("pushgen_version") or "0.0.0"),
        recipe=recipe,
        cite_as=cite(label, "a pushgen dataset", manifest["fingerprints"]["notifications"]),
        distribution=distribution,
        described=described,
    )
