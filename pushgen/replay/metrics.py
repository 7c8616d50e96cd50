"""The challenge's metrics of generated notifications: performance, diversity, time, learning.

- performance: total and mean reward, and the open rate of the generated notifications
  against that of the logged ones;
- diversity, over the generated notifications that were opened:
  ``distinct_ratio`` (gym-push's measure): per notification feature, the number of distinct
  values among them divided by the number of distinct values in the reference history (the
  logged notifications of the same contexts), capped at 1, averaged over the 7 features; only
  possible notifications are passed in, so values no app could post add nothing.
  ``entropy``: per feature, the Shannon entropy of their values divided by log(number of
  published values), so 1 means uniform over every allowed value; averaged over features;
  ``useful_variety``: the distinct ratio of the values that earn their place. Each generated
  possible notification opened more likely than the user's logged open rate in the same
  contexts brings its excess, P(open) - that rate, to each of its values; a value counts once
  its excess reaches ``MIN_OPEN_SHARE`` of the logged opens. Every notification brings >= 0 and
  at most 1 - the rate, so a value sent in fewer contexts than that share of the logged opens
  can never count (sprinkling rare values adds nothing), a value sent often but opened less
  than the logged ones counts neither, and replacing a notification never raises another
  value's excess;
- response time (task 2): median and 95th percentile of the seconds per decision;
- task 2 is ranked by what it is, the reward over the whole episode (mean reward per step:
  the cumulative reward over the steps); beside it ``over_reference``, the mean per step of
  reward - that of the reference without feedback (``pushgen.replay.reference.apps_aware_reference``:
  the best public notification the user's apps can post) on the same contexts. Every step
  counts with the same weight, so doing worse at any step, early ones included, can only lower
  it. It is a paired difference in reward, not a measure of learning (a model that never reads
  a response can be above the reference); how a policy learns is shown by its reward curve
  (the leaderboard's figure), not by a score: the slope of the curve and the first-to-last
  quarter gain, which failing on purpose early raises, are no longer computed.
"""

from __future__ import annotations

import numpy as np

from pushgen import schemas
from pushgen.model.renamed import moved

MIN_OPEN_SHARE = 0.01  # of the logged opens: the excess opens a value must bring to count as useful
CONFIDENCE = 0.95  # of the interval across users that goes with every headline score
PAIRED_REFERENCES = {1: "learned", 2: "bandit"}  # task -> the leaderboard row others are paired with
HEADINGS = {  # one name per metric, wherever a table shows it (evaluate, the leaderboard)
    "mean_reward": "mean reward",
    "generated_open_rate": "open rate",
    "logged_open_rate": "logged open rate",
    "impossible_share": "impossible",
    "entropy": "entropy",
    "distinct_ratio": "distinct ratio",
    "useful_variety": "useful variety",
    "over_reference": "vs no-feedback ref.",
}


def standard_error(values: np.ndarray) -> float:
    """The standard error of the mean (sample standard deviation / sqrt(n)); n >= 2."""
    return float(np.std(values, ddof=1) / np.sqrt(len(values)))


def interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Student-t interval of the mean of ``values`` (NaN with fewer than 2 values)."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return float("nan"), float("nan")
    mean, sem = float(values.mean()), standard_error(values)
    if sem == 0:
        return mean, mean
    half_width = t_quantile((1.0 + confidence) / 2, len(values) - 1) * sem
    return mean - half_width, mean + half_width


