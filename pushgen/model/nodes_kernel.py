"""Kernel of ``nodes.trigger_on``: whether each post's app's trigger lasts at its slot."""

from __future__ import annotations

import numpy as np

from pushgen.model.compiled import Kernel


@Kernel
def trigger_lasts(app: np.ndarray, slot: np.ndarray, trigger_of_app: np.ndarray, state: np.ndarray,
                  music: np.ndarray, triggers: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Per post: its app's trigger (``trigger_of_app``, -1 for none) is ``triggers`` = (music,
    commute, exercise) and lasts at its slot: music playing, the routine state one of ``states`` =
    (commute, travel, exercise) for a commute (commute or travel) or a workout (exercise)."""
    by_music, by_commute, by_exercise = triggers[0], triggers[1], triggers[2]
    commute, travel, exercise = states[0], states[1], states[2]
    lasts = np.empty(len(app), dtype=np.bool_)
    for i in range(len(app)):
        trigger, at_slot = trigger_of_app[app[i]], state[slot[i]]
        if trigger == by_music:
            lasts[i] = music[slot[i]]
        elif trigger == by_commute:
            lasts[i] = at_slot in (commute, travel)
        else:
            lasts[i] = trigger == by_exercise and at_slot == exercise
    return lasts
