"""Oracle: the candidate with the highest true P(open). An upper bound: it reads the simulated user.

For each context it scores every candidate with the split's ground-truth engagement model
(``pushgen.model.engagement.open_logit``). Within one row the intercept, the context
weights and the dynamic state (hour, sleep, fatigue, novelty, mood) add the same amount to
every candidate's logit, so the best candidate depends only on the notification weights and
the chat bonus (category ``msg`` with headphones in and music on); those are all it computes.
Candidates: every notification another baseline could choose from (the user's history and
the public pool) and those of the user's own test rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pushgen import schemas
from pushgen.baselines.base import Codes, Setting, StaticPolicy, as_codes
from pushgen.baselines.candidates import notification_matrix, union
from pushgen.envs.spaces import NOTIFICATION_FEATURES

CATEGORY = NOTIFICATION_FEATURES.index("category")


class OraclePolicy(StaticPolicy):
    """The best candidate under the true engagement model (labelled an upper bound)."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        params = setting.truth.parameters
        row = int(params.rows(np.array([setting.user_id]))[0])
        self.weights = [params.weights[f][row] for f in NOTIFICATION_FEATURES]
        self.chat_bonus = float(params.scalars["audio_chat_bonus"][row])
        self.msg = schemas.field("category").code("msg")
        self.headphones_in = schemas.field("headphonesIn").code(True)
        self.music_on = schemas.field("musicActive").code(True)
        self.choice: dict[bool, np.ndarray] = {}

    def fit(self, history: pd.DataFrame) -> None:
        candidates = union(notification_matrix(history), self.setting.pool, self.setting.truth.own)
        base = sum(w[candidates[:, j]] for j, w in enumerate(self.weights))
        is_msg = candidates[:, CATEGORY] == self.msg
        for chatting in (False, True):
            score = base + self.chat_bonus * (is_msg & chatting)
            self.choice[chatting] = candidates[int(np.argmax(score))]

    def act(self, contexts: Codes) -> Codes:
        chatting = ((np.asarray(contexts["headphonesIn"]) == self.headphones_in)
                    & (np.asarray(contexts["musicActive"]) == self.music_on))
        return as_codes(np.where(chatting[:, None], self.choice[True], self.choice[False]))
