//! UCDP GED API pages → `violence-events` rows, with the merge rules of SUPPLEMENT 2.3.2.

use std::collections::HashMap;

use serde::Deserialize;
use sitrep_schemas::{conflict::ucdp_violence_type, countries, DatasetId};

use super::Release;
use crate::{
    arrow_util::{batch, f64s, finish, i32s, instants, strings, truncate_chars},
    lenient::Lenient,
    time::date_prefix_ms,
    SourceError,
};

const MAX_ROWS: usize = 2000;
const ANNUAL_RESERVE: usize = 500;
const DAY_MS: i64 = 86_400_000;

#[derive(Debug, Deserialize)]
pub struct UcdpPage<'a> {
    #[serde(rename = "TotalCount", default)]
    pub total_count: i64,
    #[serde(rename = "TotalPages", default)]
    pub total_pages: i64,
    #[serde(rename = "Result", default, borrow)]
    pub result: Vec<UcdpRow<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct UcdpRow<'a> {
    #[serde(borrow)]
    pub id: Lenient<'a>,
    #[serde(default, borrow)]
    pub date_start: Lenient<'a>,
    #[serde(default, borrow)]
    pub date_end: Lenient<'a>,
    #[serde(default, borrow)]
    pub latitude: Lenient<'a>,
    #[serde(default, borrow)]
    pub longitude: Lenient<'a>,
    #[serde(default, borrow)]
    pub country: Lenient<'a>,
    #[serde(default, borrow)]
    pub side_a: Lenient<'a>,
    #[serde(default, borrow)]
    pub side_b: Lenient<'a>,
    #[serde(default, borrow)]
    pub best: Lenient<'a>,
    #[serde(default, borrow)]
    pub low: Lenient<'a>,
    #[serde(default, borrow)]
    pub high: Lenient<'a>,
    #[serde(default, borrow)]
    pub type_of_violence: Lenient<'a>,
    #[serde(default, borrow)]
    pub source_original: Lenient<'a>,
}

pub fn parse_page(body: &[u8]) -> Result<UcdpPage<'_>, SourceError> {
    serde_json::from_slice(body).map_err(|e| SourceError::parse("ucdp gedevents response", e))
}

struct Candidate<'r, 'a> {
    row: &'r UcdpRow<'a>,
    release: &'r str,
    from_candidate: bool,
    start_ms: i64,
}

fn int(v: &Lenient) -> i32 {
    v.i64().and_then(|x| i32::try_from(x).ok()).unwrap_or(0)
}

