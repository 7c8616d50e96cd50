"""Notebook reprs: a few lines of text, and an HTML table, for what a notebook user looks at."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import pushgen

MAX_LINES, MAX_CHARS = 9, 800  # a header and a line for each standard split


def html_cells(html: str) -> list[str]:
    return re.findall(r"<t[dh](?: [^>]*)?>(.*?)</t[dh]>", html)


@pytest.fixture(scope="module")
def dataset():
    return pushgen.generate(users=3, days=7, seed=0)


def short(text: str) -> str:
    assert len(text) <= MAX_CHARS and len(text.splitlines()) <= MAX_LINES, text
    return text


def test_a_dataset_shows_its_size_and_open_rate(dataset):
    frame = dataset.notifications
    rate = (frame["action"] == "opened").mean()
    text = short(repr(dataset))
    assert text.startswith("<Dataset: 3 users, 7 days from 2026-01-05 (7 days), seed 0\n")
    assert f"{len(frame):,} notifications (open rate {rate:.1%})" in text
    cells = html_cells(dataset._repr_html_())
    assert cells[cells.index("notifications") + 1] == f"{len(frame):,}"
    assert cells[cells.index("open rate") + 1] == f"{rate:.1%}"


def test_a_split_shows_its_parts():
    split = pushgen.load_split("pushgen-mini-v4", task=1)
    text = short(repr(split))
    assert text.startswith("<Split pushgen-mini-v4, task 1: 4 users in users.parquet\n")
    for part in ("train", "validation", "test"):
        frame = getattr(split, part)
        assert f"{part} {len(frame):,} rows ({frame['user_id'].nunique()} users)" in text
    cells = html_cells(split._repr_html_())
    assert cells[:3] == ["part", "rows", "users"]
    assert cells[3:6] == ["train", f"{len(split.train):,}", str(split.train["user_id"].nunique())]


def test_the_standard_splits_show_as_a_table():
    splits = pushgen.list_splits()
    lines = short(repr(splits)).splitlines()
    assert lines[0].split() == ["split", "users", "cold", "start", "months", "size", "status"]
    assert [line.split()[0] for line in lines[1:]] == [s.label for s in splits]
    assert "pushgen-mini-v4" in short(repr(splits[-1]))
    assert html_cells(splits._repr_html_()).count("current") == sum(line.endswith("current")
                                                                     for line in lines[1:])
    assert isinstance(splits, list) and splits == sorted(splits, key=lambda s: (s.name, s.version))


def test_an_evaluation_shows_its_headline_first():
    split = pushgen.load_split("pushgen-mini-v4", task=1)
    logged = pd.read_parquet(Path(__file__).resolve().parents[1] / "generated" / "pushgen-mini" / "v4"
                             / "scorer" / "task1" / "test.parquet")
    result = pushgen.evaluate("pushgen-mini-v4", submission=logged)
    text = short(repr(result))
    assert text.startswith(f"<Evaluation split pushgen-mini-v4, task 1, mode expected: "
                           f"{split.test['user_id'].nunique()} users")
    assert f"mean reward {result.score['mean_reward']:.4f}, 95% interval" in text
    cells = html_cells(result._repr_html_())
    assert "mean over users" in cells and "pooled over rows" in cells


def test_counts_take_their_number():
    one = pushgen.generate(users=1, months=1, seed=0)
    assert repr(one).startswith("<Dataset: 1 user, 1 month from ")
    assert "1 users" not in repr(one) and "1 months" not in repr(one)


def test_a_bandit_log_shows_a_summary_not_its_tables():
    from pushgen.ope import UniformPolicy, estimate_all, log_policy

    log = log_policy("pushgen-mini-v4", "uniform", users=1, seed=0)
    text = short(repr(log))
    assert text.startswith(f"<BanditLog of the uniform policy on pushgen-mini-v4: {len(log):,} rounds of "
                           "1 user\n")
    held, opened = int(log.rounds["held"].sum()), int(log.rounds["reward"].sum())
    assert f"{held:,} held, {opened:,} opened, k = 8" in text
    cells = html_cells(log._repr_html_())
    assert cells[cells.index("rounds") + 1] == f"{len(log):,}"
    estimate = estimate_all(log.feedback(UniformPolicy()))["IPW"]
    assert all(type(getattr(estimate, f)) is float for f in ("value", "low", "high", "effective_rounds"))
    assert "np.float64" not in repr(estimate)


def test_benchmark_results_show_the_best_baseline_per_task():
    from pushgen.benchmark.selection import run_selection

    results = pushgen.run_benchmark("pushgen-mini-v4", tasks=[1], baselines=["random", "best-fixed-overall"])
    text = short(repr(results))
    board = results.per_user.groupby("baseline")["mean_reward"].mean()
    assert text.startswith("<Results split pushgen-mini-v4, mode expected, seed 0: task 1, 2 baselines\n")
    assert f"task 1: best {board.idxmax()} (mean reward {board.max():.4f})" in text
    cells = html_cells(results._repr_html_())
    assert cells[:5] == ["task", "baseline", "users", "mean reward", "1"]
    assert cells[5] == board.idxmax()
    selection = run_selection("pushgen-mini-v4", ["random", "slot-0"])
    text = short(repr(selection))
    assert text.startswith("<SelectionResults task 2, k = 8, mode expected: 2 baselines on 1 user\n best ")
    best = selection.per_user.groupby("baseline")["mean_reward"].mean().idxmax()
    assert f" best {best} (mean reward " in text
    assert html_cells(selection._repr_html_())[:4] == ["baseline", "users", "mean reward", best]


def test_the_environments_show_what_they_play():
    import gymnasium as gym

    from pushgen.envs import GENERATION_ID, SELECTION_ID

    made = gym.make(SELECTION_ID, split="pushgen-mini-v4", k=4, cost=0.1)
    env = made.unwrapped
    headline = "NotificationSelectionEnv on task 2's test part of split pushgen-mini-v4"
    assert repr(made) == f"<OrderEnforcing<PassiveEnvChecker<{headline}>>>"  # gymnasium's wrappers
    text = short(repr(env))
    assert text.startswith(f"<{headline}\n user {env.user} (one of the part's 1 user), step 0 of "
                           f"{len(env.episode):,}, mode sampled,")  # the default learners play
    assert "candidates per context 4" in text and "cost 0.1" in text and "0x" not in text
    env.reset(seed=0)
    env.step(env.hold)
    assert f"step 1 of {len(env.episode):,}" in repr(env)
    cells = html_cells(env._repr_html_())
    assert cells[cells.index("mode") + 1] == "sampled" and cells[cells.index("stationary") + 1] == "no"
    generation = gym.make(GENERATION_ID, split="pushgen-mini-v4", task=1, user=1, mode="sampled").unwrapped
    text = short(repr(generation))
    assert text.startswith("<NotificationGenerationEnv on task 1's test part of split pushgen-mini-v4\n"
                           " user 1 (one of the part's 3 users), step 0 of ")
    assert "mode sampled, actions Dict of 7 codes>" in text


def test_the_vector_environments_and_the_sb3_adapter_show_their_users():
    import gymnasium as gym

    from pushgen.envs import GENERATION_ID, SELECTION_ID

    vector = gym.make_vec(SELECTION_ID, num_envs=5, vectorization_mode="vector_entry_point",
                          split="pushgen-mini-v4", task=1, stationary=True)
    headline = "NotificationSelectionVectorEnv on task 1's test part of split pushgen-mini-v4"
    text = short(repr(vector))
    assert text.startswith(f"<{headline}\n environments 5, users 0, 1, 2 (3 of the part's 3 users), "
                           "mode sampled,")
    assert "stationary yes" in text and str(vector) == f"<{headline}>"
    generation = gym.make_vec(GENERATION_ID, num_envs=2, vectorization_mode="vector_entry_point",
                              split="pushgen-mini-v4", task=1, users=[2], flat_actions=True)
    assert "users 2 (one of the part's 3 users)" in repr(generation)
    assert "actions flat (MultiDiscrete of 7 codes)" in repr(generation)
    pytest.importorskip("stable_baselines3")
    from pushgen.envs.sb3 import SB3VecEnv

    adapter = SB3VecEnv(vector)
    assert short(repr(adapter)).startswith(f"<SB3VecEnv (stable-baselines3) of {headline}\n environments 5, ")
    assert html_cells(adapter._repr_html_()) == html_cells(vector._repr_html_())


def test_an_environment_without_a_reward_mode_shows_none():
    import gymnasium as gym

    from pushgen.envs import INBOX_ID

    env = gym.make(INBOX_ID, split="pushgen-mini-v4", task=1, user=1).unwrapped
    assert env.mode is None
    text = short(repr(env))
    assert text.startswith("<NotificationInboxEnv on task 1's test part of split pushgen-mini-v4\n user 1 ")
    assert "mode" not in text
    env.close()
