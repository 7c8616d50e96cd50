"""One user's life through the DBN: ``pushgen.model.graph.NODES`` run in order, parents
before children (``docs/model.md`` draws the graph from the same list)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pushgen import schemas
from pushgen.model import engagement, exposure, graph, timings
from pushgen.model.catalog import VENDORS, app_catalog
from pushgen.model.priors import Priors
from pushgen.model.timegrid import TimeGrid


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
    annoyance: np.ndarray  # the annoyance with the notification's app just after it arrived
    turned_off: np.ndarray  # 0, or what its arrival led to: 1 + its index in long_term.EVENTS


def simulate_user(user_id: int, seed: int, grid: TimeGrid, priors: Priors) -> UserData:
    """One user's rows: every node of ``pushgen.model.graph.NODES``, in order."""
    inputs = {"user_id": user_id, "seed": seed, "grid": grid, "priors": priors, "catalog": app_catalog()}
    v = {node.name: value for node, value in graph.run(inputs)}
    chrono, sched, dev, folio = v["chrono"], v["sched"], v["dev"], v["folio"]
    posts, lived = v["posts"], v["lived"]
    kept = np.flatnonzero(lived.delivered)  # the delivered posts, found once for the arrays cut below
    summary = {
        "occupation": sched.occupation.name.lower().replace("_", " "),
        "wake_time": _clock(chrono.wake_hour),
        "bedtime": _clock(chrono.wake_hour + 24 - chrono.sleep_hours),
        "workdays": "".join("MTWTFSS"[i] if sched.workdays[i] else "-" for i in range(7)),
        "commute": sched.commute.name.lower() if sched.commute_hours else "none",
        "commute_minutes": round(sched.commute_hours * 60),
        "phone_vendor": VENDORS[dev.vendor],
        "apps": len(folio.apps),
        "notifications_per_day": len(kept) / grid.days,
        "chattiness": folio.chattiness,
        "night_charging": dev.night_charge,
        "usual_ringer": schemas.values("ringerMode")[int(np.argmax(dev.ringer))],
    }
    times = v["times"]
    return UserData(
        user_id=user_id, seconds=posts.seconds[kept], codes={k: c[kept] for k, c in v["codes"].items()},
        opened=v["opened"][kept],
        timings=timings.Timings(seen=times.seen[kept], decision=times.decision[kept]),
        state=v["row_state"].take(kept), exposure=lived.exposure.take(kept), draw=v["draw"][kept],
        p_open=lived.p_open[kept], routine_state=v["state"][posts.slot[kept]],
        parameters=v["params"], summary=summary, annoyance=lived.annoyance[kept],
        turned_off=lived.fate[kept],
    )


def _clock(hours: float) -> str:
    minutes = round(hours * 60) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
