"""Population priors: the parameters of the static nodes' distributions.

The defaults are calibrated to ``docs/calibration.md`` (published figures on real
notifications). Every field is stored in a dataset's manifest, so a dataset can be made
again from its manifest alone.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any


class PriorsError(ValueError):
    """A prior outside its range (the message names the field and the range)."""


BETA_MEANS = {"night_charge_share", "headphone_share", "night_quiet_share"}  # ends excluded: a Beta's mean


def allowed(name: str) -> str:
    """The values a numeric prior may take, in words."""
    low, high = BOUNDS[name]
    return f"above {low:g} and below {high:g}" if name in BETA_MEANS else f"from {low:g} to {high:g}"


def prior(default: float, low: float, high: float) -> Any:
    """A numeric prior's field: its default, and the range ``[low, high]`` it may take."""
    return field(default=default, metadata={"range": (low, high)})


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_shares(name: str, value: object, length: int) -> None:
    if not (isinstance(value, tuple) and len(value) == length
            and all(_is_number(v) and v >= 0 for v in value)
            and math.isclose(sum(value), 1.0, abs_tol=1e-6)):
        raise PriorsError(f"priors.{name} must be {length} non-negative shares summing to 1; got {value!r}")


@dataclass(frozen=True)
class Priors:
    """The population priors of the DBN's static nodes (``docs/model.md`` section 7).

    Every field is checked on creation: a value outside its range raises ``PriorsError``
    naming the field and the range (``BOUNDS``: each field's ``prior(default, low, high)``; shares
    must be as many non-negative numbers as the default has, summing to 1).

    Attributes
    ----------
    wake_hour_mean, wake_hour_sd : float
        Workday wake-up hour across users, Normal (hours; mean 4-11, sd 0-3).
    sleep_hours_mean, sleep_hours_sd : float
        Sleep length across users, Normal (hours).
    weekend_delay_mean : float
        Mean lie-in on days off (hours), Gamma across users.
    late_sleeper_share, late_wake_hour_mean : float
        Share of late sleepers (night owls) and their mean workday wake-up hour.
    night_shift_share, night_shift_wake_hour_mean : float
        Share of night-shift workers (who sleep by day) and their mean wake-up hour.
    occupation_shares : tuple of float
        Shares of office, shift, student, remote and not working users.
    commute_shares : tuple of float
        Shares of commuting by car, transit, bicycle and on foot.
    commute_minutes_median : float
        Median one-way commute (minutes), LogNormal across users.
    outings_per_week, exercise_per_week : float
        Mean evening outings and workouts per week, Gamma across users.
    vacation_weeks_per_year : float
        Mean weeks away a year: the daily regime's share of days away.
    phone_off_days_per_year, do_not_disturb_days_per_year : float
        Mean days a year with the phone off, or on do-not-disturb (Gamma of shape 0.5 across
        users: many users have none).
    night_charge_share : float
        Mean P(charging overnight) across users.
    drain_percent_per_hour : float
        Median battery drain while awake (percent per hour).
    headphone_share : float
        Mean P(headphones on a commute or workout).
    ringer_shares : tuple of float
        Habitual ringer mode shares: vibrate, normal, silent.
    ringer_concentration : float
        Dirichlet concentration of users' ringer habits around ``ringer_shares``.
    night_quiet_share : float
        Mean P(the ringer is put on silent or vibrate for the night), Beta across users.
    volume_median, volume_sd : float
        Median and sd of the log of a user's volume multiplier of every app's rate (apps post more
        than users receive: users turn the worst off).
    app_rate_sd : float
        Sd of a user's log rate of one app around the app's rate.
    chattiness_mean : float
        Mean follow-up messages per messaging conversation.
    dominant_app_share : float
        Mean share of a user's routine notification rows (conversations counted with their
        follow-ups) taken by the user's main app, Beta across users.
    dominant_kind_shares : tuple of float
        Kind of the main app: messaging, email, social, productivity (a kind the user lacks
        falls back to messaging).
    interest_sd : float
        Sd of a user's log-interest in a subject.
    open_intercept_mean, open_intercept_sd : float
        A user's baseline open log-odds, Normal across users.
    app_affinity_sd, category_affinity_sd : float
        Sd of a user's open log-odds per app and per category.
    interest_effect : float
        Open log-odds per unit of log-interest in the subject.
    context_sensitivity_sd : float
        Sd of a user's scale of the context effects.
    interaction_sd : float
        Sd of a user's content x situation effects around the population's.
    habituation_app_mean, habituation_subject_mean, habituation_channel_mean : float
        Mean open log-odds lost per unit of sqrt(exposure) to the app, subject and channel
        (>= 0: the fresh state is then an upper bound of P(open)).
    fatigue_weight_mean : float
        Mean open log-odds lost per unit of fatigue (>= 0).
    fatigue_tau_minutes : float
        Time constant of fatigue's decay (minutes).
    novelty_mean, novelty_days : float
        Early-weeks boost of the open log-odds, and its decay time constant (days).
    mood_day_sd, mood_segment_sd : float
        Sd of a user's day-to-day availability, and of the shift per stretch of the routine.
    asleep_penalty_mean : float
        Open log-odds added to notifications that arrive while the user sleeps.
    seen_seconds_median : float
        Median seconds until a notification is seen, before the ringer, routine, priority and
        evening factors.
    delayed_open_share, delayed_open_minutes : float
        Mean share of a user's opens decided long after the notification was seen (Beta across
        users), and the median delay of those (minutes).
    tolerance_band_shares : tuple of float
        Shares of users whose tolerance (unwanted notifications a week from one app) lies at 1,
        2-5, 6-10 and more a week (Localytics 2017); log-uniform within each band.
    unwanted_scale, goodwill_per_open : float
        Scale of every notification's unwanted weight, and the annoyance an open takes away per
        unit of that weight.
    annoyance_tau_days : float
        Time constant of annoyance's decay (days).
    disable_rate, abandon_rate : float
        Hazard per delivered notification per unit of annoyance over tolerance of turning the
        app's notifications off, and of abandoning the app.
    abandon_tolerance_ratio : float
        Abandoning starts at this multiple of the tolerance.
    channel_disable_share : float
        Share of turn-offs that turn off only the notification's channel (Android 8 and later).

    Raises
    ------
    PriorsError
        When a field is outside its range (a ``ValueError`` naming the field and the range).

    Examples
    --------
    >>> import dataclasses
    >>> import pushgen
    >>> early = dataclasses.replace(pushgen.Priors(), wake_hour_mean=5.5)
    >>> pushgen.generate(users=2, days=7, seed=0, priors=early).recipe.priors.wake_hour_mean
    5.5
    >>> pushgen.Priors(wake_hour_mean=20.0)
    Traceback (most recent call last):
    ...
    pushgen.model.priors.PriorsError: priors.wake_hour_mean must be a number from 4 to 11; got 20.0
    """

    wake_hour_mean: float = prior(7.0, 4.0, 11.0)
    wake_hour_sd: float = prior(1.1, 0.0, 3.0)
    late_sleeper_share: float = prior(0.06, 0.0, 1.0)
    late_wake_hour_mean: float = prior(9.2, 6.0, 13.0)
    night_shift_share: float = prior(0.02, 0.0, 1.0)
    night_shift_wake_hour_mean: float = prior(14.0, 10.0, 18.0)
    sleep_hours_mean: float = prior(7.6, 4.0, 11.0)
    sleep_hours_sd: float = prior(0.6, 0.0, 3.0)
    weekend_delay_mean: float = prior(1.2, 0.0, 6.0)
    occupation_shares: tuple[float, ...] = (0.45, 0.15, 0.2, 0.1, 0.1)
    commute_shares: tuple[float, ...] = (0.45, 0.3, 0.1, 0.15)
    commute_minutes_median: float = prior(28.0, 1.0, 240.0)
    outings_per_week: float = prior(1.5, 0.0, 14.0)
    exercise_per_week: float = prior(1.8, 0.0, 14.0)
    vacation_weeks_per_year: float = prior(4.0, 0.0, 26.0)
    phone_off_days_per_year: float = prior(2.0, 0.0, 120.0)
    do_not_disturb_days_per_year: float = prior(4.0, 0.0, 120.0)
    night_charge_share: float = prior(0.8, 0.0, 1.0)
    drain_percent_per_hour: float = prior(4.5, 0.1, 50.0)
    headphone_share: float = prior(0.5, 0.0, 1.0)
    ringer_shares: tuple[float, ...] = (0.18, 0.64, 0.18)
    ringer_concentration: float = prior(3.0, 0.01, 1000.0)
    night_quiet_share: float = prior(0.7, 0.0, 1.0)
    volume_median: float = prior(1.3, 0.05, 20.0)
    volume_sd: float = prior(0.4, 0.0, 3.0)
    app_rate_sd: float = prior(0.5, 0.0, 3.0)
    chattiness_mean: float = prior(1.6, 0.0, 20.0)
    dominant_app_share: float = prior(0.4, 0.0, 0.95)
    dominant_kind_shares: tuple[float, ...] = (0.7, 0.14, 0.1, 0.06)
    interest_sd: float = prior(1.0, 0.0, 5.0)
    open_intercept_mean: float = prior(-0.9, -10.0, 10.0)
    open_intercept_sd: float = prior(3.0, 0.0, 5.0)
    app_affinity_sd: float = prior(0.45, 0.0, 5.0)
    category_affinity_sd: float = prior(0.3, 0.0, 5.0)
    interest_effect: float = prior(0.35, -5.0, 5.0)
    context_sensitivity_sd: float = prior(0.35, 0.0, 5.0)
    interaction_sd: float = prior(1.7, 0.0, 5.0)
    habituation_app_mean: float = prior(0.1, 0.0, 5.0)
    habituation_subject_mean: float = prior(0.1, 0.0, 5.0)
    habituation_channel_mean: float = prior(0.1, 0.0, 5.0)
    fatigue_weight_mean: float = prior(0.35, 0.0, 5.0)
    fatigue_tau_minutes: float = prior(30.0, 0.1, 1440.0)
    novelty_mean: float = prior(0.35, 0.0, 5.0)
    novelty_days: float = prior(30.0, 0.1, 3650.0)
    mood_day_sd: float = prior(0.9, 0.0, 5.0)
    mood_segment_sd: float = prior(0.85, 0.0, 5.0)
    asleep_penalty_mean: float = prior(-0.9, -10.0, 10.0)
    seen_seconds_median: float = prior(90.0, 0.1, 86400.0)
    delayed_open_share: float = prior(0.25, 0.0, 1.0)
    delayed_open_minutes: float = prior(35.0, 1.0, 1440.0)
    tolerance_band_shares: tuple[float, ...] = (0.10, 0.37, 0.33, 0.20)
    unwanted_scale: float = prior(1.0, 0.0, 10.0)
    goodwill_per_open: float = prior(1.0, 0.0, 10.0)
    annoyance_tau_days: float = prior(7.0, 0.5, 60.0)
    disable_rate: float = prior(0.03, 0.0, 10.0)
    abandon_rate: float = prior(0.01, 0.0, 10.0)
    abandon_tolerance_ratio: float = prior(2.0, 1.0, 20.0)
    channel_disable_share: float = prior(0.3, 0.0, 1.0)

    def __post_init__(self) -> None:
        for name, value in ((f.name, getattr(self, f.name)) for f in fields(self)):
            if name in SHARES:
                _check_shares(name, value, SHARES[name])
                continue
            low, high = BOUNDS[name]
            if not _is_number(value) or not (low < value < high if name in BETA_MEANS
                                             else low <= value <= high):
                raise PriorsError(f"priors.{name} must be a number {allowed(name)}; got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Priors:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown prior {unknown[0]!r}; known: {', '.join(known)}")
        arguments: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        return cls(**arguments)


BOUNDS: dict[str, tuple[float, float]] = {f.name: f.metadata["range"] for f in fields(Priors)
                                           if "range" in f.metadata}
SHARES: dict[str, int] = {f.name: len(f.default) for f in fields(Priors) if isinstance(f.default, tuple)}
