"""stable-baselines3 trains on the flat-action environment unmodified, and its run is scored."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import pushgen

pytest.importorskip("stable_baselines3", reason="needs the rl extra: pip install 'pushgen[rl]'")

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def test_ppo_trains_for_2048_steps_and_its_submission_is_scored(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import train_ppo

    out = tmp_path / "ppo.parquet"
    assert train_ppo.main(["--split", "pushgen-mini-v2", "--steps", "2048", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PPO, 2048 steps on 3 users of pushgen-mini-v2: mean reward" in printed
    submission = pd.read_parquet(out)
    test = pushgen.load_split("pushgen-mini-v2", task=1).test
    assert sorted(submission["context_id"]) == sorted(test["context_id"])
    result = pushgen.evaluate("pushgen-mini-v2", task=1, submission=out)
    logged = result.overall["logged_open_rate"]
    assert -logged - 1e-9 <= result.overall["mean_reward"] <= 2.0  # within the reward table's range
    assert f"{result.overall['mean_reward']:.3f}" in printed
    sys.modules.pop("train_ppo", None)
