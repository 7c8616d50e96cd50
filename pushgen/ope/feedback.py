"""What the off-policy estimators read (``Feedback``, for one target policy) and what they give
(``Estimate``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile: 95% intervals


def plain_floats(result: object, *names: str) -> None:
    """Set the fields ``names`` of a frozen dataclass to Python floats (not ``np.float64``, which
    prints as ``np.float64(...)``)."""
    for name in names:
        object.__setattr__(result, name, float(getattr(result, name)))


@dataclass(frozen=True)
class Estimate:
    """An estimator's value with its 95% interval, and how many rounds effectively count.

    Attributes
    ----------
    estimator : str
        ``"IPW"``, ``"SNIPW"``, ``"DM"`` or ``"DR"``.
    value, low, high : float
        The estimate and its 95% interval.
    rounds : int
        The log's rounds.
    effective_rounds : float
        The effective sample size (sum w)^2 / sum w^2.
    max_weight : float
        The largest importance weight.

    Examples
    --------
    >>> from pushgen.ope import Estimate
    >>> Estimate("IPW", 0.5, 0.4, 0.6, 1000, 800.0, 3.0).covers(0.45)
    True
    """

    estimator: str
    value: float
    low: float
    high: float
    rounds: int
    effective_rounds: float
    max_weight: float

    def __post_init__(self) -> None:
        plain_floats(self, "value", "low", "high", "effective_rounds", "max_weight")

    def covers(self, truth: float) -> bool:
        return self.low <= truth <= self.high

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Feedback:
    """What the estimators read from a log, for one target policy.

    ``target`` and ``model`` are (rounds, actions): the target's probability and the reward
    model's estimate of each action (zero probability where a round has fewer actions).
    ``BanditLog.feedback(policy, model)`` makes one from a log.

    Attributes
    ----------
    action : numpy.ndarray
        (rounds,) the logged action's index.
    reward : numpy.ndarray
        (rounds,) the logged reward.
    pscore : numpy.ndarray
        (rounds,) the logging policy's probability of the logged action, in (0, 1].
    target : numpy.ndarray
        (rounds, actions) the target policy's probabilities, summing to 1 per round.
    model : numpy.ndarray, optional
        (rounds, actions) a reward model's estimates, for DM and DR.

    Raises
    ------
    ValueError
        When the arrays disagree in shape or a probability is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from pushgen.ope import Feedback
    >>> action = np.tile([0, 1], 200)                 # 400 rounds of a uniform logging policy
    >>> feedback = Feedback(action=action, reward=(action == 0).astype(float), pscore=np.full(400, 0.5),
    ...                     target=np.tile([1.0, 0.0], (400, 1)), model=np.tile([0.8, 0.1], (400, 1)))
    >>> feedback.weights[:4].tolist()
    [2.0, 0.0, 2.0, 0.0]
    """

    action: np.ndarray
    reward: np.ndarray
    pscore: np.ndarray
    target: np.ndarray
    model: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.action)
        if n == 0:
            raise ValueError("a log with no rounds cannot be evaluated")
        if self.reward.shape != (n,) or self.pscore.shape != (n,) or self.target.ndim != 2 \
                or self.target.shape[0] != n:
            raise ValueError("action, reward and pscore must have one value per round, target one row")
        if not np.all((self.pscore > 0) & (self.pscore <= 1)):
            raise ValueError("every propensity must be in (0, 1]")
        if not np.allclose(self.target.sum(axis=1), 1.0, atol=1e-9) or (self.target < 0).any():
            raise ValueError("the target policy's probabilities must be >= 0 and sum to 1 per round")
        if self.model is not None and self.model.shape != self.target.shape:
            raise ValueError("the reward model needs one estimate per round and action, like target")

    @property
    def weights(self) -> np.ndarray:
        return self.target[np.arange(len(self.action)), self.action] / self.pscore

    @property
    def logged_model(self) -> np.ndarray:
        return self.required_model[np.arange(len(self.action)), self.action]

    @property
    def required_model(self) -> np.ndarray:
        """The reward model's estimate per round and action (DM and DR need one)."""
        if self.model is None:
            raise ValueError("DM and DR need a reward model (model=)")
        return self.model
