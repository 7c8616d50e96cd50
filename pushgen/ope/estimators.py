"""Off-policy estimators of a target policy's value from logged bandit feedback.

Round t of a log has a context x_t, a set of actions (the candidates and hold), the logged
action a_t drawn by the logging policy with propensity p_t = pi_b(a_t | x_t), and its reward
r_t. A target policy gives pi_e(a | x_t) over the same actions, with importance weight
w_t = pi_e(a_t | x_t) / p_t, and a reward model q(x_t, a) estimates E[r | x_t, a]:

- IPW (inverse propensity weighting; Horvitz & Thompson 1952, Precup, Sutton & Singh 2000):
  V = 1/n sum_t w_t r_t
- SNIPW (self-normalised IPW; Swaminathan & Joachims, NeurIPS 2015):
  V = sum_t w_t r_t / sum_t w_t
- DM (direct method; Beygelzimer & Langford, KDD 2009):
  V = 1/n sum_t sum_a pi_e(a | x_t) q(x_t, a)
- DR (doubly robust; Dudik, Langford & Li, ICML 2011):
  V = 1/n sum_t [sum_a pi_e(a | x_t) q(x_t, a) + w_t (r_t - q(x_t, a_t))]

Each estimate comes with a 95% normal interval from its per-round terms (SNIPW's by the delta
method), the effective sample size (sum w)^2 / sum w^2 (Kish) and the largest weight; an
``OPEWarning`` says when fewer than ``MIN_EFFECTIVE_ROUNDS`` rounds effectively count.
These are the formulas of Open Bandit Pipeline's ``obp.ope`` (Saito et al., 2021).
"""

from __future__ import annotations

import warnings

import numpy as np

from pushgen.checks import type_name
from pushgen.ope.feedback import Z_95
from pushgen.ope.feedback import Estimate as Estimate
from pushgen.ope.feedback import Feedback as Feedback

ESTIMATORS = ("IPW", "SNIPW", "DM", "DR")
MIN_EFFECTIVE_ROUNDS = 100


class OPEWarning(UserWarning):
    """An estimate that rests on few effective rounds."""


def _estimate(name: str, terms: np.ndarray, weights: np.ndarray, value: float | None = None) -> Estimate:
    n = len(terms)
    value = float(terms.mean()) if value is None else value
    half = Z_95 * float(terms.std(ddof=1)) / np.sqrt(n) if n > 1 else np.inf
    total = float(weights.sum())
    effective = total**2 / float((weights**2).sum()) if total > 0 else 0.0
    if effective < MIN_EFFECTIVE_ROUNDS and name != "DM":
        warnings.warn(f"{name}: only {effective:.1f} of {n:,} rounds effectively count (effective "
                      f"sample size below {MIN_EFFECTIVE_ROUNDS}; largest weight {weights.max():.3g}): "
                      "the estimate and its interval are unreliable", OPEWarning, stacklevel=3)
    return Estimate(name, value, value - half, value + half, n, effective, float(weights.max()))


def ipw(feedback: Feedback) -> Estimate:
    """Inverse propensity weighting (Horvitz & Thompson 1952): the mean of the target's probability
    of the logged action over its propensity, times the reward.

    Parameters
    ----------
    feedback : Feedback
        The logged actions, rewards and propensities, the target's probabilities.

    Returns
    -------
    Estimate
        The value, its 95% interval, the effective sample size and the largest weight.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback, ipw
    >>> feedback = Feedback(action=np.tile([0, 1], 200), reward=np.tile([1.0, 0.0], 200),  # logged uniformly
    ...                     pscore=np.full(400, 0.5), target=np.tile([1.0, 0.0], (400, 1)))
    >>> ipw(feedback).value, ipw(feedback).effective_rounds  # half the rounds count, at weight 2
    (1.0, 200.0)
    """
    w = feedback.weights
    return _estimate("IPW", w * feedback.reward, w)


def snipw(feedback: Feedback) -> Estimate:
    """Self-normalised IPW (Swaminathan & Joachims 2015): IPW divided by the mean weight.

    Parameters
    ----------
    feedback : Feedback
        The log and the target's probabilities.

    Returns
    -------
    Estimate
        As for ``ipw``, with the delta method's interval.

    Raises
    ------
    ValueError
        When the target never takes a logged action (every weight is 0).

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback, ipw, snipw
    >>> always_first = np.tile([1.0, 0.0], (400, 1))  # the target; the log took action 0 400 times
    >>> feedback = Feedback(action=np.zeros(400, dtype=int), reward=np.ones(400), pscore=np.full(400, 0.5),
    ...                     target=always_first)
    >>> ipw(feedback).value, snipw(feedback).value  # every weight is 2: IPW doubles, SNIPW does not
    (2.0, 1.0)
    """
    w = feedback.weights
    mean_weight = w.mean()
    if mean_weight == 0:
        raise ValueError("SNIPW: the target never takes a logged action (every weight is 0)")
    value = float((w * feedback.reward).sum() / w.sum())
    # delta method: the influence of round t is w_t (r_t - V) / mean(w)
    return _estimate("SNIPW", value + w * (feedback.reward - value) / mean_weight, w, value)


