"""Where users are simulated: in this process, in a process pool, or on a Dask cluster.

Users are simulated in buckets of consecutive user ids. Every engine yields the buckets in
user order, and each user's rows depend only on the seed and the user's id, so the data is
the same whatever the engine or the number of workers. At most ``2 x workers`` buckets are
in flight, so memory stays bounded however many users are made.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

import pyarrow as pa

from pushgen import tables
from pushgen.generate import Recipe, pseudonyms, simulate
from pushgen.model.engagement import EngagementParameters

ENGINES = ("local", "dask")
BUCKET_USERS = 32


class EngineError(ValueError):
    """An engine that cannot be used (missing extra, unreachable scheduler)."""


@dataclass
class Bucket:
    """Tables of a run of consecutive users."""

    user_ids: list[int]
    notifications: pa.Table
    users: pa.Table
    truth_rows: pa.Table
    parameters: EngagementParameters


def simulate_bucket(recipe: Recipe, user_ids: list[int], start_seconds: int) -> Bucket:
    simulated = list(simulate(recipe, user_ids))
    return Bucket(
        user_ids=user_ids,
        notifications=tables.notifications_table(simulated, start_seconds),
        users=tables.users_table(simulated, pseudonyms(recipe.seed, user_ids)),
        truth_rows=tables.truth_rows_table(simulated),
        parameters=tables.parameters_of(simulated),
    )


def bucket_ids(recipe: Recipe, size: int = BUCKET_USERS) -> list[list[int]]:
    ids = list(recipe.user_ids)
    return [ids[i : i + size] for i in range(0, len(ids), size)]


def _windowed(submit: Callable[[list[int]], object], result: Callable[[object], Bucket],
              work: list[list[int]], window: int) -> Iterator[Bucket]:
    """Results in submission order, with at most ``window`` submitted and not yet taken."""
    queue = iter(work)
    pending = deque(submit(ids) for ids in islice(queue, window))
    while pending:
        done = result(pending.popleft())
        following = next(queue, None)
        if following is not None:
            pending.append(submit(following))
        yield done


def buckets(recipe: Recipe, jobs: int = 1, engine: str = "local", scheduler: str | None = None,
            size: int = BUCKET_USERS) -> Iterator[Bucket]:
    """Simulated buckets of ``recipe``'s users, in user order."""
    if engine not in ENGINES:
        raise EngineError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    start_seconds = recipe.grid.start_seconds
    work = bucket_ids(recipe, size)
    if engine == "dask":
        yield from _dask_buckets(recipe, work, jobs, scheduler, start_seconds)
    elif jobs <= 1:
        for ids in work:
            yield simulate_bucket(recipe, ids, start_seconds)
    else:
        context = multiprocessing.get_context("forkserver")
        with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            try:
                yield from _windowed(
                    lambda ids: pool.submit(simulate_bucket, recipe, ids, start_seconds),
                    lambda future: future.result(), work, 2 * jobs)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _dask_buckets(recipe: Recipe, work: list[list[int]], jobs: int, scheduler: str | None,
                  start_seconds: int) -> Iterator[Bucket]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise EngineError(
            "--engine dask needs the dask extra: pip install 'pushgen[dask]'") from None
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout="10s")
        else:
            cluster = LocalCluster(n_workers=max(jobs, 1), threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
    except OSError as error:
        raise EngineError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
    try:
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        yield from _windowed(
            lambda ids: client.submit(simulate_bucket, recipe, ids, start_seconds, pure=False),
            lambda future: future.result(), work, 2 * workers)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
