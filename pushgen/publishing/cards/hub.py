"""Hugging Face metadata of a dataset or split folder: the YAML front matter of its card.

``configs`` name the tables ``datasets.load_dataset(folder, config)`` reads, one config per
group of tables with the same columns; ``dataset_info`` gives their features (the published
value sets as ``ClassLabel``) and split sizes. Every config carries a description with the
folder's content fingerprint: ``datasets`` keys its cache on the folder's name and the YAML,
so two folders named ``v1`` with different content would otherwise share a cache entry.

The front matter is the YAML that ``huggingface_hub.DatasetCard`` writes for the same metadata
(its keys in the order of ``DatasetCardData``, block style, Unicode kept), written with PyYAML
alone: ``huggingface_hub`` takes half a second to import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import yaml

from pushgen import schemas

LICENSE = "cc-by-4.0"
TAGS = ("synthetic", "push-notifications", "user-modeling", "recommender-systems",
        "reinforcement-learning", "dynamic-bayesian-network", "evalumap")
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"),
                   (1_000_000_000, "100M<n<1B"))
FLOAT_NAMES = {"halffloat": "float16", "float": "float32", "double": "float64"}


@dataclass(frozen=True)
class TableSplit:
    """One split of a config: its name, its file (or glob of part files), its rows and the bytes
    it takes once loaded (``arrow_bytes``)."""

    name: str
    path: str
    rows: int
    num_bytes: int


@dataclass(frozen=True)
class Config:
    """Tables with the same columns, loaded together as the splits of one config."""

    name: str
    description: str
    schema: pa.Schema
    splits: tuple[TableSplit, ...]
    default: bool = False


def size_category(rows: int) -> str:
    for bound, label in SIZE_CATEGORIES:
        if rows < bound:
            return label
    return "n>1T"


def value_type(data_type: pa.DataType) -> str:
    """The ``datasets.Value`` dtype that an Arrow column of ``data_type`` loads as."""
    if pa.types.is_dictionary(data_type):
        return value_type(data_type.value_type)
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return "string"
    if pa.types.is_boolean(data_type):
        return "bool"
    return FLOAT_NAMES.get(str(data_type), str(data_type))


def arrow_bytes(table: pa.Table) -> int:
    """The bytes ``datasets`` reports for ``table`` once loaded: categoricals as int64 class
    labels, strings with 32-bit offsets, other columns as they are."""
    total = 0
    for column in table.schema:
        spec = schemas.fields().get(column.name)
        if spec is not None and spec.is_categorical:
            total += 8 * table.num_rows
            continue
        values = table.column(column.name)
        if pa.types.is_dictionary(column.type) or pa.types.is_large_string(column.type):
            values = values.cast(pa.string())
        total += values.nbytes
    return total


def feature(column: pa.Field) -> dict[str, object]:
    """A column's feature: a ``ClassLabel`` over the published values for a categorical."""
    spec = schemas.fields().get(column.name)
    if spec is not None and spec.is_categorical and spec.values is not None:
        names = {str(code): str(value) for code, value in enumerate(spec.values)}
        return {"name": column.name, "dtype": {"class_label": {"names": names}}}
    return {"name": column.name, "dtype": value_type(column.type)}


def config_entry(config: Config) -> dict[str, object]:
    entry: dict[str, object] = {
        "config_name": config.name,
        "description": config.description,
        "data_files": [{"split": s.name, "path": s.path} for s in config.splits],
    }
    if config.default:
        entry["default"] = True
    return entry


def info_entry(config: Config) -> dict[str, object]:
    return {
        "config_name": config.name,
        "features": [feature(column) for column in config.schema],
        "splits": [{"name": s.name, "num_bytes": s.num_bytes, "num_examples": s.rows} for s in config.splits],
    }


def card_data(pretty_name: str, configs: Sequence[Config], rows: int) -> dict[str, object]:
    """The card's metadata; ``rows`` (the size category) counts the dataset's main rows."""
    defaults = [c.name for c in configs if c.default]
    if len(defaults) != 1:
        raise ValueError(f"exactly one config must be the default; got {defaults or 'none'}")
    return {
        "annotations_creators": ["machine-generated"],
        "language_creators": ["machine-generated"],
        "license": LICENSE,
        "size_categories": [size_category(rows)],
        "source_datasets": ["original"],
        "task_categories": ["tabular-classification", "reinforcement-learning"],
        "pretty_name": pretty_name,
        "tags": list(TAGS),
        "configs": [config_entry(c) for c in configs],
        "dataset_info": [info_entry(c) for c in configs],
    }


def render(data: dict[str, object], body: str) -> str:
    """The card: YAML front matter from ``data``, then the Markdown ``body``."""
    front_matter = yaml.dump(data, Dumper=dumper_for(data), sort_keys=False, allow_unicode=True).strip()
    return f"---\n{front_matter}\n---\n\n{body.lstrip()}"


def dumper_for(data: object) -> type[yaml.Dumper]:
    """libyaml's emitter (a fifth of the time) where it writes what PyYAML's own writes: on plain
    ASCII data (see ``plain_ascii``); PyYAML's own elsewhere."""
    if getattr(yaml, "__with_libyaml__", False) and plain_ascii(data):
        return yaml.CDumper
    return yaml.Dumper


def plain_ascii(data: object) -> bool:
    """Whether ``data`` is made of dicts with non-empty keys, lists, integers, booleans and strings,
    every string printable ASCII."""
    if isinstance(data, dict):
        return all(isinstance(key, str) and key and _printable(key) and plain_ascii(value)
                   for key, value in data.items())
    if isinstance(data, list):
        return all(plain_ascii(value) for value in data)
    if isinstance(data, str):
        return _printable(data)
    return isinstance(data, bool | int)


def _printable(text: str) -> bool:
    return text.isascii() and text.isprintable()
