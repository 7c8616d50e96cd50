"""Where users are simulated: in this process, in a process pool, or on a Dask cluster.

Users are simulated in buckets of consecutive user ids. Every engine yields the buckets in
user order, and each user's rows depend only on the seed and the user's id, so the data is
the same whatever the engine or the number of workers. Buckets hold about the same number
of rows whatever the number of days, and at most twice as many as there are processes are in
flight, so memory stays bounded however many users are made.

With ``jobs`` local processes, this process is one of them: it starts a pool of ``jobs - 1``
workers (``concurrent.futures``) and simulates the next bucket itself whenever the oldest is not
back yet, so all stay busy to the last bucket. For a large (partitioned) dataset every process
also encodes its bucket's Parquet parts and fingerprints its users, so the writer only stores
bytes and chains digests; a single process leaves the encoding to the writer's thread, which
runs beside it.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import contextlib
import enum
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from multiprocessing import resource_tracker
from typing import Any, TypeVar

import pyarrow as pa

from pushgen import own_process, stopping
from pushgen.data.errors import ENGINES as ENGINES
from pushgen.data.errors import EngineError as EngineError
from pushgen.data.generator import Dataset, Recipe, simulate
from pushgen.data.scheduler_probe import check_scheduler
from pushgen.data.writer import Bucket, Tables
from pushgen.extras import install_line
from pushgen.model.compiled import announce_compiling

TARGET_BUCKET_ROWS = 200_000
ROWS_PER_USER_DAY = 75  # a generous estimate of notifications per user and day
SINGLE_FILE_ROWS = 1_500_000
SCHEDULER_TIMEOUT_SECONDS = 10
Item = TypeVar("Item")
Result = TypeVar("Result")


class _End(enum.Enum):
    NONE_LEFT = "none left"


NONE_LEFT = _End.NONE_LEFT


def bucket_size(recipe: Recipe) -> int:
    """Users per bucket: about TARGET_BUCKET_ROWS rows, whatever the number of days."""
    return max(1, min(256, TARGET_BUCKET_ROWS // (recipe.days * ROWS_PER_USER_DAY)))


def is_partitioned(recipe: Recipe) -> bool:
    """Large datasets are written as one Parquet part per bucket, by the workers."""
    return recipe.users * recipe.days * ROWS_PER_USER_DAY > SINGLE_FILE_ROWS


def bucket_ids(recipe: Recipe, size: int | None = None) -> Iterator[list[int]]:
    """The user ids of each bucket, in order (made as needed: millions of users are fine)."""
    ids = recipe.user_ids
    size = size or bucket_size(recipe)
    return (list(ids[i : i + size]) for i in range(0, len(ids), size))


def simulate_bucket(recipe: Recipe, user_ids: list[int], index: int, encode: bool,
                    digest: bool = True) -> Bucket:
    """Simulate a bucket of users into its tables; ``encode``: as finished Parquet parts;
    ``digest``: with its users' digests (else the writer finds them)."""
    made = Dataset.from_users(recipe, list(simulate(recipe, user_ids)))
    tables = Tables(made.notifications_arrow, made.users_arrow, made.truth_rows_arrow,
                    made.parameters)
    return Bucket.of(index, user_ids, tables, encode=encode, keep_tables=not encode or index == 0,
                     digest=digest)


def _windowed(submit: Callable[[tuple[Any, ...]], Any], work: Iterable[tuple[Any, ...]],
              window: int) -> Iterator[Bucket]:
    """Results in submission order (``submit`` gives a future), with at most ``window`` submitted
    and not yet taken."""
    queue = iter(work)
    pending = deque(submit(ids) for ids in islice(queue, window))
    while pending:
        done = pending.popleft().result()
        following = next(queue, None)
        if following is not None:
            pending.append(submit(following))
        yield done


def buckets(recipe: Recipe, jobs: int = 1, engine: str = "local", scheduler: str | None = None,
            size: int | None = None, encode: bool = False) -> Iterator[Bucket]:
    """Simulated buckets of ``recipe``'s users, in user order.

    ``jobs`` processes simulate: this one and ``jobs - 1`` workers (``engine="local"``), or
    ``jobs`` Dask workers. ``encode``: buckets come as finished Parquet parts, encoded by the
    process that simulated them; except with one process, whose buckets keep their tables for
    the writer's thread to encode beside the simulation.
    """
    if engine not in ENGINES:
        raise EngineError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    work = enumerate(bucket_ids(recipe, size))

    def task(item: tuple[int, list[int]]) -> tuple:
        index, ids = item
        return (simulate_bucket, recipe, ids, index, encode)

    def alone(item: tuple[int, list[int]]) -> Bucket:
        index, ids = item
        return simulate_bucket(recipe, ids, index, False, digest=False)

    def beside_workers(item: tuple[int, list[int]]) -> Bucket:
        function, *args = task(item)
        return function(*args)

    if engine == "dask":
        yield from _dask_buckets(work, task, jobs, scheduler)
    elif jobs <= 1:
        yield from map(alone, work)
    else:
        yield from _shared_buckets(work, task, beside_workers, jobs)


def _shared_buckets(work: Iterable, task: Callable, here: Callable, jobs: int) -> Iterator[Bucket]:
    """Buckets simulated by this process and ``jobs - 1`` worker processes together."""
    context = multiprocessing.get_context("spawn")  # no server process left behind
    with cf.ProcessPoolExecutor(max_workers=jobs - 1, mp_context=context,
                                initializer=start_worker) as pool:
        try:
            yield from shared(work, lambda item: submit_held(pool, *task(item)), here, jobs - 1, 2 * jobs)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def submit_held(pool: cf.ProcessPoolExecutor, function: Callable, *args: Any) -> cf.Future:
    """``pool.submit(function, *args)``, ``starting_workers``: it may start a worker."""
    with starting_workers():
        return pool.submit(function, *args)


