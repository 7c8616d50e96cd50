"""The simulated user: one object, one user in floats or a batch in arrays, with a public what-if."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.envs.online import (
    PossibleNotifications,
    apps_of,
    channels_of,
    interruptions,
    simulated_user,
    static_table,
)
from pushgen.model.simulated_user import SimulatedUsers
from pushgen.replay.parts import load_part
from pushgen.replay.scoring import Judge

SPLIT = "pushgen-mini-v4"


@pytest.fixture(scope="module")
def part():
    return load_part(SPLIT, 2, "test")


def episode_terms(part, user):
    """The user's possible notifications and their logits before exposure at each episode row."""
    possible = PossibleNotifications(apps_of(part, user), channels_of(part, user))
    episode = part.episode(user)
    rows = np.arange(episode.rows.start, episode.rows.stop)
    static, _ = static_table(part, rows, user, possible.codes())
    return possible, rows, static


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_one_user_in_floats_steps_as_the_batch_does(part, seed):
    """``SimulatedUser`` (the single environments) and ``SimulatedUsers`` (the judge) give the same
    P(open), to rounding, over a random episode of sends."""
    user = int(part.users[seed % len(part.users)])
    possible, rows, static = episode_terms(part, user)
    one = simulated_user(part, user, stationary=False)
    batch = Judge(part, np.array([user]))
    batch.reset(np.array([0]))
    rng = np.random.default_rng(seed)
    codes = possible.codes()
    for i in sorted(rng.choice(len(rows), size=min(200, len(rows)), replace=False).tolist()):
        j = int(rng.integers(len(possible.matrix)))
        keys = (possible.app[j], possible.subject[j], possible.channels[j])
        p_one = one.send(float(static[i, j]), float(part.seconds[rows[i]]), keys, possible.interrupts[j])
        p_batch = batch.step(np.array([0]), rows[[i]], {f: c[[j]] for f, c in codes.items()})[0]
        assert p_one == pytest.approx(p_batch, abs=1e-12, rel=0)


def test_what_if_restores_the_state_exactly(part):
    """A planner's what-if: snapshot, send, restore leaves the user as it was, bit for bit."""
    user = int(part.users[0])
    possible, rows, static = episode_terms(part, user)
    one = simulated_user(part, user, stationary=False)
    keys = (possible.app[0], possible.subject[0], possible.channels[0])
    t = float(part.seconds[rows[1]])
    before = one.p_open(float(static[1, 0]), t, keys)
    saved = one.snapshot()
    for _ in range(5):
        one.send(float(static[0, 0]), float(part.seconds[rows[0]]), keys, possible.interrupts[0])
    assert one.p_open(float(static[1, 0]), t, keys) < before  # fatigue and habituation lower it
    one.restore(saved)
    assert one.p_open(float(static[1, 0]), t, keys) == before
    assert one.snapshot() == saved


def test_the_batch_what_if_restores_the_state_exactly():
    users = SimulatedUsers(2, 12, 1800.0)
    rng = np.random.default_rng(0)
    two = np.arange(2)
    saved = users.snapshot()
    users.add(two, np.array([10.0, 20.0]), rng.integers(0, 5, 2), rng.integers(0, 5, 2),
              rng.integers(0, 12, 2), np.ones(2))
    zero = np.zeros(2, dtype=np.int64)
    assert users.at(two, np.full(2, 30.0), zero, zero, zero).fatigue.min() > 0
    users.restore(saved)
    assert users.at(two, np.full(2, 30.0), zero, zero, zero).fatigue.max() == 0


def test_a_stationary_user_never_changes(part):
    user = int(part.users[0])
    possible, rows, static = episode_terms(part, user)
    keys = (possible.app[0], possible.subject[0], possible.channels[0])
    t, logit = float(part.seconds[rows[0]]), float(static[0, 0])
    still = simulated_user(part, user, stationary=True)
    assert len({still.send(logit, t, keys, 1.0) for _ in range(5)}) == 1
    living = simulated_user(part, user, stationary=False)
    assert len({living.send(logit, t, keys, 1.0) for _ in range(5)}) == 5


