"""The four off-policy estimators on hand-computed logs, and their intervals on simulated ones."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.ope.estimators import (
    MIN_EFFECTIVE_ROUNDS,
    Feedback,
    OPEWarning,
    dm,
    dr,
    estimate_all,
    ipw,
    snipw,
)


def hand_log() -> Feedback:
    return Feedback(action=np.array([0, 1, 0]), reward=np.array([1.0, 0.0, 1.0]),
                    pscore=np.array([0.5, 0.25, 0.5]),
                    target=np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]),
                    model=np.array([[0.8, 0.2], [0.4, 0.6], [0.3, 0.9]]))


def test_hand_computed_values():
    # weights 1/0.5 = 2, 0.5/0.25 = 2, 0/0.5 = 0
    log = hand_log()
    with pytest.warns(OPEWarning, match="only 2.0 of 3 rounds effectively count"):
        assert ipw(log).value == pytest.approx(2 / 3)
    with pytest.warns(OPEWarning):
        assert snipw(log).value == pytest.approx(2 / 4)
    # DM: 0.8, 0.5 * 0.4 + 0.5 * 0.6, 0.9
    assert dm(log).value == pytest.approx((0.8 + 0.5 + 0.9) / 3)
    # DR: 0.8 + 2 (1 - 0.8), 0.5 + 2 (0 - 0.6), 0.9 + 0
    with pytest.warns(OPEWarning):
        assert dr(log).value == pytest.approx((1.2 - 0.7 + 0.9) / 3)


def test_hand_computed_interval_and_weights():
    with pytest.warns(OPEWarning):
        estimate = ipw(hand_log())
    # terms 2, 0, 0: sd sqrt(4/3), half width 1.95996 * sqrt(4/3) / sqrt(3)
    half = 1.959964 * np.sqrt(4 / 3) / np.sqrt(3)
    assert (estimate.low, estimate.high) == pytest.approx((2 / 3 - half, 2 / 3 + half), abs=1e-6)
    assert estimate.effective_rounds == pytest.approx(16 / 8)
    assert estimate.max_weight == 2.0
    assert estimate.rounds == 3


def test_estimate_all_skips_model_estimators_without_a_model():
    log = hand_log()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OPEWarning)
        assert set(estimate_all(log)) == {"IPW", "SNIPW", "DM", "DR"}
        bare = Feedback(log.action, log.reward, log.pscore, log.target)
        assert set(estimate_all(bare)) == {"IPW", "SNIPW"}
    with pytest.raises(ValueError, match="DM and DR need a reward model"):
        dm(bare)
    with pytest.raises(ValueError, match="unknown estimator 'XY'; estimators: IPW, SNIPW, DM, DR"):
        estimate_all(log, ("XY",))
    # one name alone is that estimator, not its letters ('unknown estimator 'I'' once)
    assert list(estimate_all(log, "SNIPW")) == ["SNIPW"]
    with pytest.raises(TypeError, match=r"^estimate_all reads a Feedback \(log.feedback\(policy, model\)\); "
                                        r"got None$"):
        estimate_all(None)


@pytest.mark.parametrize(("change", "message"), [
    ({"pscore": np.array([0.5, 0.0, 0.5])}, "every propensity must be in"),
    ({"target": np.array([[1.0, 0.0], [0.5, 0.4], [0.0, 1.0]])}, "sum to 1 per round"),
    ({"reward": np.array([1.0, 0.0])}, "one value per round"),
    ({"model": np.zeros((3, 3))}, "one estimate per round and action"),
])
def test_malformed_feedback_is_refused(change, message):
    log = hand_log()
    fields = {"action": log.action, "reward": log.reward, "pscore": log.pscore, "target": log.target,
              "model": log.model, **change}
    with pytest.raises(ValueError, match=message):
        Feedback(**fields)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_on_the_logging_policy_ipw_is_the_mean_reward_and_dr_with_a_true_model_is_exact(k, seed):
    rng = np.random.default_rng(seed)
    n = 200
    logging = rng.dirichlet(np.ones(k), n)
    action = np.array([rng.choice(k, p=p) for p in logging])
    truth = rng.uniform(size=(n, k))
    reward = truth[np.arange(n), action]  # rewards without noise: the model is exact
    pscore = logging[np.arange(n), action]
    same = Feedback(action, reward, pscore, logging, truth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OPEWarning)
        assert ipw(same).value == pytest.approx(reward.mean())
        assert snipw(same).value == pytest.approx(reward.mean())
        target = rng.dirichlet(np.ones(k), n)
        other = Feedback(action, reward, pscore, target, truth)
        assert dr(other).value == pytest.approx((target * truth).sum(axis=1).mean())
        assert dm(other).value == pytest.approx((target * truth).sum(axis=1).mean())


def test_intervals_cover_the_truth_at_their_level():
    """Over 200 simulated uniform logs, IPW's and DR's 95% intervals hold the true value 90-99%."""
    rng = np.random.default_rng(7)
    n, k = 2_000, 4
    covered = {"IPW": 0, "SNIPW": 0, "DR": 0}
    for _ in range(200):
        p_open = rng.uniform(0.05, 0.6, size=(n, k))
        target = np.zeros((n, k))
        target[np.arange(n), p_open.argmax(axis=1)] = 1.0
        truth = p_open.max(axis=1).mean()
        action = rng.integers(0, k, n)
        reward = (rng.uniform(size=n) < p_open[np.arange(n), action]).astype(float)
        model = np.clip(p_open + rng.normal(0, 0.1, p_open.shape), 0, 1)  # an imperfect model
        estimates = estimate_all(Feedback(action, reward, np.full(n, 1 / k), target, model))
        for name in covered:
            covered[name] += estimates[name].covers(truth)
    assert all(180 <= c <= 199 for c in covered.values()), covered
    assert n / k >= MIN_EFFECTIVE_ROUNDS


def test_target_policies_are_distributions_over_the_allowed_actions():
    from pushgen.ope.policies import (
        EpsilonGreedyPolicy,
        GreedyPolicy,
        HoldHeavyPolicy,
        HoldPolicy,
        Slates,
        SoftmaxPolicy,
        UniformPolicy,
    )

    mask = np.array([[True, True, True], [True, False, False]])
    candidates = np.zeros((2, 3, 7), dtype=np.int64)
    scores = np.array([[0.1, 0.9, 0.5], [0.3, 2.0, 2.0]])  # the empty slots' scores must not count
    slates = Slates({}, candidates, mask, p_open=np.array([[0.2, 0.6, 0.4], [0.5, 0.0, 0.0]]))
    greedy = GreedyPolicy(lambda s: scores)
    assert np.array_equal(greedy.probabilities(slates), [[0, 1, 0, 0], [1, 0, 0, 0]])
    assert np.allclose(UniformPolicy().probabilities(slates), [[0.25] * 4, [0.5, 0, 0, 0.5]])
    assert np.allclose(EpsilonGreedyPolicy(lambda s: scores, 0.2).probabilities(slates),
                       [[0.05, 0.85, 0.05, 0.05], [0.9, 0, 0, 0.1]])
    assert np.allclose(HoldHeavyPolicy(lambda s: scores, 0.75).probabilities(slates),
                       [[0, 0.25, 0, 0.75], [0.25, 0, 0, 0.75]])
    assert np.array_equal(HoldPolicy().probabilities(slates), [[0, 0, 0, 1], [0, 0, 0, 1]])
    softmax = SoftmaxPolicy(0.5).probabilities(slates)
    weights = np.exp(np.array([0.2, 0.6, 0.4, 0.0]) / 0.5)
    assert np.allclose(softmax[0], weights / weights.sum())
    e = np.exp(0.5 / 0.5)
    assert np.allclose(softmax[1], [e / (e + 1), 0, 0, 1 / (e + 1)])  # only slot 0 and hold
    with pytest.raises(ValueError, match=r"temperature must be a finite number >= 0\.1; got 0\.05"):
        SoftmaxPolicy(0.05)
    with pytest.raises(ValueError, match=r"hold_heavy's share must be a number from 0 to 1; got 1\.5"):
        HoldHeavyPolicy(lambda s: scores, 1.5)


def test_sampling_follows_the_probabilities_and_never_takes_an_impossible_action():
    from pushgen.ope.policies import sample

    probabilities = np.tile([0.5, 0.0, 0.2, 0.3, 0.0], (200_000, 1))
    action = sample(probabilities, np.random.default_rng(1).random(len(probabilities)))
    share = np.bincount(action, minlength=5) / len(action)
    assert share[1] == 0 and share[4] == 0
    assert np.allclose(share, [0.5, 0, 0.2, 0.3, 0], atol=0.004)
    assert sample(probabilities[:1], np.array([1 - 1e-17]))[0] == 3
