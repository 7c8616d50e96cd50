"""One user's life through the DBN: every node family in order, parents before children.

    static:  chronotype -> schedule -> places;  lifestyle;  device habits;
             portfolio (chronotype, vendor);  interests;  engagement traits (interests)
    per day: daily regime (lifestyle, weekday; Markov over days) ;
             day plan (chronotype, schedule, places, lifestyle, weekday, regime)
    per slot: routine state (plan, schedule) -> place, activity, noise, proximity;
              headphones, music (state) ;  ringer mode (state) ;  battery, charging (state, music, plan)
    per day and segment: mood (hidden availability; the regime's attention)
    per notification: arrivals (state, music, plan, portfolio) -> features (app, interests)
              -> context at its slot -> fatigue (earlier arrivals)
              -> P(open) (user, features, context, fatigue, mood) -> action -> timings
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen import schemas
from pushgen.model import (
    arrivals,
    content,
    device,
    engagement,
    exposure,
    feasibility,
    habits,
    portfolio,
    regime,
    routine,
    surroundings,
    timings,
    traits,
)
from pushgen.model.catalog import VENDORS, app_catalog
from pushgen.model.priors import Priors
from pushgen.model.sampling import segment_states
from pushgen.model.seeding import NodeFamily, stream
from pushgen.model.timegrid import SLOT_SECONDS, TimeGrid


@dataclass
class UserData:
    """One user's rows (schema codes and raw values) and parameters."""

    user_id: int
    seconds: np.ndarray  # posting time, seconds since the grid's first midnight
    codes: dict[str, np.ndarray]  # the 18 features' schema codes
    opened: np.ndarray
    timings: timings.Timings
    state: engagement.RowState
    exposure: exposure.Exposure  # fatigue and habituation left by the notifications before
    draw: np.ndarray  # the uniform that decided each action: opened = draw < p_open
    p_open: np.ndarray
    routine_state: np.ndarray
    parameters: engagement.EngagementParameters
    summary: dict


