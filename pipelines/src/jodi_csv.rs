//! JODI's flat CSV layout, shared by the oil and gas databases (SUPPLEMENT 2.5.3):
//! `REF_AREA,TIME_PERIOD,ENERGY_PRODUCT,FLOW_BREAKDOWN,UNIT_MEASURE,OBS_VALUE,ASSESSMENT_CODE`.
//! Only rows in one unit and assessed 1 or 2 are data; `-`, `x` and `na` are missing values.

use crate::SourceError;

/// One kept observation; `value` is `None` when JODI reports it as missing.
pub struct Row<'a> {
    pub country: &'a str,
    pub period: &'a str,
    pub product: &'a str,
    pub flow: &'a str,
    pub value: Option<f64>,
}

/// Calls `keep` for every row in `unit` with ASSESSMENT_CODE 1 or 2, in file order.
pub fn assessed_rows(body: &[u8], unit: &str, mut keep: impl FnMut(Row<'_>)) -> Result<(), SourceError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body);
    let headers = reader.headers().map_err(|e| SourceError::parse("jodi csv", e))?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}') == name)
            .ok_or_else(|| SourceError::parse("jodi csv", format!("no {name} column")))
    };
    let (area, period, product, flow, unit_col, value, code) = (
        col("REF_AREA")?,
        col("TIME_PERIOD")?,
        col("ENERGY_PRODUCT")?,
        col("FLOW_BREAKDOWN")?,
        col("UNIT_MEASURE")?,
        col("OBS_VALUE")?,
        col("ASSESSMENT_CODE")?,
    );
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(|e| SourceError::parse("jodi csv", e))? {
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        if field(unit_col) != unit || !matches!(field(code), "1" | "2") {
            continue;
        }
        keep(Row {
            country: field(area),
            period: field(period),
            product: field(product),
            flow: field(flow),
            value: match field(value) {
                "-" | "x" | "na" | "" => None,
                s => s.parse::<f64>().ok().filter(|v| v.is_finite()),
            },
        });
    }
    Ok(())
}
