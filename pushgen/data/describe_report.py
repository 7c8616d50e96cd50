"""The report of ``pushgen describe``: the statistics of ``pushgen.data.describe`` laid out as
tables with the published figure beside each calibrated one, as plain text."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pushgen.data.calibration import FIGURES, TOLERANCE_SURVEY, VERDICTS, Figure, verdict, verdict_line
from pushgen.data.describe_time import PERIOD_DAYS
from pushgen.model.long_term import BAND_NAMES
from pushgen.text_tables import aligned_table

TOP_APPS = 10
TARGETS = {figure.name: figure for figure in FIGURES}
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True)
class Section:
    """One table of the report: a title, column names, rows of text and an optional note."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def secs(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} s"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f} pts"


def _pair(*texts: str) -> str:
    return " / ".join(texts)


def sections(stats: dict) -> list[Section]:
    """The report's tables, in order, with the published figure beside each calibrated one."""
    engagement = _engagement_sections(stats["engagement"]) if "engagement" in stats else []
    engagement += [_long_term_section(stats["long_term"])] if "long_term" in stats else []
    calibration = [_calibration_section(stats["calibration"])] if "calibration" in stats else []
    return [_overview(stats), _key_figures(stats), *calibration, _hour_section(stats),
            _weekday_section(stats), *_group_sections(stats), _fatigue_section(stats),
            _period_section(stats), *engagement]


def _calibration_section(calibration: dict) -> Section:
    rows = []
    for f in calibration["figures"]:
        figure = Figure(f["figure"], lambda _: 0.0, f["low"], f["high"], f["target"], f["percent"])
        value = "-" if f["value"] is None else figure.show(f["value"])
        rows.append((f["figure"], value, figure.range_text, f["target"], VERDICTS[f["holds"]]))
    return Section("Calibration targets", ("figure", "this dataset", "target range", "published", "verdict"),
                   tuple(rows), verdict_line(calibration) + " Targets: pushgen.data.calibration.FIGURES.")


def _engagement_sections(stats: dict) -> list[Section]:
    context = Section(
        "Context decides: content x situation effects",
        ("content", "situation", "effect (log-odds)", "rows", "open rate in it", "elsewhere"),
        tuple((o["group"], o["situation"], f"{o['effect']:+.2f}", f"{o['rows_in']:,}", pct(o["open_in"]),
               pct(o["open_out"])) for o in stats["observed"]),
        "effect: the population mean of the users' interaction weights (pushgen.model.situations); "
        "open rates: that content's notifications in the situation and elsewhere")
    habituation = Section(
        "Habituation: open rate by exposure to the notification's channel",
        ("exposure", "rows", "open rate"),
        tuple((f"{b['low']:g}-{b['high']:g}" if np.isfinite(b["high"]) else f"{b['low']:g}+",
               f"{b['rows']:,}", pct(b["open_rate"])) for b in stats["habituation"]),
        "exposure: earlier notifications of the same channel, each decaying over days "
        "(pushgen.model.exposure); busier channels are messaging, so compare within a user and channel: "
        f"open rate above minus at/below the median exposure {_points(stats['habituation_contrast'])}; "
        "published: the effect of a prompt shrinks with repetition, +66% at first, +14% averaged over "
        "weeks (Klasnja 2019)")
    return [context, habituation]


def _long_term_section(stats: dict) -> Section:
    kinds = {kind: stats["by_kind"][kind] for kind in ("messaging", "promotional")}
    rows = [("apps turned off, 3 / 6 months", "each user's apps",
             _pair(pct(stats["apps_off_3_months"]), pct(stats["apps_off_6_months"])), "10-30% at 6 months"),
            *((f"turned off, {kind} apps", f"{g['pairs']:,} pairs", pct(g["turned_off"]), published)
              for (kind, g), published in zip(kinds.items(), ("rarely", "often"), strict=True)),
            *((f"turned off, {b['band']}", f"{b['pairs']:,} pairs", pct(b["turned_off"]), "more volume, more")
              for b in stats["by_volume"]),
            *((f"turned off, open rate {b['band']}", f"{b['pairs']:,} pairs", pct(b["turned_off"]),
               "higher open rate, fewer") for b in stats["by_open_rate"]),
            *((f"tolerance {band}", "users", pct(share), f"{survey:.0%} (Localytics 2017)")
              for band, share, survey in zip(BAND_NAMES, stats["tolerance_bands"], TOLERANCE_SURVEY,
                                             strict=True))]
    return Section("Long term: apps turned off or abandoned (ground truth)",
                   ("figure", "of", "this dataset", "published"), tuple(rows),
                   "a user's app counts once its notifications, or one of its channels, are turned off or "
                   "the user abandons it; pairs: a user and an app; volume: the pair's notifications a week "
                   "until then. Published: Localytics 2017 survey (stated thresholds; the 3- and 6-month "
                   "shares are model targets anchored on it, not measurements); O'Brien et al. 2022")


def _overview(stats: dict) -> Section:
    return Section("Dataset", ("", ""), (
        ("notifications", f"{stats['rows']:,}"),
        ("users", f"{stats['users']:,}"),
        ("days", f"{stats['days']:,} ({stats['first_day']} to {stats['last_day']})"),
    ))


