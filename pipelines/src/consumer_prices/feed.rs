//! The retail basket observations feed (SUPPLEMENT 2.4.0): CSV or JSONL rows, each validated;
//! rejected rows are counted, and a file with more than half of its rows rejected is refused whole.

use chrono::DateTime;
use serde_json::Value;

use super::basket;
use crate::SourceError;

/// An accepted observation.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub market_code: String,
    pub retailer: String,
    pub item_id: String,
    pub item_name: String,
    pub unit: String,
    pub price: f64,
    pub currency: String,
    pub observed_at: i64,
}

/// What became of the rows of one file (or of a whole run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub read: u64,
    pub rejected: u64,
    /// Valid rows for items outside their market's basket (or for a market without one).
    pub ignored: u64,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.read += other.read;
        self.rejected += other.rejected;
        self.ignored += other.ignored;
    }
}

/// One row's fields as sent (JSON numbers kept as their text).
#[derive(Debug, Default)]
pub struct RawRow {
    pub market_code: Option<String>,
    pub retailer: Option<String>,
    pub item_id: Option<String>,
    pub item_name: Option<String>,
    pub unit: Option<String>,
    pub price: Option<String>,
    pub currency: Option<String>,
    pub observed_at: Option<String>,
}

#[derive(Debug, PartialEq)]
pub enum Verdict {
    Accepted(Observation),
    Ignored,
    Rejected(&'static str),
}

fn is_slug(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn required(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// The verdict on one row: format first (rejected), then the market (ignored without a basket),
/// its currency (rejected when it is not the market's), then basket membership (ignored).
pub fn check(row: &RawRow) -> Verdict {
    use Verdict::Rejected;
    let Some(market) =
        required(&row.market_code).filter(|m| m.len() == 2 && m.bytes().all(|b| b.is_ascii_alphabetic()))
    else {
        return Rejected("market_code");
    };
    let market = market.to_ascii_lowercase();
    let Some(retailer) = required(&row.retailer).filter(|r| is_slug(r)) else { return Rejected("retailer") };
    let Some(item_id) = required(&row.item_id).filter(|i| is_slug(i)) else { return Rejected("item_id") };
    let item_name = row.item_name.as_deref().unwrap_or("").trim();
    if item_name.chars().count() > 256 {
        return Rejected("item_name");
    }
    let Some(price) = required(&row.price).and_then(|p| p.parse::<f64>().ok()).filter(|p| p.is_finite() && *p > 0.0)
    else {
        return Rejected("price");
    };
    let Some(currency) = required(&row.currency).filter(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()))
    else {
        return Rejected("currency");
    };
    let Some(observed_at) =
        required(&row.observed_at).and_then(|t| DateTime::parse_from_rfc3339(t).ok()).map(|t| t.timestamp_millis())
    else {
        return Rejected("observed_at");
    };
    let Some(basket) = basket::of_market(&market) else { return Verdict::Ignored };
    if currency != basket.currency {
        return Rejected("currency");
    }
    if basket.item(item_id).is_none() {
        return Verdict::Ignored;
    }
    Verdict::Accepted(Observation {
        market_code: market,
        retailer: retailer.to_string(),
        item_id: item_id.to_string(),
        item_name: item_name.to_string(),
        unit: row.unit.as_deref().unwrap_or("").trim().to_string(),
        price,
        currency: currency.to_string(),
        observed_at,
    })
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The rows of a CSV file (header row with the column names) or a JSONL file (one object a line).
fn raw_rows(name: &str, body: &[u8], jsonl: bool) -> Result<Vec<RawRow>, SourceError> {
    if jsonl {
        let text_body = std::str::from_utf8(body).map_err(|e| SourceError::parse(name, e))?;
        return Ok(text_body
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(o)) => RawRow {
                    market_code: text(o.get("market_code")),
                    retailer: text(o.get("retailer")),
                    item_id: text(o.get("item_id")),
                    item_name: text(o.get("item_name")),
                    unit: text(o.get("unit")),
                    price: text(o.get("price")),
                    currency: text(o.get("currency")),
                    observed_at: text(o.get("observed_at")),
                },
                // A line that is not an object is a row with no valid field: rejected.
                _ => RawRow::default(),
            })
            .collect());
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body);
    let headers = reader.headers().map_err(|e| SourceError::parse(name, e))?.clone();
    let at = |col: &str| headers.iter().position(|h| h.trim().trim_start_matches('\u{feff}') == col);
    let columns =
        ["market_code", "retailer", "item_id", "item_name", "unit", "price", "currency", "observed_at"].map(at);
    if columns[0].is_none() || columns[5].is_none() {
        return Err(SourceError::parse(name, "not a retail observations file: no market_code or price column"));
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let Ok(r) = record else {
            rows.push(RawRow::default());
            continue;
        };
        let field = |i: usize| columns[i].and_then(|c| r.get(c)).map(str::to_string);
        rows.push(RawRow {
            market_code: field(0),
            retailer: field(1),
            item_id: field(2),
            item_name: field(3),
            unit: field(4),
            price: field(5),
            currency: field(6),
            observed_at: field(7),
        });
    }
    Ok(rows)
}

