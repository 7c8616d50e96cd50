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

from pushgen.publishing.cards import Json, hub
from pushgen.publishing.cards.tables import SPLIT_TABLES, is_answer_key, split_table_description, tables
from pushgen.splits import SPLIT_FILE, SplitSpec, boundaries
from pushgen.text_tables import markdown_table

CARD_FILE = "README.md"
LICENSE = hub.LICENSE
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


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
    body = f"""
# {label}

{title or "A pushgen split"}: synthetic smartphone push notifications of {users} simulated users over
{span} from {recipe['start']}, each with its context and the user's action (opened or dismissed),
split for the two tasks of the EvalUMAP 2019 personalised-notification challenge.
{summary or ""}

| | |
|---|---|
| content fingerprint | `{description['fingerprint']}` |
| made by | pushgen {description.get('pushgen_version') or "?"}, seed {recipe['seed']} |
| task 1 (offline) | {plural(users - cold, "user")}: {plural(spec['train_months'], "month")} of history \
(the last {plural(spec['validation_weeks'], "week")} as validation), then \
{plural(spec['test_months'], "test month")} |
| task 2 (cold start) | {plural(cold, "held-out user")}: their \
{plural(spec['test_months'], "test month")} only |

{parts_table(summaries)}

The test parts' figures beyond their contexts (open rates, actions) are the answer key's: the
card states none of them.

## Quick start

```
{fetch}
```

```python
import pushgen

split = pushgen.load_split({source}, task=1)   # pandas frames, categorical dtypes
split.train, split.validation, split.test, split.users
```

```python
from datasets import load_dataset

{hf_folder}
history = load_dataset(folder, "history")    # splits: {history_splits}
contexts = load_dataset(folder, "contexts")  # the test contexts to fill
```

Categorical features load as `ClassLabel` over their published values. The configs read exactly
these files:

{configs_table(configs)}

## The answer key: scorer/

`scorer/` is the answer key, and models must not read it: only the evaluator (`pushgen evaluate`)
and the environments do. It holds the logged notification, action and timings of every test
context, every user's habit summary, and the simulated user that decided every action
(`scorer/ground_truth/`). No config of this card reads it, so `load_dataset` never returns it; in
`croissant.json` every record set under `scorer/` says that it is the answer key.

## Files

{files_list(description)}
- `split.json`: the recipe, the split parameters, rows, users and a fingerprint per part, and
  the sha256 of every data file.
- `croissant.json`: the same description in Croissant (JSON-LD), with the value set of every
  categorical feature.

## Motivation

pushgen exists so that notification models can be trained and compared on data that anyone can
obtain, inspect and regenerate. Real notification logs are private and small (EvalUMAP 2019
published ten users over 84 days with artefacts a model could exploit); this split replaces them
with a generative model whose every parameter is published. It was made with pushgen, by the
pushgen developers.

## Composition

Each instance is one notification posted to one simulated user: the notification's features
(`postingApp, category, numberOfUpdates, subject, priority, ongoing, visibility`), the context at
posting (`day, time, place, activity, noise, batteryLevel, charging, headphonesIn, musicActive,
proximity, ringerMode`), the action (`opened` or `dismissed`) and the seconds until seen and until
acted on. Every value lies in the published value sets of the EvalUMAP 2019 features; there are no
missing values. The split holds all {rows:,} notifications of its {users} users in the period;
it is not a sample. Instances of one user are related through that user's habits and dynamic
state (fatigue, novelty), which is why the parts split by time (task 1) and by user (task 2).
No instance describes a real person: pseudonyms are invented, and nothing is confidential or
offensive. Subpopulations are the users' occupations and schedules, listed in
`scorer/users.parquet`.

## Collection process

Nothing was collected: the data were sampled from pushgen's dynamic Bayesian network. Users'
latent habits are drawn from population priors calibrated to published figures on real
notifications; each user then lives through the time grid (routine, place, activity, device
state), apps post notifications into those contexts, and the engagement model decides each
action. Randomness comes from `numpy.random.SeedSequence({recipe['seed']})` spawned per user and
node family, so a user's rows do not depend on how many users were made. The recipe below is
everything that determined the content.

## Preprocessing, cleaning, labelling

None beyond the split itself: the parts are the generator's rows, cut by posting time (training
months, the validation weeks at their end, test months) and by user (cold-start users). The
action is the generator's own decision; no person labelled anything.

## Uses

Intended: training and benchmarking models that choose or generate notifications for a context
(task 1 offline, task 2 online with cold start), engagement prediction, and studies of fatigue and
timing. The replay environments score generated notifications with the same engagement model
that made the data. Not intended: conclusions about real people or real apps' users; the data
reproduce published aggregate figures, not any individual's behaviour.

## Distribution

{distribution} License: CC BY 4.0 ({LICENSE_URL}).

## Maintenance

Maintained by the pushgen developers through the repository's issues. A published version never
changes: any change to its content (generator, priors, recipe, split parameters) is published as
a new version, and older versions stay downloadable. See `docs/versioning.md` in the repository.

## Recipe

```json
{json.dumps({"recipe": recipe, "split": spec}, indent=1)}
```
"""
    return hub.render(hub.card_data(pretty_name(description), configs, rows), body)


def write_card(folder: Path, title: str | None = None, summary: str | None = None,
               final_name: str | None = None) -> Path:
    path = Path(folder) / CARD_FILE
    path.write_text(split_card(folder, title, summary, final_name))
    return path
