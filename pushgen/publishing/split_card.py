"""The dataset card (``README.md``) of a split folder.

Hugging Face layout: YAML front matter (``pushgen.publishing.cards.hub``) whose ``configs`` load the
model-facing tables, never the answer key under ``scorer/``; then the answers to the Datasheets
for Datasets questions. The tables come from ``split.json``, so the card follows the layout.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen.publishing.cards import Json, hub, render_template
from pushgen.publishing.cards.tables import SPLIT_TABLES, is_answer_key, split_table_description, tables
from pushgen.splits import SPLIT_FILE, SplitSpec, boundaries
from pushgen.text_tables import markdown_table, plural

CARD_FILE = "README.md"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
HISTORY, CONTEXTS = "history", "contexts"
CONFIG_TEXT = {
    HISTORY: "notifications with their context, the user's action and timings",
    CONTEXTS: "the test contexts a model fills: user_id, context_id, posted_at (when the notification "
              "would be delivered) and the context features",
}


@dataclass(frozen=True)
class PartSummary:
    part: str
    rows: int
    users: int
    first: str
    last: str
    open_rate: float | None  # None for a test part: the card states no figure of the answer key


def model_parts(description: Json) -> list[str]:
    """The parts a model reads, in ``split.json`` order (the answer key's parts left out)."""
    return [part for part in description["parts"] if not is_answer_key(part)]


def summarize_part(folder: Path, part: str, description: Json | None = None) -> PartSummary:
    """Rows, users, dates and open rate of a part. A test part is summarised from what models
    read of it (its contexts) and its dates from the split's test months; its open rate, or
    any other figure of its answer key, is not stated."""
    if "/test" in part and not is_answer_key(part):
        return _test_part(folder, part, description)
    table = pq.read_table(Path(folder) / f"{part}.parquet", columns=["user_id", "posted_at", "action"])
    if table.num_rows == 0:
        return PartSummary(part, 0, 0, "-", "-", float("nan"))
    span = pc.min_max(table.column("posted_at")).as_py()
    opened = pc.equal(table.column("action").cast("string"), "opened")
    return PartSummary(
        part=part,
        rows=table.num_rows,
        users=len(pc.unique(table.column("user_id"))),
        first=f"{span['min']:%Y-%m-%d}",
        last=f"{span['max']:%Y-%m-%d}",
        open_rate=pc.mean(opened.cast("int8")).as_py(),
    )


def _test_part(folder: Path, part: str, description: Json | None) -> PartSummary:
    table = pq.read_table(Path(folder) / f"{part}.parquet", columns=["user_id"])
    if description is None:
        description = json.loads((Path(folder) / SPLIT_FILE).read_text())
    _, start, end = boundaries(dt.date.fromisoformat(description["recipe"]["start"]),
                               SplitSpec(**description["split"]))
    if table.num_rows == 0:
        return PartSummary(part, 0, 0, "-", "-", None)
    last = end.astype("datetime64[D]") - np.timedelta64(1, "D")
    return PartSummary(part=part, rows=table.num_rows, users=len(pc.unique(table.column("user_id"))),
                       first=str(start.astype("datetime64[D]")), last=str(last), open_rate=None)


def split_label(description: Json) -> str:
    version = description.get("version")
    return f"{description['name']}-{version}" if version else description["name"]


def pretty_name(description: Json) -> str:
    """Unique per split and version; a local split (no version) is named by its content."""
    if description.get("version"):
        return f"{description['name']} {description['version']}"
    return f"{description['name']} (local split {description['fingerprint'][:12]})"


def hf_split_name(part: str, group: list[str]) -> str:
    """``task1/train`` -> ``train`` when no other part of the group ends the same way."""
    last = part.rpartition("/")[2]
    same = [p for p in group if p.rpartition("/")[2] == last]
    return last if len(same) == 1 else part.replace("/", "_")


def common_schema(folder: Path, paths: list[str]) -> pa.Schema:
    schemas = [pq.read_schema(Path(folder) / path) for path in paths]
    for path, schema in zip(paths[1:], schemas[1:], strict=True):
        if not schema.equals(schemas[0]):
            raise ValueError(f"{path} has other columns than {paths[0]}: one config needs one schema")
    return schemas[0]


def table_split(folder: Path, name: str, paths: list[str]) -> hub.TableSplit:
    table = pq.read_table([str(Path(folder) / path) for path in paths])
    pattern = paths[0] if len(paths) == 1 else f"{paths[0].rpartition('/')[0]}/*.parquet"
    return hub.TableSplit(name, pattern, table.num_rows, hub.arrow_bytes(table))


def split_configs(folder: Path, description: Json) -> list[hub.Config]:
    """The Hugging Face configs of a split: ``history`` (the default), ``contexts`` (the test
    parts) and one per other model-facing table; nothing under scorer/, no part without rows."""
    tag = f"{pretty_name(description)}, content fingerprint {description['fingerprint']}"
    parts = model_parts(description)
    groups = {HISTORY: [p for p in parts if not p.endswith("/test")],
              CONTEXTS: [p for p in parts if p.endswith("/test")]}
    configs = []
    for name, group in groups.items():
        # a part without rows is no split: datasets cannot read a Parquet file without rows
        splits = tuple(table_split(folder, hf_split_name(part, group), [f"{part}.parquet"])
                       for part in group if description["parts"][part]["rows"])
        if not splits:
            continue
        configs.append(hub.Config(
            name=name, description=f"{tag}: {CONFIG_TEXT[name]}",
            schema=common_schema(folder, [s.path for s in splits]), splits=splits,
            default=name == HISTORY))
    for table, paths in tables(p for p in description["files"] if p.endswith(".parquet")).items():
        if is_answer_key(table) or table in description["parts"]:
            continue
        configs.append(hub.Config(
            name=table.replace("/", "_"), description=f"{tag}: {split_table_description(table)}",
            schema=common_schema(folder, paths), splits=(table_split(folder, "train", paths),)))
    return configs


def parts_table(summaries: list[PartSummary]) -> str:
    return markdown_table(
        ("part", "file", "rows", "users", "first day", "last day", "open rate"),
        [(s.part, f"`{s.part}.parquet`", f"{s.rows:,}", s.users, s.first, s.last,
          "-" if s.rows == 0 or s.open_rate is None else f"{s.open_rate:.3f}") for s in summaries],
        right=(False, False, True, True, False, False, True))


def configs_table(configs: list[hub.Config]) -> str:
    return markdown_table(
        ("config", "split", "file", "rows"),
        [(f"{config.name} (default)" if config.default else config.name, s.name, f"`{s.path}`",
          f"{s.rows:,}") for config in configs for s in config.splits],
        right=(False, False, False, True))


def files_list(description: Json) -> str:
    """The split's files: the model-facing ones, then the answer key's."""
    model, answer_key = [], []
    for table, paths in tables(description["files"]).items():
        names = ", ".join(f"`{path}`" for path in paths)
        if is_answer_key(table):
            answer_key.append(f"  - {names}: {SPLIT_TABLES.get(table, table)}")
        else:
            model.append(f"- {names}: {split_table_description(table)}")
    if answer_key:
        model.append("- `scorer/`: the answer key, which models must not read:")
    return "\n".join(model + answer_key)


def split_card(folder: Path, title: str | None = None, summary: str | None = None,
               final_name: str | None = None) -> str:
    """The card of the split folder ``folder`` (its ``split.json`` must be written); a local split
    is named by ``final_name``, the folder's name once written (default: its name now)."""
    folder = Path(folder)
    local_name = final_name or folder.name
    description = json.loads((folder / SPLIT_FILE).read_text())
    summaries = [summarize_part(folder, part, description) for part in model_parts(description)]
    configs = split_configs(folder, description)
    recipe, spec = description["recipe"], description["split"]
    label = split_label(description)
    users, cold = recipe["users"], spec["cold_start_users"]
    span = plural(recipe["months"], "month") if recipe.get("months") else plural(recipe["days"], "day")
    rows = sum(s.rows for s in summaries)
    standard = description.get("version") is not None
    distribution = (
        f"Published in the pushgen repository under `generated/{description['name']}/"
        f"{description['version']}` and through `pushgen download {label}`, which checks the sha256 "
        f"of every file; `pushgen download {label} --regenerate` rebuilds it from the recipe and "
        "checks its content fingerprint instead."
        if standard else
        "Made locally with `pushgen split`; share the folder as it is (`split.json` lists the sha256 "
        "of every data file) or share the recipe below, which remakes it exactly."
    )
    fetch = (f"pushgen download {label}              # or add --regenerate: rebuild it here, no network"
             if standard else f"# a local split: load it by its folder, {local_name}")
    source = f'"{label}"' if standard else f'"{local_name}"'
    hf_folder = ('folder = "..."  # the folder that pushgen download printed' if standard
                 else f"folder = {source}")
    history_splits = ", ".join(s.name for c in configs if c.name == HISTORY for s in c.splits)
    body = render_template(
        "split.md", label=label, title=title or "A pushgen split", users=users, span=span,
        start=recipe["start"], summary=summary or "", fingerprint=description["fingerprint"],
        pushgen_version=description.get("pushgen_version") or "?", seed=recipe["seed"],
        task1_users=plural(users - cold, "user"), train_months=plural(spec["train_months"], "month"),
        validation_weeks=plural(spec["validation_weeks"], "week"),
        test_months=plural(spec["test_months"], "test month"), task2_users=plural(cold, "held-out user"),
        parts_table=parts_table(summaries), fetch=fetch, source=source, hf_folder=hf_folder,
        history_splits=history_splits, configs_table=configs_table(configs),
        files_list=files_list(description), rows=f"{rows:,}", distribution=distribution,
        license_url=LICENSE_URL, recipe=json.dumps({"recipe": recipe, "split": spec}, indent=1))
    return hub.render(hub.card_data(pretty_name(description), configs, rows), body)


def write_card(folder: Path, title: str | None = None, summary: str | None = None,
               final_name: str | None = None) -> None:
    (Path(folder) / CARD_FILE).write_text(split_card(folder, title, summary, final_name))
