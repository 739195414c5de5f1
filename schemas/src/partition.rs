//! Partitions of event datasets and what a fetch replaces: the lake's unit of replacement, shared
//! by connectors (which say what they fetched) and the commit protocol (which swaps those files).

use chrono::{DateTime, Datelike, Duration, NaiveDate};

/// A calendar month (`YYYY-MM`), the partition unit of event datasets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct YearMonth {
    pub year: i32,
    pub month: u32,
}

impl YearMonth {
    pub fn of(date: NaiveDate) -> Self {
        YearMonth { year: date.year(), month: date.month() }
    }

    pub fn parse(s: &str) -> Option<Self> {
        let (y, m) = s.split_once('-')?;
        let ym = YearMonth { year: y.parse().ok()?, month: m.parse().ok()? };
        (y.len() == 4 && (1..=12).contains(&ym.month)).then_some(ym)
    }

    pub fn first_day(self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).expect("valid month")
    }

    pub fn last_day(self) -> NaiveDate {
        self.next().first_day() - Duration::days(1)
    }

    pub fn next(self) -> Self {
        if self.month == 12 {
            YearMonth { year: self.year + 1, month: 1 }
        } else {
            YearMonth { year: self.year, month: self.month + 1 }
        }
    }

    pub fn prev(self) -> Self {
        if self.month == 1 {
            YearMonth { year: self.year - 1, month: 12 }
        } else {
            YearMonth { year: self.year, month: self.month - 1 }
        }
    }

    /// Inclusive range of months.
    pub fn range(from: YearMonth, to: YearMonth) -> Vec<YearMonth> {
        let mut out = Vec::new();
        let mut m = from;
        while m <= to {
            out.push(m);
            m = m.next();
        }
        out
    }

    pub fn of_ms(ms: i64) -> Self {
        YearMonth::of(DateTime::from_timestamp_millis(ms).unwrap_or_default().date_naive())
    }
}

impl std::fmt::Display for YearMonth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// Which part of the dataset a fetch replaces when it is committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The whole dataset.
    All,
    /// Exactly these month partitions, including months that came back empty.
    Months(Vec<YearMonth>),
}
