//! Each dataset as an Apache Iceberg v2 table at `data/<dataset>/` (the Delta table's root too),
//! its metadata at `data/<dataset>/metadata/`: one snapshot per published dataset version, written
//! after our commit in the same publish. A projection of our commit log, never its source.
//!
//! - A snapshot's id is the generation that published the version, its sequence number the table's
//!   count of snapshots, its `timestamp-ms` the version's `publishedAt`. So travelling to a
//!   snapshot id reads that version, and travelling to a time T (the snapshot log: the newest
//!   snapshot at or before T) reads exactly what `as_of=T` reads — also for a version caught up
//!   later, whose time is still its `publishedAt`.
//! - Each snapshot has one manifest naming every file of the version (`EXISTING` with the ids of
//!   the snapshot that added it, `ADDED`, and `DELETED` for the files that left), and a manifest
//!   list naming that manifest. Both are named by their content's digest and created with
//!   `PutMode::Create`; the commit point is `v<N>.metadata.json`, created the same way, then
//!   `version-hint.text` (a hint: readers and writers probe the versions after it).
//! - Every byte is a function of our commits, so a retried or racing writer writes the same
//!   files, and `AlreadyExists` on a metadata version means another writer got there first: the
//!   writer reads the table again and goes on from its new head.

mod avro;
mod expire;
mod metadata;
mod schema;

use std::{collections::BTreeMap, sync::Arc};

use arrow::datatypes::SchemaRef;
use bytes::Bytes;
use futures::TryStreamExt;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};
use sha2::{Digest, Sha256};
use sitrep_schemas::{DatasetEntry, DatasetId};

use avro::{Entry, ManifestFile, Status};
use metadata::{Snapshot, TableMetadata};
use schema::FieldIds;

use crate::{history::PublishedVersion, layout, validate::read_footer, Lake, LakeError};

/// The metadata folder under a table root.
const METADATA: &str = "metadata/";

fn metadata_dir(dataset: DatasetId) -> String {
    format!("{}{METADATA}", layout::table_root(dataset))
}

/// The key of metadata version `n`.
pub fn metadata_key(dataset: DatasetId, n: u64) -> String {
    format!("{}v{n}.metadata.json", metadata_dir(dataset))
}

fn hint_key(dataset: DatasetId) -> String {
    format!("{}version-hint.text", metadata_dir(dataset))
}

/// The metadata version a `v<N>.metadata.json` key is.
fn metadata_version(key: &str) -> Option<u64> {
    key.rsplit('/').next()?.strip_prefix('v')?.strip_suffix(".metadata.json")?.parse().ok()
}

/// The table's id: the same for every writer of the dataset.
fn table_uuid(dataset: DatasetId) -> String {
    crate::tables::stable_uuid(&format!("sitrep iceberg table {dataset}"))
}

fn created() -> PutOptions {
    PutOptions { mode: PutMode::Create, ..Default::default() }
}

fn digest(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..8])
}

/// What a snapshot changes, counted for its summary and its manifest list.
#[derive(Default)]
struct Counts {
    added: (i32, i64),
    existing: (i32, i64),
    deleted: (i32, i64),
}

impl Counts {
    fn of(entries: &[Entry]) -> Counts {
        let mut c = Counts::default();
        for e in entries {
            let slot = match e.status {
                Status::Added => &mut c.added,
                Status::Existing => &mut c.existing,
                Status::Deleted => &mut c.deleted,
            };
            slot.0 += 1;
            slot.1 += e.record_count;
        }
        c
    }

    /// The snapshot's operation: a version that only adds files appends, one that only drops
    /// files deletes, one that does both (a full replacement, a month-scoped backfill) overwrites.
    fn operation(&self) -> &'static str {
        match (self.added.0 > 0, self.deleted.0 > 0) {
            (true, true) => "overwrite",
            (true, false) => "append",
            (false, true) => "delete",
            (false, false) => "replace",
        }
    }
}

