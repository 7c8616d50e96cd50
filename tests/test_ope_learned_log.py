"""The softmax-learned logging policy: a softmax over a public model's P(open), whose propensities
reveal nothing hidden (the softmax over the true P(open) gives its answer key away)."""

from __future__ import annotations

import json
import sys
from importlib import metadata

import numpy as np
import pytest
from envs_split import small_split
from scipy.special import expit
from scipy.stats import chi2

from pushgen.commands import main
from pushgen.ope import SoftmaxPolicy, log_policy, propensity_check, read_log, validate_log

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def split():
    return small_split()


@pytest.fixture(scope="module")
def learned_log(split):
    return log_policy(split, "softmax-learned", 0.2, seed=9)


def recovered(log) -> tuple[np.ndarray, np.ndarray]:
    """temperature * log(pi(a) / pi(hold)) and the true P(open), over every filled slot."""
    propensity, p_open = log.action_table("propensity"), log.action_table("p_open")
    filled = log.slates().mask
    inverted = log.recipe["temperature"] * np.log(propensity[:, :-1] / propensity[:, -1:])
    return inverted[filled], p_open[:, :-1][filled]


def test_propensities_are_the_softmax_of_the_learned_p_open(learned_log, split):
    from pushgen.ope.models import learned_scorer

    propensity = learned_log.action_table("propensity")
    totals = learned_log.candidates.groupby("round_id")["propensity"].sum().to_numpy()
    assert np.abs(totals - 1).max() < 1e-12
    slates = learned_log.slates()
    q = np.column_stack([expit(learned_scorer(split)(slates)), np.zeros(len(slates))]) / 0.2
    weights = np.where(np.column_stack([slates.mask, np.ones(len(slates), dtype=bool)]), np.exp(q), 0.0)
    assert np.abs(propensity - weights / weights.sum(axis=1, keepdims=True)).max() < 1e-12
    policy = SoftmaxPolicy(0.2, learned_scorer(split))
    assert policy.name == "softmax-learned" and not policy.reads_state
    assert learned_log.recipe["policy"] == "softmax-learned" and learned_log.recipe["temperature"] == 0.2


def test_logged_choices_follow_the_propensities(learned_log):
    """Chosen shares per propensity bin agree with the mean propensity (chi-square over bins)."""
    table = propensity_check(learned_log)
    expected = table["mean_propensity"] * table["actions"]
    observed = table["chosen_share"] * table["actions"]
    statistic = float((((observed - expected) ** 2) / (expected * (1 - table["mean_propensity"]))).sum())
    assert chi2.sf(statistic, len(table)) > 0.001, table
    assert table["actions"].sum() == len(learned_log.candidates) and len(table) >= 4


def test_the_propensities_do_not_give_the_true_p_open_away(learned_log, split):
    inverted, truth = recovered(learned_log)
    assert np.corrcoef(inverted, truth)[0, 1] < 0.9
    assert np.abs(inverted - truth).max() > 0.3 and np.abs(inverted - truth).mean() > 0.05
    # the same inversion on the softmax over the true P(open) is the answer key
    inverted, truth = recovered(log_policy(split, "softmax", 0.2, users=2, seed=9))
    assert np.abs(inverted - truth).max() < 1e-12


def test_pushgen_log_writes_a_valid_learned_log(split, tmp_path, capsys):
    out = tmp_path / "learned"
    assert main(["log", str(split), "--policy", "softmax-learned", "--temperature", "0.5", "--users", "2",
                 "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"Wrote {out}: ") and "softmax-learned logs" not in said
    assert validate_log(out) == []
    assert main(["validate", str(out)]) == 0
    assert "every propensity the logging policy's own)" in capsys.readouterr().out
    log = read_log(out)
    assert log.recipe["policy"] == "softmax-learned" and log.recipe["temperature"] == 0.5
    described = json.loads((out / "log.json").read_text())
    assert described["fitted_with"] == {"scikit-learn": metadata.version("scikit-learn")}
    card = (out / "README.md").read_text()
    assert "softmax-learned at temperature 0.5" in card and "not the true P(open)" in card
    assert main(["log", str(split), "--policy", "softmax", "--users", "1", "--out", str(tmp_path / "s")]) == 0
    assert "--policy softmax-learned logs propensities that reveal nothing hidden" in capsys.readouterr().out
    assert "temperature * log(propensity of a / propensity of hold) is the true P(open)" in \
        (tmp_path / "s" / "README.md").read_text()
    assert "fitted_with" not in json.loads((tmp_path / "s" / "log.json").read_text())


@pytest.mark.parametrize(("args", "message"), [
    (["--temperature", "0.05"], "0.05 is below 0.1, the lowest temperature"),
    (["--temperature", "nan"], "'nan' is not a finite number"),
    (["--temperature", "cold"], "'cold' is not a valid number"),
])
def test_a_bad_temperature_is_one_line_and_writes_nothing(split, tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["log", str(split), "--policy", "softmax-learned", "--out", str(out), *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error
    assert list(tmp_path.iterdir()) == []


def test_without_scikit_learn_the_policy_names_the_install(split, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", None)
    out = tmp_path / "out"
    assert main(["log", str(split), "--policy", "softmax-learned", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "--policy softmax-learned needs scikit-learn: pip install" in error and "[ml]" in error
    assert error.count("\n") == 1 and "Traceback" not in error and list(tmp_path.iterdir()) == []
    with pytest.raises(ImportError, match=r"the softmax-learned policy needs scikit-learn: pip install .*ml"):
        log_policy(split, "softmax-learned", users=1)


def test_validate_refuses_an_unknown_logging_policy(split, tmp_path):
    import json

    from pushgen.data.outputs import file_listing
    from pushgen.ope import write_log
    from pushgen.ope.card import log_croissant
    from pushgen.ope.folder import TABLES

    out = tmp_path / "log"
    write_log(log_policy(split, "uniform", users=1), out)
    described = json.loads((out / "log.json").read_text())
    described["recipe"]["policy"] = "oracle"
    described["files"] = file_listing(out, exclude=("log.json", "README.md", "croissant.json"))
    (out / "log.json").write_text(json.dumps(described))
    croissant = log_croissant(out, described, TABLES, ("log.json", "README.md"))
    (out / "croissant.json").write_text(json.dumps(croissant))  # described again, as a forger would
    assert validate_log(out) == ["log.json: unknown logging policy 'oracle'; policies: uniform, softmax, "
                                 "softmax-learned"]


def test_a_learned_log_fitted_by_another_scikit_learn_is_checked_but_not_recomputed(split, tmp_path, capsys,
                                                                                     monkeypatch):
    from pushgen.ope import folder, write_log

    out = tmp_path / "learned"
    write_log(log_policy(split, "softmax-learned", users=1), out)
    installed = metadata.version("scikit-learn")
    monkeypatch.setattr(folder.metadata, "version", lambda name: "0.1")
    assert validate_log(out) == []
    assert main(["validate", str(out)]) == 0
    assert (f"propensities sum to 1 per round; not recomputed: its model was fitted with scikit-learn "
            f"{installed}, and 0.1 is installed)") in capsys.readouterr().out
