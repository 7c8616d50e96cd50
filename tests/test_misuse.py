"""What users do wrong, found by using pushgen as a new user would: each case is one line (a
command) or one clear exception (the library), never a traceback or a silent surprise."""

from __future__ import annotations

import pytest
from fault_cases import Command, Damage, check, damaged_copy, made_folders, run_cli

VALIDATE = Command("pushgen validate", args=lambda d, s: ["validate", str(d)], codes=(1, 2))


@pytest.mark.parametrize("damage", [
    Damage("json-set", "split.json", path=("parts", "task1/test"), value=None),
    Damage("json-set", "split.json", path=("parts", "task1/validation"), value=-3),
    Damage("json-set", "split.json", path=("parts", "task1/test"), value=[]),
    Damage("json-set", "split.json", path=("files", "users.parquet"), value=None),
    Damage("json-set", "split.json", path=("files", "task1/train.parquet"), value="x"),
    Damage("json-deep-array", "split.json"),
], ids=str)
def test_validate_of_a_split_json_with_entries_of_another_type_lists_the_problem(damage):
    _, split = made_folders()
    assert check(VALIDATE, split, damage) is None


def validate_after(damage: Damage):
    _, split = made_folders()
    with damaged_copy(split, damage) as (copy, _):
        return run_cli(["validate", str(copy)])


def test_validate_names_the_split_json_entry_that_is_not_an_object():
    outcome = validate_after(Damage("json-set", "split.json", path=("parts", "task1/test"), value=None))
    assert outcome.code == 1 and not outcome.escaped
    assert "split.json: the part task1/test must give its rows and users as whole numbers" in outcome.out
    outcome = validate_after(Damage("json-set", "split.json", path=("files", "users.parquet"), value=None))
    assert (outcome.code, outcome.out) == (
        1, "split.json: the entry of users.parquet must give its bytes and sha256\n")
