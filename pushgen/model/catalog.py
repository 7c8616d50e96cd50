"""What each published app is and posts: the app catalog behind the notification nodes.

Facts (``apps.json``: each app's kind and phone vendor) plus, per kind, the documented
defaults of how such apps behave: how many users have one, how often it posts and when,
and the distributions of its notifications' features. Every value named here is checked
against the schemas when the catalog is built.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from pushgen import schemas

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
    category: dict[str, float]
    priority: dict[str, float]
    visibility: dict[str, float]
    updates: dict[str, float]
    subjects: tuple[str, ...]
    ongoing: dict[str, float]  # P(ongoing | category); other categories 0.01
    open_logit: float  # population effect of the kind on the open log-odds
    trigger: str | None = None  # routine context that makes it post (see arrivals.py) ...
    trigger_rate: float = 0.0  # ... this many notifications per hour while it lasts


PRIVATE = {"private": 0.8, "public": 0.17, "secret": 0.03}
PUBLIC = {"public": 0.75, "private": 0.23, "secret": 0.02}
FEW_UPDATES = {"none": 0.8, "low": 0.15, "medium": 0.04, "high": 0.01}

KINDS: dict[str, KindProfile] = {
    "messaging": KindProfile(
        adoption=0.22, daily_rate=2.3, peaks=((11.0, 0.8), (17.5, 1.0), (20.5, 0.5)),
        asleep=0.04, weekend=1.0,
        category={"msg": 0.92, "call": 0.03, "unknown": 0.05},
        priority={"high": 0.6, "max": 0.15, "default": 0.25},
        visibility=PRIVATE, updates={"none": 1.0},
        subjects=("text & instant messaging", "email & messaging", "other - conversation chatter",
                  "family & relationships", "people & society", "humor", "unknown"),
        ongoing={"call": 0.5}, open_logit=1.2,
    ),
    "email": KindProfile(
        adoption=0.3, daily_rate=2.5, peaks=((9.5, 1.0), (14.0, 0.7)), asleep=0.1, weekend=0.35,
        category={"email": 0.9, "unknown": 0.1},
        priority={"default": 0.7, "high": 0.15, "low": 0.15},
        visibility=PRIVATE, updates=FEW_UPDATES,
        subjects=("email & messaging", "business & industrial", "jobs & education", "finance",
                  "shopping", "e-commerce services", "coupons & discount offers", "travel",
                  "software", "corporate events", "unknown"),
        ongoing={}, open_logit=-0.9,
    ),
    "social": KindProfile(
        adoption=0.3, daily_rate=1.6, peaks=((12.0, 0.6), (17.0, 0.8), (20.0, 0.5)),
        asleep=0.03, weekend=1.1,
        category={"unknown": 0.45, "recommendation": 0.3, "msg": 0.2, "event": 0.05},
        priority={"default": 0.6, "high": 0.2, "low": 0.2},
        visibility={"public": 0.5, "private": 0.5}, updates=FEW_UPDATES,
        subjects=("social networks", "online communities", "people & society", "humor",
                  "funny pictures & videos", "arts & entertainment", "sports", "news",
                  "online image galleries", "events & listings"),
        ongoing={}, open_logit=-0.5,
    ),
    "news": KindProfile(
        adoption=0.15, daily_rate=1.8, peaks=((7.5, 0.8), (12.0, 0.5), (17.5, 0.7)),
        asleep=0.02, weekend=0.9,
        category={"recommendation": 0.6, "unknown": 0.4},
        priority={"default": 0.5, "high": 0.2, "low": 0.3},
        visibility=PUBLIC, updates=FEW_UPDATES,
        subjects=("news", "politics", "sports news", "business & industrial", "science", "weather",
                  "law & government", "crime & justice", "entertainment media", "soccer",
                  "world music", "health"),
        ongoing={}, open_logit=-0.9,
    ),
    "audio": KindProfile(
        adoption=0.14, daily_rate=0.4, peaks=((8.0, 0.5), (18.0, 0.5)), asleep=0.02, weekend=1.0,
        category={"transport": 0.85, "recommendation": 0.1, "unknown": 0.05},
        priority={"low": 0.6, "default": 0.3, "min": 0.1},
        visibility=PUBLIC, updates={"none": 0.1, "low": 0.2, "medium": 0.3, "high": 0.4},
        subjects=("music & audio", "pop music", "rock music", "classical music", "urban & hip-hop",
                  "country music", "radio", "e-books", "world music", "books & literature"),
        ongoing={"transport": 0.92}, open_logit=-0.8, trigger="music", trigger_rate=1.8,
    ),
    "system": KindProfile(
        adoption=0.25, daily_rate=0.7, peaks=((3.0, 0.6), (13.0, 0.3)), asleep=0.6, weekend=1.0,
        category={"status": 0.45, "service": 0.3, "err": 0.08, "unknown": 0.17},
        priority={"low": 0.4, "min": 0.25, "default": 0.3, "unknown": 0.05},
        visibility=PUBLIC, updates={"none": 0.6, "low": 0.25, "medium": 0.1, "high": 0.05},
        subjects=("mobile apps & add-ons", "software", "computer security", "internet & telecom",
                  "web services", "mobile & wireless", "consumer electronics", "unknown"),
        ongoing={"service": 0.3, "status": 0.05}, open_logit=-1.6,
    ),
    "productivity": KindProfile(
        adoption=0.1, daily_rate=2.0, peaks=((10.0, 1.0), (15.0, 1.0)), asleep=0.02, weekend=0.3,
        category={"reminder": 0.2, "event": 0.1, "service": 0.2, "unknown": 0.5},
        priority={"default": 0.7, "high": 0.1, "low": 0.2},
        visibility=PRIVATE, updates=FEW_UPDATES,
        subjects=("business services", "software", "education", "distance learning",
                  "jobs & education", "training & certification", "enterprise technology",
                  "expos & conventions"),
        ongoing={"service": 0.4}, open_logit=-0.3,
    ),
    "calendar": KindProfile(
        adoption=0.25, daily_rate=1.2, peaks=((8.5, 1.0), (13.0, 0.5)), asleep=0.02, weekend=0.5,
        category={"event": 0.6, "reminder": 0.4},
        priority={"high": 0.4, "default": 0.6},
        visibility=PRIVATE, updates={"none": 0.9, "low": 0.1},
        subjects=("corporate events", "special occasions", "holidays & seasonal events",
                  "events & listings", "family", "unknown"),
        ongoing={}, open_logit=0.0,
    ),
    "calls": KindProfile(
        adoption=0.1, daily_rate=1.5, peaks=((11.0, 1.0), (16.5, 1.0), (19.0, 0.5)), asleep=0.02,
        weekend=0.8,
        category={"call": 0.75, "status": 0.15, "unknown": 0.1},
        priority={"max": 0.6, "high": 0.3, "default": 0.1},
        visibility=PUBLIC, updates={"none": 0.85, "low": 0.15},
        subjects=("internet & telecom", "family & relationships", "email & messaging", "unknown"),
        ongoing={"call": 0.5}, open_logit=0.7,
    ),
    "clock": KindProfile(
        adoption=0.0, daily_rate=0.0, peaks=((7.0, 1.0),), asleep=1.0, weekend=1.0,
        category={"alarm": 1.0},
        priority={"max": 0.8, "high": 0.2},
        visibility=PUBLIC, updates={"none": 0.9, "low": 0.1},
        subjects=("unknown",),
        ongoing={"alarm": 0.5}, open_logit=-1.0,
    ),
    "travel": KindProfile(
        adoption=0.12, daily_rate=0.4, peaks=((8.0, 1.0), (18.0, 1.0)), asleep=0.02, weekend=1.0,
        category={"unknown": 0.5, "service": 0.2, "recommendation": 0.2, "event": 0.1},
        priority={"default": 0.5, "high": 0.3, "low": 0.2},
        visibility=PUBLIC, updates={"none": 0.4, "low": 0.3, "medium": 0.2, "high": 0.1},
        subjects=("maps", "travel", "air travel", "bus & rail", "car rental & taxi services",
                  "tourist destinations", "hotels & accommodations"),
        ongoing={"service": 0.6, "unknown": 0.3}, open_logit=-0.2, trigger="commute",
        trigger_rate=1.2,
    ),
    "finance": KindProfile(
        adoption=0.12, daily_rate=0.8, peaks=((10.0, 1.0), (15.0, 0.7), (20.0, 0.3)), asleep=0.02,
        weekend=0.6,
        category={"unknown": 0.6, "status": 0.2, "recommendation": 0.2},
        priority={"high": 0.4, "default": 0.6},
        visibility={"private": 0.6, "secret": 0.3, "public": 0.1}, updates=FEW_UPDATES,
        subjects=("banking", "finance", "credit cards", "investing",
                  "currencies & foreign exchange", "billing & invoicing", "gambling"),
        ongoing={}, open_logit=-0.1,
    ),
    "shopping_food": KindProfile(
        adoption=0.15, daily_rate=0.8, peaks=((12.0, 0.7), (18.5, 1.0)), asleep=0.02, weekend=1.1,
        category={"recommendation": 0.55, "unknown": 0.3, "status": 0.15},
        priority={"default": 0.6, "low": 0.3, "high": 0.1},
        visibility=PUBLIC, updates={"none": 0.7, "low": 0.2, "medium": 0.1},
        subjects=("shopping", "food & drink", "restaurants", "fast food", "pizzerias",
                  "coupons & discount offers", "e-commerce services", "food & grocery retailers",
                  "mail & package delivery", "cooking & recipes"),
        ongoing={"status": 0.2}, open_logit=-1.2,
    ),
    "dating": KindProfile(
        adoption=0.08, daily_rate=3.0, peaks=((13.0, 0.4), (20.0, 1.0)), asleep=0.03, weekend=1.2,
        category={"msg": 0.5, "recommendation": 0.35, "unknown": 0.15},
        priority={"high": 0.4, "default": 0.6},
        visibility={"private": 0.5, "secret": 0.4, "public": 0.1}, updates=FEW_UPDATES,
        subjects=("dating & personals", "people & society", "family & relationships", "marriage"),
        ongoing={}, open_logit=0.2,
    ),
    "video": KindProfile(
        adoption=0.25, daily_rate=1.2, peaks=((13.0, 0.4), (19.0, 1.0)), asleep=0.02, weekend=1.2,
        category={"recommendation": 0.8, "unknown": 0.2},
        priority={"default": 0.5, "low": 0.5},
        visibility=PUBLIC, updates={"none": 0.9, "low": 0.1},
        subjects=("online video", "tv shows & programs", "movies", "tv & video",
                  "comics & animation", "funny pictures & videos"),
        ongoing={}, open_logit=-1.1,
    ),
    "health": KindProfile(
        adoption=0.12, daily_rate=0.6, peaks=((21.0, 1.0),), asleep=0.02, weekend=1.1,
        category={"status": 0.5, "reminder": 0.3, "unknown": 0.2},
        priority={"default": 0.5, "low": 0.5},
        visibility=PRIVATE, updates={"none": 0.5, "low": 0.2, "medium": 0.2, "high": 0.1},
        subjects=("fitness", "health", "nutrition", "cycling", "individual sports",
                  "beauty & fitness"),
        ongoing={"status": 0.7}, open_logit=-0.6, trigger="exercise", trigger_rate=2.0,
    ),
    "games": KindProfile(
        adoption=0.08, daily_rate=1.5, peaks=((13.0, 0.5), (20.0, 1.0)), asleep=0.02, weekend=1.2,
        category={"recommendation": 0.6, "event": 0.2, "unknown": 0.2},
        priority={"default": 0.6, "high": 0.2, "low": 0.2},
        visibility=PUBLIC, updates=FEW_UPDATES,
        subjects=("games", "computer & video games", "simulation games", "roleplaying games",
                  "lottery", "fun tests & silly surveys"),
        ongoing={}, open_logit=-0.7,
    ),
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
class AppCatalog:
    """The catalog as arrays indexed by an app's code (its position in the schema)."""

    apps: tuple[str, ...]
    kinds: tuple[str, ...]
    kind_of_app: np.ndarray  # (A,) kind index
    vendor_of_app: np.ndarray  # (A,) vendor index, len(VENDORS)-1 for vendor-free apps
    adoption: np.ndarray  # (A,)
    daily_rate: np.ndarray  # (A,)
    category_cdf: np.ndarray  # (A, n_category)
    priority_cdf: np.ndarray  # (A, n_priority)
    visibility_cdf: np.ndarray  # (A, n_visibility)
    updates_cdf: np.ndarray  # (A, n_updates)
    ongoing_prob: np.ndarray  # (A, n_category)
    subject_codes: np.ndarray  # (A, K) schema codes of the app's topics
    subject_weights: np.ndarray  # (A, K) the app's topic mix (zero-padded)
    open_logit: np.ndarray  # (A,) kind effect plus the app's own deviation
    peaks: np.ndarray  # (A, P) clock hours of the daily rhythm's bumps (NaN-padded)
    peak_heights: np.ndarray  # (A, P)
    asleep: np.ndarray  # (A,)
    weekend: np.ndarray  # (A,)
    trigger: np.ndarray  # (A,) index into TRIGGERS, -1: none
    trigger_rate: np.ndarray  # (A,)
    one_per_phone: dict[str, np.ndarray]


