"""Notification feature nodes: what each app's notification says about itself.

Parents: the posting app (and, for subjects, the user's interests). Each feature ~
Categorical of the app's row in the catalog; ongoing ~ Bernoulli(P(ongoing | app,
category)). A conversation's follow-ups repeat its first message's features, with
numberOfUpdates counting the updates so far (0: none, 1-2: low, 3-5: medium, 6+: high).
Alarms are category 'alarm'.
"""

from __future__ import annotations

import numpy as np

from pushgen import schemas
from pushgen.model.arrivals import Arrivals
from pushgen.model.catalog import AppCatalog
from pushgen.model.sampling import categorical_rows

UPDATE_STEPS = np.array([1, 3, 6])  # thread positions where none->low->medium->high


def content(
    arrivals: Arrivals,
    catalog: AppCatalog,
    user_subject_cdf: np.ndarray,
    user_apps: np.ndarray,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Schema codes of the 7 notification features for every arrival."""
    app = arrivals.app
    category = categorical_rows(catalog.category_cdf, app, rng)
    category[arrivals.alarm] = schemas.field("category").code("alarm")
    # row of each arrival's app in the user's portfolio (for the user's subject mix)
    portfolio_row = np.searchsorted(user_apps, app)
    topic = categorical_rows(user_subject_cdf, portfolio_row, rng)
    subject = catalog.subject_codes[app, topic]
    codes = {
        "postingApp": app,
        "category": category,
        "numberOfUpdates": categorical_rows(catalog.updates_cdf, app, rng),
        "subject": subject.astype(np.int16),
        "priority": categorical_rows(catalog.priority_cdf, app, rng),
        "visibility": categorical_rows(catalog.visibility_cdf, app, rng),
    }
    ongoing = rng.random(len(app)) < catalog.ongoing_prob[app, codes["category"]]
    codes["ongoing"] = np.where(ongoing, schemas.field("ongoing").code(True),
                                schemas.field("ongoing").code(False)).astype(np.int16)
    follow_up = arrivals.thread_position > 0
    source = arrivals.thread[follow_up]
    for name in ("category", "subject", "priority", "visibility", "ongoing"):
        codes[name][follow_up] = codes[name][source]
    in_thread = arrivals.thread >= 0
    updates_field = schemas.field("numberOfUpdates")
    levels = np.array([updates_field.code(v) for v in ("none", "low", "medium", "high")])
    codes["numberOfUpdates"][in_thread] = levels[
        np.searchsorted(UPDATE_STEPS, arrivals.thread_position[in_thread], side="right")]
    return codes
