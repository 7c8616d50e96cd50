"""The reading commands take the same kinds of source: a folder or a standard split's name, or say
in one line why not; the help's examples name current standard splits."""

from __future__ import annotations

import re

from click.testing import CliRunner

from pushgen.commands import cli, main
from pushgen.publishing.registry import list_splits


def test_validate_takes_a_standard_splits_name(capsys):
    assert main(["validate", "pushgen-mini-v4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("valid: ") and "(split, 6 parts" in out


def test_an_unknown_name_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command in ("validate", "describe"):
        assert main([command, "no-such-split"]) == 2
        err = capsys.readouterr().err
        assert err == (f"pushgen {command}: error: no-such-split does not exist, and no standard split has "
                       "that name (`pushgen list` shows them)\n")


def test_describe_says_in_one_line_why_a_split_is_not_described(capsys):
    assert main(["describe", "pushgen-mini-v4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("pushgen describe: error: pushgen-mini-v4 is a split: describe reads a dataset")
    assert "`pushgen report pushgen-mini-v4`" in err


def test_the_help_names_only_current_standard_splits():
    superseded = {s.label for s in list_splits() if any(o.supersedes == s.label for o in list_splits())}
    assert {"pushgen-v1", "pushgen-v2"} <= superseded
    runner = CliRunner()
    for name in cli.commands:
        text = runner.invoke(cli, [name, "--help"]).output
        named = set(re.findall(r"pushgen(?:-mini)?-v\d+", text))
        assert not named & superseded, (name, named & superseded)
