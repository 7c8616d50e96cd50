"""Every name that README.md and docs/ tell users to use exists where they say it is: an error
the docs say to catch must not be an AttributeError at the moment it arrives."""

from __future__ import annotations

import pytest
from fault_families import documented_names, resolve


def test_the_documents_name_the_public_api():
    names = documented_names()
    assert {"pushgen.DatasetError", "pushgen.GenerationError", "pushgen.load_split"} <= names


@pytest.mark.parametrize("name", sorted(documented_names()))
def test_every_documented_name_exists(name):
    assert resolve(name) is not None


def test_the_documented_errors_are_the_ones_raised():
    import pushgen
    from pushgen.data.dataset import DatasetError
    from pushgen.data.generator import GenerationError

    assert pushgen.DatasetError is DatasetError and pushgen.GenerationError is GenerationError
    assert issubclass(pushgen.DatasetError, ValueError) and issubclass(pushgen.GenerationError, ValueError)
    with pytest.raises(pushgen.DatasetError, match="a split is a standard split's name or a split folder"):
        pushgen.load_split("")
