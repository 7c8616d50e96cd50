"""Logged bandit feedback: a known stochastic logging policy played in the selection environment,
as two tables.

- ``rounds``: one row per round (user, time, context): the chosen action (``slot``; ``k`` is
  hold), its propensity, the sampled reward (1 if opened) and the true P(open) of the chosen
  notification at the state the logged trajectory had reached;
- ``candidates``: one row per action of each round (the filled candidate slots and hold, whose
  notification features are empty): its features, propensity, whether it was chosen, the
  sampled reward on the chosen row (empty elsewhere) and its true P(open) at that state.
  Each round's propensities sum to 1, hold included.

The true P(open) columns are the simulator's ground truth (an answer key): they let every
estimator be checked, and no estimator may read them. A ``softmax`` log's propensities encode
the true P(open) too; a ``softmax-learned`` log's reveal only a public model's.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.checks import type_name
from pushgen.data.folder_lock import session
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES, codes_frame
from pushgen.ope.estimators import Feedback
from pushgen.ope.play import DEFAULT_K, Episode, play
from pushgen.ope.policies import (
    POLICIES,
    SlatePolicy,
    Slates,
    SoftmaxPolicy,
    UniformPolicy,
    check_temperature,
)
from pushgen.ope.slates import checked_slate_policy, probabilities_of
from pushgen.publishing.access import resolve_split
from pushgen.splits import SPLIT_FILE, SplitSpec, boundaries
from pushgen.text_tables import counted, html_table

ROUND_COLUMNS = ("round_id", "user_id", "context_id", "posted_at", *CONTEXT_FEATURES, "candidates", "slot",
                 "held", "propensity", "reward", "p_open")
CANDIDATE_COLUMNS = ("round_id", "slot", "hold", *NOTIFICATION_FEATURES, "propensity", "chosen", "reward",
                     "p_open")


@dataclass(repr=False)
class BanditLog:
    """A log's two tables and its recipe (the split, the logging policy and the options).

    Attributes
    ----------
    rounds : pandas.DataFrame
        One row per round: the context, the action, its propensity, the reward.
    candidates : pandas.DataFrame
        One row per action of each round, hold included.
    recipe : dict
        The split, the logging policy and the options.

    Examples
    --------
    >>> from pushgen.ope import log_policy
    >>> log = log_policy("pushgen-mini-v4", policy="uniform", users=[0], seed=0)
    >>> log.k, log.recipe["policy"]
    (8, 'uniform')
    """

    rounds: pd.DataFrame
    candidates: pd.DataFrame
    recipe: dict = field(default_factory=dict)

    def _summary(self) -> list[tuple[str, str]]:
        recipe, rounds = self.recipe, self.rounds
        temperature = recipe.get("temperature")
        policy = str(recipe.get("policy", "unknown"))
        policy += f" at temperature {temperature:g}" if temperature else ""
        return [("split", str(recipe.get("split", "unknown"))), ("logging policy", policy),
                ("rounds", f"{len(rounds):,}"), ("users", f"{rounds['user_id'].nunique():,}"),
                ("candidates per round", str(recipe.get("k", "unknown"))),
                ("held", f"{int(rounds['held'].sum()):,}"), ("opened", f"{int(rounds['reward'].sum()):,}"),
                ("stationary", str(bool(recipe.get("stationary", False))).lower())]

    def __repr__(self) -> str:
        facts = dict(self._summary())
        users = counted(self.rounds["user_id"].nunique(), "user")
        return (f"<BanditLog of the {facts['logging policy']} policy on {facts['split']}: "
                f"{counted(len(self.rounds), 'round')} of {users}\n {facts['held']} held, {facts['opened']} "
                f"opened, k = {facts['candidates per round']}; .rounds, .candidates, .recipe>")

    def _repr_html_(self) -> str:
        return html_table(["", ""], self._summary(), caption="pushgen BanditLog")

    @property
    def k(self) -> int:
        return int(self.recipe["k"])

    def __len__(self) -> int:
        return len(self.rounds)

    def slates(self, with_state: bool = False) -> Slates:
        """The rounds as policies see them (``with_state``: with the candidates' true P(open))."""
        n, k = len(self.rounds), self.k
        rows = self.candidates[~self.candidates["hold"].to_numpy()]
        round_id = rows["round_id"].to_numpy()
        slot = rows["slot"].to_numpy()
        candidates = np.zeros((n, k, len(NOTIFICATION_FEATURES)), dtype=np.int64)
        codes = schemas.frame_codes(rows, NOTIFICATION_FEATURES)
        candidates[round_id, slot] = np.column_stack([codes[f] for f in NOTIFICATION_FEATURES])
        mask = np.zeros((n, k), dtype=bool)
        mask[round_id, slot] = True
        p_open = None
        if with_state:
            p_open = np.zeros((n, k))
            p_open[round_id, slot] = rows["p_open"].to_numpy()
        return Slates(schemas.frame_codes(self.rounds, CONTEXT_FEATURES), candidates, mask, p_open)

    def action_table(self, column: str) -> np.ndarray:
        """(rounds, k + 1): a candidates column laid out by round and action (0 where absent)."""
        out = np.zeros((len(self.rounds), self.k + 1))
        out[self.candidates["round_id"].to_numpy(), self.candidates["slot"].to_numpy()] = \
            self.candidates[column].to_numpy(dtype=np.float64)
        return out

    def target_probabilities(self, policy: SlatePolicy) -> np.ndarray:
        """(rounds, k + 1): ``policy``'s probabilities at the logged rounds (a policy that reads
        the state reads the state the logged trajectory reached)."""
        policy = checked_slate_policy(policy)
        return probabilities_of(policy, self.slates(with_state=policy.reads_state))

    def feedback(self, policy: SlatePolicy, model: np.ndarray | None = None) -> Feedback:
        """What the estimators read for the target ``policy``; ``model`` a reward model (rounds, k + 1)."""
        return Feedback(action=self.rounds["slot"].to_numpy(dtype=np.int64),
                        reward=self.rounds["reward"].to_numpy(dtype=np.float64),
                        pscore=self.rounds["propensity"].to_numpy(dtype=np.float64),
                        target=self.target_probabilities(policy), model=model)

    def frozen_value(self, policy: SlatePolicy) -> float:
        """``policy``'s value with the state frozen to the logged trajectory: the mean over rounds of
        sum_a pi(a | round) P(open of a at the logged state). What IPW estimates without bias."""
        return float((self.target_probabilities(policy) * self.action_table("p_open")).sum(axis=1).mean())


def checked_log(log: object, reader: str) -> BanditLog:
    """``log`` when it is a ``BanditLog``, else a ``TypeError`` naming what ``reader`` reads."""
    if not isinstance(log, BanditLog):
        raise TypeError(f"{reader} reads a BanditLog (from pushgen.ope.log_policy or read_log); "
                        f"got {type_name(log)}")
    return log


def test_start(split: str | Path) -> np.datetime64:
    description = json.loads((resolve_split(split) / SPLIT_FILE).read_text())
    return boundaries(dt.date.fromisoformat(description["recipe"]["start"]),
                      SplitSpec(**description["split"]))[1]


def log_tables(episodes: list[Episode], start: np.datetime64) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rounds and candidates tables of played episodes (rounds numbered in user, time order)."""
    n = sum(len(e) for e in episodes)
    k = episodes[0].slates.mask.shape[1] if episodes else DEFAULT_K

    def joined(get) -> np.ndarray:
        return np.concatenate([get(e) for e in episodes]) if episodes else np.zeros(0)

    contexts = {f: joined(lambda e, f=f: e.slates.contexts[f]).astype(np.int64) for f in CONTEXT_FEATURES}
    mask = joined(lambda e: e.slates.mask).reshape(n, k).astype(bool)
    probabilities = joined(lambda e: e.probabilities).reshape(n, k + 1)
    p_open = joined(lambda e: e.slates.p_open).reshape(n, k)
    action = joined(lambda e: e.action).astype(np.int64)
    opened = joined(lambda e: e.opened).astype(bool)
    seconds = joined(lambda e: e.seconds)
    rounds = pd.DataFrame({
        "round_id": np.arange(n, dtype=np.int64),
        "user_id": joined(lambda e: np.full(len(e), e.user)).astype(np.int64),
        "context_id": joined(lambda e: e.context_ids).astype(np.int64),
        "posted_at": start + np.round(seconds * 1000).astype("timedelta64[ms]"),
    })
    rounds = pd.concat([rounds, codes_frame(contexts)], axis=1)
    rounds["candidates"] = mask.sum(axis=1).astype(np.int16)
    rounds["slot"] = action.astype(np.int16)
    rounds["held"] = action == k
    rounds["propensity"] = probabilities[np.arange(n), action]
    rounds["reward"] = opened.astype(np.int8)
    rounds["p_open"] = joined(lambda e: e.chosen_p).astype(np.float64)

    allowed = np.column_stack([mask, np.ones(n, dtype=bool)])
    round_id, slot = np.nonzero(allowed)
    hold = slot == k
    candidate_codes = joined(lambda e: e.slates.candidates).reshape(n, k, -1)
    columns: dict[str, object] = {"round_id": round_id.astype(np.int64), "slot": slot.astype(np.int16),
                                  "hold": hold}
    for j, f in enumerate(NOTIFICATION_FEATURES):
        codes = np.where(hold, -1, candidate_codes[round_id, np.minimum(slot, k - 1), j])
        columns[f] = feature_column(f, codes)
    chosen = action[round_id] == slot
    columns["propensity"] = probabilities[round_id, slot]
    columns["chosen"] = chosen
    reward = pd.array(np.where(chosen, opened[round_id], 0), dtype="Int8")
    reward[~chosen] = pd.NA
    columns["reward"] = reward
    columns["p_open"] = np.where(hold, 0.0, p_open[round_id, np.minimum(slot, k - 1)])
    return rounds[list(ROUND_COLUMNS)], pd.DataFrame(columns)[list(CANDIDATE_COLUMNS)]


def feature_column(name: str, codes: np.ndarray) -> pd.Series:
    """A notification feature with its schema dtype; code -1 (hold) is missing."""
    f = schemas.field(name)
    if f.is_categorical:
        return pd.Series(pd.Categorical.from_codes(codes, dtype=f.categorical_dtype()))
    values = np.asarray(f.listed())[np.maximum(codes, 0)]
    dtype = "boolean" if f.type == "boolean" else "Int64"
    column = pd.Series(pd.array(values, dtype=dtype))
    column[codes < 0] = pd.NA
    return column


def logging_policy(name: str, temperature: float | None, split: str | Path) -> SlatePolicy:
    """A logging policy by name (``POLICIES``); ``temperature`` only for the softmax ones (default
    0.2); softmax-learned's model is fitted on ``split``'s public task 1 training rows."""
    if name not in POLICIES:
        raise ValueError(f"unknown logging policy {name!r}; policies: {', '.join(POLICIES)}")
    if name == "uniform":
        if temperature is not None:
            raise ValueError("temperature goes with the softmax and softmax-learned policies, not uniform")
        return UniformPolicy()
    temperature = 0.2 if temperature is None else check_temperature(temperature)
    if name == "softmax":
        return SoftmaxPolicy(temperature)
    from pushgen.baselines.learned import require_sklearn
    from pushgen.ope.open_model import learned_scorer

    require_sklearn("the softmax-learned policy needs")
    return SoftmaxPolicy(temperature, learned_scorer(split))


@session()
def log_policy(split: str | Path, policy: str = "uniform", temperature: float | None = None,
               users: int | list[int] | None = None, k: int = DEFAULT_K, candidate_seed: int = 0,
               seed: int = 0, stationary: bool = False) -> BanditLog:
    """Play the logging ``policy`` (``uniform``, or ``softmax`` or ``softmax-learned`` at
    ``temperature``) on the split's test users in the selection environment; the rounds and
    candidates it logged.

    Parameters
    ----------
    split : str or pathlib.Path
        A standard split's name or a split folder.
    policy : str, default "uniform"
        ``"uniform"``; ``"softmax"`` over the true P(open) (its propensities encode them: part of
        the answer key); or ``"softmax-learned"`` over a model's P(open) fitted on the split's
        public task 1 training rows (needs scikit-learn, ``pushgen[ml]``).
    temperature : float, optional
        The softmax's temperature, at least 0.1 [default: 0.2].
    users : int or list of int, optional
        The first ``users`` test users, or these users; by default every test user.
    k : int, default 8
        Candidates per context.
    candidate_seed : int, default 0
        The seed of the candidates.
    seed : int, default 0
        The seed of the policy's draws and the simulated responses.
    stationary : bool, default False
        A user without fatigue and habituation.

    Returns
    -------
    BanditLog
        The rounds and candidates, with exact propensities and the true P(open) (an answer key).

    Raises
    ------
    ValueError
        When an option is out of its range.
    ImportError
        For ``softmax-learned`` without scikit-learn.

    Examples
    --------
    >>> from pushgen.ope import log_policy
    >>> log = log_policy("pushgen-mini-v4", policy="uniform", users=[0], seed=0)
    >>> float(log.rounds["propensity"].iloc[0]) == 1 / 9  # 8 candidates and hold
    True
    """
    chosen = logging_policy(policy, temperature, split)
    episodes = play(chosen, split, users, k, candidate_seed, seed, stationary, record_state=True)
    rounds, candidates = log_tables(episodes, test_start(split))
    recipe = {"split": str(split), "policy": policy,
              "temperature": getattr(chosen, "temperature", None), "users": [e.user for e in episodes],
              "k": k, "candidate_seed": candidate_seed, "seed": seed, "stationary": stationary}
    return BanditLog(rounds, candidates, recipe)