impl Lake {
    /// Where a dataset's Iceberg table is (its `location`, no trailing `/`).
    fn iceberg_location(&self, dataset: DatasetId) -> String {
        self.external_path(&layout::table_root(dataset)).trim_end_matches('/').to_string()
    }

    /// The lake key of a location this lake wrote into a table.
    fn key_of<'a>(&self, location: &'a str) -> Result<&'a str, LakeError> {
        location
            .strip_prefix(&self.external_path(""))
            .ok_or_else(|| LakeError::Validation(format!("{location} is not in this lake")))
    }

    /// The table's newest metadata version and its content (None: no table yet): from the hint
    /// on, probing the versions after it; the folder is listed only when the hint names a version
    /// gc has since deleted.
    pub async fn iceberg_head(&self, dataset: DatasetId) -> Result<Option<(u64, TableMetadata)>, LakeError> {
        let mut n = match self.get_bytes(&hint_key(dataset)).await {
            Ok(b) => String::from_utf8_lossy(&b).trim().parse().unwrap_or(0),
            Err(LakeError::Store(object_store::Error::NotFound { .. })) => 0,
            Err(e) => return Err(e),
        };
        let exists = |n: u64| async move {
            match self.store.head(&Lake::path(&metadata_key(dataset, n))).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(LakeError::from(e)),
            }
        };
        if n > 0 && !exists(n).await? {
            let listed: Vec<_> = self.store.list(Some(&Lake::path(&metadata_dir(dataset)))).try_collect().await?;
            n = listed.iter().filter_map(|o| metadata_version(o.location.as_ref())).max().unwrap_or(0);
        }
        while exists(n + 1).await? {
            n += 1;
        }
        if n == 0 {
            return Ok(None);
        }
        let bytes = self.get_bytes(&metadata_key(dataset, n)).await?;
        let metadata = serde_json::from_slice(&bytes)
            .map_err(|e| LakeError::Validation(format!("{}: {e}", metadata_key(dataset, n))))?;
        Ok(Some((n, metadata)))
    }

    /// The files a snapshot holds: its manifest list's manifests' live entries.
    async fn live_entries(&self, snapshot: &Snapshot) -> Result<Vec<Entry>, LakeError> {
        let list = self.get_bytes(self.key_of(&snapshot.manifest_list)?).await?;
        let mut live = Vec::new();
        for manifest in avro::read_manifest_list(&list)? {
            let bytes = self.get_bytes(self.key_of(&manifest)?).await?;
            live.extend(avro::read_manifest(&bytes)?.into_iter().filter(|e| e.status != Status::Deleted));
        }
        Ok(live)
    }

    /// The lake keys of the files snapshot `snapshot_id` of `metadata` holds (None: it has no
    /// such snapshot).
    pub async fn iceberg_snapshot_files(
        &self,
        metadata: &TableMetadata,
        snapshot_id: i64,
    ) -> Result<Option<Vec<String>>, LakeError> {
        let Some(snapshot) = metadata.snapshots.iter().find(|s| s.snapshot_id == snapshot_id) else { return Ok(None) };
        let live = self.live_entries(snapshot).await?;
        live.iter().map(|e| self.key_of(&e.file_path).map(str::to_string)).collect::<Result<_, _>>().map(Some)
    }

    /// Points `version-hint.text` at metadata version `n` unless it names a later one.
    async fn write_version_hint(&self, dataset: DatasetId, n: u64) -> Result<(), LakeError> {
        if let Ok(b) = self.get_bytes(&hint_key(dataset)).await {
            if String::from_utf8_lossy(&b).trim().parse::<u64>().is_ok_and(|h| h >= n) {
                return Ok(());
            }
        }
        self.store.put(&Lake::path(&hint_key(dataset)), PutPayload::from(n.to_string().into_bytes())).await?;
        Ok(())
    }

    /// Creates `bytes` under a name made of `prefix` and their digest; returns its location.
    async fn put_named_by_content(
        &self,
        dataset: DatasetId,
        prefix: &str,
        bytes: Vec<u8>,
    ) -> Result<String, LakeError> {
        let key = format!("{}{prefix}-{}.avro", metadata_dir(dataset), digest(&bytes));
        match self.store.put_opts(&Lake::path(&key), PutPayload::from(Bytes::from(bytes)), created()).await {
            Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => Ok(self.external_path(&key)),
            Err(e) => Err(e.into()),
        }
    }

    /// The Arrow schema `dataset`'s new files are written with: its columns' Iceberg field ids
    /// stamped, those the table has given them or will give them at its next schema (as
    /// [`FieldIds`] assigns them, from the table's head). Without open tables, the plain schema.
    pub async fn file_schema(&self, dataset: DatasetId) -> Result<SchemaRef, LakeError> {
        if !self.open_tables {
            return Ok(dataset.schema());
        }
        let mut ids = match self.iceberg_head(dataset).await? {
            Some((_, metadata)) => FieldIds::of(&metadata.schemas, metadata.last_column_id),
            None => FieldIds::default(),
        };
        Ok(Arc::new(ids.stamp(&dataset.schema())?))
    }

    /// The schema id of `entry`'s schema in `metadata`, adding it (with ids that follow names,
    /// and the name mapping grown to it) when the table has not had it.
    async fn schema_id(
        &self,
        metadata: &mut TableMetadata,
        dataset: DatasetId,
        entry: &DatasetEntry,
    ) -> Result<i32, LakeError> {
        let arrow = self.version_schema(dataset, entry).await?;
        let mut ids = FieldIds::of(&metadata.schemas, metadata.last_column_id);
        let next_id = metadata.schemas.iter().map(|s| s.schema_id + 1).max().unwrap_or(0);
        let candidate = ids.schema(&arrow, next_id)?;
        let same = |s: &&schema::Schema| s.fields == candidate.fields;
        let id = match metadata.schemas.iter().find(same) {
            Some(known) => known.schema_id,
            None => {
                metadata.schemas.push(candidate.clone());
                next_id
            }
        };
        // Files carry the ids their writer read from the table; only writers of two different
        // schemas racing (a rolling upgrade) could have given a column another id than the
        // table's, and a reader would then resolve it wrongly: refuse such a version.
        if let Some(file) = entry.files.first() {
            let carried = schema::ids_in_file(&read_footer(self, file).await?.schema);
            if !carried.is_empty() && carried != candidate.ids_by_path() {
                return Err(LakeError::Validation(format!(
                    "{}: its columns' field ids {carried:?} are not the table's {:?}",
                    file.path,
                    candidate.ids_by_path()
                )));
            }
        }
        metadata.last_column_id = ids.last_column_id();
        metadata.properties.insert("schema.name-mapping.default".into(), ids.name_mapping());
        metadata.current_schema_id = id;
        Ok(id)
    }

    /// The snapshot taking the table from `live` (the current snapshot's files) to `next`, its
    /// manifest and manifest list created; returns it and the files it holds.
    async fn snapshot(
        &self,
        dataset: DatasetId,
        metadata: &TableMetadata,
        live: &[Entry],
        replace: bool,
        next: &PublishedVersion,
    ) -> Result<(Snapshot, Vec<Entry>), LakeError> {
        let id = next.version as i64;
        let seq = metadata.last_sequence_number + 1;
        if let Some(outside) = next.entry.files.iter().find(|f| layout::in_table(dataset, &f.path).is_none()) {
            // Readers resolving files against the table's location (ClickHouse) could not find it.
            return Err(LakeError::Validation(format!(
                "{} lies outside {}'s table folder",
                outside.path,
                layout::table_root(dataset)
            )));
        }
        let paths: Vec<String> = next.entry.files.iter().map(|f| self.external_path(&f.path)).collect();
        let mut entries: Vec<Entry> = Vec::new();
        for e in live {
            let stays = paths.contains(&e.file_path);
            if stays && !replace {
                entries.push(Entry { status: Status::Existing, ..e.clone() });
            } else if !stays {
                entries.push(Entry { status: Status::Deleted, snapshot_id: id, ..e.clone() });
            }
        }
        let schema = metadata.schemas.iter().find(|s| s.schema_id == metadata.current_schema_id);
        for (file, path) in next.entry.files.iter().zip(&paths) {
            if replace || !live.iter().any(|e| &e.file_path == path) {
                let stats = schema.map(|s| s.column_stats(&file.bounds)).unwrap_or_default();
                entries.push(Entry {
                    status: Status::Added,
                    snapshot_id: id,
                    sequence_number: seq,
                    file_sequence_number: seq,
                    file_path: path.clone(),
                    record_count: file.rows as i64,
                    file_size_in_bytes: file.bytes as i64,
                    lower_bounds: stats.lower,
                    upper_bounds: stats.upper,
                    null_value_counts: stats.nulls,
                });
            }
        }
        let schema_json = serde_json::to_string(&schema).unwrap_or_default();
        let header = [
            ("schema", schema_json),
            ("schema-id", metadata.current_schema_id.to_string()),
            ("partition-spec", "[]".to_string()),
            ("partition-spec-id", metadata::SPEC_ID.to_string()),
            ("format-version", "2".to_string()),
            ("content", "data".to_string()),
        ];
        let manifest = avro::manifest(&entries, &header, &format!("{dataset} {id} {seq} manifest"))?;
        let manifest_length = manifest.len() as i64;
        let manifest_path = self.put_named_by_content(dataset, &format!("{id:020}-m0"), manifest).await?;
        let counts = Counts::of(&entries);
        let held: Vec<Entry> = entries.into_iter().filter(|e| e.status != Status::Deleted).collect();
        let listed = ManifestFile {
            manifest_path,
            manifest_length,
            sequence_number: seq,
            min_sequence_number: held.iter().map(|e| e.sequence_number).min().unwrap_or(seq),
            added_snapshot_id: id,
            added_files_count: counts.added.0,
            existing_files_count: counts.existing.0,
            deleted_files_count: counts.deleted.0,
            added_rows_count: counts.added.1,
            existing_rows_count: counts.existing.1,
            deleted_rows_count: counts.deleted.1,
        };
        let parent = metadata.current().map(|s| s.snapshot_id);
        let header = [
            ("snapshot-id", id.to_string()),
            ("parent-snapshot-id", parent.map_or_else(|| "null".to_string(), |p| p.to_string())),
            ("sequence-number", seq.to_string()),
            ("format-version", "2".to_string()),
        ];
        let list = avro::manifest_list(&[listed], &header, &format!("{dataset} {id} {seq} list"))?;
        let manifest_list = self.put_named_by_content(dataset, &format!("snap-{id:020}"), list).await?;
        let total = |f: fn(&Entry) -> i64| held.iter().map(f).sum::<i64>().to_string();
        let summary: BTreeMap<String, String> = [
            ("operation", counts.operation().to_string()),
            ("added-data-files", counts.added.0.to_string()),
            ("deleted-data-files", counts.deleted.0.to_string()),
            ("added-records", counts.added.1.to_string()),
            ("deleted-records", counts.deleted.1.to_string()),
            ("total-data-files", held.len().to_string()),
            ("total-records", total(|e| e.record_count)),
            ("total-files-size", total(|e| e.file_size_in_bytes)),
            ("total-delete-files", "0".to_string()),
            ("total-position-deletes", "0".to_string()),
            ("total-equality-deletes", "0".to_string()),
            ("sitrep-generation", next.version.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let snapshot = Snapshot {
            snapshot_id: id,
            parent_snapshot_id: parent,
            sequence_number: seq,
            timestamp_ms: next.published_at.timestamp_millis(),
            manifest_list,
            summary,
            schema_id: metadata.current_schema_id,
        };
        Ok((snapshot, held))
    }

    /// Brings `dataset`'s Iceberg table up to its version `top`, one snapshot per dataset version.
    pub(crate) async fn write_iceberg_table(&self, dataset: DatasetId, top: u64) -> Result<(), LakeError> {
        'table: loop {
            let head = self.iceberg_head(dataset).await?;
            let head_generation = head.as_ref().and_then(|(_, m)| m.current()).map(|s| s.snapshot_id as u64);
            if head_generation.is_some_and(|g| g >= top) {
                return Ok(());
            }
            let previous = match head_generation {
                Some(g) => Some(self.published_head(dataset, g).await?),
                None => None,
            };
            let pending = self.versions_after(dataset, top, previous.as_ref()).await?;
            let (mut n, mut metadata) = head.unwrap_or_else(|| {
                let properties = BTreeMap::from([("sitrep.dataset".to_string(), dataset.to_string())]);
                (0, TableMetadata::new(table_uuid(dataset), self.iceberg_location(dataset), properties))
            });
            let mut live = match metadata.current() {
                Some(s) => self.live_entries(s).await?,
                None => Vec::new(),
            };
            let mut fingerprint = previous.map(|p| p.entry.schema_fingerprint);
            for next in pending {
                let replace = fingerprint.as_ref() != Some(&next.entry.schema_fingerprint);
                if replace {
                    self.schema_id(&mut metadata, dataset, &next.entry).await?;
                }
                let (snapshot, held) = self.snapshot(dataset, &metadata, &live, replace, &next).await?;
                let proposed = metadata.clone().with_snapshot(snapshot);
                let key = Lake::path(&metadata_key(dataset, n + 1));
                match self.store.put_opts(&key, PutPayload::from(proposed.to_bytes()), created()).await {
                    Ok(_) => {}
                    Err(object_store::Error::AlreadyExists { .. }) => continue 'table,
                    Err(e) => return Err(e.into()),
                }
                n += 1;
                metadata = proposed;
                live = held;
                fingerprint = Some(next.entry.schema_fingerprint);
            }
            if n > 0 {
                self.write_version_hint(dataset, n).await?;
            }
            return Ok(());
        }
    }
}

