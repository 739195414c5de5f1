"""The lake's open tables read by engines we did not write (make test, issue 56): each checked
dataset's Delta Lake table at data/<dataset>/ is read by deltalake (delta-rs), Polars and DuckDB's
delta extension (loaded from its PyPI wheel's file, nothing fetched), and each must agree with the
API and with our commit log for every retained version:

- the current table version's row count equals ListDatasetVersions' current `rows`, and a checksum
  of the row key's values (the key ListDatasetChanges names) equals DuckDB's over the Parquet files
  our commit names for that version (what `sitrep-ingest lake views` gives);
- every retained version, travelled to by table version (the one whose commit names its
  generation) and by timestamp (between its publish time and the next version's), reads that
  version's rows and checksum;
- past a checkpoint (every tenth table version), a copy of the table without the log's versions
  before it reads the same (the checkpoint alone stands for them);
- with `--tables=s3://bucket/prefix` the engines read the tables there, through S3 (the endpoint
  and credentials of the `AWS_*` variables; DuckDB with its httpfs extension), while the commit
  log and the reference rows are read from LAKE_DIR (the S3 server's folder);
- the current version's files record the range of each time column (checked against each file
  by DuckDB), each `add`'s stats as delta-rs reads them are that range, and a window of one
  file's range read through each engine (which skips files by the stats) holds every row the
  files hold in it;
- with `--schemas`, each version reads with its own schema (a table whose schema changed between
  versions: tools/older_schema_version.py): the columns each engine returns are its files';
- with `--expired=N` (after `sitrep-ingest lake gc`), the N oldest versions are gone from the
  table: each engine refuses them by version; by timestamp, delta-rs (and Polars through it)
  reads a time before the oldest kept version as that version — its documented clamp, where
  Spark refuses — so that is what is checked there.

The versions are our commit log's; with BASE_URL and API_KEY (not `-`) they must also be the
API's (ListDatasetVersions: each version, its publish time and rows).

usage: open_tables_check.py BASE_URL|- API_KEY|- LAKE_DIR [--tables=URL] [--expired=N] [--schemas] DATASET...
"""

import datetime
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import urllib.request

import deltalake
import duckdb
import duckdb_extension_delta
import duckdb_extension_httpfs
import polars as pl
import pyarrow as pa

# Where the engines read the tables from, when not LAKE_DIR: S3 options of deltalake and Polars.
STORAGE = None


def api(base, key, path):
    request = urllib.request.Request(
        base + path,
        headers={"X-Service-Key": key, "User-Agent": "sitrep-open-tables-check/1.0 (+https://sitrep.example)"},
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.load(r)


def checksum(rows):
    """A digest of key tuples, whatever their order and the engine's value types' spelling."""
    lines = sorted("\x1f".join("" if v is None else str(v) for v in row) for row in rows)
    return len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()


def extension(module, name):
    """An extension's file in its PyPI wheel (nothing is fetched)."""
    found = glob.glob(os.path.join(os.path.dirname(module.__file__), "extensions", "*", f"{name}.duckdb_extension"))
    assert len(found) == 1, found
    return found[0]


def duckdb_with_delta():
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"LOAD '{extension(duckdb_extension_delta, 'delta')}'")
    if STORAGE:
        con.execute(f"LOAD '{extension(duckdb_extension_httpfs, 'httpfs')}'")
        literal = lambda v: "'" + v.replace("'", "''") + "'"  # noqa: E731
        endpoint = STORAGE["AWS_ENDPOINT_URL"].removeprefix("http://")
        con.execute(
            f"CREATE SECRET (TYPE s3, KEY_ID {literal(STORAGE['AWS_ACCESS_KEY_ID'])}, "
            f"SECRET {literal(STORAGE['AWS_SECRET_ACCESS_KEY'])}, REGION {literal(STORAGE['AWS_REGION'])}, "
            f"ENDPOINT {literal(endpoint)}, URL_STYLE 'path', USE_SSL false)"
        )
    return con


def quoted(identifier):
    return '"' + identifier.replace('"', '""') + '"'


