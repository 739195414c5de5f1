//! Where a dataset's files lie in the lake. Runs since the open tables write each dataset's files
//! in the dataset's own folder, which is also its Delta Lake and Iceberg tables' root (Delta
//! readers refuse files outside the table's folder):
//!
//! ```text
//! data/<dataset>/<run>/part-<n>.parquet     a run's files of one dataset (this layout)
//! data/<dataset>/_delta_log/…               the Delta Lake table's log
//! data/<dataset>/metadata/…                 the Iceberg table's metadata
//! data/<run>/<dataset>/part-<n>.parquet     a run's files before the open tables (still read)
//! ```
//!
//! Our commit names every file by its full key, so readers need neither rule; writers and the
//! garbage collector do.

use sitrep_schemas::DatasetId;

/// The folder of a dataset's tables (both formats), relative to the lake root, with a trailing `/`.
pub fn table_root(dataset: DatasetId) -> String {
    format!("data/{dataset}/")
}

/// The key of part `n` of a run's files of a dataset.
pub fn part_key(dataset: DatasetId, run: &str, n: usize) -> String {
    format!("{}{run}/part-{n:05}.parquet", table_root(dataset))
}

/// Folders of a dataset's table that hold no run's files.
const TABLE_LOGS: [&str; 2] = ["_delta_log", "metadata"];

/// Whether `segment` (the first folder under `data/`) is a dataset's table folder: a dataset id
/// (a run is a ULID, upper case; ids are lower case with dashes).
fn is_table_folder(segment: &str) -> bool {
    segment.parse::<DatasetId>().is_ok()
}

/// The run whose folder holds the object `key`, in either layout; `None` for a table log's
/// objects and anything outside `data/`.
pub fn run_of(key: &str) -> Option<&str> {
    let mut segments = key.strip_prefix("data/")?.split('/');
    let first = segments.next()?;
    if !is_table_folder(first) {
        return Some(first);
    }
    segments.next().filter(|run| !TABLE_LOGS.contains(run) && !run.is_empty())
}

/// `key` relative to `dataset`'s table root, if the file lies inside it.
pub fn in_table(dataset: DatasetId, key: &str) -> Option<&str> {
    key.strip_prefix(&table_root(dataset)).filter(|rest| !rest.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_both_layouts_and_never_a_table_log() {
        assert_eq!(run_of("data/01RUN/armed-events/part-00000.parquet"), Some("01RUN"));
        assert_eq!(run_of(&part_key(DatasetId::ARMED_EVENTS, "01RUN", 3)), Some("01RUN"));
        assert_eq!(part_key(DatasetId::ARMED_EVENTS, "01RUN", 3), "data/armed-events/01RUN/part-00003.parquet");
        assert_eq!(run_of("data/armed-events/_delta_log/00000000000000000000.json"), None);
        assert_eq!(run_of("data/armed-events/metadata/v1.metadata.json"), None);
        assert_eq!(run_of("commits/00000000000000000001.json"), None);
        assert_eq!(
            in_table(DatasetId::ARMED_EVENTS, "data/armed-events/01RUN/part-00000.parquet"),
            Some("01RUN/part-00000.parquet")
        );
        assert_eq!(in_table(DatasetId::ARMED_EVENTS, "data/01RUN/armed-events/part-00000.parquet"), None);
    }
}
