"""``engines.shared``: items shared by this process and a pool of workers, results back in order."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.data.engines import shared


class Recorder:
    """Squares numbers, noting who did each and how far ahead of the consumer work was handed out."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.fail_at = fail_at
        self.by_worker: list[int] = []
        self.here: list[int] = []
        self.started = 0
        self.consumed = 0
        self.most_ahead = 0
        self.lock = threading.Lock()

    def work(self, n: int) -> int:
        with self.lock:
            self.started += 1
            self.most_ahead = max(self.most_ahead, self.started - self.consumed)
        if n == self.fail_at:
            raise ValueError(f"item {n} failed")
        return n * n

    def in_worker(self, n: int) -> int:
        with self.lock:
            self.by_worker.append(n)
        return self.work(n)

    def in_here(self, n: int) -> int:
        self.here.append(n)
        return self.work(n)


def shared_results(items: list[int], workers: int, window: int, recorder: Recorder) -> list[int]:
    results = []
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        for value in shared(items, lambda n: pool.submit(recorder.in_worker, n), recorder.in_here, workers,
                            window):
            results.append(value)
            with recorder.lock:
                recorder.consumed += 1
    return results


@settings(max_examples=60, deadline=None)
@given(count=st.integers(0, 40), workers=st.integers(0, 4), window=st.integers(1, 8))
def test_every_item_comes_back_once_in_order_within_the_window(count, workers, window):
    recorder = Recorder()
    items = list(range(count))
    assert shared_results(items, workers, window, recorder) == [n * n for n in items]
    assert sorted(recorder.here + recorder.by_worker) == items
    assert recorder.most_ahead <= window + 1  # the window, and the result the consumer holds
    if count:
        assert recorder.here[0] == 0  # this process takes the first item while the workers start


def test_this_process_works_while_the_oldest_result_is_not_back():
    # this process takes item 0 once the worker has item 1, which it holds until this process has
    # done two items: this process takes the next one rather than wait
    release = threading.Event()
    seen: list[int] = []
    here: list[int] = []

    def worker(n: int) -> int:
        seen.append(n)
        if n == 1:
            assert release.wait(timeout=60)
        return n

    def in_here(n: int) -> int:
        here.append(n)
        if len(here) == 2:
            release.set()
        return n

    with ThreadPoolExecutor(max_workers=1) as pool:
        assert list(shared(range(8), lambda n: pool.submit(worker, n), in_here, 1, 4)) == list(range(8))
    assert seen[0] == 1 and here[:2] == [0, 2]
    assert sorted(seen + here) == list(range(8))


@pytest.mark.parametrize("fail_at", [0, 3, 9])
def test_a_workers_failure_surfaces_in_order_after_the_results_before_it(fail_at):
    recorder = Recorder(fail_at=fail_at)
    given_back = []
    with pytest.raises(ValueError, match=f"item {fail_at} failed"), ThreadPoolExecutor(2) as pool:
        for value in shared(range(10), lambda n: pool.submit(recorder.in_worker, n), recorder.in_here, 2, 3):
            given_back.append(value)
    assert given_back == [n * n for n in range(len(given_back))]
    if fail_at in recorder.by_worker:
        assert len(given_back) == fail_at
    else:  # it failed here: at once
        assert recorder.here[-1] == fail_at


def test_a_pool_that_refuses_work_is_an_error():
    pool = ThreadPoolExecutor(max_workers=1)
    pool.shutdown()
    with pytest.raises(RuntimeError, match="after shutdown"):
        list(shared(range(5), lambda n: pool.submit(abs, n), lambda n: n, 1, 2))
