"""What each published app is and posts: the app catalog behind the notification nodes.

Facts (``apps.json``: each app's kind and phone vendor) plus, per kind, the documented
defaults of how such apps behave: how many users have one, how often it posts and when,
and the distributions of its notifications' features. Every value named here is checked
against the schemas when the catalog is built.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

import numpy as np

from pushgen import schemas
from pushgen.model.channel_table import ChannelTable, channel_table

VENDORS = ("samsung", "huawei", "oneplus", "motorola", "custom-rom", "none")
VENDOR_SHARES = (0.34, 0.14, 0.10, 0.05, 0.03, 0.34)

# Contexts that make an app post (see arrivals.py); alarms are posted at wake-up instead.
TRIGGERS = ("music", "commute", "exercise")


@dataclass(frozen=True)
class KindProfile:
    """How apps of one kind behave (population defaults)."""

    adoption: float  # share of users who have a given app of this kind
    daily_rate: float  # median notifications per day from one such app
    peaks: tuple[tuple[float, float], ...]  # (clock hour, relative height) of daily rhythm
    asleep: float  # intensity while the user sleeps, relative to awake
    weekend: float  # intensity on days off, relative to workdays
    open_logit: float  # population effect of the kind on the open log-odds
    trigger: str | None = None  # routine context that makes it post (see arrivals.py) ...
    trigger_rate: float = 0.0  # ... this many notifications per hour while it lasts


KINDS: dict[str, KindProfile] = {
    "messaging": KindProfile(0.22, 2.3, ((11.0, 0.8), (17.5, 1.0), (20.5, 0.5)), 0.04, 1.0, 3.6),
    "email": KindProfile(0.3, 2.5, ((9.5, 1.0), (14.0, 0.7)), 0.1, 0.35, -3.6),
    "social": KindProfile(0.3, 1.6, ((12.0, 0.6), (17.0, 0.8), (20.0, 0.5)), 0.03, 1.1, -3.0),
    "news": KindProfile(0.15, 1.8, ((7.5, 0.8), (12.0, 0.5), (17.5, 0.7)), 0.02, 0.9, -3.5),
    "audio": KindProfile(0.14, 0.4, ((8.0, 0.5), (18.0, 0.5)), 0.02, 1.0, -0.8, "music", 1.8),
    "system": KindProfile(0.25, 0.7, ((3.0, 0.6), (13.0, 0.3)), 0.1, 1.0, -2.1),
    "productivity": KindProfile(0.1, 2.0, ((10.0, 1.0), (15.0, 1.0)), 0.02, 0.3, -1.3),
    "calendar": KindProfile(0.25, 1.2, ((8.5, 1.0), (13.0, 0.5)), 0.02, 0.5, -1.0),
    "calls": KindProfile(0.1, 1.5, ((11.0, 1.0), (16.5, 1.0), (19.0, 0.5)), 0.02, 0.8, 0.7),
    "clock": KindProfile(0.0, 0.0, ((7.0, 1.0),), 1.0, 1.0, -1.0),
    "travel": KindProfile(0.12, 0.4, ((8.0, 1.0), (18.0, 1.0)), 0.02, 1.0, -0.2, "commute", 1.2),
    "finance": KindProfile(0.12, 0.8, ((10.0, 1.0), (15.0, 0.7), (20.0, 0.3)), 0.02, 0.6, -0.1),
    "shopping_food": KindProfile(0.15, 0.8, ((12.0, 0.7), (18.5, 1.0)), 0.02, 1.1, -1.2),
    "dating": KindProfile(0.08, 3.0, ((13.0, 0.4), (20.0, 1.0)), 0.03, 1.2, 0.2),
    "video": KindProfile(0.25, 1.2, ((13.0, 0.4), (19.0, 1.0)), 0.02, 1.2, -1.1),
    "health": KindProfile(0.12, 0.6, ((21.0, 1.0),), 0.02, 1.1, -0.6, "exercise", 2.0),
    "games": KindProfile(0.08, 1.5, ((13.0, 0.5), (20.0, 1.0)), 0.02, 1.2, -0.7),
}

# Apps most users have (share of users); the rest take their kind's adoption.
POPULAR = {
    "com.whatsapp": 0.85, "com.google.android.gm": 0.75, "com.facebook.katana": 0.55,
    "com.facebook.orca": 0.5, "com.instagram.android": 0.5, "com.google.android.gms": 0.95,
    "com.google.android.youtube": 0.55, "com.android.chrome": 0.6, "com.spotify.music": 0.45,
    "com.google.android.apps.maps": 0.55, "com.snapchat.android": 0.3,
    "com.google.android.calendar": 0.45, "com.twitter.android": 0.25,
    "com.linkedin.android": 0.25, "com.google.android.apps.photos": 0.5,
    "com.amazon.mShop.android.shopping": 0.3, "com.ubercab": 0.25, "com.netflix.mediaclient": 0.3,
    "com.microsoft.office.outlook": 0.25, "com.Slack": 0.2, "com.revolut.revolut": 0.25,
}
# Exactly one of each group per phone: the vendor's own app if it has one, else one of the rest.
ONE_PER_PHONE = {
    "clock": ("com.sec.android.app.clockpackage", "com.oneplus.deskclock",
              "com.google.android.deskclock"),
    "sms": ("com.samsung.android.messaging", "com.android.mms", "com.android.messaging",
            "com.google.android.apps.messaging"),
    "dialer": ("com.android.server.telecom", "com.android.phone", "com.android.dialer"),
}
CATALOG_SEED = 20190601  # fixes the per-app variations around each kind's profile


@dataclass(frozen=True)
class VendorOffer:
    """The apps a phone of one vendor can hold."""

    offered: np.ndarray  # (A,) bool: apps of no vendor or of this one, outside the one-per-phone groups
    own: dict[str, int | None]  # per one-per-phone group: the vendor's own app, None if it has none
    generic: dict[str, tuple[int, ...]]  # per group: its apps of no vendor


@dataclass(frozen=True)
class AppCatalog:
    """The catalog as arrays indexed by an app's code (its position in the schema)."""

    apps: tuple[str, ...]
    kinds: tuple[str, ...]
    kind_of_app: np.ndarray  # (A,) kind index
    vendor_of_app: np.ndarray  # (A,) vendor index, len(VENDORS)-1 for vendor-free apps
    adoption: np.ndarray  # (A,)
    daily_rate: np.ndarray  # (A,)
    channels: ChannelTable
    open_logit: np.ndarray  # (A,) kind effect plus the app's own deviation
    peaks: np.ndarray  # (A, P) clock hours of the daily rhythm's bumps (NaN-padded)
    peak_heights: np.ndarray  # (A, P)
    asleep: np.ndarray  # (A,)
    weekend: np.ndarray  # (A,)
    trigger: np.ndarray  # (A,) index into TRIGGERS, -1: none
    trigger_rate: np.ndarray  # (A,)
    one_per_phone: dict[str, np.ndarray]

    @cached_property
    def vendor_offers(self) -> tuple[VendorOffer, ...]:
        """What a phone of each vendor (by its index in ``VENDORS``) can hold, built once."""
        return tuple(self._offer(vendor) for vendor in range(len(VENDORS)))

    def _offer(self, vendor: int) -> VendorOffer:
        vendor_free = VENDORS.index("none")
        offered = (self.vendor_of_app == vendor) | (self.vendor_of_app == vendor_free)
        own: dict[str, int | None] = {}
        generic: dict[str, tuple[int, ...]] = {}
        for group, members in self.one_per_phone.items():
            offered[members] = False
            mine = members[(self.vendor_of_app[members] == vendor) & (vendor != vendor_free)]
            own[group] = int(mine[0]) if len(mine) else None
            generic[group] = tuple(members[self.vendor_of_app[members] == vendor_free].tolist())
        offered.flags.writeable = False
        return VendorOffer(offered, own, generic)


