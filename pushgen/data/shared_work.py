"""Work shared by this process and its workers: whoever is free first takes the next item, and
the results come back in the items' order.

A worker asks for its next item the moment it finishes one (from its future's callback), and
this process takes one whenever it has given back every result that is ready. At most
``window`` items are out and not yet given back, so results waiting for an earlier one stay
few however uneven the processes' speeds. A worker's failure comes back in its item's place; an
item that fails here fails at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
_NONE_LEFT = object()


class SharedWork(Generic[Item, Result]):
    """``items`` handed out, in order, to this process and to ``submit`` (a worker pool)."""

    def __init__(self, items: Iterable[Item], submit: Callable[[Item], Future], window: int) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        self._items = iter(items)
        self._submit = submit
        self._window = window
        self._changed = threading.Condition()
        self._handed_out = 0
        self._given_back = 0
        self._results: dict[int, Result | Future] = {}
        self._waiting_workers = 0  # workers that asked while the window was full
        self._exhausted = False
        self._stopped = False
        self.done_here = 0  # items this process did itself

    def results(self, do_here: Callable[[Item], Result], workers: int) -> Iterator[Result]:
        """Every item's result, in order: ``workers`` workers and this process share the items."""
        try:
            claimed = self._next_item()  # the first item is done here while the workers start
            for _ in range(workers):
                self._feed_worker()
            while claimed is not None or not self._all_given_back():
                if claimed is None:  # nothing to take (the window is full, or all are out): wait
                    yield self._next_result()
                else:
                    position, item = claimed
                    result = do_here(item)
                    with self._changed:
                        self._results[position] = result
                        self.done_here += 1
                yield from self._ready_results()
                claimed = self._next_item()
        finally:
            with self._changed:
                self._stopped = True

    def _next_item(self) -> tuple[int, Item] | None:
        with self._changed:
            return self._claim()

    def _all_given_back(self) -> bool:
        with self._changed:
            return self._exhausted and self._given_back == self._handed_out

    def _claim(self) -> tuple[int, Item] | None:
        """The next item and its position, unless none is left or the window is full (lock held)."""
        if self._stopped or self._exhausted or self._handed_out >= self._given_back + self._window:
            return None
        item = next(self._items, _NONE_LEFT)
        if item is _NONE_LEFT:
            self._exhausted = True
            return None
        self._handed_out += 1
        return self._handed_out - 1, item

    def _feed_worker(self) -> None:
        """Give a free worker its next item; with the window full it waits for a result to go back."""
        with self._changed:
            claimed = self._claim()
            if claimed is None:
                if not (self._exhausted or self._stopped):
                    self._waiting_workers += 1
                return
            position, item = claimed
            try:
                future = self._submit(item)
            except Exception as error:  # the pool broke or shut down: the error comes back in order
                future = Future()
                future.set_exception(error)
            self._results[position] = future
            self._changed.notify_all()
        future.add_done_callback(self._worker_finished)

    def _worker_finished(self, future: Future) -> None:
        with self._changed:
            self._changed.notify_all()
        if not future.cancelled() and future.exception() is None:
            self._feed_worker()

    def _ready_results(self) -> Iterator[Result]:
        """The results ready now, in order, without waiting."""
        while True:
            with self._changed:
                if self._given_back not in self._results:
                    return
                result = self._results[self._given_back]
                if isinstance(result, Future) and not result.done():
                    return
            yield self._next_result()

    def _next_result(self) -> Result:
        """The next result in order, waiting for it if need be."""
        with self._changed:
            self._changed.wait_for(lambda: self._given_back in self._results)
            result = self._results.pop(self._given_back)
        value = result.result() if isinstance(result, Future) else result
        with self._changed:
            self._given_back += 1
            waiting, self._waiting_workers = self._waiting_workers, 0
        for _ in range(waiting):  # the window moved on
            self._feed_worker()
        return value
