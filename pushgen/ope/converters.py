"""A log in other libraries' formats: Open Bandit Pipeline's ``BanditFeedback``, Vowpal Wabbit's
``cb_adf`` text and Minari episodes for offline RL.

Actions are the ``k`` candidate slots and hold (index ``k``) in every format. None of these
carries the answer key (the true P(open) columns) except where a format has a field for it
(``expected_reward`` of OBP's synthetic feedback).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from pushgen import schemas
from pushgen.data.outputs import DatasetError
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES, NOTIFICATION_SIZES
from pushgen.ope.log import BanditLog

VW_UNSAFE = re.compile(r"[\s|:]")


def to_obp(log: BanditLog) -> dict[str, Any]:
    """The ``BanditFeedback`` dict of Open Bandit Pipeline (``obp.types``), as its synthetic
    datasets give it: ``n_rounds``, ``n_actions`` (k + 1, hold last), ``context`` (rounds x 11
    context codes), ``action_context`` (one-hot per action: slots carry different notifications
    in each round, so their features are in ``candidate_features``), ``action``, ``position``
    (all 0), ``reward``, ``pscore``, ``pi_b`` (rounds x actions x 1: the logging policy) and
    ``expected_reward`` (rounds x actions: the true P(open) at the logged state, 0 for hold and
    empty slots: the answer key)."""
    n, k = len(log), log.k
    slates = log.slates()
    codes = schemas.frame_codes(log.rounds, CONTEXT_FEATURES)
    features = np.full((n, k + 1, len(NOTIFICATION_FEATURES)), -1, dtype=np.int64)
    features[:, :k] = np.where(slates.mask[:, :, None], slates.candidates, -1)
    return {
        "n_rounds": n,
        "n_actions": k + 1,
        "context": np.column_stack([codes[f] for f in CONTEXT_FEATURES]).astype(np.float64),
        "action_context": np.eye(k + 1),
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
    chosen line (cost = -reward: VW minimises cost), and an empty line between rounds."""
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


def minari_spaces(k: int) -> tuple[Any, Any]:
    """The observation space of a log's Minari episodes (11 context codes, then the k x 7 candidate
    codes with -1 for empty slots) and its action space ``Discrete(k + 1)``."""
    from gymnasium import spaces

    high = [len(schemas.values(f)) - 1 for f in CONTEXT_FEATURES] + [s - 1 for s in NOTIFICATION_SIZES] * k
    low = [0] * len(CONTEXT_FEATURES) + [-1] * (len(NOTIFICATION_SIZES) * k)
    return spaces.Box(np.array(low), np.array(high), dtype=np.int64), spaces.Discrete(k + 1)


def minari_observations(log: BanditLog) -> np.ndarray:
    slates = log.slates()
    n = len(log)
    candidates = np.where(slates.mask[:, :, None], slates.candidates, -1).reshape(n, -1)
    context = np.column_stack([slates.contexts[f] for f in CONTEXT_FEATURES])
    return np.concatenate([context, candidates], axis=1).astype(np.int64)


def to_minari(log: BanditLog, dataset_id: str, root: Path | None = None) -> Any:
    """The log as a Minari dataset (``pip install 'pushgen[ope]'``): one episode per user in time
    order; observations as ``minari_spaces``, the logged actions and sampled rewards, and in the
    infos (one per observation) the propensity of the action taken there (NaN after the last).
    ``root`` is the Minari datasets folder (default: Minari's own); ``dataset_id`` must name a
    folder inside it (checked before anything is created)."""
    id_path = PurePosixPath(dataset_id) if isinstance(dataset_id, str) else None
    if id_path is None or not dataset_id or id_path.is_absolute() or "\\" in dataset_id or any(
            part in (".", "..") for part in dataset_id.split("/")):
        raise DatasetError(f"dataset_id {dataset_id!r} must be a Minari id such as 'pushgen/uniform-v0' (a "
                           "folder inside the datasets folder, without '..')")
    try:
        import minari
        from minari.data_collector import EpisodeBuffer
    except ImportError:
        raise ImportError("to_minari needs minari: pip install 'pushgen[ope]'") from None
    observation_space, action_space = minari_spaces(log.k)
    observations = minari_observations(log)
    users = log.rounds["user_id"].to_numpy()
    action = log.rounds["slot"].to_numpy(dtype=np.int64)
    reward = log.rounds["reward"].to_numpy(dtype=np.float64)
    propensity = log.rounds["propensity"].to_numpy(dtype=np.float64)
    buffers = []
    for episode, user in enumerate(dict.fromkeys(users.tolist())):
        rows = np.flatnonzero(users == user)
        n = len(rows)
        buffers.append(EpisodeBuffer(
            id=episode,
            observations=np.concatenate([observations[rows], observations[rows[-1:]]]),
            actions=action[rows], rewards=reward[rows],
            terminations=np.r_[np.zeros(n - 1, dtype=bool), True], truncations=np.zeros(n, dtype=bool),
            infos={"propensity": np.r_[propensity[rows], np.nan].tolist()}))
    previous = os.environ.get("MINARI_DATASETS_PATH")
    if root is not None:
        os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        with warnings.catch_warnings():  # Minari asks for an author's e-mail and a code link
            warnings.filterwarnings("ignore", category=UserWarning, module="minari")
            return minari.create_dataset_from_buffers(
                dataset_id, buffers, observation_space=observation_space, action_space=action_space,
                algorithm_name=f"pushgen {log.recipe.get('policy', 'logging')} policy",
                author="pushgen developers", data_format="arrow",
                description="pushgen bandit log: one episode per user, one step per context")
    finally:
        if root is not None:
            if previous is None:
                os.environ.pop("MINARI_DATASETS_PATH", None)
            else:
                os.environ["MINARI_DATASETS_PATH"] = previous