@cache
def app_catalog() -> AppCatalog:
    facts = json.loads((resources.files("pushgen.model") / "apps.json").read_text())["apps"]
    apps = schemas.values("postingApp")
    if set(facts) != set(apps):
        raise RuntimeError("apps.json does not describe exactly the schema's postingApp values")
    kinds = tuple(KINDS)
    rng = np.random.default_rng(CATALOG_SEED)
    app_kinds = [KINDS[facts[app]["kind"]] for app in apps]
    n_peaks = max(len(k.peaks) for k in KINDS.values())
    peaks = np.full((len(apps), n_peaks), np.nan)
    heights = np.zeros((len(apps), n_peaks))
    for code, kind in enumerate(app_kinds):
        peaks[code, : len(kind.peaks)] = [hour for hour, _ in kind.peaks]
        heights[code, : len(kind.peaks)] = [height for _, height in kind.peaks]
    return AppCatalog(
        apps=apps,
        kinds=kinds,
        kind_of_app=np.array([kinds.index(facts[app]["kind"]) for app in apps], dtype=np.int16),
        vendor_of_app=np.array([VENDORS.index(facts[app].get("vendor", "none")) for app in apps],
                               dtype=np.int16),
        adoption=np.array([POPULAR.get(app, kind.adoption) for app, kind in zip(apps, app_kinds,
                                                                                 strict=True)]),
        daily_rate=np.array([kind.daily_rate for kind in app_kinds]) * rng.lognormal(0.0, 0.3, len(apps)),
        open_logit=np.array([kind.open_logit for kind in app_kinds]) + rng.normal(0.0, 0.25, len(apps)),
        channels=channel_table([facts[app]["kind"] for app in apps], rng),
        peaks=peaks,
        peak_heights=heights,
        asleep=np.array([k.asleep for k in app_kinds]),
        weekend=np.array([k.weekend for k in app_kinds]),
        trigger=np.array([TRIGGERS.index(k.trigger) if k.trigger else -1 for k in app_kinds]),
        trigger_rate=np.array([k.trigger_rate for k in app_kinds]),
        one_per_phone={group: np.array([apps.index(a) for a in members])
                       for group, members in ONE_PER_PHONE.items()},
    )


def kind_code(kind: str) -> int:
    return tuple(KINDS).index(kind)
