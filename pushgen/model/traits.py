"""Static user node: engagement traits, i.e. this user's parameters of the engagement model.

Population effects (log-odds) of each feature value are the tables below; a user's weight
is the population effect, scaled for context features by the user's context sensitivity,
plus a personal deviation ~ N(0, sd). Effects not listed are 0. The user's interactions of
content groups with situations are the population's (``pushgen.model.situations``) scaled by
the same sensitivity plus a personal deviation ~ N(0, interaction_sd).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.model.catalog import AppCatalog
from pushgen.model.engagement import FEATURES, EngagementParameters
from pushgen.model.long_term import LongTermConstants
from pushgen.model.priors import Priors
from pushgen.model.situations import population_interactions

NOTIFICATION_EFFECTS: dict[str, dict[Any, float]] = {
    "category": {"msg": 0.6, "call": 0.5, "event": 0.1, "reminder": 0.2, "alarm": 0.0,
                 "email": 0.0, "recommendation": -0.5, "status": -0.6, "service": -0.8,
                 "err": -0.1, "transport": -0.4, "unknown": -0.2},
    "priority": {"max": 0.35, "high": 0.25, "default": 0.0, "low": -0.35, "min": -0.7,
                 "unknown": -0.1},
    "numberOfUpdates": {"none": 0.0, "low": 0.15, "medium": 0.25, "high": 0.1},
    "visibility": {"private": 0.05, "public": 0.0, "secret": -0.15},
    "ongoing": {True: -3.0, False: 0.0},
}
CONTEXT_EFFECTS: dict[str, dict[Any, float]] = {
    "activity": {"still": 0.0, "unknown": -0.1, "tilting": 0.15, "foot walking": -0.3,
                 "vehicle": -0.7, "foot running": -1.3, "bicycle": -1.1},
    "ringerMode": {"normal": 0.0, "vibrate": 0.1, "silent": -1.0},
    "noise": {"low": 0.0, "medium": -0.1, "high": -0.35},
    "proximity": {"far": 0.0, "med": 0.05, "near": -0.4},
    "batteryLevel": {"high": 0.0, "medium": 0.0, "low": -0.3},
    "charging": {True: -0.15, False: 0.0},
    "headphonesIn": {True: 0.15, False: 0.0},
    "musicActive": {True: 0.1, False: 0.0},
    "time": {"early-morning": -0.5, "morning": 0.0, "afternoon": 0.0, "evening": 0.15,
             "night": 0.05},
    "day": {5: -0.7, 6: -0.7},
    "place": {},
}
PERSONAL_SD = {  # sd of a user's deviation from the population effect, per feature but category
    "priority": 0.15, "numberOfUpdates": 0.1, "visibility": 0.1,
    "ongoing": 0.3, "activity": 0.15, "ringerMode": 0.15, "noise": 0.1, "proximity": 0.1,
    "batteryLevel": 0.1, "charging": 0.1, "headphonesIn": 0.1, "musicActive": 0.1,
    "time": 0.15, "day": 0.1, "place": 0.2,
}
WEEKEND = (5, 6)


def _population(name: str, effects: dict[Any, float]) -> np.ndarray:
    f = schemas.field(name)
    out = np.zeros(len(f.listed()))
    for value, effect in effects.items():
        out[f.code(value)] = effect
    out.flags.writeable = False
    return out


POPULATION_EFFECTS = {name: _population(name, effects)
                      for table in (NOTIFICATION_EFFECTS, CONTEXT_EFFECTS) for name, effects in table.items()}
VALUE_COUNTS = {name: len(schemas.values(name)) for name in FEATURES}
WEEKEND_SD = 0.25  # sd of the user's shift of both weekend days


def _layout() -> tuple[dict[str, slice], int, np.ndarray, np.ndarray]:
    """How a user's personal deviations are drawn, all at once: each feature's values in
    ``FEATURES`` order (the subject none; the day's followed by the shift of both weekend days).

    Returns where each feature's deviations lie, where the weekend shift lies, the population
    effect each one deviates from (0 for the apps: theirs is the catalog's) and whether it is a
    context feature's (scaled by the user's sensitivity)."""
    slices, at = {}, 0
    for name in FEATURES:
        if name != "subject":
            slices[name] = slice(at, at + VALUE_COUNTS[name])
            at += VALUE_COUNTS[name] + (name == "day")
    effects, context = np.zeros(at), np.zeros(at, dtype=bool)
    for name, where in slices.items():
        effects[where] = POPULATION_EFFECTS.get(name, 0.0)
        context[where] = name in CONTEXT_EFFECTS
    effects.flags.writeable = context.flags.writeable = False
    return slices, slices["day"].stop, effects, context


DEVIATION_SLICES, WEEKEND_SHIFT, LAID_OUT_EFFECTS, LAID_OUT_CONTEXT = _layout()
WEEKEND_VALUES = [DEVIATION_SLICES["day"].start + day for day in WEEKEND]


@functools.cache
def deviation_sd(app_affinity_sd: float, category_affinity_sd: float) -> np.ndarray:
    """The sd of each of a user's personal deviations, laid out as ``DEVIATION_SLICES``."""
    sd = np.empty(len(LAID_OUT_EFFECTS))
    for name, where in DEVIATION_SLICES.items():
        sd[where] = {"postingApp": app_affinity_sd,
                     "category": category_affinity_sd}.get(name, PERSONAL_SD.get(name, 0.0))
    sd[WEEKEND_SHIFT] = WEEKEND_SD
    sd.flags.writeable = False
    return sd


def engagement_traits(user_id: int, priors: Priors, catalog: AppCatalog, log_interest: np.ndarray,
                      apps: np.ndarray, tolerance: float, rng: np.random.Generator) -> EngagementParameters:
    """Parents: subject interests, the apps the user has (portfolio), the tolerance (long term).

    Weights: population effect (x context sensitivity ~ LogNormal(0, sd) for context
    features) + N(0, personal sd). Interactions: population x sensitivity + N(0,
    interaction_sd). Scalars: intercept ~ N, attention_amplitude ~ Uniform(0.15, 0.6),
    attention_peak ~ N(19 h, 2.5 h), asleep_penalty ~ N, fatigue_weight ~ Gamma(2),
    novelty ~ Gamma(2), habituation to app, subject and channel ~ Gamma(4) each.
    """
    sensitivity = rng.lognormal(0.0, priors.context_sensitivity_sd)
    # every personal deviation at once, as rng.normal(0, sd) draws each: 0 + sd x N(0, 1)
    sd = deviation_sd(priors.app_affinity_sd, priors.category_affinity_sd)
    deviation = 0.0 + sd * rng.standard_normal(len(LAID_OUT_EFFECTS))
    effect = np.where(LAID_OUT_CONTEXT, sensitivity, 1.0) * LAID_OUT_EFFECTS + deviation
    apps_at = DEVIATION_SLICES["postingApp"]
    effect[apps_at] = catalog.open_logit + deviation[apps_at]
    effect[WEEKEND_VALUES] += deviation[WEEKEND_SHIFT]
    subject = priors.interest_effect * log_interest
    weights = {name: subject[None, :] if name == "subject" else effect[None, DEVIATION_SLICES[name]]
               for name in FEATURES}
    scalars = {
        "intercept": rng.normal(priors.open_intercept_mean, priors.open_intercept_sd),
        "attention_amplitude": rng.uniform(0.15, 0.6),
        "attention_peak": rng.normal(19.0, 2.5) % 24,
        "asleep_penalty": rng.normal(priors.asleep_penalty_mean, 0.3),
        "fatigue_weight": rng.gamma(2.0, priors.fatigue_weight_mean / 2.0),
        "novelty": rng.gamma(2.0, priors.novelty_mean / 2.0),
        **{f"habituation_{key}": rng.gamma(4.0, mean / 4.0) for key, mean in (
            ("app", priors.habituation_app_mean), ("subject", priors.habituation_subject_mean),
            ("channel", priors.habituation_channel_mean))},
        "tolerance": tolerance,
    }
    population = population_interactions()
    interactions = sensitivity * population + rng.normal(0.0, priors.interaction_sd, population.shape)
    has_app = np.zeros(len(catalog.apps), dtype=bool)
    has_app[apps] = True
    return EngagementParameters(
        user_ids=np.array([user_id], dtype=np.int64),
        weights=weights,
        interactions=interactions[None],
        scalars=dict(zip(scalars, np.array(list(scalars.values()), dtype=np.float64)[:, None], strict=True)),
        has_app=has_app[None],
        fatigue_tau_seconds=priors.fatigue_tau_minutes * 60.0,
        novelty_days=priors.novelty_days,
        long_term=LongTermConstants.from_priors(priors),
    )
