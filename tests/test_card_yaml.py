"""The cards' YAML front matter is written by libyaml only where it writes PyYAML's own bytes."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.publishing.cards.hub import dumper_for, render

ASCII = st.characters(min_codepoint=32, max_codepoint=126)
KEYS = st.text(ASCII, min_size=1, max_size=30)
SCALARS = st.one_of(st.text(ASCII, max_size=120), st.integers(-10**12, 10**12), st.booleans())
DATA = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS, inner, max_size=4), max_leaves=20)


@pytest.mark.skipif(not getattr(yaml, "__with_libyaml__", False), reason="PyYAML without libyaml")
@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, DATA, max_size=6))
def test_plain_ascii_front_matter_is_what_pyyaml_writes(data: dict) -> None:
    assert dumper_for(data) is yaml.CDumper
    expected = yaml.dump(data, Dumper=yaml.Dumper, sort_keys=False, allow_unicode=True).strip()
    assert render(data, "body") == f"---\n{expected}\n---\n\nbody"


@pytest.mark.parametrize("data", [{"": []}, {"name": "\U00010000"}, {"name": "caf\u00e9"}, {"tab": "a\tb"},
                                  {"number": 1.5}, {"nothing": None}])
def test_other_data_is_written_by_pyyaml_itself(data: dict) -> None:
    assert dumper_for(data) is yaml.Dumper
    expected = yaml.dump(data, Dumper=yaml.Dumper, sort_keys=False, allow_unicode=True).strip()
    assert render(data, "body") == f"---\n{expected}\n---\n\nbody"