def reference(con, lake, generation, dataset, key):
    """The version's key rows as our commit names its files (DuckDB over the Parquet files)."""
    entry = commit_entry(lake, generation, dataset)
    files = [os.path.join(lake, file["path"]) for file in entry["files"]]
    if not files:
        return checksum([])
    columns = ", ".join(quoted(k) for k in key)
    listed = ", ".join("'" + p.replace("'", "''") + "'" for p in files)
    return checksum(con.sql(f"SELECT {columns} FROM read_parquet([{listed}])").fetchall())


def commit_entry(lake, generation, dataset):
    with open(os.path.join(lake, "commits", f"{generation:020}.json")) as f:
        return json.load(f)["datasets"][dataset]


class Window:
    """A window of a time column one file of a version spans, for checking that readers skipping
    files by the tables' statistics (Delta `stats`, Iceberg bounds) lose no row:

    - `column`, its `kind` (TIMESTAMP WITH TIME ZONE or DATE), the window [`lo`, `hi`] as Python
      values and as SQL literals (`lo_sql`, `hi_sql`), the rows in it (`rows`) and the number of
      the version's files (`files`), and the window in the column's unit (`span`);
    - `ranges`: each file's (min, max, nulls) of the column, read from the file itself by DuckDB
      after checking that the commit recorded exactly those."""

    def __init__(self, con, lake, generation, dataset):
        entry = commit_entry(lake, generation, dataset)
        recorded = [f for f in entry["files"] if f.get("bounds")]
        assert recorded, f"{dataset} v{generation}: no file records its time columns' ranges"
        self.column = sorted(recorded[0]["bounds"])[0]
        column = quoted(self.column)
        paths = {f["path"]: os.path.join(lake, f["path"]) for f in entry["files"]}
        first = "'" + paths[recorded[0]["path"]].replace("'", "''") + "'"
        self.kind = con.sql(f"SELECT typeof({column}) FROM read_parquet({first}) LIMIT 1").fetchone()[0]
        unit = "epoch_ms({c})" if self.kind.startswith("TIMESTAMP") else "date_diff('day', DATE '1970-01-01', {c})"
        self.ranges = {}
        for f in recorded:
            path = "'" + paths[f["path"]].replace("'", "''") + "'"
            low, high, nulls = con.sql(
                f"SELECT {unit.format(c=f'min({column})')}, {unit.format(c=f'max({column})')}, count(*) - count({column}) FROM read_parquet({path})"
            ).fetchone()
            want = f["bounds"][self.column]
            assert (want.get("min"), want.get("max"), want["nulls"]) == (low, high, nulls), f"{f['path']}: recorded {want}, the file holds {(low, high, nulls)}"
            self.ranges[f["path"]] = (low, high, nulls)
        spans = sorted((r for r in self.ranges.values() if r[0] is not None), key=lambda r: r[0])
        low, high, _ = spans[len(spans) // 2]
        self.span = (low, high)
        self.lo, self.hi = self.value(low), self.value(high)
        self.lo_sql, self.hi_sql = self.sql(self.lo), self.sql(self.hi)
        listed = ", ".join("'" + p.replace("'", "''") + "'" for p in paths.values())
        self.rows = con.sql(f"SELECT count(*) FROM read_parquet([{listed}]) WHERE {column} BETWEEN {self.lo_sql} AND {self.hi_sql}").fetchone()[0]
        self.files = len(entry["files"])
        assert 0 < self.rows, f"{dataset} v{generation}: an empty window"

    def value(self, n):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        if self.kind.startswith("TIMESTAMP"):
            return epoch + datetime.timedelta(milliseconds=n)
        return (epoch + datetime.timedelta(days=n)).date()

    def sql(self, v):
        if isinstance(v, datetime.datetime):
            return f"TIMESTAMPTZ '{v.isoformat(sep=' ', timespec='milliseconds')}'"
        return f"DATE '{v.isoformat()}'"

    def polars(self):
        return pl.col(self.column).is_between(self.lo, self.hi)


def committed_versions(lake, dataset):
    """Every version of `dataset` in our commit log, newest first: {version, publishedAt, rows}."""
    commits = {}
    for path in glob.glob(os.path.join(lake, "commits", "*.json")):
        with open(path) as f:
            commit = json.load(f)
        commits[commit["generation"]] = commit
    versions = {}
    for commit in commits.values():
        entry = commit["datasets"].get(dataset) or {}
        version = entry.get("version")
        if version is not None and version not in versions:
            published = commits[version]["committedAt"]
            at = datetime.datetime.fromisoformat(published.replace("Z", "+00:00"))
            rows = sum(file["rows"] for file in commits[version]["datasets"][dataset]["files"])
            millis = (at - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(milliseconds=1)
            versions[version] = {"version": version, "publishedAt": millis, "rows": rows}
    return sorted(versions.values(), key=lambda v: -v["version"])


def versions_checked(base, key, lake, dataset):
    """The commit log's versions of `dataset` (committed_versions), which must be the API's
    ListDatasetVersions (each version, its publish time and rows) when BASE_URL is not `-`."""
    listed = committed_versions(lake, dataset)
    assert listed, f"{dataset}: no versions"
    if base != "-":
        served = api(base, key, f"/api/history/v1/list-dataset-versions?dataset={dataset}")["versions"]
        assert served[0]["current"], served[0]
        assert [(v["version"], v["publishedAt"], v["rows"]) for v in served] == [
            (v["version"], v["publishedAt"], v["rows"]) for v in listed
        ], f"{dataset}: the API's versions {served} are not the commit log's {listed}"
    return listed


def row_key_of(base, key, dataset, listed):
    if base == "-":
        return {"violence-events": ["id"], "armed-events": ["id"]}[dataset]
    first = listed[-1]["publishedAt"]
    return api(base, key, f"/api/history/v1/list-dataset-changes?dataset={dataset}&since={first}&until={first}")["key"]


def table_generations(table):
    """Table version → the generation (our dataset version) its commit names."""
    return {h["version"]: h["sitrepGeneration"] for h in deltalake.DeltaTable(table, storage_options=STORAGE).history()}


def read_all(con, table, key, version):
    """The key rows of `version` (a table version or a datetime) through each engine."""
    columns = ", ".join(quoted(k) for k in key)
    out = {}
    dt = deltalake.DeltaTable(table, storage_options=STORAGE)
    dt.load_as_version(version)
    out["deltalake"] = checksum(zip(*(dt.to_pyarrow_table(columns=key).column(k).to_pylist() for k in key)))
    out["polars"] = checksum(pl.read_delta(table, version=version, columns=key, storage_options=STORAGE).iter_rows())
    if isinstance(version, int):
        out["duckdb"] = checksum(con.sql(f"SELECT {columns} FROM delta_scan('{table}', version := {version})").fetchall())
    return out


def past_the_checkpoint(con, lake, table, dataset, row_key, generations, current):
    """A copy of the table whose log keeps only the last checkpoint and what follows it."""
    with open(os.path.join(table, "_delta_log", "_last_checkpoint")) as f:
        checkpoint = json.load(f)["version"]
    assert checkpoint % 10 == 0 and checkpoint > 0, checkpoint
    copy = tempfile.mkdtemp()
    try:
        trimmed = os.path.join(copy, dataset)
        shutil.copytree(table, trimmed, symlinks=False)
        for n in range(checkpoint):
            version = os.path.join(trimmed, "_delta_log", f"{n:020}.json")
            if os.path.exists(version):  # (gone already when expired)
                os.remove(version)
        for version in range(checkpoint, max(generations) + 1):
            expected = reference(con, lake, generations[version], dataset, row_key)
            for engine, got in read_all(con, trimmed, row_key, version).items():
                assert got == expected, f"{dataset} table version {version} from the checkpoint through {engine}: {got} != {expected}"
        return checkpoint
    finally:
        shutil.rmtree(copy)


def skipping_by_stats(con, table, window, dataset):
    """Each `add`'s stats (as delta-rs reads them) are its file's range of the window's column,
    and reading the window through each engine (which skips files by those stats) loses no row."""
    actions = pa.table(deltalake.DeltaTable(table, storage_options=STORAGE).get_add_actions(flatten=True)).to_pylist()
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    as_number = lambda v: v if v is None else (v - epoch) // datetime.timedelta(milliseconds=1) if isinstance(v, datetime.datetime) else (v - epoch.date()).days  # noqa: E731
    for a in actions:
        path = f"data/{dataset}/{a['path']}"
        got = (as_number(a[f"min.{window.column}"]), as_number(a[f"max.{window.column}"]), a[f"null_count.{window.column}"])
        assert got == window.ranges[path], f"{path}: the Delta stats say {got}, the file holds {window.ranges[path]}"
    column = quoted(window.column)
    dt = deltalake.DeltaTable(table, storage_options=STORAGE)
    counts = {
        "deltalake": dt.to_pyarrow_table(columns=[window.column], filters=[(window.column, ">=", window.lo), (window.column, "<=", window.hi)]).num_rows,
        "polars": pl.scan_delta(table, storage_options=STORAGE).filter(window.polars()).select(pl.len()).collect().item(),
        "duckdb": con.sql(f"SELECT count(*) FROM delta_scan('{table}') WHERE {column} BETWEEN {window.lo_sql} AND {window.hi_sql}").fetchone()[0],
    }
    assert set(counts.values()) == {window.rows}, f"{dataset} {window.column} in [{window.lo}, {window.hi}]: {counts}, the files hold {window.rows}"


def file_columns(con, lake, generation, dataset):
    """The columns of a version's files (DuckDB over the first Parquet file the commit names)."""
    first = commit_entry(lake, generation, dataset)["files"][0]["path"]
    listed = "'" + os.path.join(lake, first).replace("'", "''") + "'"
    return [d[0] for d in con.sql(f"SELECT * FROM read_parquet({listed}) LIMIT 0").description]


def columns_of_each_engine(con, table, version):
    dt = deltalake.DeltaTable(table, version=version, storage_options=STORAGE)
    return {
        "deltalake": [f.name for f in dt.schema().fields],
        "polars": pl.read_delta(table, version=version, storage_options=STORAGE).columns,
        "duckdb": [d[0] for d in con.sql(f"SELECT * FROM delta_scan('{table}', version := {version}) LIMIT 0").description],
    }


def refused_by_each(what, attempts):
    """Every engine's attempt (engine → callable) is refused: none returns rows."""
    for engine, attempt in attempts.items():
        try:
            got = attempt()
        except Exception:  # noqa: BLE001 — any refusal; what must not happen is an answer
            continue
        raise AssertionError(f"{what} through {engine}: expired, yet answered {got!r}")


def refused_everywhere(con, table, key, version):
    """Every engine refuses table version `version`."""
    refused_by_each(f"{table} {version}", {
        "deltalake": lambda: deltalake.DeltaTable(table, version=version, storage_options=STORAGE),
        "polars": lambda: pl.read_delta(table, version=version, columns=key, storage_options=STORAGE),
        # A cursor of its own: a refused statement leaves its transaction aborted.
        "duckdb": lambda: con.cursor().sql(f"SELECT count(*) FROM delta_scan('{table}', version := {version})").fetchall(),
    })


def arguments():
    """BASE_URL|- API_KEY|- LAKE_DIR [--name=value | --flag]... DATASET...: (positional, options)."""
    args = sys.argv[1:]
    options = dict((a[2:].split("=", 1) + [""])[:2] for a in args if a.startswith("--"))
    args = [a for a in args if not a.startswith("--")]
    return (args[0], args[1], os.path.abspath(args[2]), args[3:]), options


def main():
    global STORAGE
    (base, key, lake, datasets), options = arguments()
    expired, tables, schemas = int(options.get("expired") or 0), options.get("tables"), "schemas" in options
    if tables and tables.startswith("s3://"):
        env = ["AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]
        STORAGE = {name: os.environ[name] for name in env} | {"AWS_ALLOW_HTTP": "true"}
    con = duckdb_with_delta()
    for dataset in datasets:
        table = f"{tables or lake}/data/{dataset}"
        listed = versions_checked(base, key, lake, dataset)
        row_key = row_key_of(base, key, dataset, listed)
        generations = table_generations(table)
        by_generation = {g: v for v, g in generations.items()}
        current = listed[0]
        newest = max(generations)
        assert generations[newest] == current["version"], f"{dataset}: table at {generations[newest]}, API at {current['version']}"
        latest = con.sql(f"SELECT count(*) FROM delta_scan('{table}')").fetchone()[0]
        assert latest == current["rows"], f"{dataset}: DuckDB counts {latest} rows now, the API {current['rows']}"
        assert pl.scan_delta(table, storage_options=STORAGE).select(pl.len()).collect().item() == current["rows"], dataset
        stats = ""
        if not schemas:
            window = Window(con, lake, current["version"], dataset)
            skipping_by_stats(con, table, window, dataset)
            stats = f"; the stats of {window.column} are its files' and a window of them reads whole"
        checked = 0
        if expired:
            # Table versions are our versions in order: the expired ones are the oldest, before
            # the table's first.
            gone, listed = listed[len(listed) - expired:], listed[: len(listed) - expired]
            assert min(generations) == len(gone), f"{dataset}: the table starts at {min(generations)}, not after {len(gone)} expired"
            for n, v in enumerate(reversed(gone)):
                refused_everywhere(con, table, row_key, n)
                assert v["version"] not in by_generation, v
            # The last millisecond the newest expired version was current: delta-rs reads the
            # oldest kept version (its clamp), nothing older.
            then = datetime.datetime.fromtimestamp((listed[-1]["publishedAt"] - 1) / 1000, tz=datetime.timezone.utc)
            oldest_kept = reference(con, lake, listed[-1]["version"], dataset, row_key)
            for engine, got in read_all(con, table, row_key, then).items():
                assert got == oldest_kept, f"{dataset} at {then.isoformat()} (expired) through {engine}: {got} != {oldest_kept}"
        for i, v in enumerate(listed):
            table_version = by_generation.get(v["version"])
            assert table_version is not None, f"{dataset}: version {v['version']} is not in the table ({generations})"
            expected = reference(con, lake, v["version"], dataset, row_key)
            assert expected[0] == v["rows"], f"{dataset} v{v['version']}: the commit's files hold {expected[0]} rows, the API says {v['rows']}"
            for engine, got in read_all(con, table, row_key, table_version).items():
                assert got == expected, f"{dataset} v{v['version']} (table version {table_version}) through {engine}: {got} != {expected}"
            if schemas:
                own = file_columns(con, lake, v["version"], dataset)
                for engine, got in columns_of_each_engine(con, table, table_version).items():
                    assert got == own, f"{dataset} v{v['version']} through {engine}: columns {got}, its files {own}"
            # By timestamp: the last millisecond before the next version's publish time (the last
            # at which `as_of` serves this one; its log file was written in its own publish,
            # before the next began), or now for the newest.
            upto = listed[i - 1]["publishedAt"] - 1 if i > 0 else datetime.datetime.now().timestamp() * 1000
            at = datetime.datetime.fromtimestamp(upto / 1000, tz=datetime.timezone.utc)
            for engine, got in read_all(con, table, row_key, at).items():
                assert got == expected, f"{dataset} v{v['version']} at {at.isoformat()} through {engine}: {got} != {expected}"
            checked += 1
        against = "the commit log" if base == "-" else "the API and the commit log"
        if STORAGE:
            against += f", reading {table}"
        if expired:
            against += f" ({expired} expired versions refused by each)"
        if schemas:
            against += ", each version in its own schema"
        trimmed = ""
        if max(generations) >= 10 and not STORAGE:
            trimmed = f"; from the checkpoint at table version {past_the_checkpoint(con, lake, table, dataset, row_key, generations, current)} alone too"
        print(f"open tables: {dataset}: {checked} versions, {current['rows']} rows now; deltalake, polars, duckdb agree with {against}{trimmed}{stats}: ok")


if __name__ == "__main__":
    main()
