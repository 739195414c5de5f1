"""The lake's Apache Iceberg tables read by engines we did not write (make test, issue 56): each
checked dataset's table at data/<dataset>/ (metadata under metadata/) is read by PyIceberg, Polars
(planning through PyIceberg), DuckDB's iceberg extension (loaded with avro from their PyPI wheels'
files, nothing fetched) and ClickHouse (chdb), and each must agree with the API and with our commit
log for every retained version:

- the current snapshot's row count equals ListDatasetVersions' current `rows`, and a checksum of
  the row key's values equals DuckDB's over the Parquet files our commit names for that version;
- every retained version, travelled to by snapshot id (our generation) and by timestamp (its own
  publish time, to the millisecond, and the last millisecond before the next version's), reads
  that version's rows and checksum: the same answer `as_of` gives at those times;
- with `--expired=N` (after `sitrep-ingest lake gc`), the N oldest versions' snapshots are gone:
  each engine refuses them by id; by a timestamp before the oldest kept version PyIceberg finds no
  snapshot, ClickHouse refuses, and DuckDB reads an empty table (its answer before a table's first
  snapshot) — nothing older is read;
- with `--schemas=N`, the table holds N schemas and each version reads with its own: the columns
  each engine returns are those of the version's files;
- with `--tables=s3://bucket/prefix` the engines read the tables there through S3 (the `AWS_*`
  variables' endpoint and credentials; DuckDB with httpfs, ClickHouse's icebergS3), while the
  commit log and the reference rows are read from LAKE_DIR (the S3 server's folder).

usage: iceberg_tables_check.py BASE_URL|- API_KEY|- LAKE_DIR [--tables=URL] [--expired=N] [--schemas=N] DATASET...
"""

import datetime
import json
import os

os.environ.setdefault("POLARS_ICEBERG_PLANNER", "pyiceberg")

import chdb  # noqa: E402
import duckdb  # noqa: E402
import duckdb_extension_avro  # noqa: E402
import duckdb_extension_httpfs  # noqa: E402
import duckdb_extension_iceberg  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from pyiceberg.expressions import And, GreaterThanOrEqual, LessThanOrEqual  # noqa: E402
from pyiceberg.table import StaticTable  # noqa: E402

from open_tables_check import (  # noqa: E402
    Window,
    arguments,
    checksum,
    extension,
    file_columns,
    quoted,
    reference,
    refused_by_each,
    row_key_of,
    versions_checked,
)

# S3 settings when the tables are read through S3: (PyIceberg's properties, the AWS_* variables).
S3 = None


def literal(value):
    return "'" + str(value).replace("'", "''") + "'"


def duckdb_with_iceberg():
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"LOAD '{extension(duckdb_extension_avro, 'avro')}'")
    con.execute(f"LOAD '{extension(duckdb_extension_iceberg, 'iceberg')}'")
    if S3:
        env = S3[1]
        con.execute(f"LOAD '{extension(duckdb_extension_httpfs, 'httpfs')}'")
        con.execute(
            f"CREATE SECRET (TYPE s3, KEY_ID {literal(env['AWS_ACCESS_KEY_ID'])}, "
            f"SECRET {literal(env['AWS_SECRET_ACCESS_KEY'])}, REGION {literal(env['AWS_REGION'])}, "
            f"ENDPOINT {literal(env['AWS_ENDPOINT_URL'].removeprefix('http://'))}, URL_STYLE 'path', USE_SSL false)"
        )
    return con


def clickhouse_source(table):
    """ClickHouse's table function for the table: local, or over S3 (path-style URL)."""
    if not S3:
        return f"icebergLocal({literal(table)})"
    env = S3[1]
    url = env["AWS_ENDPOINT_URL"] + "/" + table.removeprefix("s3://") + "/"
    return f"icebergS3({literal(url)}, {literal(env['AWS_ACCESS_KEY_ID'])}, {literal(env['AWS_SECRET_ACCESS_KEY'])})"


