//! ICAO NOTAM realtime list (SUPPLEMENT 2.1.2, upstream 3): airports closed or restricted now.

use serde::Deserialize;
use sitrep_schemas::aviation::NotamFlag;

use crate::SourceError;

pub const URL: &str = "https://dataservices.icao.int/api/notams-realtime-list";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotamKind {
    Closure,
    Restriction,
}

impl NotamKind {
    /// The flag GetAirportOpsSummary reports (`CLOSED`, `RESTRICTED`), also the lake's value.
    pub fn flag(self) -> &'static str {
        match self {
            NotamKind::Closure => NotamFlag::Closed,
            NotamKind::Restriction => NotamFlag::Restricted,
        }
        .as_str()
    }

    pub fn from_flag(s: &str) -> Option<NotamKind> {
        match s {
            "CLOSED" => Some(NotamKind::Closure),
            "RESTRICTED" => Some(NotamKind::Restriction),
            _ => None,
        }
    }
}

/// The NOTAM that applies to one airport.
#[derive(Debug, Clone, PartialEq)]
pub struct AirportNotam {
    pub icao: String,
    pub kind: NotamKind,
    pub text: String,
}

#[derive(Debug, Deserialize)]
struct Row {
    #[serde(default)]
    itema: Option<String>,
    #[serde(default)]
    location: Option<String>,
    #[serde(default)]
    iteme: Option<String>,
    #[serde(default)]
    code23: Option<String>,
    #[serde(default)]
    code45: Option<String>,
    #[serde(default)]
    endvalidity: Option<serde_json::Value>,
}

const CLOSURE_TEXT: [&str; 5] = ["AD CLSD", "AIRPORT CLOSED", "AIRSPACE CLOSED", "AD NOT AVBL", "CLSD TO ALL"];
const RESTRICTION_TEXT: [&str; 5] =
    ["RESTRICTED AREA", "PROHIBITED AREA", "DANGER AREA", "TFR", "TEMPORARY FLIGHT RESTRICTION"];

/// 2.1.2's closure and restriction rules for one NOTAM.
pub fn classify(code23: &str, code45: &str, text: &str) -> Option<NotamKind> {
    let text = text.to_ascii_uppercase();
    let subject_closure = ["FA", "AH", "AL", "AW", "AC", "AM"].contains(&code23);
    if (subject_closure && ["LC", "AS", "AU", "XX", "AW"].contains(&code45))
        || CLOSURE_TEXT.iter().any(|t| text.contains(t))
    {
        return Some(NotamKind::Closure);
    }
    let subject_restriction = ["RA", "RO", "FA", "AH", "AL", "AW", "AC", "AM"].contains(&code23);
    if (subject_restriction && ["RE", "RT"].contains(&code45)) || RESTRICTION_TEXT.iter().any(|t| text.contains(t)) {
        return Some(NotamKind::Restriction);
    }
    None
}

fn epoch_seconds(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The closed or restricted airports of an answer, one per ICAO code (a closure outranks a
/// restriction; of equal kinds the first NOTAM wins). Expired NOTAMs are skipped. An HTML body or
/// a quota message is a failure, so the previous component is kept.
pub fn parse(body: &[u8], now_s: i64) -> Result<Vec<AirportNotam>, SourceError> {
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_ascii_lowercase();
    if head.trim_start().starts_with('<') || head.contains("reach call limit") || head.contains("quota exceeded") {
        return Err(SourceError::Upstream("icao notam: quota or HTML answer".into()));
    }
    let rows: Vec<Row> = serde_json::from_slice(body).map_err(|e| SourceError::parse("icao notam list", e))?;
    let mut out: Vec<AirportNotam> = Vec::new();
    for r in rows {
        if r.endvalidity.as_ref().and_then(epoch_seconds).is_some_and(|end| end < now_s) {
            continue;
        }
        let Some(icao) = r.itema.or(r.location).map(|s| s.trim().to_ascii_uppercase()).filter(|s| !s.is_empty()) else {
            continue;
        };
        let text = r.iteme.unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
        let kind = classify(r.code23.as_deref().unwrap_or(""), r.code45.as_deref().unwrap_or(""), &text);
        let Some(kind) = kind else { continue };
        match out.iter_mut().find(|n| n.icao == icao) {
            Some(n) if n.kind == NotamKind::Restriction && kind == NotamKind::Closure => {
                *n = AirportNotam { icao, kind, text }
            }
            Some(_) => {}
            None => out.push(AirportNotam { icao, kind, text }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_and_restriction_rules() {
        assert_eq!(classify("FA", "LC", ""), Some(NotamKind::Closure));
        assert_eq!(classify("MR", "XX", "AD CLSD DUE TO WX"), Some(NotamKind::Closure));
        assert_eq!(classify("RA", "RE", ""), Some(NotamKind::Restriction));
        assert_eq!(classify("FA", "RT", ""), Some(NotamKind::Restriction));
        assert_eq!(classify("MX", "XX", "TEMPORARY FLIGHT RESTRICTION AREA"), Some(NotamKind::Restriction));
        assert_eq!(classify("MX", "LC", "TWY B CLSD"), None, "a closed taxiway is not an airport closure");
    }

    #[test]
    fn expired_quota_and_precedence() {
        let body = br#"[
          {"itema":"OLBA","iteme":"DANGER AREA ACT","code23":"RD","code45":"CA","startvalidity":1,"endvalidity":2000000000,"id":"A1"},
          {"itema":"OLBA","iteme":"AD CLSD","code23":"FA","code45":"LC","startvalidity":1,"endvalidity":2000000000,"id":"A2"},
          {"location":"OSDI","iteme":"AD CLSD","code23":"FA","code45":"LC","startvalidity":1,"endvalidity":100,"id":"A3"}
        ]"#;
        let n = parse(body, 1_000).unwrap();
        assert_eq!(n.len(), 1, "the expired OSDI NOTAM is skipped");
        assert_eq!((n[0].icao.as_str(), n[0].kind, n[0].text.as_str()), ("OLBA", NotamKind::Closure, "AD CLSD"));
        assert!(parse(b"<html>error</html>", 0).is_err());
        assert!(parse(br#"{"message":"Reach call limit"}"#, 0).is_err());
    }
}