def simulate_user(user_id: int, seed: int, grid: TimeGrid, priors: Priors) -> UserData:
    catalog = app_catalog()

    def rng(family: NodeFamily) -> np.random.Generator:
        return stream(seed, user_id, family)

    # static nodes
    chrono = habits.chronotype(priors, rng(NodeFamily.CHRONOTYPE))
    sched = habits.schedule(priors, chrono, rng(NodeFamily.SCHEDULE))
    where = habits.places(sched, rng(NodeFamily.PLACES))
    life = habits.lifestyle(priors, rng(NodeFamily.LIFESTYLE))
    dev = habits.device_habits(priors, rng(NodeFamily.DEVICE_HABITS))
    folio = portfolio.portfolio(priors, catalog, chrono, dev, rng(NodeFamily.PORTFOLIO))
    log_interest = portfolio.interests(priors, rng(NodeFamily.INTERESTS))
    params = traits.engagement_traits(user_id, priors, catalog, log_interest, folio.apps,
                                      rng(NodeFamily.TRAITS))

    # day nodes
    daily = regime.day_regime(grid.days, grid.weekday_of_day, priors, life, rng(NodeFamily.REGIME))
    plan = routine.day_plan(grid, chrono, sched, where, life, daily.away, rng(NodeFamily.ROUTINE))

    # dynamic context nodes on the slot grid
    state = routine.routine_state(grid, plan, sched)
    around = rng(NodeFamily.SURROUNDINGS)
    slot_place = routine.place(grid, state, plan, where)
    slot_activity = routine.activity(state, routine.activity_table(sched, life), around)
    slot_noise = surroundings.noise(state, around)
    slot_proximity = surroundings.proximity(state, around)
    sound = device.audio(state, dev, rng(NodeFamily.AUDIO))
    power = device.battery(grid, state, sound.music, plan, dev, rng(NodeFamily.BATTERY))
    slots_per_day = grid.slots // grid.days
    slot_ringer = device.ringer_mode(state, dev, np.repeat(daily.do_not_disturb, slots_per_day),
                                     rng(NodeFamily.RINGER))

    # notifications
    posts = arrivals.arrivals(grid, state, sound.music, plan, daily.volume, folio, catalog,
                              rng(NodeFamily.ARRIVALS))
    slot = (posts.seconds // SLOT_SECONDS).astype(np.int64)
    codes = content.content(posts, catalog, log_interest,
                            trigger_on(catalog.trigger[posts.app], state[slot], sound.music[slot]),
                            rng(NodeFamily.CONTENT))
    day = slot // (86400 // SLOT_SECONDS)
    hour = (posts.seconds % 86400) / 3600.0
    codes.update(context_codes(grid, slot, hour, {
        "place": slot_place, "activity": slot_activity, "noise": slot_noise,
        "proximity": slot_proximity, "ringerMode": slot_ringer,
        "batteryLevel": device.battery_level(power.percent),
        "charging": _bool_codes("charging", power.charging),
        "headphonesIn": _bool_codes("headphonesIn", sound.headphones),
        "musicActive": _bool_codes("musicActive", sound.music),
    }))

    # engagement
    segment, _ = segment_states(state)
    day_mood, segment_mood = engagement.mood(grid.days, int(segment[-1]) + 1, priors.mood_day_sd,
                                             priors.mood_segment_sd, rng(NodeFamily.MOOD))
    dynamic = engagement.RowState(
        mood=_stored(day_mood[day] + daily.attention[day] + segment_mood[segment[slot]]),
        hour=_stored(hour),
        days=_stored(posts.seconds / 86400.0),
        asleep=state[slot] == routine.State.SLEEP,
    )
    channel = feasibility.channel_of(codes)
    seen = exposure.logged_exposure(
        posts.seconds, {"app": codes["postingApp"], "subject": codes["subject"], "channel": channel},
        exposure.interruption(codes["priority"], codes["numberOfUpdates"]), params.fatigue_tau_seconds)
    rows = np.zeros(len(slot), dtype=np.int64)
    p_open = engagement.open_probability(params, rows, codes, dynamic, seen)
    draw = rng(NodeFamily.ENGAGEMENT).random(len(slot), dtype=np.float32).astype(np.float64)
    opened = draw < p_open

    timing_rng = rng(NodeFamily.TIMINGS)
    attention = timings.attention_habits(priors, timing_rng)
    wake_seconds = ((day + (hour >= plan.wake[day])) * 24.0
                    + plan.wake[np.minimum(day + (hour >= plan.wake[day]), grid.days - 1)]) * 3600
    times = timings.timings(opened, codes["ringerMode"], codes["priority"], state[slot],
                            np.maximum(wake_seconds - posts.seconds, 0.0), hour, attention,
                            timing_rng)
    summary = {
        "occupation": sched.occupation.name.lower().replace("_", " "),
        "wake_time": _clock(chrono.wake_hour),
        "bedtime": _clock(chrono.wake_hour + 24 - chrono.sleep_hours),
        "workdays": "".join("MTWTFSS"[i] if sched.workdays[i] else "-" for i in range(7)),
        "commute": sched.commute.name.lower() if sched.commute_hours else "none",
        "commute_minutes": round(sched.commute_hours * 60),
        "phone_vendor": VENDORS[dev.vendor],
        "apps": len(folio.apps),
        "notifications_per_day": len(slot) / grid.days,
        "chattiness": folio.chattiness,
        "night_charging": dev.night_charge,
        "usual_ringer": schemas.values("ringerMode")[int(np.argmax(dev.ringer))],
    }
    return UserData(
        user_id=user_id, seconds=posts.seconds, codes=codes, opened=opened, timings=times,
        state=dynamic, exposure=seen, draw=draw, p_open=p_open, routine_state=state[slot],
        parameters=params, summary=summary,
    )


def trigger_on(trigger: np.ndarray, state: np.ndarray, music: np.ndarray) -> np.ndarray:
    """Whether each post's app's trigger lasts at its slot (``catalog.TRIGGERS``)."""
    active = np.column_stack([
        music,
        (state == routine.State.COMMUTE) | (state == routine.State.TRAVEL),
        state == routine.State.EXERCISE,
    ])
    return (trigger >= 0) & active[np.arange(len(trigger)), np.maximum(trigger, 0)]


def context_codes(grid: TimeGrid, slot: np.ndarray, hour: np.ndarray,
                  per_slot: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The 11 context features of each notification from its slot (and clock time)."""
    day = slot // (86400 // SLOT_SECONDS)
    codes = {name: values[slot].astype(np.int16) for name, values in per_slot.items()}
    codes["day"] = grid.weekday_of_day[day].astype(np.int16)
    codes["time"] = schemas.hour_to_time_block()[hour.astype(np.int64)]
    return codes


def _stored(values: np.ndarray) -> np.ndarray:
    """Values as stored in ground_truth/ (float32), so that stored inputs give the same P(open)."""
    return values.astype(np.float32).astype(np.float64)


def _bool_codes(name: str, flags: np.ndarray) -> np.ndarray:
    f = schemas.field(name)
    return np.where(flags, f.code(True), f.code(False)).astype(np.int16)


def _clock(hours: float) -> str:
    minutes = round(hours * 60) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
