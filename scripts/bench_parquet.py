"""Which Parquet encodings pay for pushgen's columns? Size, write and read time of each choice.

    python scripts/bench_parquet.py [--users 50] [--months 6] [--repeat 3]

Writes the big tables of one generated dataset (notifications, engagement rows) with each
candidate set of options, zstd throughout, and prints the bytes, the CPU seconds of the write and
of a read into pandas (best of ``--repeat``), each as a ratio to the first candidate, every column
dictionary-encoded (pushgen 0.3's files), measured in the same run. The candidates:

    dictionary everywhere   ``use_dictionary=True`` for every column
    dictionary categoricals dictionary for the categorical (string) columns, plain for the rest
    + byte-stream-split     and BYTE_STREAM_SPLIT for the float columns
    + delta integers        and DELTA_BINARY_PACKED for 64-bit integers and timestamps
    pushgen's options       what ``pushgen.data.dataset.parquet_options`` gives
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable

import pyarrow as pa
import pyarrow.parquet as pq

import pushgen
from pushgen.data.dataset import parquet_options

ZSTD = {"compression": "zstd", "store_schema": False}


def categorical(field: pa.Field) -> bool:
    return pa.types.is_dictionary(field.type) or pa.types.is_string(field.type)


def dictionary_categoricals(schema: pa.Schema, floats: str | None = None,
                            integers: str | None = None) -> dict:
    """Dictionary for categoricals; ``floats`` and ``integers`` (64-bit and timestamps) encodings."""
    encodings = {}
    for field in schema:
        if floats and pa.types.is_floating(field.type):
            encodings[field.name] = floats
        elif integers and (pa.types.is_int64(field.type) or pa.types.is_timestamp(field.type)):
            encodings[field.name] = integers
    options = {**ZSTD, "use_dictionary": [f.name for f in schema if categorical(f)]}
    return {**options, "column_encoding": encodings} if encodings else options


CANDIDATES: dict[str, Callable[[pa.Schema], dict]] = {
    "dictionary everywhere": lambda schema: {**ZSTD, "use_dictionary": True},
    "dictionary categoricals": dictionary_categoricals,
    "+ byte-stream-split": lambda schema: dictionary_categoricals(schema, "BYTE_STREAM_SPLIT"),
    "+ delta integers": lambda schema: dictionary_categoricals(schema, "BYTE_STREAM_SPLIT",
                                                               "DELTA_BINARY_PACKED"),
    "pushgen's options": parquet_options,
}


def measure(tables: list[pa.Table], options: Callable[[pa.Schema], dict],
            repeat: int) -> tuple[int, float, float]:
    """Bytes, best write CPU seconds and best read (to pandas) CPU seconds of ``tables``."""
    write, read, size = float("inf"), float("inf"), 0
    for _ in range(repeat):
        sinks = []
        began = time.process_time()
        for table in tables:
            sink = io.BytesIO()
            pq.write_table(table, sink, **options(table.schema))
            sinks.append(sink)
        write = min(write, time.process_time() - began)
        size = sum(s.getbuffer().nbytes for s in sinks)
        began = time.process_time()
        for sink in sinks:
            sink.seek(0)
            pq.read_table(sink).to_pandas()
        read = min(read, time.process_time() - began)
    return size, write, read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--months", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    dataset = pushgen.generate(users=args.users, months=args.months)
    tables = {"notifications": dataset.notifications_arrow, "engagement rows": dataset.truth_rows_arrow}
    print(f"pushgen {pushgen.__version__}, pyarrow {pa.__version__}: {args.users} users x {args.months} "
          f"months, {dataset.notifications_arrow.num_rows:,} rows; CPU seconds, best of {args.repeat}")
    for name, table in tables.items():
        print(f"\n{name}")
        print(f"  {'options':<26}{'MiB':>8}{'ratio':>8}{'write s':>10}{'ratio':>8}{'read s':>10}{'ratio':>8}")
        first = None
        for label, options in CANDIDATES.items():
            size, write, read = measure([table], options, args.repeat)
            first = first or (size, write, read)
            print(f"  {label:<26}{size / (1 << 20):>8.2f}{size / first[0]:>7.2f}x{write:>10.3f}"
                  f"{write / first[1]:>7.2f}x{read:>10.3f}{read / first[2]:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
