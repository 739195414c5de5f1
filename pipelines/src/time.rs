//! Calendar helpers shared by connectors: months, UTC-midnight epoch milliseconds.

use chrono::{DateTime, NaiveDate, Utc};

pub use sitrep_schemas::partition::YearMonth;

/// UTC midnight of a date, in epoch milliseconds.
pub fn midnight_ms(date: NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp_millis()
}

/// `YYYY-MM-DD` (optionally followed by a time part, as UCDP sends) → UTC midnight ms.
pub fn date_prefix_ms(s: &str) -> Option<i64> {
    // Parsed by hand: this runs once per upstream row, and a format-string parse dominates it.
    let b = s.as_bytes().get(..10)?;
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |from: usize, to: usize| {
        b[from..to].iter().try_fold(0u32, |n, c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    let date = NaiveDate::from_ymd_opt(digits(0, 4)? as i32, digits(5, 7)?, digits(8, 10)?)?;
    Some(midnight_ms(date))
}

pub fn today(now: DateTime<Utc>) -> NaiveDate {
    now.date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_prefixes_parse_strictly() {
        let ms = |s| date_prefix_ms(s);
        assert_eq!(ms("2026-05-30"), Some(1_780_099_200_000));
        assert_eq!(ms("2026-05-30 00:00:00.000"), ms("2026-05-30"), "a time part is ignored");
        for bad in ["2026-5-30", "2026-02-30", "2026/05/30", "26-05-30", "2026-05-3", "", "2026-05-3x", "２026-05-30"]
        {
            assert_eq!(ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn months_walk_across_years() {
        let d = YearMonth::parse("2026-12").unwrap();
        assert_eq!(d.next().to_string(), "2027-01");
        assert_eq!(d.next().prev(), d);
        assert_eq!(YearMonth::parse("2026-02").unwrap().last_day().to_string(), "2026-02-28");
        assert_eq!(YearMonth::range(YearMonth::parse("2026-11").unwrap(), d).len(), 2);
        assert!(YearMonth::parse("2026-13").is_none() && YearMonth::parse("26-01").is_none());
    }

    #[test]
    fn dates_become_utc_midnight() {
        assert_eq!(date_prefix_ms("2026-05-30"), Some(1_780_099_200_000));
        assert_eq!(date_prefix_ms("2025-12-30 00:00:00.000"), date_prefix_ms("2025-12-30"));
        assert_eq!(date_prefix_ms(""), None);
    }
}