def _key_figures(stats: dict) -> Section:
    v, o, t = stats["per_user_day"], stats["open_rate"], stats["timing"]
    w, r, rep = stats["weekday"], stats["ringer_mode"], stats["repetition"]
    first, last = stats["asleep"]["hours"]
    periods = stats["periods"]
    contrast = stats["fatigue"]["within_user_contrast"]
    rows = [
        _judged("notifications/user/day, mean", v["mean"], num(v["mean"]),
                "63.5 mean (Pielot 2014); 60-80 (gym-push data)"),
        ("notifications/user/day, median", num(v["median"]), "56 median (Pielot 2018)"),
        ("notifications/user/day, p10 / p90", _pair(num(v["p10"]), num(v["p90"])),
         "light users near 15, heavy users above 150"),
        ("notifications/user/day, min / max", _pair(num(v["min"]), num(v["max"])),
         "EvalUMAP 2019 users: 10 / 83"),
        (f"posted {first:02d}:00-{last:02d}:00", pct(stats["asleep"]["share"]), "near zero while asleep"),
    ]
    if stats["asleep"]["share_in_users_sleep"] is not None:
        rows.append(("posted in the user's usual sleep", pct(stats["asleep"]["share_in_users_sleep"]),
                     "near zero while asleep"))
    rows += [
        ("notifications/user/day, weekdays / weekend",
         _pair(num(w["per_user_day_weekdays"]), num(w["per_user_day_weekend"])), "more on weekdays"),
        ("open rate, weekdays / weekend", _pair(pct(w["open_rate_weekdays"]), pct(w["open_rate_weekend"])),
         "more clicks on weekdays"),
        _judged("open rate, overall", o["overall"], pct(o["overall"]), "35-55%"),
        ("open rate across users, min / median / max",
         _pair(pct(o["users_min"]), pct(o["users_median"]), pct(o["users_max"])),
         "users differ (EvalUMAP 2019: 9% to 99%)"),
        ("open rate, messaging apps", pct(o["messaging"]), "about 65% (Pielot 2018)"),
        _judged("open rate, all other kinds of app", o["other_kinds"], pct(o["other_kinds"]),
                "about 15-25% for email, social, non-social (Pielot 2018)", "open rate, other kinds"),
        ("open rate, system apps", pct(o["system"]), "far below the rest"),
        ("open rate, ongoing / not ongoing", _pair(pct(o["ongoing"]), pct(o["not_ongoing"])),
         "ongoing rarely opened"),
        _judged("dismissed (not opened)", o["dismissed_share"], pct(o["dismissed_share"]),
                "20-50% ignored entirely (Pradhan 2017)", "dismissed share"),
        _judged("opened within 10 min (share of opened)", t["opened_within_10min"],
                pct(t["opened_within_10min"]), "> 60% clicked within 10 min (Mehrotra 2015)",
                "opened within 10 min"),
        ("handled within 10 min", pct(t["handled_within_10min"]), "most (Mehrotra 2015)"),
        ("median time to action, opened / all", _pair(secs(t["median_response_opened_s"]),
                                                       secs(t["median_response_s"])),
         "EvalUMAP 2019: 262 s (all)"),
        ("ringer at arrival, normal / silent / vibrate",
         _pair(*(pct(r.get(mode, {}).get("share", 0.0)) for mode in ("normal", "silent", "vibrate"))),
         "53% / 26% / 22% (Mehrotra 2016)"),
        ("rows repeating another row of the user", pct(rep["features"]),
         "EvalUMAP 2019: 43-95% per user (a defect)"),
        ("... with the same action / the opposite one",
         _pair(pct(rep["features_and_action"]), pct(rep["opposite_action"])), "low"),
        ("fatigue: open rate busier minus calmer, within user / user and app",
         _pair(_points(contrast), _points(stats["fatigue"]["within_user_app_contrast"])),
         "negative (Pielot 2014)"),
        (f"open rate, first / last period of {PERIOD_DAYS} days",
         _pair(pct(periods[0]["open_rate"]), pct(periods[-1]["open_rate"])),
         "novelty wears off over weeks (Klasnja 2019)"),
    ]
    return Section("Key figures", ("figure", "this dataset", "published", "verdict"),
                   tuple(row if len(row) == 4 else (*row, "") for row in rows),
                   "verdict: the calibration table's, against the figure's target range "
                   "(pushgen.data.calibration.FIGURES)")


def _judged(label: str, value: float | None, shown: str, published: str,
            figure: str | None = None) -> tuple[str, str, str, str]:
    """A key figure printed beside a published range, with the verdict the calibration table gives
    the same statistic (its figure ``figure``, by default named like ``label``)."""
    target = TARGETS[figure or label]
    return label, shown, published, verdict(value, target.low, target.high)


def _bar(share: float | None, scale: float) -> str:
    return "" if not share else "#" * max(1, round(share / scale * 20))