def clickhouse(table, columns, setting=None):
    """The rows through chdb (a setting travels: a snapshot id or a time; none: the current)."""
    settings = f" SETTINGS {setting}" if setting else ""
    out = chdb.query(f"SELECT {columns} FROM {clickhouse_source(table)}{settings}", "JSONCompact")
    return [tuple(row) for row in json.loads(out.bytes())["data"]]


def open_table(lake, table, dataset):
    """PyIceberg's table at the metadata version the hint names (read from LAKE_DIR)."""
    with open(os.path.join(lake, "data", dataset, "metadata", "version-hint.text")) as f:
        n = int(f.read().strip())
    return StaticTable.from_metadata(f"{table}/metadata/v{n}.metadata.json", properties=S3[0] if S3 else {})


def read_all(con, tbl, table, key, snapshot_id):
    """The key rows of one snapshot through each engine."""
    columns = ", ".join(quoted(k) for k in key)
    return {
        "pyiceberg": checksum(zip(*(tbl.scan(snapshot_id=snapshot_id, selected_fields=tuple(key)).to_arrow().column(k).to_pylist() for k in key))),
        "polars": checksum(pl.scan_iceberg(tbl, snapshot_id=snapshot_id).select(key).collect().iter_rows()),
        "duckdb": checksum(con.sql(f"SELECT {columns} FROM iceberg_scan({literal(table)}, snapshot_from_id={snapshot_id})").fetchall()),
        "clickhouse": checksum(clickhouse(table, columns, f"iceberg_snapshot_id={snapshot_id}")),
    }


def read_at(con, tbl, table, key, millis):
    """The key rows at a time (epoch milliseconds) through each engine's own timestamp travel."""
    columns = ", ".join(quoted(k) for k in key)
    snapshot = tbl.snapshot_as_of_timestamp(millis)
    return {
        "pyiceberg": None if snapshot is None else snapshot.snapshot_id,
        "duckdb": checksum(con.sql(f"SELECT {columns} FROM iceberg_scan({literal(table)}, snapshot_from_timestamp=epoch_ms({millis}))").fetchall()),
        "clickhouse": checksum(clickhouse(table, columns, f"iceberg_timestamp_ms={millis}")),
    }


def columns_of_each_engine(con, tbl, table, snapshot_id):
    """The column names each engine returns for a snapshot (`SELECT *`)."""
    return {
        "pyiceberg": tbl.scan(snapshot_id=snapshot_id).to_arrow().column_names,
        "duckdb": [d[0] for d in con.sql(f"SELECT * FROM iceberg_scan({literal(table)}, snapshot_from_id={snapshot_id}) LIMIT 0").description],
        "clickhouse": json.loads(chdb.query(f"SELECT * FROM {clickhouse_source(table)} LIMIT 0 SETTINGS iceberg_snapshot_id={snapshot_id}", "JSONCompact").bytes())["meta"],
    }


def refused_everywhere(con, tbl, table, snapshot_id):
    refused_by_each(f"{table} snapshot {snapshot_id}", {
        "pyiceberg": lambda: tbl.scan(snapshot_id=snapshot_id).to_arrow(),
        "polars": lambda: pl.scan_iceberg(tbl, snapshot_id=snapshot_id).collect(),
        "duckdb": lambda: con.cursor().sql(f"SELECT count(*) FROM iceberg_scan({literal(table)}, snapshot_from_id={snapshot_id})").fetchall(),
        "clickhouse": lambda: clickhouse(table, "count()", f"iceberg_snapshot_id={snapshot_id}"),
    })


