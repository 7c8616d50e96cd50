"""The long-horizon task's episode: one app's place among a user's apps over weeks.

``HorizonEpisode`` gathers what ``pushgen.envs.long_horizon`` steps through, computed once per
(user, app): the decision points (the user's logged contexts inside the horizon), the logged
notifications of the user's other apps that arrive at them (they tire the user; the agent's
app's own logged notifications are dropped, the agent replaces them), the agent's candidates
(the selection task's candidate generator restricted to its app, ``EpisodeSlates``) with their
logits before exposure and how unwanted each would be (``pushgen.model.long_term``), and the
user's tolerance. ``default_app`` picks the app an episode plays when none is named.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from pushgen import schemas
from pushgen.envs.online import apps_of, channels_of, interruptions
from pushgen.envs.slates import HOURS_CAP, EpisodeSlates, selection_space
from pushgen.envs.spaces import NOTIFICATION_FEATURES
from pushgen.model.catalog import app_catalog
from pushgen.model.feasibility import channel_of
from pushgen.model.long_term import LongTermConstants, abandonable, app_kinds, unwanted_weights
from pushgen.model.simulated_user import LongTermUser, SimulatedUser
from pushgen.replay.parts import ReplayPart

DAY_SECONDS = 86400.0
PEOPLE_KINDS = ("messaging", "calls", "email")  # people's messages: not an app's notification system
MAX_APP_CHANNELS = 4  # the most channels an app of the catalog has
NO_EVENT = (2.0, 2.0, 2.0)  # uniforms no hazard exceeds: a what-if delivery that turns nothing off
COUNT_CAP = 10_000.0  # the app counters' bound in the observation space
HISTORY_BOUNDS = (COUNT_CAP, 1.0, COUNT_CAP, 1.0)  # a slot's sends and open rate, by channel, by subject


def horizon_space(k: int, horizon_days: float) -> spaces.Dict:
    """The observation space: the selection task's (``selection_space``) and the app's counters."""
    return spaces.Dict({
        **selection_space(k).spaces,
        "app_counts": spaces.Box(0.0, COUNT_CAP, shape=(4,), dtype=np.float32),
        "days_into_episode": spaces.Box(0.0, float(horizon_days), shape=(1,), dtype=np.float32),
        "channels_on": spaces.MultiBinary(MAX_APP_CHANNELS),
        "candidate_history": spaces.Box(0.0, np.tile(np.array(HISTORY_BOUNDS, dtype=np.float32), (k, 1)),
                                        shape=(k, len(HISTORY_BOUNDS)), dtype=np.float32),
    })


class SendHistory:
    """The app's own sends so far in an episode: their times (``sends``; ``opens``: of those opened)
    and their counts by channel and by subject, what a notification system knows of its sends.
    ``of(channels, subjects)`` gives each slot its ``candidate_history`` row: sends on the
    candidate's channel, their open rate smoothed (opens + 1) / (sends + 2), then the same on its
    subject."""

    def __init__(self) -> None:
        self.sends: list[float] = []
        self.opens: list[float] = []
        self.counts: dict[tuple[str, int], list[int]] = {}

    def add(self, t: float, channel: int, subject: int, opened: bool) -> None:
        self.sends.append(t)
        if opened:
            self.opens.append(t)
        for key in (("channel", channel), ("subject", subject)):
            count = self.counts.setdefault(key, [0, 0])
            count[0] += 1
            count[1] += opened

    def of(self, channels: list[int], subjects: list[int]) -> np.ndarray:
        rows = []
        for channel, subject in zip(channels, subjects, strict=True):
            row = []
            for key in (("channel", channel), ("subject", subject)):
                sends, opens = self.counts.get(key, (0, 0))
                row += [min(sends, COUNT_CAP), (opens + 1) / (sends + 2)]
            rows.append(row)
        return np.array(rows, dtype=np.float32).reshape(len(channels), len(HISTORY_BOUNDS))


def app_counters(history: SendHistory, t: float, horizon_days: float,
                 channels_on: list[bool]) -> dict[str, np.ndarray]:
    """The app's public counters at ``t`` (seconds) from its sends so far: an observation's
    ``hours_since_last``, ``app_counts``, ``days_into_episode`` and ``channels_on``."""
    sends, opens = history.sends, history.opens
    last = sends[-1] if sends else 0.0
    counts = [len(times) - bisect_right(times, t - days * DAY_SECONDS)
              for days in (1, 7) for times in (sends, opens)]
    on = np.zeros(MAX_APP_CHANNELS, dtype=np.int8)
    on[: len(channels_on)] = channels_on
    return {"hours_since_last": np.array([min(max((t - last) / 3600.0, 0.0), HOURS_CAP)], dtype=np.float32),
            "app_counts": np.minimum(np.array(counts, dtype=np.float32), COUNT_CAP),
            "days_into_episode": np.array([min(max(t / DAY_SECONDS, 0.0), horizon_days)], dtype=np.float32),
            "channels_on": on}


def playable_apps(part: ReplayPart, user: int) -> list[int]:
    """The apps an episode of ``user`` can play, most logged notifications first: apps the user
    has, can abandon (``long_term.abandonable``), not of the people kinds (``PEOPLE_KINDS``), and
    never turned off (app or channel) before or in the logged history."""
    catalog = app_catalog()
    rows = part.rows_of(user)
    logged = part.codes["postingApp"][rows]
    counts = np.bincount(logged, minlength=len(catalog.apps))
    turned = part.test_truth.turned_off
    off = set(logged[turned[rows]].tolist()) if turned is not None else set()
    channels_on = channels_of(part, user)
    if channels_on is not None:  # a channel turned off before the scored period
        off |= set(catalog.channels.app[~channels_on].tolist())
    eligible = apps_of(part, user) & abandonable(catalog) & ~np.isin(app_kinds(catalog), PEOPLE_KINDS)
    apps = [a for a in np.flatnonzero(eligible & (counts > 0)).tolist() if a not in off]
    return sorted(apps, key=lambda a: (-counts[a], a))


def check_app(part: ReplayPart, user: int, app: Any) -> int:
    """The app code ``app`` names (a code or a package name; None: the user's default app), checked
    to be one the episode can play (``playable_apps``); else a one-line ``ValueError``."""
    playable = playable_apps(part, user)
    names = schemas.values("postingApp")
    if app is None:
        if not playable:
            raise ValueError(f"user {user} has no app the long-horizon task can play (one it can abandon, "
                             f"not messaging, calls or email, with logged notifications, never turned off)")
        return playable[0]
    code = names.index(app) if isinstance(app, str) and app in names else app
    if isinstance(code, (bool, np.bool_)) or not isinstance(code, (int, np.integer)) or code not in playable:
        allowed = ", ".join(f"{a} ({names[a]})" for a in playable) or "none"
        raise ValueError(f"app must be one user {user} can play, a code or a package name; got {app!r}; "
                         f"allowed: {allowed}")
    return int(code)


@dataclass
class HorizonEpisode:
    """One (user, app) episode's terms, as plain Python values (rows: decision points in time order).

    Attributes
    ----------
    app : int
        The agent's app.
    n : int
        Decision points: the user's logged contexts in the first ``horizon_days``.
    seconds : list of float
        Each decision point's time, seconds from the start of the scored period.
    background : list
        Per decision point, ``(keys, interrupts)`` of the other app's logged notification that
        arrives there, or None (a logged notification of the agent's app: dropped).
    slates : EpisodeSlates
        The agent's candidates (its app only) and their logits before exposure.
    weight, context : list of list of float
        Per decision point and slot, the candidate's unwanted weight and its context's multiplier.
    channels : list of int
        The app's channels (catalog order): ``channels_on`` of an observation follows it.
    tolerance : float
        The user's tolerance.
    constants : LongTermConstants
        The long-term model's constants.
    """

    app: int
    n: int
    seconds: list[float]
    background: list[tuple[tuple[int, int, int], float] | None]
    slates: EpisodeSlates
    weight: list[list[float]]
    context: list[list[float]]
    channels: list[int]
    tolerance: float
    constants: LongTermConstants

    def __post_init__(self) -> None:
        self.static, self.channel = self.slates.static.tolist(), self.slates.channel.tolist()
        self.subject = self.slates.codes[:, :, NOTIFICATION_FEATURES.index("subject")].tolist()
        self.interrupts = self.slates.interrupts.tolist()

    def keys(self, i: int, j: int) -> tuple[int, int, int]:
        """(app, subject, channel) of candidate ``j`` of decision point ``i``."""
        return self.app, self.subject[i][j], self.channel[i][j]

    def arrive(self, user: SimulatedUser, i: int) -> None:
        """The other app's logged notification of decision point ``i`` reaches ``user`` (the state a
        delivery leaves does not depend on its P(open), so its logit is not needed)."""
        logged = self.background[i]
        if logged is not None:
            user.send(0.0, self.seconds[i], logged[0], logged[1])

    def p_open(self, user: SimulatedUser, i: int, j: int) -> float:
        """P(open) of candidate ``j`` of decision point ``i`` now."""
        return user.p_open(self.static[i][j], self.seconds[i], self.keys(i, j))

    def send(self, user: SimulatedUser, long_term: LongTermUser, i: int, j: int,
             draws: tuple[float, float, float]) -> tuple[float, int]:
        """Candidate ``j`` of decision point ``i`` reaches the user: its P(open), and its fate
        (``LongTermUser.deliver``: the event the uniforms ``draws`` decide)."""
        t, keys = self.seconds[i], self.keys(i, j)
        subject_exposure = user.exposure(t, keys)[2]
        p = user.send(self.static[i][j], t, keys, self.interrupts[i][j])
        fate = long_term.deliver(keys[0], keys[2], t, p, self.weight[i][j], self.context[i][j],
                                 subject_exposure, draws)
        return p, fate

    def annoyance_after(self, user: SimulatedUser, long_term: LongTermUser, i: int, j: int) -> float:
        """The annoyance with the app just after candidate ``j`` of decision point ``i`` would be
        sent (a what-if: both users are restored; the delivery turns nothing off)."""
        saved, saved_long = user.snapshot(), long_term.snapshot()
        self.send(user, long_term, i, j, NO_EVENT)
        value = long_term.annoyance(self.app, self.seconds[i])
        user.restore(saved)
        long_term.restore(saved_long)
        return value


def horizon_episode(part: ReplayPart, user: int, app: int, k: int, candidate_seed: int,
                    horizon_days: float) -> HorizonEpisode:
    """The episode of ``user`` with the agent in ``app``'s place (``check_app``) for ``horizon_days``."""
    rows = part.rows_of(user)
    seconds = part.seconds[rows]
    n = int(np.searchsorted(seconds, horizon_days * DAY_SECONDS, side="right"))
    if n == 0:
        raise ValueError(f"user {user} has no context in the first {horizon_days:g} days; "
                         f"horizon_days must be longer")
    catalog = app_catalog()
    only = np.zeros(len(catalog.apps), dtype=bool)
    only[app] = True
    slates = EpisodeSlates(part, user, k, candidate_seed, apps=only, n=n)
    logged = {f: part.codes[f][rows][:n] for f in NOTIFICATION_FEATURES}
    logged_channel = channel_of(logged).tolist()
    logged_interrupts = interruptions(logged).tolist()
    background = [None if a == app else ((a, s, c), i) for a, s, c, i in zip(
        logged["postingApp"].tolist(), logged["subject"].tolist(), logged_channel, logged_interrupts,
        strict=True)]
    parameters = part.test_parameters
    row = int(parameters.rows(np.array([user]))[0])
    all_logged = part.codes["postingApp"][rows]
    main_app = int(np.argmax(np.bincount(all_logged, minlength=len(catalog.apps))))  # most notifications
    codes = {f: slates.codes[:, :, j] for j, f in enumerate(NOTIFICATION_FEATURES)}
    for f in ("ringerMode", "activity"):
        codes[f] = np.broadcast_to(part.codes[f][rows][:n, None], codes["postingApp"].shape)
    asleep = part.test_truth.state.asleep[rows][:n, None]
    weight, context = unwanted_weights(codes, asleep, parameters.long_term.app_weight(catalog), main_app)
    return HorizonEpisode(
        app=app, n=n, seconds=seconds[:n].tolist(), background=background, slates=slates,
        weight=np.broadcast_to(weight, slates.mask.shape).tolist(),
        context=np.broadcast_to(context, slates.mask.shape).tolist(),
        channels=np.flatnonzero(catalog.channels.app == app).tolist(),
        tolerance=float(parameters.scalars["tolerance"][row]), constants=parameters.long_term)
