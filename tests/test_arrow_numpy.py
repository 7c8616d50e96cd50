"""Arrow arrays built from NumPy buffers are the arrays pyarrow's own conversions build, and the
NumPy views of Arrow columns hold their values; a make imports no pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pushgen.data.arrow_numpy import array, dictionary, lists, numpy, strings, to_numpy, viewable

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.float32, np.float64,
          np.bool_, "datetime64[ms]"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DTYPES).flatmap(
    lambda dtype: hnp.arrays(dtype, st.integers(0, 70), elements={"allow_nan": True}
                             if np.dtype(dtype).kind == "f" else None)))
def test_array_is_the_array_pyarrow_builds(values: np.ndarray) -> None:
    if values.dtype.kind == "M" and np.isnat(values).any():
        with pytest.raises(ValueError, match="NaT"):
            array(values)
        values = values[~np.isnat(values)]
    built = array(values)
    expected = pa.array(values)
    assert built.type == expected.type
    assert built.null_count == 0
    assert built.equals(expected) or np.isnan(values.astype(float)).any()
    np.testing.assert_array_equal(numpy(built), values)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, st.integers(0, 40)), st.integers(0, 40), st.integers(0, 40))
def test_numpy_views_a_slice_of_any_offset(values: np.ndarray, start: int, length: int) -> None:
    whole = pa.array(values)
    part = whole.slice(start, length)
    np.testing.assert_array_equal(numpy(part), values[start:start + length])
    np.testing.assert_array_equal(numpy(pa.chunked_array([whole, part])),
                                  np.concatenate([values, values[start:start + length]]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), max_size=50), st.integers(0, 50))
def test_booleans_round_trip_through_bits_at_any_offset(flags: list[bool], start: int) -> None:
    built = array(np.array(flags, dtype=bool))
    assert built.equals(pa.array(flags, type=pa.bool_()))
    np.testing.assert_array_equal(numpy(built.slice(start)), np.array(flags[start:], dtype=bool))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=30))
def test_strings_are_the_array_pyarrow_builds(texts: list[str]) -> None:
    assert strings(texts).equals(pa.array(texts, type=pa.string()))


def test_a_type_casts_the_values_and_dictionaries_and_lists_match_pyarrow() -> None:
    assert array(np.array([1, 2, 3]), pa.int8()).equals(pa.array([1, 2, 3], type=pa.int8()))
    assert array(np.array([0, 1, 0]), pa.bool_()).equals(pa.array([False, True, False]))
    assert dictionary(np.array([1, 0, 1]), ("a", "b")).equals(
        pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], type=pa.int16()), pa.array(["a", "b"])))
    assert lists(np.array([2, 0, 1]), strings(["x", "y", "z"])).equals(
        pa.array([["x", "y"], [], ["z"]], type=pa.list_(pa.string())))


def test_columns_numpy_cannot_view_are_refused_or_left_to_pyarrow() -> None:
    with_nulls = pa.array([1, None, 3])
    assert not viewable(with_nulls) and not viewable(pa.array(["a"]))
    with pytest.raises(ValueError, match="nulls"):
        numpy(with_nulls)
    with pytest.raises(TypeError, match="Arrow type string"):
        numpy(pa.array(["a"]))
    with pytest.raises(TypeError, match="NumPy dtype <U1"):
        array(np.array(["a"]))
    with pytest.raises(ValueError, match="got 2 dimensions"):
        array(np.zeros((2, 2)))
    np.testing.assert_array_equal(to_numpy(with_nulls), [1.0, np.nan, 3.0])


def test_make_simulates_and_writes_without_pandas(tmp_path) -> None:
    """pandas (about 45 MiB) comes in only for the card's statistics, after every data file is written."""
    script = ("import sys\nimport pushgen.commands as commands\nfrom pushgen.publishing import standard\n"
              "original = standard.write_dataset_metadata\n"
              "def metadata(built):\n"
              "    print('pandas before the card:', 'pandas' in sys.modules)\n"
              "    original(built)\n"
              "standard.write_dataset_metadata = metadata\n"
              "from pushgen.cli import main\n"
              f"main(['make', '--users', '3', '--days', '4', '--out', {str(tmp_path / 'made')!r}, '-q'])\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "pandas before the card: False" in run.stdout.splitlines()
    assert (tmp_path / "made" / "README.md").is_file()
