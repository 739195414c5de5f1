//! ACLED `read` responses (every value a string) → `armed-events` rows.

use serde::Deserialize;
use sitrep_schemas::{countries, DatasetId};

use crate::{
    arrow_util::{batch, f64s, finish, i32s, instants, string_lists, strings},
    lenient::Lenient,
    time::date_prefix_ms,
    SourceError,
};

#[derive(Debug, Deserialize)]
pub struct AcledPage<'a> {
    #[serde(default)]
    pub success: Option<bool>,
    #[serde(default, borrow)]
    pub data: Vec<AcledRow<'a>>,
    #[serde(default)]
    pub error: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct AcledRow<'a> {
    #[serde(borrow)]
    pub event_id_cnty: Lenient<'a>,
    #[serde(borrow)]
    pub event_date: Lenient<'a>,
    #[serde(borrow)]
    pub event_type: Lenient<'a>,
    #[serde(default, borrow)]
    pub sub_event_type: Lenient<'a>,
    #[serde(default, borrow)]
    pub actor1: Lenient<'a>,
    #[serde(default, borrow)]
    pub actor2: Lenient<'a>,
    #[serde(default, borrow)]
    pub iso: Lenient<'a>,
    #[serde(default, borrow)]
    pub country: Lenient<'a>,
    #[serde(default, borrow)]
    pub admin1: Lenient<'a>,
    #[serde(default, borrow)]
    pub latitude: Lenient<'a>,
    #[serde(default, borrow)]
    pub longitude: Lenient<'a>,
    #[serde(default, borrow)]
    pub fatalities: Lenient<'a>,
    #[serde(default, borrow)]
    pub source: Lenient<'a>,
}

/// Parses one page; `success: false` and non-JSON bodies are errors. The body's UTF-8 is checked
/// once, whole, rather than string by string as `from_slice` does (a row has 31 of them); a body
/// that is not all UTF-8 goes to `from_slice`, which refuses it only where a kept value is invalid.
pub fn parse_page(body: &[u8]) -> Result<AcledPage<'_>, SourceError> {
    let page: Result<AcledPage, _> = match std::str::from_utf8(body) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(body),
    };
    let page = page.map_err(|e| SourceError::parse("acled read response", e))?;
    if page.success == Some(false) {
        let detail = page.error.as_ref().map(|e| e.to_string()).unwrap_or_else(|| "success=false".into());
        return Err(SourceError::Upstream(format!("acled: {detail}")));
    }
    Ok(page)
}

fn valid_coordinates(lat: Option<f64>, lon: Option<f64>) -> Option<(f64, f64)> {
    match (lat, lon) {
        (Some(a), Some(o)) if (-90.0..=90.0).contains(&a) && (-180.0..=180.0).contains(&o) => Some((a, o)),
        _ => None,
    }
}

