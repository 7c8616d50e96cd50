"""Static user nodes: the apps a user has, how often and when each posts; subject interests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen import schemas
from pushgen.model.catalog import KINDS, AppCatalog
from pushgen.model.habits import Chronotype, DeviceHabits
from pushgen.model.priors import Priors
from pushgen.model.sampling import choice, clipped, one_of


@dataclass(frozen=True)
class Portfolio:
    apps: np.ndarray  # (n,) app codes this user has
    daily_rate: np.ndarray  # (n,) expected routine notifications per day from each app
    trigger_rate: np.ndarray  # (n,) notifications per hour while the app's trigger lasts
    peaks: np.ndarray  # (n, P) clock hours of each app's rhythm bumps for this user
    peak_heights: np.ndarray  # (n, P)
    clock_app: int  # app code of the phone's clock
    alarm_workday: float  # P(an alarm at wake-up on a workday)
    alarm_day_off: float
    chattiness: float  # mean follow-ups per messaging conversation
    weekend_factor: float  # the user's overall intensity on days off


def portfolio(priors: Priors, catalog: AppCatalog, chrono: Chronotype, device: DeviceHabits,
              rng: np.random.Generator) -> Portfolio:
    """Parents: chronotype, device habits (phone vendor).

    has(app) ~ Bernoulli(adoption) for apps of no vendor or of the user's vendor, plus exactly
    one clock, SMS and dialer app; rate = app rate x volume x LogNormal(0, app_rate_sd), with
    volume ~ volume_median x LogNormal(0, volume_sd), then the main app's share raised (``with_main_app``);
    rhythm bumps = the kind's peaks + chronotype shift + N(0, 1 h).
    """
    offer = catalog.vendor_offers[device.vendor]
    has = (rng.random(len(catalog.apps)) < catalog.adoption) & offer.offered
    picked: dict[str, int] = {}
    for group, own in offer.own.items():
        picked[group] = own if own is not None else one_of(offer.generic[group], rng)
        has[picked[group]] = True
    apps = has.nonzero()[0]
    volume = priors.volume_median * rng.lognormal(0.0, priors.volume_sd)
    spread = rng.lognormal(0.0, priors.app_rate_sd, len(apps))
    chattiness = float(rng.gamma(3.0, priors.chattiness_mean / 3.0))
    kind = catalog.kind_of_app[apps]
    rows_per_post = np.where(kind == KIND_NAMES.index("messaging"), 1.0 + chattiness, 1.0)
    daily_rate = with_main_app(catalog.daily_rate[apps] * volume * spread, rows_per_post, kind,
                               priors.dominant_app_share, priors.dominant_kind_shares, rng)
    shift = chrono.wake_hour - priors.wake_hour_mean
    kind_peaks = catalog.peaks[apps]
    peaks = kind_peaks + shift + rng.normal(0, 1.0, kind_peaks.shape)
    return Portfolio(
        apps=apps,
        daily_rate=daily_rate,
        trigger_rate=catalog.trigger_rate[apps] * np.sqrt(volume) * spread,
        peaks=np.mod(peaks, 24),
        peak_heights=catalog.peak_heights[apps] * rng.uniform(0.6, 1.4, peaks.shape),
        clock_app=int(picked["clock"]),
        alarm_workday=float(rng.beta(6, 1.5)),
        alarm_day_off=float(rng.beta(1, 4)),
        chattiness=chattiness,
        weekend_factor=clipped(rng.normal(0.85, 0.12), 0.5, 1.2),
    )


KIND_NAMES = tuple(KINDS)
DOMINANT_KINDS = ("messaging", "email", "social", "productivity")
MAIN_SHARE_STRENGTH = 3.0


def with_main_app(rate: np.ndarray, rows_per_post: np.ndarray, kind: np.ndarray, mean: float,
                  kind_shares: tuple[float, ...], rng: np.random.Generator) -> np.ndarray:
    """The user's routine rates with one main app holding share ~ Beta(mean, strength 3) of the
    rows they make (rate x rows per post: a conversation's follow-ups count),
    or its own share if larger; the other apps keep their proportions and the rows' sum is
    unchanged. Main app: the busiest of the user's apps of a kind ~
    Categorical(kind_shares) over ``DOMINANT_KINDS``, messaging when the user has none of that kind."""
    wanted = DOMINANT_KINDS[choice(kind_shares, rng)]
    share = rng.beta(mean * MAIN_SHARE_STRENGTH, (1 - mean) * MAIN_SHARE_STRENGTH) if mean > 0 else 0.0
    for name in (wanted, "messaging"):
        candidates = ((kind == KIND_NAMES.index(name)) & (rate > 0)).nonzero()[0]
        if len(candidates):
            break
    else:
        return rate
    rows = rate * rows_per_post
    main = candidates[np.argmax(rows[candidates])]
    total = rows.sum()
    others = total - rows[main]
    main_rows = max(rows[main], share * total)
    if others <= 0:
        return rate
    out = rate * (total - main_rows) / others
    out[main] = main_rows / rows_per_post[main]
    return out


def interests(priors: Priors, rng: np.random.Generator) -> np.ndarray:
    """Parents: none. log-interest in each subject ~ N(0, interest_sd); 'unknown' fixed at 0."""
    subject = schemas.field("subject")
    log_interest = rng.normal(0.0, priors.interest_sd, len(subject.listed()))
    log_interest[subject.code("unknown")] = 0.0
    return log_interest
