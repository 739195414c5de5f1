//! Where a (country, time range) filter's rows sit in a serving table.
//!
//! Event tables are stored sorted by `country, time DESC, id` and numbered in that order (`_pos`),
//! so the rows of one country in a time range are ONE run of consecutive positions, already in the
//! API's order (newest first, then id). Knowing that run, a page is a position range: no sort and
//! no count at request time, whatever the table's size. The index holds one entry per distinct
//! (country, time) — for day-dated events, countries × days — built and checked at load.

use std::collections::HashMap;

/// Consecutive positions `first .. first + rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionRange {
    pub first: i64,
    pub rows: i64,
}

/// Rows of one country sharing one time value.
#[derive(Debug, Clone, Copy)]
struct Run {
    time_ms: i64,
    first: i64,
    rows: i64,
}

#[derive(Debug, Default)]
pub struct PositionIndex {
    /// Per country, runs in table order: time descending, positions ascending.
    by_country: HashMap<String, Vec<Run>>,
}

/// One row of the load-time aggregate: (country, time, min position, max position, rows).
pub type RunRow = (String, i64, i64, i64, i64);

impl PositionIndex {
    /// Builds the index from runs ordered by their first position, checking the layout it relies
    /// on: each run contiguous, runs adjacent, one block per country, time strictly descending in
    /// a block. `None` if the table is not laid out that way (the caller then sorts at query time).
    pub fn from_runs(runs: impl IntoIterator<Item = RunRow>) -> Option<Self> {
        let mut by_country: HashMap<String, Vec<Run>> = HashMap::new();
        let mut next_pos = 0;
        let mut current: Option<String> = None;
        for (country, time_ms, min, max, rows) in runs {
            if min != next_pos || max - min + 1 != rows {
                return None;
            }
            next_pos = max + 1;
            if current.as_deref() != Some(country.as_str()) {
                if by_country.contains_key(&country) {
                    return None; // the country's rows are split in two blocks
                }
                current = Some(country.clone());
            }
            let block = by_country.entry(country).or_default();
            if block.last().is_some_and(|prev| prev.time_ms <= time_ms) {
                return None;
            }
            block.push(Run { time_ms, first: min, rows });
        }
        Some(PositionIndex { by_country })
    }

    /// The positions of `country`'s rows with `from_ms ≤ time ≤ to_ms` (possibly zero rows).
    pub fn lookup(&self, country: &str, from_ms: i64, to_ms: i64) -> PositionRange {
        let Some(runs) = self.by_country.get(country) else { return PositionRange { first: 0, rows: 0 } };
        // Times descend: skip runs newer than `to`, stop at the first older than `from`.
        let start = runs.partition_point(|r| r.time_ms > to_ms);
        let end = runs.partition_point(|r| r.time_ms >= from_ms);
        if start >= end {
            return PositionRange { first: 0, rows: 0 };
        }
        let (a, b) = (runs[start], runs[end - 1]);
        PositionRange { first: a.first, rows: b.first + b.rows - a.first }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(c: &str, t: i64, min: i64, max: i64) -> RunRow {
        (c.to_string(), t, min, max, max - min + 1)
    }

    #[test]
    fn finds_the_run_of_a_country_and_time_range() {
        // SD: t=30 (0-1), t=20 (2-4); UA: t=30 (5), t=10 (6-8)
        let idx = PositionIndex::from_runs([
            row("SD", 30, 0, 1),
            row("SD", 20, 2, 4),
            row("UA", 30, 5, 5),
            row("UA", 10, 6, 8),
        ])
        .unwrap();
        assert_eq!(idx.lookup("SD", 0, 100), PositionRange { first: 0, rows: 5 });
        assert_eq!(idx.lookup("SD", 20, 20), PositionRange { first: 2, rows: 3 }, "inclusive bounds");
        assert_eq!(idx.lookup("SD", 21, 30), PositionRange { first: 0, rows: 2 });
        assert_eq!(idx.lookup("UA", 11, 29).rows, 0, "no run inside the range");
        assert_eq!(idx.lookup("UA", 0, 10), PositionRange { first: 6, rows: 3 });
        assert_eq!(idx.lookup("YE", 0, 100).rows, 0, "unknown country");
        assert_eq!(idx.lookup("SD", 100, 0).rows, 0, "empty range");
    }

    #[test]
    fn refuses_layouts_it_cannot_answer_from() {
        assert!(PositionIndex::from_runs([row("SD", 30, 0, 1), row("SD", 20, 3, 4)]).is_none(), "gap");
        assert!(PositionIndex::from_runs([("SD".into(), 30, 0, 5, 2)]).is_none(), "run not contiguous");
        assert!(PositionIndex::from_runs([row("SD", 20, 0, 1), row("SD", 30, 2, 3)]).is_none(), "time ascending");
        assert!(
            PositionIndex::from_runs([row("SD", 30, 0, 1), row("UA", 30, 2, 3), row("SD", 20, 4, 5)]).is_none(),
            "country in two blocks"
        );
        assert!(PositionIndex::from_runs([row("SD", 30, 1, 2)]).is_none(), "must start at position 0");
        assert!(PositionIndex::from_runs(Vec::<RunRow>::new()).is_some(), "an empty table is fine");
    }
}
