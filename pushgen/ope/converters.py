"""A log in other libraries' formats: Open Bandit Pipeline's ``BanditFeedback``, Vowpal Wabbit's
``cb_adf`` text and Minari episodes for offline RL.

Actions are the ``k`` candidate slots and hold (index ``k``) in every format. None of these
carries the answer key (the true P(open) columns) except where a format has a field for it
(``expected_reward`` of OBP's synthetic feedback).
"""

from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.data.outputs import DatasetError
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES
from pushgen.extras import install_line
from pushgen.ope.log import BanditLog, checked_log

VW_UNSAFE = re.compile(r"[\s|:]")


def to_obp(log: BanditLog) -> dict[str, Any]:
    """The ``BanditFeedback`` dict of Open Bandit Pipeline (``obp.types``), as its synthetic
    datasets give it: ``n_rounds``, ``n_actions`` (k + 1, hold last), ``context`` (rounds x 11
    context codes), ``action``, ``position`` (all 0), ``reward``, ``pscore``, ``pi_b`` (rounds x
    actions x 1: the logging policy) and ``expected_reward`` (rounds x actions: the true P(open) at
    the logged state, 0 for hold and empty slots: the answer key).

    ``action_context`` is the candidates' features, rounds x actions x 7 notification codes (-1 for
    hold and empty slots): the slots carry different notifications in each round, so an action's
    features are those of its round, ``action_context[i, action[i]]`` for the logged one (OBP's
    ``RegressionModel`` takes a fixed actions x features table instead). ``candidate_features`` is
    the same codes as integers.

    Parameters
    ----------
    log : BanditLog
        A log of ``log_policy``.

    Returns
    -------
    dict
        The ``BanditFeedback`` arrays, and ``candidate_features``.

    Examples
    --------
    >>> from pushgen.ope import log_policy, to_obp
    >>> feedback = to_obp(log_policy("pushgen-mini-v4", users=[0], seed=0))
    >>> feedback["n_actions"], feedback["action_context"].shape[1:]
    (9, (9, 7))
    """
    log = checked_log(log, "to_obp")
    n, k = len(log), log.k
    slates = log.slates()
    codes = schemas.frame_codes(log.rounds, CONTEXT_FEATURES)
    features = np.full((n, k + 1, len(NOTIFICATION_FEATURES)), -1, dtype=np.int64)
    features[:, :k] = np.where(slates.mask[:, :, None], slates.candidates, -1)
    return {
        "n_rounds": n,
        "n_actions": k + 1,
        "context": np.column_stack([codes[f] for f in CONTEXT_FEATURES]).astype(np.float64),
        "action_context": features.astype(np.float64),
        "action": log.rounds["slot"].to_numpy(dtype=np.int64),
        "position": np.zeros(n, dtype=np.int64),
        "reward": log.rounds["reward"].to_numpy(dtype=np.float64),
        "pscore": log.rounds["propensity"].to_numpy(dtype=np.float64),
        "pi_b": log.action_table("propensity")[:, :, None],
        "expected_reward": log.action_table("p_open"),
        "candidate_features": features,
    }


def vw_token(name: str, value: object) -> str:
    return VW_UNSAFE.sub("_", f"{name}={value}")