def skipping_by_bounds(con, tbl, table, window, dataset, lake):
    """The current snapshot's files carry the table schema's field ids; PyIceberg plans a window
    of one file's range with fewer files than the snapshot holds but every file whose bounds (the
    files' own ranges) meet it, and reading the window through each engine loses no row."""
    schema_ids = {f.name: f.field_id for f in tbl.schema().fields}
    column = tbl.schema().find_field(window.column)
    planned = {}
    for task in tbl.scan().plan_files():
        path = task.file.file_path.removeprefix(table + "/")
        ids = {f.name: int(f.metadata[b"PARQUET:field_id"]) for f in pq.read_schema(os.path.join(lake, "data", dataset, path))}
        assert ids == schema_ids, f"{path}: field ids {ids}, the table's {schema_ids}"
    row_filter = And(GreaterThanOrEqual(window.column, window.lo.isoformat()), LessThanOrEqual(window.column, window.hi.isoformat()))
    for task in tbl.scan(row_filter=row_filter).plan_files():
        planned[f"data/{dataset}/" + task.file.file_path.removeprefix(table + "/")] = task.file
    meets = lambda r: r[0] is None or (window.span[0] <= r[1] and r[0] <= window.span[1])  # noqa: E731
    must = {p for p, r in window.ranges.items() if meets(r)}
    assert must <= set(planned), f"{dataset}: PyIceberg skipped {must - set(planned)}, which hold rows in the window"
    if len(must) < window.files:
        assert len(planned) < window.files, f"{dataset}: PyIceberg planned all {window.files} files for a window of {len(must)}"
    # Bounds in Iceberg's single-value serialization: a timestamptz in microseconds, a date in days.
    scale = 1000 if window.kind.startswith("TIMESTAMP") else 1
    decoded = lambda bounds: None if column.field_id not in bounds else int.from_bytes(bounds[column.field_id], "little", signed=True) // scale  # noqa: E731
    for path, data_file in planned.items():
        got = (decoded(data_file.lower_bounds), decoded(data_file.upper_bounds), data_file.null_value_counts[column.field_id])
        assert got == window.ranges[path], f"{path}: the manifest's bounds say {got}, the file holds {window.ranges[path]}"
    col = quoted(window.column)
    counts = {
        "pyiceberg": tbl.scan(row_filter=row_filter, selected_fields=(window.column,)).to_arrow().num_rows,
        "polars": pl.scan_iceberg(tbl).filter(window.polars()).select(pl.len()).collect().item(),
        "duckdb": con.sql(f"SELECT count(*) FROM iceberg_scan({literal(table)}) WHERE {col} BETWEEN {window.lo_sql} AND {window.hi_sql}").fetchone()[0],
    }
    assert set(counts.values()) == {window.rows}, f"{dataset} {window.column} in [{window.lo}, {window.hi}]: {counts}, the files hold {window.rows}"
    return len(planned)


