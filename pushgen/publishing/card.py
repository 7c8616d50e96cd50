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
from pushgen.data.dataset import CARD, MANIFEST, REPORT
from pushgen.data.describe_report import Section, pct, right_aligned, sections
from pushgen.data.generator import Dataset
from pushgen.model.ground_truth_columns import ground_truth_markdown
from pushgen.model.priors import Priors
from pushgen.publishing.cards import Json, hub, render_template
from pushgen.publishing.cards.tables import DATASET_TABLES, tables
from pushgen.text_tables import counted, markdown_table

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
REPORT_TEXT = (f"The figures of these statistics, and each calibration figure beside its target, are in "
               f"[{REPORT}]({REPORT}), a web page that needs no network (`pushgen make --report` wrote it; "
               f"`pushgen report FOLDER` makes one for any dataset, split or benchmark run).\n\n")


def summary_paragraph(manifest: Json, out: Path) -> str:
    """One paragraph on what ``make`` wrote: rows, users, date span, open rate, where."""
    recipe, rows = manifest["recipe"], manifest["rows"]["notifications"]
    first = (manifest.get("first_posted") or recipe["start"])[:10]
    last = (manifest.get("last_posted") or recipe["start"])[:10]
    open_rate = manifest.get("opened", 0) / rows if rows else 0.0
    return (
        f"Wrote {counted(rows, 'notification')} of {counted(recipe['users'], 'user')} from {first} to {last} "
        f"({counted(recipe['days'], 'day')}, seed {recipe['seed']}); open rate {open_rate:.2f}; in {out}"
    )


def dataset_card(dataset: Dataset, manifest: Json, stats: dict | None = None) -> str:
    """The README.md of a dataset folder, from the dataset and its manifest (and its ``describe``
    statistics, if already computed)."""
    if stats is None:
        from pushgen.data.describe import describe  # pandas: only once the data are written

        stats = describe(dataset.notifications_arrow, dataset.users_arrow)
    recipe, constants = manifest["recipe"], dataset.parameters.constants()
    body = render_template(
        "dataset.md", users=f"{recipe['users']:,}", days=f"{recipe['days']:,}", seed=recipe["seed"],
        version=manifest["pushgen_version"], totals=_totals(manifest, stats),
        recipe_table=_recipe_table(manifest), command_line=_command_line(manifest),
        files_table=_files_table(manifest), ext="csv" if manifest["format"] == "csv" else "parquet",
        notification_columns=_notification_columns(dataset), user_columns=_user_columns(dataset),
        loading=_loading(manifest), report=REPORT_TEXT if REPORT in manifest["files"] else "",
        statistics="\n\n".join(_markdown_section(s) for s in sections(stats) if s.title != "Dataset"),
        formula=textwrap.dedent("    " + constants["formula"]),
        fatigue_tau=f"{constants['fatigue_tau_seconds']:g}", novelty_days=f"{constants['novelty_days']:g}",
        ground_truth_columns=ground_truth_markdown())
    rows = manifest["rows"]["notifications"]
    return hub.render(hub.card_data(pretty_name(manifest), hf_configs(dataset, manifest), rows), body)


def pretty_name(manifest: Json) -> str:
    """Unique per content: the recipe in words and the notifications' content fingerprint."""
    recipe = manifest["recipe"]
    return (f"pushgen dataset: {counted(recipe['users'], 'user')}, {counted(recipe['days'], 'day')}, "
            f"seed {recipe['seed']} ({manifest['fingerprints']['notifications'][:12]})")


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


def _totals(manifest: Json, stats: Json) -> str:
    rows = manifest["rows"]["notifications"]
    first = (manifest.get("first_posted") or stats["first_day"])[:10]
    last = (manifest.get("last_posted") or stats["last_day"])[:10]
    opened = manifest.get("opened")
    rate = pct(opened / rows if opened is not None and rows else stats["open_rate"]["overall"])
    text = (f"{counted(rows, 'notification')} of {counted(manifest['recipe']['users'], 'user')} from {first} "
            f"to {last} ({counted(manifest['recipe']['days'], 'day')}); open rate {rate}.")
    if stats["rows"] != rows:
        text += (f" The statistics below describe the first {counted(stats['users'], 'user')} "
                 f"({counted(stats['rows'], 'notification')}).")
    return text


