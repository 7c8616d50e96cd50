"""SharedWork: items shared by this process and a pool of workers, results back in order."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pushgen.data.shared_work import SharedWork


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
        shared = SharedWork(items, lambda n: pool.submit(recorder.in_worker, n), window=window)
        for value in shared.results(recorder.in_here, workers=workers):
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


def test_this_process_works_too_and_a_worker_takes_the_next_item_when_free():
    # the worker stays busy on item 1 until this process has done item 2: a free process takes the
    # next item, whoever it is
    release = threading.Event()
    seen: list[int] = []

    def worker(n: int) -> int:
        seen.append(n)
        if n == 1:
            assert release.wait(timeout=60)
        return n

    def here(n: int) -> int:
        if n == 2:
            release.set()
        return n

    with ThreadPoolExecutor(max_workers=1) as pool:
        shared = SharedWork(range(6), lambda n: pool.submit(worker, n), window=4)
        assert list(shared.results(here, workers=1)) == list(range(6))
    assert seen[0] == 1 and 2 not in seen and 0 not in seen
    assert shared.done_here == 6 - len(seen) >= 2


@pytest.mark.parametrize("fail_at", [0, 3, 9])
def test_a_workers_failure_surfaces_in_order_after_the_results_before_it(fail_at):
    recorder = Recorder(fail_at=fail_at)
    given_back = []
    with pytest.raises(ValueError, match=f"item {fail_at} failed"), ThreadPoolExecutor(2) as pool:
        shared = SharedWork(range(10), lambda n: pool.submit(recorder.in_worker, n), window=3)
        for value in shared.results(recorder.in_here, workers=2):
            given_back.append(value)
    assert given_back == [n * n for n in range(len(given_back))]
    if fail_at in recorder.by_worker:
        assert len(given_back) == fail_at
    else:  # it failed here: at once
        assert recorder.here[-1] == fail_at


def test_a_pool_that_refuses_work_is_an_error_in_order():
    pool = ThreadPoolExecutor(max_workers=1)
    pool.shutdown()
    shared = SharedWork(range(5), lambda n: pool.submit(abs, n), window=2)
    with pytest.raises(RuntimeError, match="after shutdown"):
        list(shared.results(lambda n: n, workers=1))


def test_the_window_must_hold_an_item():
    with pytest.raises(ValueError, match="window must be at least 1, not 0"):
        SharedWork([1], lambda n: None, window=0)
