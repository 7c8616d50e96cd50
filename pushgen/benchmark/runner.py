"""Play policies through the test contexts of their users, judged as the environment judges.

A policy sees contexts (the 11 context features, in time order) and, in task 2, the simulated
user's responses to its own notifications; never the logged notifications or actions of the
test part. Task 1 (offline): ``fit`` on the user's history, then one ``act`` with every test
context. Task 2 (online): ``act`` on the user's next ``CHUNK`` contexts, the judge
(``pushgen.replay.scoring.Judge``, every user stepping together, its fatigue and habituation
following what was sent) gives each notification's P(open), ``update`` hears the responses
(the row's own draw < P(open): the split's draw, where ``NotificationGeneration-v0`` draws from
per-reset outcome entropy; pushgen's own policies read nothing else of it), and
so on. The rewards of each whole episode are then computed at once with
``sequence_probabilities``, exactly as ``pushgen.evaluate`` computes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter

import numpy as np
import pandas as pd

from pushgen.baselines.answers import PolicyError as PolicyError
from pushgen.baselines.answers import checked
from pushgen.baselines.base import Bound, Codes, Policy, Truth, as_codes, as_matrix
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.model.feasibility import is_possible
from pushgen.replay.parts import ReplayPart
from pushgen.replay.rewards import rewards
from pushgen.replay.scoring import Judge, sequence_probabilities

CHUNK = 50


@dataclass
class Run:
    """One policy's episode for one user: per-row results, in time order.

    Attributes
    ----------
    user_id : int
        The user.
    generated, logged : numpy.ndarray
        ``(n, 7)`` codes of the generated and of the logged notifications.
    logged_opened, opened, possible : numpy.ndarray
        Per row: whether the logged one was opened, whether the simulated user opens the
        generated one (the row's own draw < ``p_open``), whether it is possible for the user.
    p_open, reward : numpy.ndarray
        Per row: P(open) of the generated notification, and the reward.
    reference_reward : numpy.ndarray, optional
        Task 2: the reward of the reference without feedback on the same contexts.
    fit_seconds : float
        The time ``fit`` took.
    decision_seconds : numpy.ndarray
        Per row: its batch's ``act`` time over the batch's size.

    Examples
    --------
    >>> from pushgen.baselines import RandomPolicy
    >>> from pushgen.benchmark import run_policy
    >>> run = run_policy("pushgen-mini-v4", task=2, name="random", make=RandomPolicy)[0]
    >>> run.generated.shape[1], len(run.reward) == len(run.generated), bool(run.possible.all())
    (7, True, False)
    """

    user_id: int
    generated: np.ndarray  # (n, 7) codes
    logged: np.ndarray  # (n, 7) codes of the logged notifications
    logged_opened: np.ndarray
    p_open: np.ndarray  # of the generated notifications
    opened: np.ndarray  # the simulated response: the row's own draw < p_open
    possible: np.ndarray  # whether each generated notification is possible for the user
    reward: np.ndarray
    reference_reward: np.ndarray | None  # task 2: the non-learning reference's, same contexts
    fit_seconds: float
    decision_seconds: np.ndarray  # per row: its batch's act time / batch size


@dataclass
class Episodes:
    """The test rows of some users of a part, and the contexts the policies are shown.

    Attributes
    ----------
    part : ReplayPart
        The test part, the scorer's side.
    users : list of int
        The users played.
    contexts : dict of str to numpy.ndarray
        Each context feature's public codes, per row of the part.
    reference : dict of str to numpy.ndarray, optional
        Task 2: the reference without feedback's notification per row of the part.

    Examples
    --------
    >>> from pushgen.benchmark import task_data
    >>> episodes = task_data("pushgen-mini-v4", 1).episodes([1, 2])
    >>> episodes.users
    [1, 2]
    """

    part: ReplayPart
    users: list[int]
    contexts: Codes  # per part row: the public context codes
    reference: Codes | None = None  # task 2: the non-learning reference notification per part row

    def rows(self, user: int) -> np.ndarray:
        span = self.part.rows_of(user)
        return np.arange(span.start, span.stop)

    def context_batch(self, rows: np.ndarray) -> Codes:
        return {f: self.contexts[f][rows] for f in CONTEXT_FEATURES}


def play(policies: dict[int, Policy[Codes, Codes]], episodes: Episodes,
         histories: Callable[[int], pd.DataFrame], task: int, mode: str, chunk: int = CHUNK,
         on_user: Callable[[], None] | None = None) -> list[Run]:
    """Every user's episode with its policy; ``histories(user)`` is what ``fit`` gets.

    Task 1 shows each policy all its contexts at once; task 2 in batches of ``chunk``, each
    followed by the responses (``update``), the simulated user's state following what was sent.

    Parameters
    ----------
    policies : dict of int to Policy
        Each user's policy.
    episodes : Episodes
        The users' test rows and the contexts shown.
    histories : callable
        ``histories(user)`` gives what the user's policy is fitted on.
    task : int
        1 or 2.
    mode : str
        ``"expected"`` or ``"sampled"`` rewards.
    chunk : int, default 50
        Task 2: contexts between feedbacks.
    on_user : callable, optional
        Called after each user.

    Returns
    -------
    list of Run
        One per user, in the order of ``episodes.users``.

    Raises
    ------
    PolicyError
        When a policy's answer is not a batch of valid notification codes.

    Examples
    --------
    >>> from pushgen.baselines import RandomPolicy
    >>> from pushgen.benchmark import make_setting, play, task_data
    >>> data = task_data("pushgen-mini-v4", 2)
    >>> episodes = data.episodes(None)
    >>> policies = {u: RandomPolicy(make_setting(data, 2, "random", u)) for u in episodes.users}
    >>> runs = play(policies, episodes, lambda user: data.public.iloc[:0], task=2, mode="expected")
    >>> [run.user_id for run in runs]
    [3]
    """
    part = episodes.part
    generated = np.zeros((len(part.user_ids), len(NOTIFICATION_FEATURES)), dtype=np.int64)
    seconds = np.zeros(len(part.user_ids))
    fit_seconds = {}
    for user in episodes.users:
        started = perf_counter()
        policies[user].fit(histories(user))
        fit_seconds[user] = perf_counter() - started
        if task == 1:
            _act(policies[user], episodes, episodes.rows(user), generated, seconds)
            if on_user is not None:
                on_user()
    if task == 2:
        _online(policies, episodes, generated, seconds, max(int(chunk), 1))
        if on_user is not None:
            for _ in episodes.users:
                on_user()
    return score(episodes, generated, mode, fit_seconds, seconds)


def _act(policy: Policy[Codes, Codes], episodes: Episodes, rows: np.ndarray, generated: np.ndarray,
         seconds: np.ndarray) -> None:
    began = perf_counter()
    action = checked(policy.act(episodes.context_batch(rows)), len(rows))
    seconds[rows] = (perf_counter() - began) / max(len(rows), 1)
    generated[rows] = action


def _online(policies: dict[int, Policy[Codes, Codes]], episodes: Episodes, generated: np.ndarray,
            seconds: np.ndarray, chunk: int) -> None:
    """Task 2: every user's next chunk, judged step by step with the users' states, then feedback."""
    part = episodes.part
    users = np.asarray(episodes.users, dtype=np.int64)
    judge = Judge(part, users)
    slots = np.arange(len(users))
    judge.reset(slots)
    first = np.array([part.rows_of(int(u)).start for u in users], dtype=np.int64)
    length = np.array([len(episodes.rows(int(u))) for u in users], dtype=np.int64)
    draw = part.test_truth.draw
    p_open = np.zeros(len(part.user_ids))
    for start in range(0, int(length.max(initial=0)), chunk):
        active = np.flatnonzero(length > start)
        batches = {}
        for slot in active:
            rows = first[slot] + np.arange(start, min(start + chunk, length[slot]))
            _act(policies[int(users[slot])], episodes, rows, generated, seconds)
            batches[slot] = rows
        for offset in range(chunk):
            stepping = active[length[active] > start + offset]
            if not len(stepping):
                break
            rows = first[stepping] + start + offset
            p_open[rows] = judge.step(slots[stepping], rows, as_codes(generated[rows]))
        for slot, rows in batches.items():
            policies[int(users[slot])].update(episodes.context_batch(rows), as_codes(generated[rows]),
                                              draw[rows] < p_open[rows])


def score(episodes: Episodes, generated: np.ndarray, mode: str, fit_seconds: dict[int, float],
          seconds: np.ndarray) -> list[Run]:
    """Each user's run: the whole sequence judged at once, as the evaluator judges it."""
    part = episodes.part
    rows = np.concatenate([episodes.rows(u) for u in episodes.users]) if episodes.users else np.zeros(0, int)
    codes = as_codes(generated[rows])
    p_open = np.zeros(len(part.user_ids))
    p_open[rows] = sequence_probabilities(part, rows, codes)
    reference = None
    if episodes.reference is not None:
        reference = np.zeros(len(part.user_ids))
        reference[rows] = sequence_probabilities(part, rows, {f: c[rows] for f, c in
                                                              episodes.reference.items()})
    possible = np.zeros(len(part.user_ids), dtype=bool)
    possible[rows] = is_possible(codes, part.test_parameters.has_app[part.parameter_rows[rows]])
    return [_run(part, user, episodes.rows(user), generated, p_open, possible, reference, mode,
                 fit_seconds.get(user, 0.0), seconds) for user in episodes.users]


def bound_runs(bound: Bound, episodes: Episodes, truths: Callable[[int], Truth], mode: str) -> list[Run]:
    """Runs whose P(open) is a bound computed from the true model (and the notifications behind it)."""
    part = episodes.part
    generated = np.zeros((len(part.user_ids), len(NOTIFICATION_FEATURES)), dtype=np.int64)
    p_open = np.zeros(len(part.user_ids))
    for user in episodes.users:
        rows = episodes.rows(user)
        p_open[rows], generated[rows] = bound(truths(user))
    possible = np.ones(len(part.user_ids), dtype=bool)
    return [_run(part, user, episodes.rows(user), generated, p_open, possible, None, mode, 0.0,
                 np.zeros(len(part.user_ids))) for user in episodes.users]


def _run(part: ReplayPart, user: int, rows: np.ndarray, generated: np.ndarray, p_open: np.ndarray,
         possible: np.ndarray, reference: np.ndarray | None, mode: str, fit_seconds: float,
         seconds: np.ndarray) -> Run:
    draw = part.test_truth.draw[rows]
    logged_opened = part.logged_opened[rows]
    p = p_open[rows]
    return Run(
        user_id=int(user),
        generated=generated[rows],
        logged=as_matrix({f: part.codes[f][rows] for f in NOTIFICATION_FEATURES}),
        logged_opened=logged_opened,
        p_open=p,
        opened=draw < p,
        possible=possible[rows],
        reward=rewards(logged_opened, p, draw, mode),
        reference_reward=None if reference is None else rewards(logged_opened, reference[rows], draw, mode),
        fit_seconds=fit_seconds,
        decision_seconds=seconds[rows],
    )


def users_of(part: ReplayPart, users: Sequence[int] | None) -> list[int]:
    return [int(u) for u in part.users] if users is None else [part.check_user(int(u)) for u in users]
