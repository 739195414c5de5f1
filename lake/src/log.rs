//! `lake log`: what each generation changed relative to its parent.

use sitrep_schemas::Commit;

/// One line per dataset whose version or freshness changed between `parent` and `commit`.
pub fn describe_changes(parent: Option<&Commit>, commit: &Commit) -> Vec<String> {
    let mut out = Vec::new();
    for (id, entry) in &commit.datasets {
        let before = parent.and_then(|p| p.datasets.get(id));
        let version_changed = before.map(|b| b.version) != Some(entry.version);
        let status_changed = before.map(|b| (&b.freshness.status, &b.freshness.last_error))
            != Some((&entry.freshness.status, &entry.freshness.last_error));
        if !version_changed && !status_changed {
            continue;
        }
        let mut line = format!("{id}: ");
        if version_changed {
            let partitions: Vec<&str> = entry
                .files
                .iter()
                .filter(|f| before.is_none_or(|b| !b.files.iter().any(|bf| bf.path == f.path)))
                .filter_map(|f| f.partition.as_deref())
                .collect();
            line.push_str(&format!("v{} {} rows", entry.version.unwrap_or(0), entry.freshness.rows));
            if !partitions.is_empty() {
                line.push_str(&format!(" (new partitions {})", partitions.join(",")));
            }
        } else {
            line.push_str("unchanged data");
        }
        line.push_str(&format!(", {:?}", entry.freshness.status).to_lowercase());
        if let Some(e) = &entry.freshness.last_error {
            line.push_str(&format!(": {e}"));
        }
        out.push(line);
    }
    out
}