def _model_value(feedback: Feedback) -> np.ndarray:
    """Per round: the reward model's value of the target, sum_a pi_e(a | x_t) q(x_t, a)."""
    return (feedback.target * feedback.required_model).sum(axis=1)


def dm(feedback: Feedback) -> Estimate:
    """The direct method (Beygelzimer & Langford 2009): the reward model's value of the target.

    Parameters
    ----------
    feedback : Feedback
        As for ``ipw``, with a reward model (``model``).

    Returns
    -------
    Estimate
        As for ``ipw``; never an ``OPEWarning`` (the estimate uses no weight).

    Raises
    ------
    ValueError
        When ``feedback.model`` is None: no reward model.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback, dm
    >>> feedback = Feedback(action=np.zeros(400, dtype=int), reward=np.ones(400), pscore=np.ones(400),
    ...                     target=np.tile([0.5, 0.5], (400, 1)), model=np.tile([0.8, 0.2], (400, 1)))
    >>> round(dm(feedback).value, 3)  # 0.5 * 0.8 + 0.5 * 0.2, whatever the logged rewards
    0.5
    """
    return _estimate("DM", _model_value(feedback), feedback.weights)


def dr(feedback: Feedback) -> Estimate:
    """Doubly robust (Dudik, Langford & Li 2011): the direct method plus IPW of the model's error.

    Parameters
    ----------
    feedback : Feedback
        The log and the target's probabilities, with a reward model.

    Returns
    -------
    Estimate
        As for ``ipw``.

    Raises
    ------
    ValueError
        As for ``dm``.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback, dm, dr
    >>> action = np.tile([0, 1], 200)                 # 400 rounds of a uniform logging policy
    >>> feedback = Feedback(action=action, reward=(action == 0).astype(float), pscore=np.full(400, 0.5),
    ...                     target=np.tile([1.0, 0.0], (400, 1)), model=np.tile([0.8, 0.1], (400, 1)))
    >>> round(dm(feedback).value, 3), round(dr(feedback).value, 3)  # the model's error corrected
    (0.8, 1.0)
    """
    w = feedback.weights
    return _estimate("DR", _model_value(feedback) + w * (feedback.reward - feedback.logged_model), w)


FORMULAS = {"IPW": ipw, "SNIPW": snipw, "DM": dm, "DR": dr}


def estimate_all(feedback: Feedback, estimators: tuple[str, ...] | str = ESTIMATORS) -> dict[str, Estimate]:
    """Every named estimator's estimate (DM and DR only when ``feedback`` has a reward model).

    Parameters
    ----------
    feedback : Feedback
        The log, for one target policy.
    estimators : tuple of str, or str, default ("IPW", "SNIPW", "DM", "DR")
        The estimators to run (one name alone: that one).

    Returns
    -------
    dict of str to Estimate
        Each estimate by its estimator's name.

    Raises
    ------
    ValueError
        When an estimator's name is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback, estimate_all
    >>> action = np.tile([0, 1], 200)                 # 400 rounds of a uniform logging policy
    >>> feedback = Feedback(action=action, reward=(action == 0).astype(float), pscore=np.full(400, 0.5),
    ...                     target=np.tile([1.0, 0.0], (400, 1)), model=np.tile([0.8, 0.1], (400, 1)))
    >>> {name: round(e.value, 3) for name, e in estimate_all(feedback).items()}
    {'IPW': 1.0, 'SNIPW': 1.0, 'DM': 0.8, 'DR': 1.0}
    """
    if not isinstance(feedback, Feedback):
        raise TypeError(f"estimate_all reads a Feedback (log.feedback(policy, model)); "
                        f"got {type_name(feedback)}")
    if isinstance(estimators, str):  # one estimator's name, not its letters
        estimators = (estimators,)
    unknown = [name for name in estimators if name not in FORMULAS]
    if unknown:
        raise ValueError(f"unknown estimator {unknown[0]!r}; estimators: {', '.join(FORMULAS)}")
    return {name: FORMULAS[name](feedback) for name in estimators
            if feedback.model is not None or name in ("IPW", "SNIPW")}