def test_interruptions_of_a_batch_keep_their_shape():
    codes = {"priority": np.array([[0, 1], [2, 3]]), "numberOfUpdates": np.array([[0, 0], [1, 1]])}
    assert interruptions(codes).shape == (2, 2)


@pytest.mark.parametrize(("module", "name", "replacement"), [
    ("pushgen.model.exposure", "ExposureState", "pushgen.model.simulated_user.SimulatedUsers"),
    ("pushgen.envs.online", "UserExposure", "pushgen.model.simulated_user.SimulatedUser"),
    ("pushgen.ope.policies", "SelectionPolicy", "pushgen.ope.policies.SlatePolicy"),
    ("pushgen.model.engagement", "combine", "pushgen.model.simulated_user.combine"),
    ("pushgen.model.engagement", "open_probability", "pushgen.model.simulated_user.open_probability"),
])
def test_removed_names_say_what_replaces_them(module, name, replacement):
    import importlib

    with pytest.raises(AttributeError, match=replacement.replace(".", r"\.")):
        getattr(importlib.import_module(module), name)


# What steps fatigue or habituation, or evaluates the engagement formula's last steps, and the
# modules that define it; everything else asks pushgen.model.simulated_user.
FORMULA = {"expit", "combine", "exposure_penalty", "open_logit", "open_probability", "row_logits",
           "notification_logits",
           "keyed_exposure", "logged_exposure", "logged_decayed_sums", "received_exposures"}
FORMULA_MODULES = {"pushgen.model.engagement", "pushgen.model.engagement_kernel", "pushgen.model.exposure",
                   "pushgen.model.exposure_kernel", "pushgen.model.logistic"}
OWN_USES = {  # a model's own arithmetic that uses the same helpers, not the simulated user
    "pushgen/baselines/ownership.py": {"expit"},  # the log-odds of a belief that the user has an app
    "pushgen/baselines/recency.py": {"keyed_exposure"},  # a feature of the public history, in days
    "pushgen/ope/policies.py": {"expit"},  # a learned model's P(open) from its log-odds (softmax-learned)
}


def formula_uses(path) -> set[str]:
    """Names of ``FORMULA`` that the module at ``path`` imports from ``FORMULA_MODULES``, or
    reads as attributes of them."""
    import ast

    tree = ast.parse(path.read_text(), str(path))
    used, aliases = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module in FORMULA_MODULES and alias.name in FORMULA:
                    used.add(alias.name)
                if f"{node.module}.{alias.name}" in FORMULA_MODULES:
                    aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name in FORMULA_MODULES}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORMULA:
            base = ast.unparse(node.value)
            if base in aliases or base in FORMULA_MODULES:
                used.add(node.attr)
    return used


def test_only_the_simulated_user_steps_the_user_and_evaluates_the_formula():
    from pathlib import Path

    import pushgen

    root = Path(pushgen.__file__).parent
    package = root / "model" / "simulated_user"
    defining = {root / "model" / f"{m.rsplit('.', 1)[1]}.py" for m in FORMULA_MODULES}
    found = {}
    for path in sorted(root.rglob("*.py")):
        if package in path.parents or path in defining:
            continue
        used = formula_uses(path) - OWN_USES.get(str(path.relative_to(root.parent)), set())
        if used:
            found[str(path.relative_to(root.parent))] = sorted(used)
    assert found == {}
    # the scan sees imports
    assert formula_uses(package / "formula.py") == {"expit", "notification_logits", "row_logits"}


def test_the_scan_sees_module_attributes(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from pushgen.model import logistic\nimport pushgen.model.exposure as x\n"
                      "logistic.expit(0.0)\nx.keyed_exposure\n")
    assert formula_uses(source) == {"expit", "keyed_exposure"}


def test_a_negative_penalty_weight_is_refused(part):
    from dataclasses import replace

    from pushgen.model.simulated_user import penalty_weights

    row = int(part.parameter_rows[0])
    weights = penalty_weights(part.parameters, row)
    assert set(weights) == {"fatigue", "app", "subject", "channel"} and min(weights.values()) >= 0
    scalars = dict(part.parameters.scalars)
    scalars["habituation_app"] = -1.0 - scalars["habituation_app"]
    with pytest.raises(ValueError, match="negative penalty weights"):
        penalty_weights(replace(part.parameters, scalars=scalars), row)
