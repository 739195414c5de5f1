//! HDX CKAN fallback: `package_show?id=hdx-hapi-conflict-event` lists yearly CSV resources; read the
//! ones for the needed years (UTF-8 with BOM).

use reqwest::header::HeaderMap;
use serde::Deserialize;
use url::Url;

use super::ConflictRow;
use crate::{FetchContext, SourceError};

#[derive(Deserialize)]
struct PackageShow {
    success: bool,
    result: Option<Package>,
}

#[derive(Deserialize)]
struct Package {
    resources: Vec<Resource>,
}

#[derive(Deserialize)]
struct Resource {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
}

pub async fn fetch(ctx: &FetchContext, ckan_base: &str, years: &[i32]) -> Result<Vec<ConflictRow>, SourceError> {
    let mut url = Url::parse(&format!("{}/api/3/action/package_show", ckan_base.trim_end_matches('/')))
        .map_err(|e| SourceError::parse("hdx ckan url", e))?;
    url.query_pairs_mut().append_pair("id", "hdx-hapi-conflict-event");
    let reply = ctx.http.get_ok(&url, HeaderMap::new()).await?;
    let pkg: PackageShow =
        serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("hdx package_show", e))?;
    let resources = match (pkg.success, pkg.result) {
        (true, Some(p)) => p.resources,
        _ => return Err(SourceError::Upstream("hdx package_show success=false".into())),
    };
    let mut rows = Vec::new();
    for year in years {
        let suffix = format!("{year}.csv");
        let Some(res) = resources.iter().find(|r| r.name.ends_with(&suffix)) else { continue };
        let csv_url = Url::parse(&res.url).map_err(|e| SourceError::parse("hdx resource url", e))?;
        let body = ctx.http.get_ok(&csv_url, HeaderMap::new()).await?.body;
        rows.extend(parse_csv(&body)?);
    }
    if rows.is_empty() {
        return Err(SourceError::Upstream(format!("hdx: no yearly CSV resource for {years:?}")));
    }
    Ok(rows)
}

pub fn parse_csv(body: &[u8]) -> Result<Vec<ConflictRow>, SourceError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut reader = csv::Reader::from_reader(body);
    let err = |e: csv::Error| SourceError::parse("hdx conflict-event csv", e);
    let headers = reader.headers().map_err(err)?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| SourceError::parse("hdx conflict-event csv", format!("missing column {name}")))
    };
    let (code, level, kind, events, fatalities, start) = (
        col("location_code")?,
        col("admin_level")?,
        col("event_type")?,
        col("events")?,
        col("fatalities")?,
        col("reference_period_start")?,
    );
    let name = headers.iter().position(|h| h.trim() == "location_name");
    let mut rows = Vec::new();
    for record in reader.records() {
        let r = record.map_err(err)?;
        let get = |i: usize| r.get(i).unwrap_or("").trim();
        let num = |i: usize| get(i).parse::<f64>().map(|v| v as i64).unwrap_or(0);
        rows.push(ConflictRow {
            location_code: get(code).to_string(),
            location_name: name.map(|i| get(i).to_string()).unwrap_or_default(),
            admin_level: num(level),
            event_type: get(kind).to_string(),
            events: num(events),
            fatalities: num(fatalities),
            reference_period_start: get(start).chars().take(10).collect(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_bom_csv() {
        let body = "\u{feff}location_code,admin_level,event_type,events,fatalities,reference_period_start\nSDN,0,demonstration,3,0,2026-10-01\n";
        let rows = parse_csv(body.as_bytes()).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].location_code, "SDN");
        assert_eq!(rows[0].events, 3);
        assert!(parse_csv(b"a,b\n1,2\n").is_err());
    }
}
