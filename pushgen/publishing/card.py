"""The dataset card (README.md of a dataset folder) and the summary printed after ``make``.

The card is a function of the dataset and its manifest only, so it is byte-for-byte the same
whenever the same dataset is written again.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pyarrow as pa

from pushgen import schemas
from pushgen.data.dataset import CARD, MANIFEST, REPORT, TRUTH
from pushgen.data.describe import describe
from pushgen.data.describe_report import Section, pct, right_aligned, sections
from pushgen.data.generator import Dataset
from pushgen.model.priors import Priors
from pushgen.publishing.cards import Json, hub
from pushgen.publishing.cards.tables import DATASET_TABLES, tables
from pushgen.text_tables import markdown_table

FILE_CONTENT = {Path(table).name: text.rstrip(".") for table, text in DATASET_TABLES.items()}
FILE_CONTENT[Path(REPORT).stem] = "the visual report: figures of the statistics below (a web page)"
HF_TABLES = ("notifications", "users")  # the configs of the card; the ground truth is not loaded with them
ID_COLUMNS = (
    ("user_id", "int32", "one per user", "The user (key into the users table)."),
    ("notification_id", "int64", "unique",
     "The notification: user_id x 10,000,000 + the row's number within the user."),
    ("posted_at", "datetime64[ms]", "-", "When the app posted the notification (local time)."),
)
USER_COLUMNS = {
    "user_id": "the user",
    "name": "a made-up pseudonym (seeded Faker)",
    "occupation": "the user's kind of schedule",
    "wake_time": "usual wake-up time on workdays",
    "bedtime": "usual bedtime",
    "workdays": "days with work or study (M T W T F S S, '-' a day off)",
    "commute": "usual way to commute",
    "commute_minutes": "one-way commute",
    "phone_vendor": "phone maker (decides some system apps)",
    "apps": "number of installed apps that post notifications",
    "notifications_per_day": "the user's notifications per day in this dataset",
    "chattiness": "how much more (or less) the user's apps post than usual",
    "night_charging": "share of nights the phone charges",
    "usual_ringer": "the user's most common ringer mode",
}
ENGAGEMENT_SCALARS = {
    "intercept": "the user's base log-odds of opening",
    "audio_chat_bonus": "added for messages while headphones are in and music plays",
    "attention_amplitude": "size of the daily rhythm of attention",
    "attention_peak": "clock hour at which attention peaks",
    "asleep_penalty": "added while the user sleeps",
    "fatigue_weight": "multiplies the fatigue state",
    "novelty": "extra log-odds at the start, fading over novelty_days",
}


def summary_paragraph(manifest: Json, out: Path) -> str:
    """One paragraph on what ``make`` wrote: rows, users, date span, open rate, where."""
    recipe, rows = manifest["recipe"], manifest["rows"]["notifications"]
    first = (manifest.get("first_posted") or recipe["start"])[:10]
    last = (manifest.get("last_posted") or recipe["start"])[:10]
    open_rate = manifest.get("opened", 0) / rows if rows else 0.0
    return (
        f"Wrote {rows:,} notifications of {recipe['users']:,} users from {first} to {last} "
        f"({recipe['days']} days, seed {recipe['seed']}); open rate {open_rate:.2f}; in {out}"
    )


def dataset_card(dataset: Dataset, manifest: Json, statistics: dict | None = None) -> str:
    """The README.md of a dataset folder, from the dataset and its manifest (and its ``describe``
    statistics, if already computed)."""
    stats = describe(dataset.notifications_arrow, dataset.users_arrow) if statistics is None else statistics
    parts = [
        _introduction(dataset, manifest, stats),
        _recipe(manifest),
        _files(manifest),
        _columns(dataset, manifest),
        _loading(manifest),
        _statistics(stats, REPORT in manifest["files"]),
        _ground_truth(dataset),
    ]
    body = "\n\n".join(part.strip("\n") for part in parts) + "\n"
    rows = manifest["rows"]["notifications"]
    return hub.render(hub.card_data(pretty_name(manifest), hf_configs(dataset, manifest), rows), body)


def pretty_name(manifest: Json) -> str:
    """Unique per content: the recipe in words and the notifications' content fingerprint."""
    recipe = manifest["recipe"]
    return (f"pushgen dataset: {recipe['users']:,} users, {recipe['days']:,} days, seed {recipe['seed']} "
            f"({manifest['fingerprints']['notifications'][:12]})")