/// De-duplicate by id (candidate rows win), keep the 365 days before the newest date_start, cap
/// 2,000 rows with at least 500 reserved for annual rows when candidate rows exist, order by
/// date_start desc then id.
pub fn merge(
    annual: Option<&Release>,
    candidates: &[Release],
) -> Result<arrow::record_batch::RecordBatch, SourceError> {
    let mut parsed = Vec::new();
    for (release, is_candidate) in annual.into_iter().map(|r| (r, false)).chain(candidates.iter().map(|r| (r, true))) {
        for page in &release.pages {
            parsed.push((release.version.as_str(), is_candidate, parse_page(page)?));
        }
    }
    let mut by_id: HashMap<&str, Candidate> = HashMap::new();
    for (release, from_candidate, page) in &parsed {
        for row in &page.result {
            let Some(start_ms) = date_prefix_ms(row.date_start.as_str()) else { continue };
            let id = row.id.as_str();
            if id.is_empty() {
                continue;
            }
            let c = Candidate { row, release, from_candidate: *from_candidate, start_ms };
            match by_id.get(id) {
                Some(existing) if existing.from_candidate && !from_candidate => {}
                _ => {
                    by_id.insert(id, c);
                }
            }
        }
    }
    let newest = by_id.values().map(|c| c.start_ms).max().unwrap_or(0);
    let mut kept: Vec<Candidate> = by_id.into_values().filter(|c| c.start_ms >= newest - 365 * DAY_MS).collect();
    kept.sort_by(|a, b| b.start_ms.cmp(&a.start_ms).then_with(|| a.row.id.as_str().cmp(b.row.id.as_str())));

    let annual_count = kept.iter().filter(|c| !c.from_candidate).count();
    let candidate_count = kept.len() - annual_count;
    let selected: Vec<&Candidate> = if kept.len() <= MAX_ROWS {
        kept.iter().collect()
    } else {
        let reserve = if candidate_count > 0 { ANNUAL_RESERVE.min(annual_count) } else { 0 };
        let candidate_quota = candidate_count.min(MAX_ROWS - reserve);
        let annual_quota = MAX_ROWS - candidate_quota;
        let (mut c, mut a) = (0, 0);
        kept.iter()
            .filter(|x| {
                let slot = if x.from_candidate { &mut c } else { &mut a };
                let quota = if x.from_candidate { candidate_quota } else { annual_quota };
                *slot += 1;
                *slot <= quota
            })
            .collect()
    };

    let n = selected.len();
    let (mut id, mut ds, mut de, mut lat, mut lon) = (strings(n), instants(n), instants(n), f64s(n), f64s(n));
    let (mut country, mut iso2, mut sa, mut sb) = (strings(n), strings(n), strings(n), strings(n));
    let (mut best, mut low, mut high, mut vt, mut so, mut rel) =
        (i32s(n), i32s(n), i32s(n), strings(n), strings(n), strings(n));
    for c in selected {
        let r = c.row;
        id.append_value(r.id.as_str());
        ds.append_value(c.start_ms);
        de.append_option(date_prefix_ms(r.date_end.as_str()));
        lat.append_value(r.latitude.f64().unwrap_or(0.0));
        lon.append_value(r.longitude.f64().unwrap_or(0.0));
        country.append_value(r.country.as_str());
        iso2.append_value(countries::alpha2_from_name(r.country.as_str()).unwrap_or(""));
        sa.append_value(truncate_chars(r.side_a.as_str(), 200));
        sb.append_value(truncate_chars(r.side_b.as_str(), 200));
        best.append_value(int(&r.best));
        low.append_value(int(&r.low));
        high.append_value(int(&r.high));
        vt.append_value(ucdp_violence_type(r.type_of_violence.i64().unwrap_or(0)));
        so.append_value(truncate_chars(r.source_original.as_str(), 300));
        rel.append_value(c.release);
    }
    batch(
        DatasetId::VIOLENCE_EVENTS,
        vec![
            finish(id),
            finish(ds),
            finish(de),
            finish(lat),
            finish(lon),
            finish(country),
            finish(iso2),
            finish(sa),
            finish(sb),
            finish(best),
            finish(low),
            finish(high),
            finish(vt),
            finish(so),
            finish(rel),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int32Array};
    use bytes::Bytes;

    fn page(rows: &str) -> Bytes {
        Bytes::from(format!(r#"{{"TotalCount":1,"TotalPages":1,"NextPageUrl":"","Result":[{rows}]}}"#))
    }

    #[test]
    fn candidate_rows_win_and_old_rows_fall_out() {
        let annual = Release {
            version: "26.1".into(),
            pages: vec![page(
                r#"{"id":1,"date_start":"2025-12-30 00:00:00.000","date_end":"","country":"DR Congo (Zaire)","best":5,"low":4,"high":9,"type_of_violence":1},
                   {"id":2,"date_start":"2024-01-01 00:00:00.000","date_end":"2024-01-01 00:00:00.000","country":"Sudan","best":1,"low":1,"high":1,"type_of_violence":2}"#,
            )],
        };
        let cand = Release {
            version: "26.0.10".into(),
            pages: vec![page(
                r#"{"id":1,"date_start":"2026-10-01 00:00:00.000","date_end":"2026-10-02 00:00:00.000","country":"DR Congo (Zaire)","best":50,"low":40,"high":90,"type_of_violence":3}"#,
            )],
        };
        let b = merge(Some(&annual), &[cand]).unwrap();
        assert_eq!(b.num_rows(), 1, "id 1 deduplicated, id 2 older than 365 days");
        let best = b.column(9).as_any().downcast_ref::<Int32Array>().unwrap();
        assert_eq!(best.value(0), 50);
        assert_eq!(b.column(6).as_string::<i32>().value(0), "CD");
        assert_eq!(b.column(12).as_string::<i32>().value(0), "UCDP_VIOLENCE_TYPE_ONE_SIDED");
        assert_eq!(b.column(14).as_string::<i32>().value(0), "26.0.10");
    }
}