def t_quantile(probability: float, degrees: int) -> float:
    """The ``probability`` quantile of Student's t distribution with ``degrees`` (a whole number
    >= 1) degrees of freedom.

    It solves the closed form of the t distribution's central probability for whole degrees of
    freedom (Abramowitz and Stegun 26.7.3-4) by bisection of the angle ``atan(t / sqrt(degrees))``,
    to the last bit. ``scipy.special.stdtrit`` gives the same to about 1e-14, but importing it costs
    ``pushgen evaluate`` about 0.3 CPU-seconds, a sixth of the command.

    Parameters
    ----------
    probability : float
        In (0, 1).
    degrees : int
        Degrees of freedom, >= 1.

    Returns
    -------
    float
        ``t`` with P(T <= t) = ``probability``.

    Examples
    --------
    >>> round(t_quantile(0.975, 10), 6)
    2.228139
    >>> t_quantile(0.5, 3) == 0.0
    True
    """
    if not (0.0 < probability < 1.0 and degrees >= 1):
        raise ValueError(f"t_quantile needs 0 < probability < 1 and degrees >= 1; got {probability}, "
                         f"{degrees}")
    central = abs(2.0 * probability - 1.0)  # P(|T| <= t)
    odd = degrees % 2 == 1
    k = np.arange((degrees - 1) // 2 if odd else degrees // 2, dtype=np.float64)  # terms of the sum
    if odd:  # (2/pi) (theta + sin cos sum_k prod_j 2j/(2j+1) cos^2k), theta = atan(t / sqrt(degrees))
        weights = np.cumprod(np.concatenate(([1.0], (2 * k[1:]) / (2 * k[1:] + 1))))
    else:  # sin sum_k prod_j (2j-1)/(2j) cos^2k
        weights = np.cumprod(np.concatenate(([1.0], (2 * k[1:] - 1) / (2 * k[1:]))))

    def central_probability(theta: float) -> float:
        sin, cos = np.sin(theta), np.cos(theta)
        series = float(weights @ cos ** (2 * k)) if len(k) else 0.0
        if odd:
            return float(2 / np.pi * (theta + sin * cos * series))
        return float(sin * series)

    low, high = 0.0, np.pi / 2
    while (middle := (low + high) / 2) not in (low, high):
        low, high = (middle, high) if central_probability(middle) < central else (low, middle)
    t = float(np.sqrt(degrees) * np.tan(low))
    return t if probability > 0.5 else -t


def paired(values: np.ndarray, reference: np.ndarray, confidence: float = CONFIDENCE) -> dict[str, float]:
    """The paired comparison of two policies on the same users: the mean of the per-user
    differences ``values - reference``, its t-interval, and the two-sided p-value of the
    paired t-test (NaN with fewer than 2 users)."""
    from scipy.special import stdtr

    difference = np.asarray(values, dtype=np.float64) - np.asarray(reference, dtype=np.float64)
    low, high = interval(difference, confidence)
    mean = float(difference.mean()) if len(difference) else float("nan")
    if len(difference) < 2:
        p = float("nan")
    elif (sem := standard_error(difference)) == 0:
        p = 1.0 if mean == 0 else 0.0
    else:
        p = float(2 * stdtr(len(difference) - 1, -abs(mean / sem)))
    return {"difference": mean, "low": low, "high": high, "p": p}


def separated(comparison: dict[str, float]) -> bool:
    """Whether a paired comparison's interval excludes 0."""
    low, high = comparison["low"], comparison["high"]
    return bool(np.isfinite(low) and (low > 0 or high < 0))


def performance(reward: np.ndarray, generated_open: np.ndarray,
                logged_opened: np.ndarray) -> dict[str, float]:
    n = len(reward)
    return {
        "steps": n,
        "total_reward": float(np.sum(reward)),
        "mean_reward": float(np.mean(reward)) if n else float("nan"),
        "generated_open_rate": float(np.mean(generated_open)) if n else float("nan"),
        "logged_open_rate": float(np.mean(logged_opened)) if n else float("nan"),
    }


def distinct_ratio(generated: dict[str, np.ndarray], opened: np.ndarray,
                   reference: dict[str, np.ndarray]) -> float:
    """Mean over features of distinct opened generated values / distinct reference values."""
    ratios = [min(1.0, _distinct(codes[opened]) / max(1, _distinct(reference[f])))
              for f, codes in generated.items()]
    return float(np.mean(ratios)) if ratios else float("nan")


def useful_variety(generated: dict[str, np.ndarray], p_open: np.ndarray, possible: np.ndarray,
                   logged_opened: np.ndarray, reference: dict[str, np.ndarray],
                   min_share: float = MIN_OPEN_SHARE) -> float:
    """Mean over features of the distinct useful generated values / distinct reference values
    (capped at 1): a value is useful when its possible notifications' P(open) in excess of the
    logged open rate sum to at least ``min_share`` of the logged opens."""
    if not len(p_open):
        return float("nan")
    rate = float(np.mean(logged_opened))
    excess = np.where(possible, np.maximum(np.asarray(p_open, dtype=np.float64) - rate, 0.0), 0.0)
    least = min_share * max(float(np.sum(logged_opened)), 1.0)
    ratios = []
    for f, codes in generated.items():
        brought = np.bincount(codes, weights=excess, minlength=len(schemas.values(f)))
        useful = int(((brought >= least) & (brought > 0)).sum())
        ratios.append(min(1.0, useful / max(1, _distinct(reference[f]))))
    return float(np.mean(ratios)) if ratios else float("nan")


def _distinct(codes: np.ndarray) -> int:
    """How many distinct values the (non-negative) ``codes`` hold; counted, not sorted."""
    return int(np.count_nonzero(np.bincount(codes))) if len(codes) else 0


def entropy(generated: dict[str, np.ndarray], opened: np.ndarray) -> float:
    """Mean over features of the normalised Shannon entropy of the opened generated values."""
    scores = []
    for f, codes in generated.items():
        size = len(schemas.values(f))
        counts = np.bincount(codes[opened], minlength=size).astype(np.float64)
        total = counts.sum()
        if total == 0:
            scores.append(0.0)
            continue
        p = counts[counts > 0] / total
        scores.append(float(-(p * np.log(p)).sum() / np.log(size)))
    return float(np.mean(scores)) if scores else float("nan")


def response_time(seconds: np.ndarray) -> dict[str, float]:
    if not len(seconds):
        return {"response_p50_seconds": float("nan"), "response_p95_seconds": float("nan")}
    p50, p95 = np.percentile(seconds, [50, 95])
    return {"response_p50_seconds": float(p50), "response_p95_seconds": float(p95)}


def over_reference(reward: np.ndarray, reference: np.ndarray | None) -> float:
    """The mean per step of ``reward`` - ``reference`` (the rewards without feedback on the same
    contexts; NaN without them): lowering any reward can only lower it."""
    if reference is None or not len(reward):
        return float("nan")
    return float(np.mean(np.asarray(reward) - np.asarray(reference)))


__getattr__ = moved(__name__, {
    "learning": "pushgen.replay.metrics.over_reference (the slope and quarter gain, which sabotage "
                "raises, are gone; the reward curve is the leaderboard's figure)"})