def _recipe_table(manifest: Json) -> str:
    recipe = manifest["recipe"]
    first_user = recipe.get("first_user", 0)
    changed = _changed_priors(recipe)
    priors = "the defaults" if not changed else ", ".join(f"{k} = {v}" for k, v in sorted(changed.items()))
    return markdown_table(("parameter", "value"), [
        ("users", f"{recipe['users']:,} (user ids {first_user} to {first_user + recipe['users'] - 1})"),
        ("months", "-" if recipe.get("months") is None else str(recipe["months"])),
        ("days", str(recipe["days"])),
        ("start", recipe["start"]),
        ("seed", str(recipe["seed"])),
        ("population priors", priors),
        ("format", manifest["format"]),
        ("pushgen version", manifest["pushgen_version"]),
    ])


def _changed_priors(recipe: Json) -> dict:
    defaults = Priors().to_dict()
    return {k: v for k, v in recipe.get("priors", {}).items() if defaults.get(k) != v}


def _command_line(manifest: Json) -> str:
    """The ``pushgen make`` line that remakes the dataset ("" when only Python can: other priors)."""
    recipe = manifest["recipe"]
    if _changed_priors(recipe) or recipe.get("first_user", 0) != 0:
        return ""
    span = f"--months {recipe['months']}" if recipe.get("months") else f"--days {recipe['days']}"
    return (f"\nor on the command line:\n\n```sh\npushgen make --users {recipe['users']} {span} "
            f"--start {recipe['start']} --seed {recipe['seed']} --format {manifest['format']} "
            "--out copy\n```\n")


def _files_table(manifest: Json) -> str:
    rows = []
    for name, entry in manifest["files"].items():
        stem = Path(name).stem
        rows.append((f"`{name}`", f"{manifest['rows'][stem]:,}" if stem in manifest["rows"] else "-",
                     f"{entry['bytes']:,}", f"`{entry['sha256'][:16]}…`", FILE_CONTENT.get(stem, "")))
    rows.append((f"`{MANIFEST}`", "-", "-", "-",
                 "recipe, row counts, content fingerprints, sizes and sha256 of the files above"))
    rows.append((f"`{CARD}`", "-", "-", "-", "this card"))
    return markdown_table(("file", "rows", "bytes", "sha256", "content"), rows,
                          [False, True, True, False, False])


def _first_sentence(text: str) -> str:
    return re.split(r"\.\s+(?=[A-Z(])", text)[0].rstrip(".")


def _notification_columns(dataset: Dataset) -> str:
    rows = [(f"`{name}`", "", kind, values, meaning) for name, kind, values, meaning in ID_COLUMNS]
    for name in dataset.notifications_arrow.column_names:
        f = schemas.fields().get(name)
        if f is not None:
            kind = "category" if f.is_categorical else str(f.pandas_dtype())
            values = "seconds >= 0" if f.values is None else f"{len(f.values)}"
            rows.append((f"`{name}`", f.entity, kind, values, _first_sentence(f.description)))
    return markdown_table(("column", "entity", "type", "values", "meaning"), rows,
                          [False, False, False, True, False])


def _user_columns(dataset: Dataset) -> str:
    return markdown_table(("column", "type", "meaning"), [
        (f"`{field.name}`", _arrow_name(field.type), USER_COLUMNS.get(field.name, ""))
        for field in dataset.users_arrow.schema])


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
    return plain


def _markdown_section(section: Section) -> str:
    text = f"### {section.title}\n\n" + markdown_table(section.header, section.rows,
                                                       right_aligned(section))
    if section.note:
        text += f"\n\n_{section.note}_"
    return text
