"""Every tutorial runs as written, block after block in an empty folder, draws the pictures its page
shows, and reaches what its text says it shows."""

from __future__ import annotations

import subprocess
import sys

import pytest
from scripts_loader import SCRIPTS, script

tutorials = script("tutorials")


def test_there_are_the_four_tutorials_and_each_has_code():
    for name in tutorials.TUTORIALS:
        assert len(tutorials.blocks(tutorials.page(name))) >= 3, name


def test_the_scripts_take_help_and_refuse_what_they_do_not_know_before_any_work():
    """``docs_figures.py --help`` rewrote the committed pictures; ``tutorials.py`` read any word as a
    tutorial's page (a traceback for ``--help``)."""
    committed = {path: path.read_bytes() for path in tutorials.DOCS.rglob("*.png")}
    for argv, code, said in ((["docs_figures.py", "--help"], 0, "usage: docs_figures.py [-h]"),
                             (["docs_figures.py", "--width", "9"], 2, "unrecognized arguments: --width 9"),
                             (["tutorials.py", "--help"], 0, "usage: tutorials.py [-h] [NAME ...]"),
                             (["tutorials.py", "explore"], 2, "no tutorial named explore (there are")):
        done = subprocess.run([sys.executable, str(SCRIPTS / argv[0]), *argv[1:]],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == code and said in done.stdout + done.stderr, (argv, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
    assert {path: path.read_bytes() for path in tutorials.DOCS.rglob("*.png")} == committed


def run(name: str, folder) -> dict:
    namespace = tutorials.run(tutorials.page(name), folder)
    for image in tutorials.images(tutorials.page(name)):
        assert (folder / image).stat().st_size > 1000, f"{name} does not draw {image}"
        assert (tutorials.page(name).parent / image).is_file(), f"{image} is not committed beside {name}"
    return namespace


def test_explore_a_dataset(tmp_path):
    pytest.importorskip("matplotlib")
    out = run("explore-a-dataset", tmp_path)
    assert out["notifications"]["user_id"].nunique() == 5
    assert {"hours", "context"} <= set(out["drawn"])
    shown = tutorials.images(tutorials.page("explore-a-dataset"))
    assert shown == ["explore-hours.png", "explore-context.png"]


def test_task1_entry_scores_and_the_context_helps(tmp_path):
    out = run("task1-entry", tmp_path)
    submission = out["submission"]
    assert len(submission) == len(out["split"].test) and not submission.isna().any().any()
    assert out["result"].score["mean_reward"] > out["blind_result"].score["mean_reward"]


def test_selection_agent_learns_more_than_a_random_candidate(tmp_path, capsys):
    out = run("selection-agent", tmp_path)
    rates = [float(line.split("opens ")[1].split()[0]) for line in capsys.readouterr().out.splitlines()
             if " opens " in line]
    assert len(rates) == 2 and rates[1] > rates[0] + 0.1
    assert out["env"].unwrapped.k == 8


def test_off_policy_evaluation(tmp_path):
    pytest.importorskip("sklearn")
    out = run("off-policy", tmp_path)
    assert set(out["estimates"]) == {"IPW", "SNIPW", "DM", "DR"}
    assert out["estimates"]["IPW"].covers(out["truth"].value)
    assert (tmp_path / "log-uniform" / "rounds.parquet").is_file()