def to_vw(log: BanditLog) -> str:
    """Vowpal Wabbit ``cb_adf`` text: per round a ``shared |c`` line of the context, one ``|a`` line
    per action (the candidates' features; hold is ``|a hold``), ``slot:cost:probability`` on the
    chosen line (cost = -reward: VW minimises cost), and an empty line between rounds.

    Parameters
    ----------
    log : BanditLog
        The log.

    Returns
    -------
    str
        The text, one example per round.

    Examples
    --------
    >>> from pushgen.ope import log_policy, to_vw
    >>> text = to_vw(log_policy("pushgen-mini-v4", users=[0], seed=0))
    >>> text.splitlines()[0].startswith("shared |c day=")
    True
    """
    log = checked_log(log, "to_vw")
    rounds = log.rounds
    context_values = {f: rounds[f].astype(str).to_numpy() for f in CONTEXT_FEATURES}
    shared = [" ".join(vw_token(f, context_values[f][i]) for f in CONTEXT_FEATURES)
              for i in range(len(rounds))]
    candidates = log.candidates
    values = {f: candidates[f].astype(str).to_numpy() for f in NOTIFICATION_FEATURES}
    hold = candidates["hold"].to_numpy(dtype=bool)
    chosen = candidates["chosen"].to_numpy(dtype=bool)
    slot = candidates["slot"].to_numpy()
    propensity = candidates["propensity"].to_numpy()
    reward = candidates["reward"].fillna(0).to_numpy(dtype=np.float64)
    round_id = candidates["round_id"].to_numpy()
    lines: list[str] = []
    previous = -1
    for j in range(len(candidates)):
        if round_id[j] != previous:
            if previous >= 0:
                lines.append("")
            lines.append(f"shared |c {shared[round_id[j]]}")
            previous = round_id[j]
        features = "hold" if hold[j] else " ".join(vw_token(f, values[f][j]) for f in NOTIFICATION_FEATURES)
        label = f"{slot[j]}:{-reward[j]:g}:{propensity[j]:.17g} " if chosen[j] else ""
        lines.append(f"{label}|a {features}")
    return "\n".join(lines) + "\n\n" if lines else ""


def minari_observations(log: BanditLog) -> dict[str, np.ndarray]:
    """The rounds as the selection environment observed them: the context codes, ``candidates``
    (k x 7 codes, 0 in empty slots), ``candidate_mask`` and ``hours_since_last`` (hours since the
    user's last sent notification, or since the start of the test months, capped)."""
    from pushgen.envs.selection import HOURS_CAP
    from pushgen.ope.log import test_start

    slates = log.slates()
    n = len(log)
    rounds = log.rounds
    seconds = (rounds["posted_at"].to_numpy() - test_start(log.recipe["split"])) / np.timedelta64(1, "s")
    sent = np.where(rounds["held"].to_numpy(), np.nan, seconds)
    previous = (pd.Series(sent).groupby(rounds["user_id"].to_numpy()).transform(
        lambda s: s.shift().ffill()).fillna(0.0).to_numpy())
    hours = np.clip((seconds - previous) / 3600.0, 0.0, HOURS_CAP).astype(np.float32)
    return {**{f: slates.contexts[f].astype(np.int64) for f in CONTEXT_FEATURES},
            "candidates": slates.candidates.reshape(n, -1),
            "candidate_mask": slates.mask.astype(np.int8),
            "hours_since_last": hours[:, None]}


def minari_env_spec(log: BanditLog) -> Any:
    """The spec of the selection environment that played the log (sampled rewards) at its first
    user, which Minari's ``recover_environment()`` makes; ``reset(options={"user": id})`` plays
    another user of that task, ``gym.make(dataset.spec.env_spec, user=id)`` any other."""
    import dataclasses

    import gymnasium as gym

    from pushgen.envs import SELECTION_ID, register_envs

    register_envs()
    recipe = log.recipe
    return dataclasses.replace(gym.spec(SELECTION_ID), kwargs={
        "split": str(recipe["split"]), "user": int(log.rounds["user_id"].iloc[0]), "k": log.k,
        "candidate_seed": int(recipe.get("candidate_seed", 0)),
        "mode": "sampled", "stationary": bool(recipe.get("stationary", False))})


