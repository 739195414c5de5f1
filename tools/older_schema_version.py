"""Makes a lake's current version of a dataset one an older schema wrote (make test, issue 56): its
files rewritten without COLUMN (by DuckDB, which also stores instants in microseconds, as a writer
of another day might), its commit entry's sizes, digests and schema fingerprint to match, and the
dataset's open tables removed, so the next publish (the current schema) starts them again from
both versions: a table whose schema changes between versions, for the readers to read each with
its own.

usage: older_schema_version.py LAKE_DIR DATASET COLUMN
"""

import glob
import hashlib
import json
import os
import shutil
import sys

import duckdb


def main():
    lake, dataset, column = sys.argv[1:4]
    commits = sorted(glob.glob(os.path.join(lake, "commits", "*.json")))
    with open(commits[-1]) as f:
        latest = json.load(f)
    version = latest["datasets"][dataset]["version"]
    path = os.path.join(lake, "commits", f"{version:020}.json")
    with open(path) as f:
        commit = json.load(f)
    entry = commit["datasets"][dataset]
    con = duckdb.connect()
    for file in entry["files"]:
        at = os.path.join(lake, file["path"])
        rewritten = at + ".older"
        con.execute(f"COPY (SELECT * EXCLUDE ({column}) FROM read_parquet('{at}')) TO '{rewritten}' (FORMAT parquet)")
        os.replace(rewritten, at)
        with open(at, "rb") as f:
            data = f.read()
        file.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(), schemaFingerprint="older-schema")
    entry["schemaFingerprint"] = "older-schema"
    # Commits are immutable to the lake; this one is rewritten in place, before anything read it.
    with open(path, "w") as f:
        json.dump(commit, f)
    for log in ("_delta_log", "metadata"):
        shutil.rmtree(os.path.join(lake, "data", dataset, log), ignore_errors=True)
    print(f"{dataset} v{version}: files without {column}, schema fingerprint older-schema; its tables removed")


if __name__ == "__main__":
    main()
