"""Population priors: the parameters of the static nodes' distributions.

The defaults are calibrated to ``docs/calibration.md`` (published figures on real
notifications). Every field is stored in a dataset's manifest, so a dataset can be made
again from its manifest alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Priors:
    # chronotype: wake-up hour on workdays ~ Normal, sleep length ~ Normal, weekend lie-in ~ Gamma
    wake_hour_mean: float = 7.0
    wake_hour_sd: float = 0.9
    sleep_hours_mean: float = 7.6
    sleep_hours_sd: float = 0.6
    weekend_delay_mean: float = 1.2
    # schedule: occupation shares (office, shift, student, remote, not working)
    occupation_shares: tuple[float, ...] = (0.45, 0.15, 0.2, 0.1, 0.1)
    # commute mode shares (car, transit, bicycle, walk) and one-way duration (median, minutes)
    commute_shares: tuple[float, ...] = (0.45, 0.3, 0.1, 0.15)
    commute_minutes_median: float = 28.0
    # leisure: evening outings per week, exercise sessions per week (Poisson means)
    outings_per_week: float = 1.5
    exercise_per_week: float = 1.8
    vacation_weeks_per_year: float = 4.0
    # daily regime (pushgen.model.regime): rare days with the phone off or on do-not-disturb
    phone_off_days_per_year: float = 2.0
    do_not_disturb_days_per_year: float = 4.0
    # device habits
    night_charge_share: float = 0.8  # mean P(charges overnight) across users
    drain_percent_per_hour: float = 4.5  # median battery drain while awake
    headphone_share: float = 0.5  # mean P(headphones on a commute or workout)
    ringer_shares: tuple[float, ...] = (0.18, 0.64, 0.18)  # vibrate, normal, silent habit
    ringer_concentration: float = 3.0  # Dirichlet concentration of users around the shares
    # app portfolio and volume: a user's daily volume multiplies every app's rate
    volume_sd: float = 0.4  # sd of the log volume multiplier (median 1)
    app_rate_sd: float = 0.5  # sd of a user's log rate for one app around the app's rate
    chattiness_mean: float = 1.6  # mean follow-up messages per messaging conversation
    # subject interests: log-interest of a user in a subject ~ Normal(0, sd)
    interest_sd: float = 1.0
    # engagement traits
    open_intercept_mean: float = -0.2
    open_intercept_sd: float = 0.9
    app_affinity_sd: float = 0.45
    category_affinity_sd: float = 0.3
    interest_effect: float = 0.35  # open log-odds per unit of log-interest
    context_sensitivity_sd: float = 0.35
    interaction_sd: float = 0.45  # sd of a user's content x situation effects around the population's
    habituation_app_mean: float = 0.1  # open log-odds lost per unit of sqrt(exposure) to the app
    habituation_subject_mean: float = 0.1  # ... to the subject
    habituation_channel_mean: float = 0.1  # ... to the channel
    fatigue_weight_mean: float = 0.35  # open log-odds lost per unit of fatigue
    fatigue_tau_minutes: float = 30.0  # fatigue decays with this time constant
    novelty_mean: float = 0.3  # early-weeks boost of the open log-odds ...
    novelty_days: float = 30.0  # ... which decays with this time constant
    mood_day_sd: float = 0.9  # mean sd of a user's day-to-day availability (log-odds)
    mood_segment_sd: float = 0.85  # sd of the shift per stretch of the routine
    asleep_penalty_mean: float = -0.9  # notifications that arrive in the night
    seen_seconds_median: float = 90.0  # seconds until seen, before ringer/routine/priority factors

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict) -> Priors:
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown prior {unknown[0]!r}; known: {', '.join(known)}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})