def main():
    global S3
    (base, key, lake, datasets), options = arguments()
    expired, schemas, tables = int(options.get("expired") or 0), options.get("schemas"), options.get("tables")
    if tables and tables.startswith("s3://"):
        env = {name: os.environ[name] for name in ["AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]}
        properties = {
            "s3.endpoint": env["AWS_ENDPOINT_URL"],
            "s3.region": env["AWS_REGION"],
            "s3.access-key-id": env["AWS_ACCESS_KEY_ID"],
            "s3.secret-access-key": env["AWS_SECRET_ACCESS_KEY"],
            "s3.force-virtual-addressing": "false",
        }
        S3 = (properties, env)
    # ClickHouse reads local files only inside its user files path, the working directory here.
    os.chdir(lake)
    con = duckdb_with_iceberg()
    for dataset in datasets:
        table = f"{tables or lake}/data/{dataset}"
        listed = versions_checked(base, key, lake, dataset)
        row_key = row_key_of(base, key, dataset, listed)
        tbl = open_table(lake, table, dataset)
        snapshots = {s.snapshot_id: s for s in tbl.snapshots()}
        current = listed[0]
        assert tbl.current_snapshot().snapshot_id == current["version"], f"{dataset}: table at {tbl.current_snapshot().snapshot_id}, API at {current['version']}"
        now = {
            "pyiceberg": tbl.scan().to_arrow().num_rows,
            "polars": pl.scan_iceberg(tbl).select(pl.len()).collect().item(),
            "duckdb": con.sql(f"SELECT count(*) FROM iceberg_scan({literal(table)})").fetchone()[0],
            "clickhouse": clickhouse(table, "count()")[0][0],
        }
        assert set(now.values()) == {current["rows"]}, f"{dataset}: rows now {now}, the API {current['rows']}"
        stats = ""
        if not schemas and not S3:
            window = Window(con, lake, current["version"], dataset)
            planned = skipping_by_bounds(con, tbl, table, window, dataset, lake)
            stats = f"; files carry the table's field ids, and a window of {window.column} plans {planned} of {window.files} files and reads whole"
        if expired:
            gone, listed = listed[len(listed) - expired:], listed[: len(listed) - expired]
            for v in gone:
                assert v["version"] not in snapshots, f"{dataset}: expired version {v['version']} still a snapshot"
                refused_everywhere(con, tbl, table, v["version"])
            before = listed[-1]["publishedAt"] - 1
            columns = ", ".join(quoted(k) for k in row_key)
            assert tbl.snapshot_as_of_timestamp(before) is None, f"{dataset}: PyIceberg finds a snapshot before the oldest kept"
            early = con.sql(f"SELECT {columns} FROM iceberg_scan({literal(table)}, snapshot_from_timestamp=epoch_ms({before}))").fetchall()
            assert early == [], f"{dataset}: DuckDB reads {len(early)} rows before the oldest kept version"
            try:
                got = clickhouse(table, "count()", f"iceberg_timestamp_ms={before}")
            except Exception:  # noqa: BLE001 — ClickHouse refuses a time before every snapshot
                got = None
            assert got is None, f"{dataset} before the oldest kept version through clickhouse: {got}"
        assert sorted(snapshots) == sorted(v["version"] for v in listed), f"{dataset}: snapshots {sorted(snapshots)} are not the versions {listed}"
        for i, v in enumerate(listed):
            expected = reference(con, lake, v["version"], dataset, row_key)
            assert expected[0] == v["rows"], f"{dataset} v{v['version']}: the commit's files hold {expected[0]} rows, the API says {v['rows']}"
            for engine, got in read_all(con, tbl, table, row_key, v["version"]).items():
                assert got == expected, f"{dataset} v{v['version']} through {engine}: {got} != {expected}"
            # By time: from its publish time to the last millisecond before the next version's,
            # the snapshot is the version `as_of` serves.
            upto = listed[i - 1]["publishedAt"] - 1 if i > 0 else int(datetime.datetime.now().timestamp() * 1000)
            for millis in sorted({v["publishedAt"], upto}):
                for engine, got in read_at(con, tbl, table, row_key, millis).items():
                    want = v["version"] if engine == "pyiceberg" else expected
                    assert got == want, f"{dataset} v{v['version']} at {millis} ms through {engine}: {got} != {want}"
            if schemas:
                own = file_columns(con, lake, v["version"], dataset)
                for engine, got in columns_of_each_engine(con, tbl, table, v["version"]).items():
                    names = [c["name"] for c in got] if engine == "clickhouse" else got
                    assert names == own, f"{dataset} v{v['version']} through {engine}: columns {names}, its files {own}"
        if schemas:
            assert len(tbl.metadata.schemas) == int(schemas), f"{dataset}: {len(tbl.metadata.schemas)} schemas"
        against = "the commit log" if base == "-" else "the API and the commit log"
        if S3:
            against += f", reading {table}"
        if expired:
            against += f" ({expired} expired versions refused by each)"
        if schemas:
            against += f", each version in its own of {schemas} schemas"
        print(f"iceberg tables: {dataset}: {len(listed)} versions, {current['rows']} rows now; pyiceberg, polars, duckdb, clickhouse agree with {against}{stats}: ok")


if __name__ == "__main__":
    main()