pub use metadata::TableMetadata as IcebergMetadata;

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: Status, rows: i64) -> Entry {
        Entry {
            status,
            snapshot_id: 1,
            sequence_number: 1,
            file_sequence_number: 1,
            file_path: "/f".into(),
            record_count: rows,
            file_size_in_bytes: 10,
            lower_bounds: Vec::new(),
            upper_bounds: Vec::new(),
            null_value_counts: Vec::new(),
        }
    }

    /// A version that only adds files appends, one that only drops files deletes, both overwrites
    /// (a full replacement, a month-scoped backfill), neither replaces (the same files).
    #[test]
    fn a_snapshots_operation_follows_its_entries() {
        let op =
            |statuses: &[Status]| Counts::of(&statuses.iter().map(|s| entry(*s, 5)).collect::<Vec<_>>()).operation();
        assert_eq!(op(&[Status::Existing, Status::Added]), "append");
        assert_eq!(op(&[Status::Existing, Status::Deleted]), "delete");
        assert_eq!(op(&[Status::Deleted, Status::Added]), "overwrite");
        assert_eq!(op(&[Status::Existing]), "replace");
        let counts = Counts::of(&[entry(Status::Added, 5), entry(Status::Added, 7), entry(Status::Deleted, 3)]);
        assert_eq!((counts.added, counts.deleted, counts.existing), ((2, 12), (1, 3), (0, 0)));
    }

    #[test]
    fn metadata_versions_are_read_from_their_keys() {
        assert_eq!(metadata_version(&metadata_key(DatasetId::ARMED_EVENTS, 12)), Some(12));
        assert_eq!(metadata_version("data/armed-events/metadata/version-hint.text"), None);
        assert_eq!(metadata_version("data/armed-events/metadata/snap-00000000000000000003-ab.avro"), None);
    }
}
