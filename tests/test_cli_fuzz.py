"""Any arguments to any command: a result, or one line and exit code 2 (``validate``: 1), never a
traceback, and nothing written. The long-running work behind ``make``, ``split``, ``download``,
``benchmark`` and ``report`` is replaced by a stop once the arguments have been checked."""

from __future__ import annotations

import pytest
from fault_cases import made_folders, run_cli, snapshot, submission_for
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.cli import cli
from pushgen.data.dataset import DatasetError

STOPPED = "stopped: the arguments were accepted"
VALUES = ("0", "1", "2", "-1", "-0", "3.5", "1e3", "0x10", "nan", "99999999999999999999999", "", "-", "--",
          "x", "é📱", "2026-01-05", "2026-02-30", "v1", "v0", "pushgen-mini-v4", "pushgen-v1", "pushgen",
          "random,oracle", "random,,", "expected", "sampled", "csv", "parquet", "local", "dask",
          "tcp://127.0.0.1:9", "a" * 300)


def stop(*args, **kwargs):
    raise DatasetError(STOPPED)


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Paths the arguments may name: real outputs, a file, an empty folder, nothing."""
    dataset, split = made_folders()
    root = tmp_path_factory.mktemp("fuzz")
    (root / "empty").mkdir()
    (root / "file.txt").write_text("not a table")
    return {"dataset": dataset, "split": split, "submission": submission_for(split), "root": root,
            "paths": [str(p) for p in (dataset, split, submission_for(split), root / "empty",
                                       root / "file.txt", root / "missing", dataset / "manifest.json")]}


@pytest.fixture(scope="module")
def stopped_work(places):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(places["root"])
        patch.setenv("PUSHGEN_CACHE", str(places["root"] / "cache"))
        patch.setenv("PUSHGEN_DATA_URL", "http://127.0.0.1:9")
        for target in ("pushgen.data.build.building", "pushgen.splits.make_split",
                       "pushgen.publishing.download.fetch_split", "pushgen.benchmark.run_benchmark",
                       "pushgen.report.write_report", "pushgen.ope.log.log_policy"):
            patch.setattr(target, stop)
        yield


def arguments(command: str, paths: list[str]) -> st.SearchStrategy[list[str]]:
    options = sorted({opt for param in cli.commands[command].params for opt in param.opts
                      if opt.startswith("-")} | {"--help", "--no-such-option"})
    token = st.one_of(st.sampled_from(options), st.sampled_from(VALUES), st.sampled_from(paths),
                      st.text(max_size=8))
    return st.lists(token, max_size=7).map(lambda tokens: [command, *tokens])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_any_arguments_give_a_result_or_one_line(places, stopped_work, data):
    command = data.draw(st.sampled_from(sorted(cli.commands)), label="command")
    args = data.draw(arguments(command, places["paths"]), label="args")
    before = {name: snapshot(places[name]) for name in ("dataset", "split", "root")}
    outcome = run_cli(args)
    assert not outcome.escaped, outcome.escaped
    assert "Traceback" not in outcome.err + outcome.out
    assert outcome.code in ((0, 1, 2) if command == "validate" else (0, 2)), outcome.err
    if outcome.code != 0:
        assert len(outcome.error_lines) == 1, outcome.err
    assert {name: snapshot(places[name]) for name in before} == before


@pytest.mark.parametrize("args", [
    ["make", "--users", "2", "--days", "3", "--jobs", "2"],
    ["split", "{dataset}", "--train-months", "1", "--test-months", "1"],
    ["download", "pushgen-mini-v4", "--regenerate"],
    ["benchmark", "--split", "{split}", "--baselines", "random", "--no-plots"],
    ["report", "{dataset}", "--out", "{root}/r.html"],
    ["log", "{split}", "--users", "1", "--policy", "softmax", "--temperature", "0.5"],
    ["log", "{split}", "--users", "1", "--policy", "softmax-learned"],
])
def test_good_arguments_reach_the_work(places, stopped_work, args):
    outcome = run_cli([a.format(**places) for a in args])
    assert outcome.code == 2 and outcome.error_lines[-1].endswith(STOPPED), outcome.err + outcome.escaped


def test_evaluate_with_good_arguments_scores(places, stopped_work):
    outcome = run_cli(["evaluate", "--split", str(places["split"]), "--submission", str(places["submission"]),
                       "--json"])
    assert outcome.code == 0, outcome.err + outcome.escaped
    assert '"task": 1' in outcome.out
