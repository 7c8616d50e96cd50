from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits

import pushgen
from pushgen.model import compiled


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    """BLAS and LAPACK on one thread: small factorisations on many threads cost 100x more."""
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session", autouse=True)
def compiling_unsaid():
    """No line saying the kernels compile in the test processes: a cold cache would add it to the
    stderr (and click's mixed output) of whichever test compiles first (tests/test_compiled.py tests it)."""
    compiled.announce_compiling(False)
    yield
    compiled.announce_compiling(True)


@pytest.fixture(scope="session", autouse=True)
def stable_baselines_logs(tmp_path_factory):
    """stable-baselines3 logs into the session's temporary folder: by default every ``learn()``
    leaves a folder ``SB3-<time>`` in the system's temp dir."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield


@pytest.fixture(scope="session")
def population() -> pushgen.Dataset:
    """The default population the calibration targets speak of: 50 users x 6 months."""
    return pushgen.generate(users=50, months=6, seed=0)


@pytest.fixture(scope="session")
def small() -> pushgen.Dataset:
    return pushgen.generate(users=4, days=28, seed=7)