def hf_configs(dataset: Dataset, manifest: Json) -> list[hub.Config]:
    """The Hugging Face configs: notifications (the default) and users, one split each.

    A large dataset's card sees only some users: the bytes of its splits are scaled from theirs.
    """
    files = tables(manifest["files"])
    arrow = {"notifications": dataset.notifications_arrow, "users": dataset.users_arrow}
    configs = []
    for name in HF_TABLES:
        paths, table, rows = files[name], arrow[name], manifest["rows"][name]
        pattern = paths[0] if len(paths) == 1 else f"{name}/*{Path(paths[0]).suffix}"
        num_bytes = hub.arrow_bytes(table)
        if table.num_rows != rows:
            num_bytes = round(num_bytes * rows / max(table.num_rows, 1))
        description = (f"{pretty_name(manifest)}: {DATASET_TABLES[name]} Content fingerprint "
                       f"{manifest['fingerprints'][name]}.")
        configs.append(hub.Config(name, description, table.schema,
                                  (hub.TableSplit("train", pattern, rows, num_bytes),),
                                  default=name == "notifications"))
    return configs


def _introduction(dataset: Dataset, manifest: Json, stats: Json) -> str:
    recipe = manifest["recipe"]
    return f"""\
# pushgen dataset: {recipe['users']:,} users, {recipe['days']:,} days, seed {recipe['seed']}

Synthetic smartphone push notifications, generated by
[pushgen](https://pypi.org/project/pushgen/) {manifest['pushgen_version']} from a dynamic
Bayesian network. Each simulated user has latent habits (sleep, work and commute, the apps
on the phone, interests, how readily they open notifications) and lives through the days
of the dataset one context at a time; the user's apps post notifications into those
contexts, and the user opens or dismisses each one. The notification and context features
and their values are exactly those of the EvalUMAP 2019 personalised-notification
challenge. No real person's data is in it: the names are made-up pseudonyms.

{_totals(manifest, stats)}
"""


def _totals(manifest: Json, stats: Json) -> str:
    rows = manifest["rows"]["notifications"]
    first = (manifest.get("first_posted") or stats["first_day"])[:10]
    last = (manifest.get("last_posted") or stats["last_day"])[:10]
    opened = manifest.get("opened")
    rate = pct(opened / rows if opened is not None and rows else stats["open_rate"]["overall"])
    text = (f"{rows:,} notifications of {manifest['recipe']['users']:,} users from {first} to "
            f"{last} ({manifest['recipe']['days']:,} days); open rate {rate}.")
    if stats["rows"] != rows:
        text += (f" The statistics below describe the first {stats['users']:,} users "
                 f"({stats['rows']:,} notifications).")
    return text


def _recipe(manifest: Json) -> str:
    recipe = manifest["recipe"]
    defaults = Priors().to_dict()
    changed = {k: v for k, v in recipe.get("priors", {}).items() if defaults.get(k) != v}
    priors = "the defaults" if not changed else ", ".join(f"{k} = {v}" for k, v in sorted(changed.items()))
    rows = [
        ("users", f"{recipe['users']:,} (user ids {recipe.get('first_user', 0)} to "
                  f"{recipe.get('first_user', 0) + recipe['users'] - 1})"),
        ("months", "-" if recipe.get("months") is None else str(recipe["months"])),
        ("days", str(recipe["days"])),
        ("start", recipe["start"]),
        ("seed", str(recipe["seed"])),
        ("population priors", priors),
        ("format", manifest["format"]),
        ("pushgen version", manifest["pushgen_version"]),
    ]
    text = "## Recipe\n\nEverything that determines the content (also in `manifest.json`):\n\n"
    text += markdown_table(("parameter", "value"), rows)
    text += (
        "\n\nThe same recipe and pushgen version give the same bytes. In Python:\n\n"
        "```python\nimport json\nfrom pushgen.data.generator import Dataset, Recipe, simulate\n\n"
        f'recipe = Recipe.from_dict(json.load(open("{MANIFEST}"))["recipe"])\n'
        "dataset = Dataset.from_users(recipe, list(simulate(recipe)))\n```\n"
    )
    if not changed and recipe.get("first_user", 0) == 0:
        span = f"--months {recipe['months']}" if recipe.get("months") else f"--days {recipe['days']}"
        text += (
            "\nor on the command line:\n\n```sh\n"
            f"pushgen make --users {recipe['users']} {span} --start {recipe['start']} "
            f"--seed {recipe['seed']} --format {manifest['format']} --out copy\n```\n"
        )
    return text