/// One file's accepted observations and tally; refused (an error) when more than half of its
/// rows are rejected.
pub fn parse_file(name: &str, body: &[u8], jsonl: bool) -> Result<(Vec<Observation>, Tally), SourceError> {
    let mut tally = Tally::default();
    let mut accepted = Vec::new();
    for row in raw_rows(name, body, jsonl)? {
        tally.read += 1;
        match check(&row) {
            Verdict::Accepted(o) => accepted.push(o),
            Verdict::Ignored => tally.ignored += 1,
            Verdict::Rejected(_) => tally.rejected += 1,
        }
    }
    if tally.rejected * 2 > tally.read {
        return Err(SourceError::Upstream(format!(
            "{name}: {} of {} rows rejected (over 50 %): the file is refused",
            tally.rejected, tally.read
        )));
    }
    Ok((accepted, tally))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(market: &str, item: &str, price: &str, currency: &str) -> RawRow {
        RawRow {
            market_code: Some(market.into()),
            retailer: Some("carrefour_ae".into()),
            item_id: Some(item.into()),
            item_name: Some("Eggs 12".into()),
            unit: Some("12 pcs".into()),
            price: Some(price.into()),
            currency: Some(currency.into()),
            observed_at: Some("2026-11-19T08:00:00+04:00".into()),
        }
    }

    #[test]
    fn each_rule() {
        let Verdict::Accepted(o) = check(&row("AE", "eggs_12", "12.50", "AED")) else { panic!() };
        assert_eq!(
            (o.market_code.as_str(), o.price, o.observed_at),
            ("ae", 12.5, 1_795_060_800_000),
            "04:00 UTC: 26 h before 2026-11-20T06:00Z"
        );
        assert_eq!(check(&row("ae", "eggs_12", "12.50", "USD")), Verdict::Rejected("currency"), "not the market's");
        assert_eq!(check(&row("ae", "caviar_50g", "99", "AED")), Verdict::Ignored, "outside the basket");
        assert_eq!(check(&row("zz", "eggs_12", "1", "ZZZ")), Verdict::Ignored, "a market without a basket");
        assert_eq!(check(&row("ae", "eggs_12", "0", "AED")), Verdict::Rejected("price"));
        assert_eq!(check(&row("ae", "eggs_12", "-1", "AED")), Verdict::Rejected("price"));
        assert_eq!(check(&row("ae", "eggs_12", "abc", "AED")), Verdict::Rejected("price"));
        assert_eq!(check(&row("ae", "Eggs-12", "1", "AED")), Verdict::Rejected("item_id"));
        assert_eq!(check(&row("aed", "eggs_12", "1", "AED")), Verdict::Rejected("market_code"));
        let mut bad_time = row("ae", "eggs_12", "1", "AED");
        bad_time.observed_at = Some("2026-11-19 08:00".into());
        assert_eq!(check(&bad_time), Verdict::Rejected("observed_at"));
        let mut long = row("ae", "eggs_12", "1", "AED");
        long.item_name = Some("x".repeat(257));
        assert_eq!(check(&long), Verdict::Rejected("item_name"));
    }

    #[test]
    fn csv_and_jsonl_and_the_half_rejected_rule() {
        let csv = "market_code,retailer,item_id,item_name,category,unit,price,currency,observed_at\n\
                   ae,lulu,eggs_12,Eggs,eggs,12 pcs,11.75,AED,2026-11-19T06:00:00Z\n\
                   ae,lulu,milk_1l,Milk,dairy,1 l,6.5,USD,2026-11-19T06:00:00Z\n\
                   ae,lulu,caviar,Caviar,luxury,50 g,300,AED,2026-11-19T06:00:00Z\n";
        let (obs, tally) = parse_file("a.csv", csv.as_bytes(), false).unwrap();
        assert_eq!((obs.len(), tally), (1, Tally { read: 3, rejected: 1, ignored: 1 }));
        let jsonl = "{\"market_code\":\"sa\",\"retailer\":\"panda\",\"item_id\":\"sugar_1kg\",\"price\":4.95,\"currency\":\"SAR\",\"observed_at\":\"2026-11-19T06:00:00Z\"}\n\
                     not json\n";
        let (obs, tally) = parse_file("b.jsonl", jsonl.as_bytes(), true).unwrap();
        assert_eq!((obs[0].price, tally), (4.95, Tally { read: 2, rejected: 1, ignored: 0 }), "exactly half is kept");
        let refused = "market_code,retailer,item_id,price,currency,observed_at\nae,x,eggs_12,0,AED,2026-11-19T06:00:00Z\nae,x,eggs_12,1,USD,2026-11-19T06:00:00Z\nae,x,eggs_12,1,AED,2026-11-19T06:00:00Z\n";
        let e = parse_file("c.csv", refused.as_bytes(), false).unwrap_err();
        assert!(e.to_string().contains("2 of 3 rows rejected"), "{e}");
        assert!(parse_file("d.csv", b"<html>not a feed</html>\n", false).is_err());
    }
}
