"""The notification-level nodes that join the node families: each takes its parents' values.

``pushgen.model.graph`` lists them with their parents; the families' own distributions live in
their modules (``engagement``, ``exposure``, ``timings``, ...).
"""

from __future__ import annotations

import numpy as np

from pushgen import schemas
from pushgen.model import engagement, long_term, routine, simulated_user, timings
from pushgen.model.arrivals import Arrivals
from pushgen.model.catalog import TRIGGERS, AppCatalog
from pushgen.model.device import BATTERY_LEVEL_BOUNDS, BATTERY_LEVEL_CODES, Audio, Battery
from pushgen.model.engagement_kernel import row_states
from pushgen.model.features_kernel import CONTEXT_ROWS, context_codes
from pushgen.model.nodes_kernel import trigger_lasts
from pushgen.model.portfolio import Portfolio
from pushgen.model.priors import Priors
from pushgen.model.regime import DayRegime
from pushgen.model.routine import DayPlan
from pushgen.model.sampling_kernel import state_runs
from pushgen.model.timegrid import SLOTS_PER_DAY, WEEK_BEFORE_SECONDS, TimeGrid
from pushgen.model.timings_kernel import seconds_to_wake


def trigger_on(posts: Arrivals, catalog: AppCatalog, state: np.ndarray, music: np.ndarray) -> np.ndarray:
    """Deterministic: whether each post's app's trigger (music, commuting or travel, a workout)
    lasts at its slot (``catalog.TRIGGERS``).

    Read in one pass (``nodes_kernel.trigger_lasts``)."""
    return trigger_lasts(posts.app, posts.slot, catalog.trigger, state, music, TRIGGER_CODES,
                         TRIGGER_STATES)


TRIGGER_CODES = np.array([TRIGGERS.index(name) for name in ("music", "commute", "exercise")])
TRIGGER_STATES = np.array([routine.State.COMMUTE, routine.State.TRAVEL, routine.State.EXERCISE])


FLAG_CODES = np.array([[schemas.field(name).code(flag) for flag in (False, True)]
                       for name in ("charging", "headphonesIn", "musicActive")])
TIME_BLOCK_OF_HOUR = schemas.hour_to_time_block()


def features(grid: TimeGrid, posts: Arrivals, notification: dict[str, np.ndarray], place: np.ndarray,
             activity: np.ndarray, noise: np.ndarray, proximity: np.ndarray, ringer: np.ndarray,
             power: Battery, sound: Audio) -> dict[str, np.ndarray]:
    """Deterministic: the 18 published features of each post, its context read at its slot."""
    slot = posts.slot
    context = context_codes(slot, SLOTS_PER_DAY, place, activity, noise, proximity, ringer, power.percent,
                            BATTERY_LEVEL_BOUNDS, BATTERY_LEVEL_CODES, power.charging, sound.headphones,
                            sound.music, FLAG_CODES, grid.weekday_of_day, posts.hour, TIME_BLOCK_OF_HOUR)
    codes = dict(notification)
    codes.update(zip(CONTEXT_ROWS, context, strict=True))
    return codes


def mood(grid: TimeGrid, state: np.ndarray, priors: Priors, rng: np.random.Generator
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hidden availability (``engagement.mood``): per day and per stretch of the routine; also each
    slot's stretch."""
    segment, _ = state_runs(state)
    day, shift = engagement.mood(grid.days, int(segment[-1]) + 1, priors.mood_day_sd, priors.mood_segment_sd,
                                 rng)
    return day, shift, segment


def row_state(grid: TimeGrid, posts: Arrivals, state: np.ndarray, mood: tuple, daily: DayRegime
              ) -> engagement.RowState:
    """Deterministic: each post's hidden row state: clock hour, days since the start, asleep, and
    the mood (the day's level and the regime's attention that day, plus the stretch's shift).

    The floats are as stored in ground_truth/ (float32), so that stored inputs give the same P(open).
    """
    day_level, shift, segment = mood
    hour, days, asleep, level = row_states(posts.seconds, posts.slot, SLOTS_PER_DAY, day_level,
                                           daily.attention, shift, segment, state, int(routine.State.SLEEP))
    return engagement.RowState(hour=hour, days=days, asleep=asleep, mood=level)


def unwanted(codes: dict[str, np.ndarray], row_state: engagement.RowState, folio: Portfolio,
             params: engagement.EngagementParameters, catalog: AppCatalog) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic: how unwanted each post would be, and its context's multiplier
    (``long_term.unwanted_weights``; the main app: the portfolio's highest daily rate)."""
    main_app = int(folio.apps[np.argmax(folio.daily_rate)])
    return long_term.unwanted_weights(codes, row_state.asleep, params.long_term.app_weight(catalog), main_app)


def lived(posts: Arrivals, codes: dict[str, np.ndarray], channel: np.ndarray, row_state: engagement.RowState,
          params: engagement.EngagementParameters, unwanted: tuple[np.ndarray, np.ndarray],
          rng: np.random.Generator) -> simulated_user.Lived:
    """Three U(0, 1) per post (turn off, abandon, channel only), then the simulated user lives through
    the posts (``simulated_user.lived``): which reach it (not from an app or channel it turned off
    or abandoned), with the fatigue and habituation the delivered ones before leave, their P(open)
    (the engagement model), the annoyance they leave and the events it leads to.

    The user had a phone before the dataset's first day: the week before it is taken to have
    brought the first week's notifications, a week earlier, so the first days start from a
    lived-in state rather than from none (habituation fades within days; annoyance within weeks,
    and nothing is turned off in that week)."""
    draws = rng.random((3, len(posts.seconds)))
    first_week = int(np.searchsorted(posts.seconds, WEEK_BEFORE_SECONDS))  # seconds are sorted
    return simulated_user.lived(params, codes, channel, row_state, posts.seconds, unwanted, draws,
                                lead=first_week, shift_seconds=WEEK_BEFORE_SECONDS)


def uniform_draw(posts: Arrivals, rng: np.random.Generator) -> np.ndarray:
    """U(0, 1) per post (float32, as stored): the draw that decides its action."""
    return rng.random(len(posts.seconds), dtype=np.float32).astype(np.float64)


def opened(draw: np.ndarray, p_open: np.ndarray) -> np.ndarray:
    """Deterministic: the action, opened = draw < P(open)."""
    return draw < p_open


def response_times(grid: TimeGrid, posts: Arrivals, opened: np.ndarray, codes: dict[str, np.ndarray],
                   state: np.ndarray, plan: DayPlan, attention: timings.AttentionHabits,
                   rng: np.random.Generator) -> timings.Timings:
    """seenTime and decisionTime (``timings.timings``), with the time until the next wake-up."""
    slot = posts.slot
    to_wake = seconds_to_wake(slot, posts.hour, posts.seconds, plan.wake, SLOTS_PER_DAY)
    return timings.timings(opened, codes["ringerMode"], codes["priority"], state[slot], to_wake, posts.hour,
                           attention, rng)