def _files(manifest: Json) -> str:
    rows = []
    for name, entry in manifest["files"].items():
        stem = Path(name).stem
        rows.append((f"`{name}`", f"{manifest['rows'][stem]:,}" if stem in manifest["rows"] else "-",
                     f"{entry['bytes']:,}", f"`{entry['sha256'][:16]}…`", FILE_CONTENT.get(stem, "")))
    rows.append((f"`{MANIFEST}`", "-", "-", "-",
                 "recipe, row counts, content fingerprints, sizes and sha256 of the files above"))
    rows.append((f"`{CARD}`", "-", "-", "-", "this card"))
    return ("## Files\n\n" + markdown_table(("file", "rows", "bytes", "sha256", "content"), rows,
                                            [False, True, True, False, False])
            + "\n\nCheck them all with `pushgen validate .` (sizes, sha256, schemas, row counts).")


def _type_name(f: schemas.Field) -> str:
    return "category" if f.is_categorical else str(f.pandas_dtype())


def _first_sentence(text: str) -> str:
    return re.split(r"\.\s+(?=[A-Z(])", text)[0].rstrip(".")


def _columns(dataset: Dataset, manifest: Json) -> str:
    ext = "csv" if manifest["format"] == "csv" else "parquet"
    rows = [(f"`{name}`", "", kind, values, meaning) for name, kind, values, meaning in ID_COLUMNS]
    names = dataset.notifications_arrow.column_names
    for name in names:
        f = schemas.fields().get(name)
        if f is None:
            continue
        values = "seconds >= 0" if f.values is None else f"{len(f.values)}"
        rows.append((f"`{name}`", f.entity, _type_name(f), values, _first_sentence(f.description)))
    text = (
        f"## Columns\n\n### notifications.{ext}\n\n"
        "Types as `pushgen.data.dataset.read_dataset` gives them in pandas; `values` is the size of the "
        "published value set (`schemas/*.schema.json`): every value is one of them, with no "
        "missing values.\n\n"
        + markdown_table(("column", "entity", "type", "values", "meaning"), rows,
                         [False, False, False, True, False])
    )
    users = [(f"`{field.name}`", _arrow_name(field.type), USER_COLUMNS.get(field.name, ""))
             for field in dataset.users_arrow.schema]
    text += f"\n\n### users.{ext}\n\n" + markdown_table(("column", "type", "meaning"), users)
    return text


def _arrow_name(kind: pa.DataType) -> str:
    names = {"double": "float64", "float": "float32", "string": "str", "large_string": "str"}
    return names.get(str(kind), str(kind))


