"""The dataset card (``README.md``) of a split folder.

Hugging Face layout: YAML front matter whose ``configs`` map each part to its Parquet file,
then the answers to the Datasheets for Datasets questions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from pushgen.dataset import TRUTH
from pushgen.splits import MODEL_PARTS as PARTS
from pushgen.splits import SPLIT_FILE, TRUTH_TABLES

CARD_FILE = "README.md"
LICENSE = "cc-by-4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
TAGS = ("synthetic", "push-notifications", "user-modeling", "recommender-systems",
        "reinforcement-learning", "dynamic-bayesian-network", "evalumap")
SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"))


@dataclass(frozen=True)
class PartSummary:
    part: str
    rows: int
    users: int
    first: str
    last: str
    open_rate: float


def summarize_part(folder: Path, part: str) -> PartSummary:
    """Rows, users, dates and open rate of a part; a test part's dates and open rate come from
    its answer key under scorer/ (the card states them; the part itself holds contexts only)."""
    source = part if part.startswith("scorer/") or "/test" not in part else f"scorer/{part}"
    table = pq.read_table(Path(folder) / f"{source}.parquet", columns=["user_id", "posted_at", "action"])
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


def size_category(rows: int) -> str:
    for bound, label in SIZE_CATEGORIES:
        if rows < bound:
            return label
    return "n>1T"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def split_label(description: dict) -> str:
    version = description.get("version")
    return f"{description['name']}-{version}" if version else description["name"]


def front_matter(description: dict, rows: int) -> str:
    lines = [
        "---",
        f"pretty_name: {split_label(description)}",
        f"license: {LICENSE}",
        "annotations_creators:", "- machine-generated",
        "language_creators:", "- machine-generated",
        "source_datasets:", "- original",
        "size_categories:", f"- {size_category(rows)}",
        "task_categories:", "- tabular-classification", "- reinforcement-learning",
        "tags:", *(f"- {tag}" for tag in TAGS),
        "configs:",
    ]
    tasks: dict[str, list[str]] = {}
    for part in PARTS:
        task, split = part.split("/")
        tasks.setdefault(task, []).append(split)
    for task, splits in tasks.items():
        lines += [f"- config_name: {task}", "  data_files:"]
        for split in splits:
            lines += [f"  - split: {split}", f"    path: {task}/{split}.parquet"]
        if task == "task1":
            lines.append("  default: true")
    for name, path in [("users", "users.parquet"),
                       *((table, f"{TRUTH}/{table}.parquet") for table in sorted(TRUTH_TABLES))]:
        lines += [f"- config_name: {name}", "  data_files:", "  - split: train", f"    path: {path}"]
    lines.append("---")
    return "\n".join(lines) + "\n"


def parts_table(summaries: list[PartSummary]) -> str:
    rows = ["| part | file | rows | users | first day | last day | open rate |",
            "|---|---|---:|---:|---|---|---:|"]
    for s in summaries:
        rate = "-" if s.rows == 0 else f"{s.open_rate:.3f}"
        rows.append(f"| {s.part} | `{s.part}.parquet` | {s.rows:,} | {s.users} | {s.first} | "
                    f"{s.last} | {rate} |")
    return "\n".join(rows)


def split_card(folder: Path, title: str | None = None, summary: str | None = None) -> str:
    """The card of the split folder ``folder`` (its ``split.json`` must be written)."""
    folder = Path(folder)
    description = json.loads((folder / SPLIT_FILE).read_text())
    summaries = [summarize_part(folder, part) for part in PARTS]
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
             if standard else f"# a local split: load it by its folder, {folder.name}")
    source = f'"{label}"' if standard else f'"{folder.name}"'
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

task1 = load_dataset("parquet", data_files={{"train": "task1/train.parquet",
                                            "validation": "task1/validation.parquet",
                                            "test": "task1/test.parquet"}})
```

## Files

- `task1/train.parquet`, `task1/validation.parquet`, `task1/test.parquet`: one row per
  notification of the task-1 users, with its context and the logged action and timings. Every
  part starts with `context_id` (equal to `notification_id`), the key of a submission's rows.
- `task2/test.parquet`: the cold-start users' test months, same columns.
- `users.parquet`: one row per user, with a pseudonym (made up by a seeded faker) and a summary
  of the user's simulated habits.
- `ground_truth/`: the simulated user that decided every action, kept apart from the parts:
  `engagement_model.json` (the formula's constants), `engagement_users.parquet` (per-user
  scalars), `engagement_weights.parquet` (per user, feature and value), `engagement_rows.parquet`
  (per notification: dynamic state such as fatigue, the random draw and P(open)). The replay
  environments use it to judge generated notifications; a model under evaluation must not.
- `split.json`: the recipe, the split parameters, rows, users and a fingerprint per part, and
  the sha256 of every data file. `croissant.json`: the same description in Croissant (JSON-LD).

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
offensive. Subpopulations are the users' occupations and schedules, listed in `users.parquet`.

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
    return front_matter(description, rows) + body


def write_card(folder: Path, title: str | None = None, summary: str | None = None) -> Path:
    path = Path(folder) / CARD_FILE
    path.write_text(split_card(folder, title, summary))
    return path