@contextlib.contextmanager
def starting_workers() -> Iterator[None]:
    """Ctrl-C held back while the block starts worker processes (a pool's, a local Dask cluster's).

    A spawned worker imports pushgen before it ignores Ctrl-C (``start_worker``; a Dask worker
    does not), and a terminal's Ctrl-C reaches every process of the group: a worker still
    importing would end with a traceback, and so would one whose parent stopped while starting
    it, before sending it what it starts from (its pickled process). ``stopping.held`` blocks
    SIGINT in the processes and threads started in the block, and acts on a Ctrl-C in this
    process at its end. multiprocessing's resource tracker is started first: starting it
    unblocks SIGINT."""
    if hasattr(signal, "pthread_sigmask"):
        resource_tracker.ensure_running()
    with stopping.held():
        yield


def shared(items: Iterable[Item], submit: Callable[[Item], cf.Future[Result]], here: Callable[[Item], Result],
           workers: int, window: int) -> Iterator[Result]:
    """Every item's result, in order. ``here`` does the next item in this process whenever the
    oldest result is not ready (the first while the workers start), and ``submit`` (a pool of
    ``workers``) is given an item for each worker, and one more once a worker has finished one
    (so none waits for this process); at most ``window`` items are out and not yet given back.
    A failure comes back in its item's place (one here fails at once)."""
    remaining = iter(items)
    pending: deque[cf.Future[Result]] = deque()
    in_pool: set[cf.Future[Result]] = set()
    warm = False  # a worker has finished an item
    item: Item | _End = next(remaining, NONE_LEFT)
    while item is not NONE_LEFT or pending:
        mine: cf.Future[Result] | None = None
        if item is not NONE_LEFT and len(pending) < window and not (pending and pending[0].done()):
            mine, claimed = cf.Future(), item  # this process takes it, once the pool has its share
            pending.append(mine)
            item = next(remaining, NONE_LEFT)
        finished = {future for future in in_pool if future.done()}
        warm, in_pool = warm or bool(finished), in_pool - finished
        while item is not NONE_LEFT and len(pending) < window and len(in_pool) < workers + warm:
            in_pool.add(submitted := submit(item))
            pending.append(submitted)
            item = next(remaining, NONE_LEFT)
        if mine is None:
            yield pending.popleft().result()
        else:
            mine.set_result(here(claimed))


def start_worker() -> None:
    """In a worker process, before its first bucket: it ends with its parent, and Arrow allocates
    from the C library's allocator, which gives a bucket's memory back once it is sent; mimalloc,
    Arrow's default, keeps some 30-40 MiB more mapped in every worker. It starts and ends as a
    process of pushgen's own (``pushgen.own_process``), as the ``pushgen`` program does, and leaves
    saying that it compiles the kernels to its parent.

    Ctrl-C is left to the parent, which stops the run: a terminal sends it to every process of
    the group, and a worker interrupted while it sends a bucket would leave half a message in the
    pipe, which the parent's pool then waits on for ever (and print a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent()
    own_process.start()
    announce_compiling(False)
    pa.set_memory_pool(pa.system_memory_pool())
    atexit.register(own_process.end)


def end_with_parent() -> None:
    """In a worker process: end it as soon as its parent process ends, however the parent ends.

    The parent's end closes the pipe that ``multiprocessing`` gives each child (its sentinel),
    on every platform and for SIGKILL too; a thread waits on it.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def wait_for_parent() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=wait_for_parent, name="pushgen-parent-watch", daemon=True).start()


def _dask_buckets(work: Iterable, task: Callable, jobs: int, scheduler: str | None) -> Iterator[Bucket]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise EngineError(
            f"--engine dask needs the dask extra: {install_line('dask')}") from None
    if scheduler:
        check_scheduler(scheduler, SCHEDULER_TIMEOUT_SECONDS)
    cluster = client = None
    stopped = False
    try:
        try:
            if scheduler:
                client = Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT_SECONDS}s")
            else:
                # the workers' own log lines (cancelled tasks, a closed scheduler) never reach the user
                with starting_workers():  # its nanny and worker processes come from a thread started here
                    cluster = LocalCluster(n_workers=max(jobs, 1), threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=logging.CRITICAL)
                client = Client(cluster)
        except (OSError, ValueError, TimeoutError) as error:
            raise EngineError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        yield from _windowed(lambda item: client.submit(*task(item), pure=False), work, workers + 1)
    except BaseException:
        stopped = True
        _quiet_dask()
        raise
    finally:
        for part in (client, cluster):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.close()
        if stopped:
            _close_local_clusters()


def _quiet_dask() -> None:
    """A stopped run ends with its own one line: Dask's log lines and warnings about the
    workers it shuts down are not shown."""
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    warnings.filterwarnings("ignore", module="distributed")


def _close_local_clusters() -> None:
    """Close the local clusters still starting when the run was stopped (Dask's own clean-up at
    exit fails on a cluster whose workers never started)."""
    from distributed.deploy.spec import SpecCluster

    for cluster in list(SpecCluster._instances):
        with contextlib.suppress(Exception):
            cluster.close(timeout=10)
        SpecCluster._instances.discard(cluster)
