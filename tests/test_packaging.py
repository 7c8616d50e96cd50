from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

from pushgen import schemas

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "evalumap2019-features.json"


def test_schemas_hold_exactly_the_published_names_and_values():
    if not REFERENCE.is_file():
        pytest.skip("the published reference is not beside this checkout")
    reference = json.loads(REFERENCE.read_text())
    published = {
        name: spec["values"]
        for section in ("notification", "context", "context_optional", "engagement")
        for name, spec in reference[section].items()
    }
    assert set(schemas.fields()) == set(published)
    for name, values in published.items():
        ours = schemas.field(name).values
        assert (ours is None) == (values is None), name
        if values is not None:
            assert list(ours) == values, name


def test_feature_groups_match_the_challenge():
    assert schemas.NOTIFICATION_FEATURES == (
        "postingApp", "category", "numberOfUpdates", "subject", "priority", "ongoing", "visibility")
    assert schemas.CONTEXT_FEATURES == (
        "day", "time", "place", "activity", "noise", "batteryLevel", "charging", "headphonesIn",
        "musicActive", "proximity", "ringerMode")


def test_time_blocks_cover_every_hour_once():
    blocks = schemas.hour_to_time_block()
    time = schemas.field("time")
    assert [time.values[c] for c in blocks[[0, 5, 6, 11, 12, 16, 17, 20, 21, 23]]] == [
        "early-morning", "early-morning", "morning", "morning", "afternoon", "afternoon",
        "evening", "evening", "night", "night"]


def _installed_wheel_files() -> set[str]:
    """The files the installed wheel put in place; skips without one (none, or editable)."""
    try:
        files = metadata.files("pushgen") or []
    except metadata.PackageNotFoundError:
        pytest.skip("pushgen is not installed")
    names = {str(f) for f in files}
    if not any(n.startswith("pushgen/") and n.endswith(".py") for n in names):
        pytest.skip("an editable install: the package runs from the repository")
    return names


def test_an_installed_wheel_carries_the_schemas():
    names = _installed_wheel_files()
    for entity in schemas.ENTITIES:
        assert f"pushgen/_schemas/{entity}.schema.json" in names


def test_an_installed_wheel_is_pure_python():
    names = _installed_wheel_files()
    wheel = metadata.distribution("pushgen").read_text("WHEEL") or ""
    assert "Root-Is-Purelib: true" in wheel and "Tag: py3-none-any" in wheel, wheel
    assert not [name for name in names if name.endswith((".so", ".pyd", ".dylib"))]


def test_an_installed_wheel_carries_the_card_templates():
    names = _installed_wheel_files()
    for template in ("dataset.md", "split.md"):
        assert f"pushgen/publishing/cards/templates/{template}" in names