def _hour_section(stats: dict) -> Section:
    h = stats["hourly"]
    top = max(s for s in h["share"] if s is not None)
    rows = tuple(
        (f"{hour:02d}", pct(h["share"][hour]), pct(h["open_rate"][hour]),
         secs(h["median_response_s"][hour]), _bar(h["share"][hour], top))
        for hour in range(24)
    )
    return Section("By clock hour", ("hour", "share", "open rate", "median to action", ""), rows,
                   "published: most arrive late morning and late afternoon; 20-23 h fewer, with the "
                   "shortest delays (Stach 2024)")


def _weekday_section(stats: dict) -> Section:
    w = stats["weekday"]
    rows = tuple((WEEKDAYS[d], num(w["per_user_day"][d]), pct(w["share"][d]), pct(w["open_rate"][d]))
                 for d in range(7))
    return Section("By weekday", ("day", "per user/day", "share", "open rate"), rows,
                   "published: more notifications and more clicks on weekdays")


def _group_rows(groups: dict[str, dict], seen: bool = False) -> tuple[tuple[str, ...], ...]:
    return tuple(
        (key, f"{g['n']:,}", pct(g["share"]), pct(g["open_rate"]),
         *((secs(g["median_seen_s"]),) if seen else ()))
        for key, g in groups.items()
    )


def _group_sections(stats: dict) -> list[Section]:
    head = ("rows", "share", "open rate")
    hm = stats["headphones_music"]
    return [
        Section("By kind of app", ("kind", *head), _group_rows(stats["by_kind"]),
                "published: messaging about 65%, other kinds about 15-25% (Pielot 2018)"),
        Section("By category", ("category", *head), _group_rows(stats["by_category"])),
        Section(f"Top {TOP_APPS} apps", ("app", "kind", "share", "open rate"), tuple(
            (a["app"], a["kind"] or "-", pct(a["share"]), pct(a["open_rate"])) for a in stats["top_apps"])),
        Section("By ongoing", ("ongoing", *head), _group_rows(stats["ongoing"]),
                "published: ongoing notifications are rarely opened"),
        Section("By ringer mode", ("ringerMode", *head, "median to seen"),
                _group_rows(stats["ringer_mode"], seen=True),
                "published: sound ~53%, silent ~26%, vibrate ~22%; seen fastest in vibrate, slowest "
                "in silent (Mehrotra 2016)"),
        Section("By activity", ("activity", *head, "median to seen"),
                _group_rows(stats["activity"], seen=True),
                "published: vehicle and running lower the open rate; seen fastest when commuting"),
        Section("Headphones and music", ("", "rows", "open rate", "open rate, msg"), tuple(
            (name.replace("_", " "), f"{g['n']:,}", pct(g["open_rate"]), pct(g["open_rate_msg"]))
            for name, g in hm.items()),
                "published: headphones with music and messaging raise the open rate"),
    ]


def _fatigue_section(stats: dict) -> Section:
    f = stats["fatigue"]
    rows = tuple((label, f"{b['n']:,}", pct(b["share"]), pct(b["open_rate"]))
                 for label, b in f["buckets"].items())
    return Section(
        f"Fatigue: the user's notifications in the preceding {f['window_minutes']} min",
        ("count", "rows", "share", "open rate"), rows,
        "open rate above minus at/below the median count, averaged within user: "
        f"{_points(f['within_user_contrast'])} ({f['users_in_contrast']} users); within user and "
        f"app: {_points(f['within_user_app_contrast'])} ({f['user_apps_in_contrast']} pairs); "
        "published: more notifications go with more negative feelings (Pielot 2014)")


def _period_section(stats: dict) -> Section:
    rows = tuple((f"{p['days'][0]}-{p['days'][1]}", f"{p['n']:,}", num(p["per_user_day"]),
                  pct(p["open_rate"])) for p in stats["periods"])
    return Section(f"By {PERIOD_DAYS}-day period", ("days", "rows", "per user/day", "open rate"), rows,
                   "published: the effect of a prompt shrinks over weeks (Klasnja 2019)")


NUMBER = re.compile(r"[+-]?\d")


def right_aligned(section: Section) -> list[bool]:
    """Which columns hold numbers (every column but the first whose cells all start with one)."""
    return [i > 0 and all(NUMBER.match(row[i]) or row[i] in ("", "-") for row in section.rows)
            for i in range(len(section.header))]


def render_text(section: Section) -> str:
    """A section as an aligned plain-text table (columns of numbers right-aligned)."""
    right = right_aligned(section)
    lines = [section.title, "=" * len(section.title)]
    if any(section.header):
        header, *rows = aligned_table(section.header, section.rows, right)
        table = [section.header, *section.rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(section.header))]
        lines += [header, "  ".join("-" * w for w in widths), *rows]
    elif section.rows:
        lines += aligned_table(section.rows[0], section.rows[1:], right)
    if section.note:
        lines.append(section.note)
    return "\n".join(lines)


def format_description(stats: dict) -> str:
    """The statistics as a plain-text report, the published figure beside each calibrated one."""
    text = "\n\n".join(render_text(s) for s in sections(stats)) + "\n"
    return text + (f"\n{verdict_line(stats['calibration'])}\n" if "calibration" in stats else "")
