from __future__ import annotations

import numpy as np
import pytest

from pushgen import schemas
from pushgen.model.catalog import app_catalog
from pushgen.model.channels import KIND_CHANNELS
from pushgen.model.feasibility import channel_of, is_possible


def codes_of(**values):
    return {f: np.array([schemas.field(f).code(values[f])]) for f in schemas.NOTIFICATION_FEATURES}


WHATSAPP_MESSAGE = dict(postingApp="com.whatsapp", category="msg", numberOfUpdates="none",
                        subject="text & instant messaging", priority="high", ongoing=False,
                        visibility="private")


def everyone() -> np.ndarray:
    return np.ones(len(schemas.values("postingApp")), dtype=bool)


def test_a_whatsapp_message_is_possible_for_a_user_with_whatsapp_only():
    codes = codes_of(**WHATSAPP_MESSAGE)
    assert is_possible(codes, everyone())[0]
    nobody = everyone()
    nobody[schemas.field("postingApp").code("com.whatsapp")] = False
    assert not is_possible(codes, nobody)[0]


@pytest.mark.parametrize("change", [
    {"category": "transport"}, {"priority": "min"}, {"visibility": "secret"}, {"ongoing": True},
    {"subject": "air travel"}, {"category": "email"},
])
def test_changing_one_fixed_field_of_a_channel_makes_it_impossible(change):
    assert channel_of(codes_of(**{**WHATSAPP_MESSAGE, **change}))[0] == -1


def test_every_generated_notification_is_possible_for_its_user(small):
    codes = {f: schemas.field(f).codes(small.notifications[f].tolist())
             for f in schemas.NOTIFICATION_FEATURES}
    params = small.parameters
    has_app = params.has_app[params.rows(small.notifications["user_id"].to_numpy())]
    assert is_possible(codes, has_app).all()


def test_apps_post_through_few_channels_each_fixing_its_fields(population):
    frame = population.notifications
    combos = frame.groupby("postingApp", observed=True)[["category", "priority", "visibility", "ongoing"]]
    for app, rows in combos:
        if len(rows) < 200:
            continue
        shares = rows.value_counts(normalize=True).to_numpy()
        assert shares[:3].sum() >= 0.8, app


def test_every_kind_names_valid_values_and_distinct_channels():
    table = app_catalog().channels
    assert len(table.names) == len(set(table.names))
    for kind, channels in KIND_CHANNELS.items():
        assert sum(c.share for c in channels if not c.triggered) == pytest.approx(1.0), kind
    assert (table.subjects.sum(axis=1) > 0).all()


def test_the_model_document_lists_the_channels_the_code_has():
    from pathlib import Path

    from pushgen.model.tables_doc import refresh

    document = (Path(__file__).resolve().parent.parent / "docs" / "model.md").read_text()
    assert refresh(document) == document, "docs/model.md is stale: run python scripts/model_docs.py"
    assert "| messaging | messages | 0.86 | msg | high | private | False |" in document


def test_channel_of_finds_every_channel_in_rows_and_in_a_column():
    table = app_catalog().channels
    codes = {"postingApp": table.app, "category": table.category, "priority": table.priority,
             "visibility": table.visibility, "ongoing": table.ongoing,
             "subject": np.argmax(table.subjects, axis=1), "numberOfUpdates": table.usual_updates}
    every_channel = np.arange(len(table.app))
    np.testing.assert_array_equal(channel_of(codes), every_channel)
    np.testing.assert_array_equal(channel_of({f: c[:, None] for f, c in codes.items()})[:, 0], every_channel)
    codes["subject"] = np.argmin(table.subjects, axis=1)  # a subject no channel carries
    assert (channel_of(codes) == -1).all()


@pytest.mark.parametrize("convert", [
    lambda c: c.astype(np.int16), lambda c: c.astype(">i8"), lambda c: c.astype(np.uint64),
    lambda c: c.astype(np.uint8), lambda c: c.astype(np.float64),
], ids=["int16", "big-endian", "uint64", "uint8", "float"])
def test_channel_of_gives_the_same_channels_whatever_the_codes_type_and_mix(convert):
    table = app_catalog().channels
    codes = {"postingApp": table.app, "category": table.category, "priority": table.priority,
             "visibility": table.visibility, "ongoing": table.ongoing,
             "subject": np.argmax(table.subjects, axis=1), "numberOfUpdates": table.usual_updates}
    expected = channel_of(codes)
    converted = {f: convert(np.asarray(c)) for f, c in codes.items()}
    np.testing.assert_array_equal(channel_of(converted), expected)
    read_only = dict(converted)
    read_only["subject"] = read_only["subject"].copy()
    read_only["subject"].flags.writeable = False  # e.g. an Arrow column's zero-copy view beside numpy arrays
    np.testing.assert_array_equal(channel_of(read_only), expected)
    assert is_possible(read_only, everyone()).all()


@pytest.mark.parametrize(("codes", "has_app", "error", "message"), [
    ({"postingApp": np.array([0])}, everyone(), ValueError,
     "codes must hold the 7 notification features (postingApp, category, numberOfUpdates, subject, "
     "priority, ongoing, visibility); 'category' is missing"),
    ({**codes_of(**WHATSAPP_MESSAGE), "postingApp": np.array([999])}, everyone(), IndexError,
     "codes of postingApp must be from 0 to 105; got values from 999 to 999"),
    (codes_of(**WHATSAPP_MESSAGE), None, ValueError,
     "has_app must be booleans over the 106 app codes, one user's (106,) or one row per notification "
     "(1, 106); got shape ()"),
    (codes_of(**WHATSAPP_MESSAGE), np.ones(5, dtype=bool), ValueError, "got shape (5,)"),
])
def test_is_possible_names_what_is_wrong_with_its_arguments(codes, has_app, error, message):
    with pytest.raises(error) as raised:
        is_possible(codes, has_app)
    assert message in str(raised.value)


def test_is_possible_takes_the_apps_per_notification_and_as_zeros_and_ones():
    codes = codes_of(**WHATSAPP_MESSAGE)
    assert is_possible(codes, everyone()[None, :])[0]
    assert is_possible(codes, everyone().astype(np.int8))[0]