/// Mapping of SUPPLEMENT 2.3.1: drop rows with invalid coordinates or dates, id `acled-<event_id_cnty>`,
/// fatalities 0 when not numeric, actors = non-empty of actor1/actor2, ISO2 from the numeric code.
/// Duplicate event ids (overlapping pages) keep their first occurrence.
pub fn normalise<'r, 'a: 'r>(
    rows: impl Iterator<Item = &'r AcledRow<'a>>,
    max_rows: usize,
) -> Result<arrow::record_batch::RecordBatch, SourceError> {
    // Sized for the page up front (a growing builder reallocates and copies).
    let cap = match rows.size_hint().0.min(max_rows) {
        0 => 1024,
        n => n,
    };
    let (mut id, mut et, mut set, mut country, mut iso2, mut admin1) =
        (strings(cap), strings(cap), strings(cap), strings(cap), strings(cap), strings(cap));
    let (mut lat, mut lon, mut at, mut fat, mut actors, mut source) =
        (f64s(cap), f64s(cap), instants(cap), i32s(cap), string_lists(cap), strings(cap));
    // Ids need no protection from crafted collisions (a page is bounded): the fast hash.
    let mut seen = std::collections::HashSet::with_capacity_and_hasher(cap, foldhash::fast::RandomState::default());
    let mut id_buf = String::new();
    for r in rows {
        if seen.len() >= max_rows {
            break;
        }
        let Some((la, lo)) = valid_coordinates(r.latitude.f64(), r.longitude.f64()) else { continue };
        let Some(ms) = date_prefix_ms(r.event_date.as_str()) else { continue };
        let raw_id = r.event_id_cnty.as_str();
        if raw_id.is_empty() || !seen.insert(raw_id) {
            continue;
        }
        id_buf.clear();
        id_buf.push_str("acled-");
        id_buf.push_str(raw_id);
        id.append_value(&id_buf);
        et.append_value(r.event_type.as_str());
        set.append_value(r.sub_event_type.as_str());
        country.append_value(r.country.as_str());
        let code = countries::alpha2_from_numeric(r.iso.as_str())
            .or_else(|| countries::alpha2_from_name(r.country.as_str()))
            .unwrap_or("");
        iso2.append_value(code);
        admin1.append_value(r.admin1.as_str());
        lat.append_value(la);
        lon.append_value(lo);
        at.append_value(ms);
        fat.append_value(r.fatalities.i64().and_then(|v| i32::try_from(v).ok()).filter(|v| *v >= 0).unwrap_or(0));
        for a in [&r.actor1, &r.actor2] {
            if !a.as_str().is_empty() {
                actors.values().append_value(a.as_str());
            }
        }
        actors.append(true);
        source.append_value(r.source.as_str());
    }
    batch(
        DatasetId::ARMED_EVENTS,
        vec![
            finish(id),
            finish(et),
            finish(set),
            finish(country),
            finish(iso2),
            finish(admin1),
            finish(lat),
            finish(lon),
            finish(at),
            finish(fat),
            finish(actors),
            finish(source),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int32Array};

    #[test]
    fn maps_and_drops_like_the_supplement_says() {
        let body = br#"{"status":200,"success":true,"count":3,"data":[
          {"event_id_cnty":"YEM1","event_date":"2026-05-30","event_type":"Battles","actor1":"A","actor2":"","iso":"887","country":"Yemen","admin1":"Taizz","latitude":"13.5795","longitude":"44.0209","fatalities":"unknown","source":"S"},
          {"event_id_cnty":"YEM2","event_date":"2026-05-30","event_type":"Battles","actor1":"A","actor2":"B","iso":"887","country":"Yemen","admin1":"Taizz","latitude":"","longitude":"44.0","fatalities":"3","source":"S"},
          {"event_id_cnty":"SDN3","event_date":"2026-05-29","event_type":"Battles","actor1":"A","actor2":"B","iso":"729","country":"Sudan","admin1":"Khartoum","latitude":"15.5","longitude":"32.5","fatalities":"7","source":"S"}]}"#;
        let page = parse_page(body).unwrap();
        let b = normalise(page.data.iter(), 100).unwrap();
        assert_eq!(b.num_rows(), 2);
        assert_eq!(b.column(0).as_string::<i32>().value(0), "acled-YEM1");
        assert_eq!(b.column(4).as_string::<i32>().value(1), "SD");
        let fat = b.column(9).as_any().downcast_ref::<Int32Array>().unwrap();
        assert_eq!((fat.value(0), fat.value(1)), (0, 7));
        assert_eq!(b.column(10).as_list::<i32>().value(0).len(), 1);
    }

    #[test]
    fn success_false_and_garbage_are_errors() {
        assert!(matches!(parse_page(br#"{"success":false,"error":"no"}"#), Err(SourceError::Upstream(_))));
        assert!(matches!(parse_page(b"<html>"), Err(SourceError::Parse { .. })));
        assert!(matches!(parse_page(br#"{"success":true,"data":[{"event_id_cnty":"#), Err(SourceError::Parse { .. })));
    }

    #[test]
    fn an_invalid_byte_in_an_unused_field_loses_nothing() {
        let body = b"{\"success\":true,\"data\":[{\"event_id_cnty\":\"YEM1\",\"event_date\":\"2026-05-30\",\"event_type\":\"Battles\",\"notes\":\"caf\xe9\",\"latitude\":\"13.5\",\"longitude\":\"44.0\"}]}";
        let page = parse_page(body).expect("the row parses: notes is not kept");
        assert_eq!(normalise(page.data.iter(), 10).unwrap().num_rows(), 1);
        let bad_kept = b"{\"success\":true,\"data\":[{\"event_id_cnty\":\"YEM\xe9\",\"event_date\":\"2026-05-30\",\"event_type\":\"Battles\"}]}";
        assert!(matches!(parse_page(bad_kept), Err(SourceError::Parse { .. })), "a kept value must be UTF-8");
    }
}