def to_minari(log: BanditLog, dataset_id: str, root: Path | None = None, force: bool = False) -> Any:
    """The log as a Minari dataset (the ``ope`` extra: ``pip install '.[ope]'`` in a checkout): one
    episode per user in time order; observations as the selection environment gives them
    (``minari_observations``), the logged actions and sampled rewards, and in the infos (one per
    observation) the propensity of the action taken there (NaN after the last). The dataset records
    the environment's spec: ``dataset.recover_environment()`` makes it.

    Parameters
    ----------
    log : BanditLog
        The log.
    dataset_id : str
        The Minari dataset id, e.g. ``"pushgen/mini-uniform-v0"``.
    root : pathlib.Path, optional
        The Minari datasets folder (default: Minari's own).
    force : bool, default False
        Replace a dataset of that id.

    Returns
    -------
    minari.MinariDataset
        The dataset, one episode per user.

    Raises
    ------
    DatasetError
        When ``dataset_id`` does not name a folder inside the datasets folder (checked before
        anything is created).
    FileExistsError
        When a dataset of that id exists (without ``force``).
    ImportError
        When minari is not installed.

    Examples
    --------
    >>> import pathlib
    >>> from pushgen.ope import log_policy, to_minari
    >>> log = log_policy("pushgen-mini-v4", users=[0], seed=0)
    >>> dataset = to_minari(log, "pushgen/mini-uniform-v0", root=pathlib.Path("minari").absolute())
    >>> dataset.total_episodes, dataset.total_steps == len(log.rounds)
    (1, True)
    """
    id_path = PurePosixPath(dataset_id) if isinstance(dataset_id, str) else None
    if id_path is None or not dataset_id or id_path.is_absolute() or "\\" in dataset_id or any(
            part in (".", "..") for part in dataset_id.split("/")):
        raise DatasetError(f"dataset_id {dataset_id!r} must be a Minari id such as 'pushgen/uniform-v0' (a "
                           "folder inside the datasets folder, without '..')")
    log = checked_log(log, "to_minari")
    try:
        import minari
        from minari.data_collector import EpisodeBuffer
        from minari.storage.datasets_root_dir import get_dataset_path
    except ImportError:
        raise ImportError(f"to_minari needs minari: {install_line('ope')}") from None
    from gymnasium import spaces

    from pushgen.envs.selection import selection_space

    observations = minari_observations(log)
    users = log.rounds["user_id"].to_numpy()
    action = log.rounds["slot"].to_numpy(dtype=np.int64)
    reward = log.rounds["reward"].to_numpy(dtype=np.float64)
    propensity = log.rounds["propensity"].to_numpy(dtype=np.float64)
    buffers = []
    for episode, user in enumerate(dict.fromkeys(users.tolist())):
        rows = np.flatnonzero(users == user)
        n = len(rows)
        steps = np.r_[rows, rows[-1:]]
        buffers.append(EpisodeBuffer(
            id=episode, observations={name: values[steps] for name, values in observations.items()},
            actions=action[rows], rewards=reward[rows],
            terminations=np.r_[np.zeros(n - 1, dtype=bool), True], truncations=np.zeros(n, dtype=bool),
            infos={"propensity": np.r_[propensity[rows], np.nan].tolist()}))
    previous = os.environ.get("MINARI_DATASETS_PATH")
    if root is not None:
        os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        existing = get_dataset_path(dataset_id)
        if existing.exists():
            if not force:
                raise FileExistsError(f"Minari dataset {dataset_id} already exists in {existing.parent}: "
                                      "pass force=True to replace it")
            shutil.rmtree(existing)
        with warnings.catch_warnings():  # Minari asks for an author's e-mail and a code link
            warnings.filterwarnings("ignore", category=UserWarning, module="minari")
            return minari.create_dataset_from_buffers(
                dataset_id, buffers, env=minari_env_spec(log), observation_space=selection_space(log.k),
                action_space=spaces.Discrete(log.k + 1),
                algorithm_name=f"pushgen {log.recipe.get('policy', 'logging')} policy",
                author="pushgen developers", data_format="arrow",
                description="pushgen bandit log: one episode per user, one step per context")
    finally:
        if root is not None:
            if previous is None:
                os.environ.pop("MINARI_DATASETS_PATH", None)
            else:
                os.environ["MINARI_DATASETS_PATH"] = previous
