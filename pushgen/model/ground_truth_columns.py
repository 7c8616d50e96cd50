"""The columns of a dataset's ground truth (``ground_truth/``): the simulated user's parameters and
its state at each notification, with their meanings and units.

One list for every place that documents them (the dataset card, the column tables of
``docs/model.md``); a test compares it with the tables of a freshly made dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

from pushgen.model.exposure import HABITUATION_KEYS
from pushgen.text_tables import markdown_table


@dataclass(frozen=True)
class Column:
    """One ground-truth column: its name, what it holds and its unit ("" for none)."""

    name: str
    meaning: str
    unit: str = ""


USER = Column("user_id", "the user (key into the users table)")
USERS = (
    USER,
    Column("intercept", "the user's base log-odds of opening", "log-odds"),
    Column("attention_amplitude", "size of the daily rhythm of attention", "log-odds"),
    Column("attention_peak", "clock hour at which attention peaks", "hours"),
    Column("asleep_penalty", "added while the user sleeps", "log-odds"),
    Column("fatigue_weight", "multiplies the fatigue state (`exposure_fatigue`)", "log-odds per unit"),
    Column("novelty", "extra log-odds at the start, fading over novelty_days", "log-odds"),
    *(Column(f"habituation_{key}", f"multiplies sqrt(`exposure_{key}`): habituation to the {key}",
             "log-odds per unit") for key in HABITUATION_KEYS),
    Column("tolerance", "unwanted notifications a week from one app the user puts up with",
           "per week"),
    Column("apps", "the names of the apps the user has (`postingApp` values)"),
    Column("interactions", "content group x situation effects, row-major in the orders of "
                           "`engagement_model.json`", "log-odds"),
)
WEIGHTS = (
    USER,
    Column("feature", "one of the 18 notification and context features"),
    Column("code", "the value's position in the feature's published value list"),
    Column("value", "the value"),
    Column("weight", "added to the logit when the feature has the value", "log-odds"),
)
ROWS = (
    Column("notification_id", "the notification (key into the notifications table)"),
    USER,
    Column("hour", "clock hour of posting", "hours"),
    Column("days", "time since the dataset's start", "days"),
    Column("asleep", "whether the user was asleep"),
    Column("mood", "the user's hidden availability that day and in that stretch of the routine", "log-odds"),
    Column("exposure_fatigue", "fatigue: the sum over the user's earlier notifications of how much each "
                               "interrupted times exp(-(t - t_j) / fatigue_tau)"),
    *(Column(f"exposure_{key}", f"exposure to the notification's {key}: the sum over the user's earlier "
                                f"notifications of the same {key} of exp(-(t - t_j) / tau_{key})")
      for key in HABITUATION_KEYS),
    Column("routine_state", "what the user was doing"),
    Column("draw", "the uniform draw: opened exactly when it is below `p_open`"),
    Column("p_open", "P(open) of the notification in its context and state", "probability"),
    Column("annoyance", "the annoyance with the notification's app just after it arrived: the sum over "
                        "the app's notifications so far of how unwanted each was times "
                        "exp(-(t - t_j) / annoyance_tau)", "unwanted notifications"),
    Column("turned_off", "what its arrival led to: none, app_off (the user turned the app's notifications "
                         "off), channel_off (its channel only) or abandoned (the user left the app); "
                         "nothing of it arrives afterwards"),
)
TABLES = {"engagement_users": USERS, "engagement_weights": WEIGHTS, "engagement_rows": ROWS}


def columns_markdown(table: str) -> str:
    """The columns of one ground-truth table (a key of ``TABLES``) as a Markdown table."""
    return markdown_table(("column", "meaning", "unit"),
                          [(f"`{c.name}`", c.meaning, c.unit or "-") for c in TABLES[table]])


def ground_truth_markdown() -> str:
    """Every ground-truth table's columns, one Markdown table each under the table's file name."""
    return "\n\n".join(f"`{name}.parquet`:\n\n{columns_markdown(name)}" for name in TABLES)