def _loading(manifest: Json) -> str:
    partitioned = manifest.get("layout") == "partitioned"
    if manifest["format"] == "csv":
        plain = (
            "import pandas as pd\n\n"
            "# keep_default_na=False: values such as 'none' are values, not missing\n"
            'notifications = pd.read_csv("notifications.csv", keep_default_na=False,\n'
            '                            parse_dates=["posted_at"])\n'
            'users = pd.read_csv("users.csv", keep_default_na=False)\n\n'
            "import pyarrow.csv as pacsv\n\n"
            'table = pacsv.read_csv("notifications.csv")'
        )
    else:
        table = "notifications" if partitioned else "notifications.parquet"
        plain = (
            "import pandas as pd\n\n"
            f'notifications = pd.read_parquet("{table}")  # categorical features as strings\n'
            'users = pd.read_parquet("users.parquet")\n\n'
            "import pyarrow.parquet as pq\n\n"
            f'table = pq.read_table("{table}")'
        )
        if partitioned:
            plain += ("\n\nimport duckdb  # DuckDB reads a folder of parts through a glob\n\n"
                      "duckdb.sql(\"SELECT action, count(*) FROM 'notifications/*.parquet' \"\n"
                      "           \"GROUP BY action\")")
    return (
        "## Loading\n\n"
        f"```python\n{plain}\n```\n\n"
        "With Hugging Face `datasets` (the configs above: `notifications`, the default, and `users`; "
        "the categorical features load as `ClassLabel` over their published values):\n\n"
        "```python\nfrom datasets import load_dataset\n\n"
        'notifications = load_dataset("path/to/this/folder")["train"]\n'
        'users = load_dataset("path/to/this/folder", "users")["train"]\n```\n\n'
        "With pushgen, every feature comes back as a pandas categorical over its full published "
        "value set, and the ground truth as `EngagementParameters`:\n\n"
        "```python\nfrom pushgen.data.dataset import read_dataset\n\n"
        'dataset = read_dataset(".")\n'
        "dataset.notifications  # pandas, schema dtypes\n"
        "dataset.users\n"
        "dataset.parameters     # the engagement model of every user\n```"
    )


def _markdown_section(section: Section) -> str:
    text = f"### {section.title}\n\n" + markdown_table(section.header, section.rows,
                                                       right_aligned(section))
    if section.note:
        text += f"\n\n_{section.note}_"
    return text


def _statistics(stats: Json, with_report: bool = False) -> str:
    shown = [s for s in sections(stats) if s.title != "Dataset"]
    figures = (f"The figures of these statistics, and each calibration figure beside its target, are in "
               f"[{REPORT}]({REPORT}), a web page that needs no network (`pushgen make --report` wrote it; "
               f"`pushgen report FOLDER` makes one for any dataset, split or benchmark run).\n\n"
               if with_report else "")
    return (
        "## Statistics\n\n"
        "As printed by `pushgen describe .`, beside the published figures about real "
        "notification data that pushgen's population priors are calibrated to. Days are the "
        "span from the first to the last calendar day with a notification.\n\n"
        + figures
        + "\n\n".join(_markdown_section(s) for s in shown)
    )


def _ground_truth(dataset: Dataset) -> str:
    constants = dataset.parameters.constants()
    scalars = markdown_table(("column", "meaning"),
                             [(f"`{k}`", v) for k, v in ENGAGEMENT_SCALARS.items()])
    return f"""\
## Ground truth: the simulated user

`{TRUTH}/` holds what decided every action, as plain data (no pickles). It is the same
engagement model that the pushgen environments use to judge generated notifications, so a
model trained on this dataset can be scored against the true probabilities.

For user u and a notification in a context:

```
{textwrap.dedent("    " + constants["formula"])}
```

`hour` is the clock hour of posting, `days` the days since the dataset's start, `asleep`
whether the user was asleep, `fatigue` the sum over the user's earlier notifications that
interrupted (all but a conversation's follow-ups) of exp(-(t - t_j) / fatigue_tau) with
fatigue_tau = {constants['fatigue_tau_seconds']:g} s, and `mood` the user's hidden availability
that day and in that stretch of the routine; novelty_days = {constants['novelty_days']:g}. A
notification was opened exactly when its uniform `draw` was below `p_open`. In a
partitioned dataset the per-notification tables are folders of parts (`ground_truth/
engagement_rows/`), read as one table by `pyarrow.parquet.read_table`.

- `engagement_model.json`: the formula, its constants and the order of features and scalars.
- `engagement_users.parquet`: one row per user with the scalars:

{scalars}

- `engagement_weights.parquet`: one row per (user, feature, value): `user_id`, `feature`,
  `code` (position in the published value list), `value` and `weight`.
- `engagement_rows.parquet`: one row per notification, in the order of the notifications
  table: `notification_id`, `user_id`, `hour`, `days`, `asleep`, `fatigue`, `mood`,
  `routine_state` (what the user was doing), `draw` and `p_open`.

Load it with `pushgen.data.dataset.read_parameters(".")`; `pushgen.model.engagement.open_probability`
evaluates the formula for any notifications and contexts.
"""
