"""The kernels compiled ahead of time: pushgen's own processes generate with them without
starting numba, the same data as numba's JIT; a call is matched to a variant by exactly the types
numba gives its arguments; an extension built from other kernel sources is never used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core import sigutils

import pushgen
from pushgen.model import ahead_of_time, compiled, kernel_signatures
from pushgen.model.ahead_of_time_build import signature_text, type_key

ROOT = Path(__file__).resolve().parents[1]
RECIPE = dict(users=3, days=28, seed=7)

INSTALLED = f"""
import json, sys
import numpy as np
from pushgen import own_process
own_process.start()
import pushgen
from pushgen.model import compiled
from pushgen.model.engagement_kernel import autoregression
dataset = pushgen.generate(**{RECIPE!r})
dataset.notifications.to_parquet("notifications.parquet")
dataset.users.to_parquet("users.parquet")
state = {{"numba_after_generating": "numba" in sys.modules,
          "kernels_with_variants": sum(bool(k.variants()) for k in compiled._kernels),
          "kernels": len(compiled._kernels)}}
shocks = np.array([1.0, -2.0, 0.5], dtype=np.float32)  # no variant takes float32 shocks
state["fallback"] = autoregression(shocks, 0.5).tolist()
state["numba_after_fallback"] = "numba" in sys.modules
print(json.dumps(state))
"""


def test_the_installed_program_generates_without_numba_the_same_data_as_numba(tmp_path):
    """Run in the installed pushgen (not this checkout's modules: the extension is built at
    install), against numba's JIT in this process."""
    run = subprocess.run([sys.executable, "-c", INSTALLED], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    state = json.loads(run.stdout.splitlines()[-1])
    assert state["kernels_with_variants"] == len(kernel_signatures.SIGNATURES), (
        "the installed pushgen has no kernels compiled ahead of time: was it built with a C compiler?")
    assert state["numba_after_generating"] is False
    assert state["numba_after_fallback"] is True
    np.testing.assert_allclose(state["fallback"], [1.0, -1.5, -0.25])
    assert not compiled._ahead_of_time  # this process: numba's JIT
    dataset = pushgen.generate(**RECIPE)
    for table in ("notifications", "users"):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / f"{table}.parquet"), getattr(dataset, table),
                                      check_exact=True)


def test_the_declared_signatures_are_those_generation_calls():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "kernel_signatures.py"), "--check"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert (run.returncode, run.stdout.strip()) == (0, "kernel signatures up to date"), run.stderr


@pytest.mark.parametrize("kernel", sorted(kernel_signatures.SIGNATURES))
def test_each_declared_signature_reads_back_as_written(kernel):
    for text in kernel_signatures.SIGNATURES[kernel]:
        arguments, returned = sigutils.normalize_signature(text)
        assert f"{signature_text(returned)}({', '.join(map(signature_text, arguments))})" == text


DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint64, np.float32, np.float64]


@st.composite
def arrays(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    array = np.zeros(shape, dtype=dtype, order=draw(st.sampled_from("CF")))
    if array.ndim and draw(st.booleans()):
        array = array[::2]  # strided: neither C nor F ordered when more than one row remains
    if draw(st.booleans()):
        array.flags.writeable = False
    if draw(st.booleans()) and array.ndim == 1 and array.dtype.itemsize > 1:
        raw = np.zeros(array.nbytes + 1, dtype=np.uint8)[1:]  # the same values, unaligned
        array = raw.view(array.dtype)
    return array


SCALARS = st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                    st.sampled_from([np.float32(1.5), np.int16(3), np.bool_(True), np.uint64(7)]))
ARGUMENTS = st.recursive(st.one_of(arrays(), SCALARS), lambda inner: st.lists(inner, min_size=1, max_size=3)
                         .map(tuple), max_leaves=6)


@settings(max_examples=200, deadline=None)
@given(arguments=st.lists(ARGUMENTS, max_size=4))
def test_a_call_is_keyed_by_the_types_numba_gives_its_arguments(arguments):
    assert ahead_of_time.argument_key(arguments) == tuple(
        type_key(numba.typeof(argument)) for argument in arguments)


def test_calls_in_another_order_or_dtype_have_another_key():
    c_order = np.zeros((2, 3))
    keys = {ahead_of_time.argument_key((array,)) for array in (
        c_order, np.asfortranarray(c_order), c_order.astype(np.float32), c_order[:, ::2], c_order[0])}
    assert len(keys) == 5


def _extension_at(monkeypatch, path: Path) -> None:
    """As if the extension were built at ``path`` (found there, not imported)."""
    spec = SimpleNamespace(origin=str(path), name=f"pushgen.model.{ahead_of_time.EXTENSION}")
    monkeypatch.setattr(ahead_of_time.importlib.util, "find_spec", lambda name: spec)


@pytest.mark.parametrize("without", ["sources", "the same sources", "its table"])
def test_an_extension_built_from_other_kernel_sources_is_not_used(monkeypatch, tmp_path, without):
    """Nor one whose sources cannot be read (an install of .pyc files only), nor one without the
    table built with it (another Python's build writes only its own)."""
    (tmp_path / "_kernels.abi.json").write_text(json.dumps({"digest": ahead_of_time.source_digest(),
                                                            "kernels": {}}))
    _extension_at(monkeypatch, tmp_path / "_kernels.abi.so")
    if without == "sources":
        monkeypatch.setattr(ahead_of_time, "kernel_sources", lambda folder=None: [tmp_path / "gone.py"])
    elif without == "the same sources":
        monkeypatch.setattr(ahead_of_time, "source_digest", lambda folder=None: "other sources")
    else:
        _extension_at(monkeypatch, tmp_path / "_kernels.other-abi.so")
    ahead_of_time.compiled_variants.cache_clear()
    try:
        assert ahead_of_time.compiled_variants() is None
    finally:
        monkeypatch.undo()
        ahead_of_time.compiled_variants.cache_clear()


def test_an_extension_is_used_with_its_own_table(monkeypatch, tmp_path):
    (tmp_path / "_kernels.abi.json").write_text(json.dumps(
        {"digest": ahead_of_time.source_digest(), "kernels": {"k.f": [[[["<f8", 1, "C", True]], "f"]]}}))
    _extension_at(monkeypatch, tmp_path / "_kernels.abi.so")
    monkeypatch.setattr(ahead_of_time.importlib, "import_module", lambda name: SimpleNamespace(f=len))
    ahead_of_time.compiled_variants.cache_clear()
    try:
        assert ahead_of_time.compiled_variants() == {"k.f": {(("<f8", 1, "C", True),): len}}
    finally:
        monkeypatch.undo()
        ahead_of_time.compiled_variants.cache_clear()


def test_the_source_digest_changes_with_any_kernel_source(tmp_path):
    for path in ahead_of_time.kernel_sources():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert ahead_of_time.source_digest(tmp_path) == ahead_of_time.source_digest()
    for path in ahead_of_time.kernel_sources(tmp_path):
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert ahead_of_time.source_digest(tmp_path) != ahead_of_time.source_digest()
        path.write_bytes(original)