def _distribution(name: str, probabilities: dict[str, float]) -> np.ndarray:
    f = schemas.field(name)
    p = np.zeros(len(f.values))
    for value, share in probabilities.items():
        p[f.code(value)] = share
    return p / p.sum()


@cache
def app_catalog() -> AppCatalog:
    facts = json.loads((resources.files("pushgen.model") / "apps.json").read_text())["apps"]
    apps = schemas.values("postingApp")
    if set(facts) != set(apps):
        raise RuntimeError("apps.json does not describe exactly the schema's postingApp values")
    kinds = tuple(KINDS)
    rng = np.random.default_rng(CATALOG_SEED)
    n_apps, width = len(apps), max(len(k.subjects) for k in KINDS.values())
    subject_codes = np.zeros((n_apps, width), dtype=np.int16)
    subject_weights = np.zeros((n_apps, width))
    arrays: dict[str, list] = {k: [] for k in ("category", "priority", "visibility", "updates")}
    field_of = {"updates": "numberOfUpdates"}
    ongoing, adoption, rate, logit, kind_index, vendor_index = [], [], [], [], [], []
    for code, app in enumerate(apps):
        kind = KINDS[facts[app]["kind"]]
        kind_index.append(kinds.index(facts[app]["kind"]))
        vendor_index.append(VENDORS.index(facts[app].get("vendor", "none")))
        adoption.append(POPULAR.get(app, kind.adoption))
        rate.append(kind.daily_rate * rng.lognormal(0.0, 0.3))
        logit.append(kind.open_logit + rng.normal(0.0, 0.25))
        for name, table in arrays.items():
            table.append(_distribution(field_of.get(name, name), getattr(kind, name)))
        category = schemas.field("category")
        p_ongoing = np.full(len(category.values), 0.01)
        for value, p in kind.ongoing.items():
            p_ongoing[category.code(value)] = p
        ongoing.append(p_ongoing)
        topics = [schemas.field("subject").code(s) for s in kind.subjects]
        subject_codes[code, : len(topics)] = topics
        subject_weights[code, : len(topics)] = rng.dirichlet(np.full(len(topics), 1.5))
    n_peaks = max(len(k.peaks) for k in KINDS.values())
    peaks = np.full((n_apps, n_peaks), np.nan)
    heights = np.zeros((n_apps, n_peaks))
    for code, app in enumerate(apps):
        kind = KINDS[facts[app]["kind"]]
        peaks[code, : len(kind.peaks)] = [hour for hour, _ in kind.peaks]
        heights[code, : len(kind.peaks)] = [height for _, height in kind.peaks]
    app_kinds = [KINDS[facts[app]["kind"]] for app in apps]
    one_per_phone = {
        group: np.array([apps.index(a) for a in members]) for group, members in ONE_PER_PHONE.items()
    }
    return AppCatalog(
        apps=apps,
        kinds=kinds,
        kind_of_app=np.array(kind_index, dtype=np.int16),
        vendor_of_app=np.array(vendor_index, dtype=np.int16),
        adoption=np.array(adoption),
        daily_rate=np.array(rate),
        category_cdf=np.cumsum(arrays["category"], axis=1),
        priority_cdf=np.cumsum(arrays["priority"], axis=1),
        visibility_cdf=np.cumsum(arrays["visibility"], axis=1),
        updates_cdf=np.cumsum(arrays["updates"], axis=1),
        ongoing_prob=np.array(ongoing),
        subject_codes=subject_codes,
        subject_weights=subject_weights,
        open_logit=np.array(logit),
        peaks=peaks,
        peak_heights=heights,
        asleep=np.array([k.asleep for k in app_kinds]),
        weekend=np.array([k.weekend for k in app_kinds]),
        trigger=np.array([TRIGGERS.index(k.trigger) if k.trigger else -1 for k in app_kinds]),
        trigger_rate=np.array([k.trigger_rate for k in app_kinds]),
        one_per_phone=one_per_phone,
    )


def kind_code(kind: str) -> int:
    return tuple(KINDS).index(kind)
