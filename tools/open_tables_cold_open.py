"""A reader's cold open of a table's current version (make bench, issue 56): in this fresh
process, the reader's library is first brought into use on WARMUP_TABLE (a table of one version:
PyIceberg loads much of itself on its first open, ~0.4 s whatever the table), then the time from
nothing of TABLE loaded to its current version's file list is taken. Prints both, in milliseconds:
"<first use> <table open>". usage: open_tables_cold_open.py deltalake|pyiceberg WARMUP_TABLE TABLE"""

import os
import sys
import time


def open_current(engine, table):
    """The current version's files of `table`, through `engine`."""
    table = table.rstrip("/")
    if engine == "deltalake":
        import deltalake

        return deltalake.DeltaTable(table).file_uris()
    if engine == "pyiceberg":
        from pyiceberg.table import StaticTable

        with open(os.path.join(table, "metadata", "version-hint.text")) as f:
            metadata = os.path.join(table, "metadata", f"v{f.read().strip()}.metadata.json")
        return list(StaticTable.from_metadata(metadata).scan().plan_files())
    raise SystemExit(f"unknown engine {engine}")


def timed(engine, table):
    start = time.perf_counter()
    files = open_current(engine, table)
    elapsed = (time.perf_counter() - start) * 1000
    assert files, f"{table}: the current version has files"
    return elapsed


def main():
    engine, warmup, table = sys.argv[1:4]
    first_use = timed(engine, warmup)
    print(f"{first_use:.1f} {timed(engine, table):.1f}")


if __name__ == "__main__":
    main()
