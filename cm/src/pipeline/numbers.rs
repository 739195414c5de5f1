//! The numbers an item states, by kind (SUPPLEMENT 4.8's event grouping): currency amounts
//! ("$262m", "£1.2bn"), percentages ("12%", "5 per cent") and counts of jobs, flights or sites
//! ("1,000 jobs", "40 stores"). Two reports of one concept that each state a number of one kind
//! differing by more than 25 % are two events ("cuts 200 jobs" and "cuts 4,000 jobs").

use std::sync::LazyLock;

use regex::Regex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    Money,
    Percent,
    Jobs,
    Flights,
    Sites,
}

static MONEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:(?:\b(?:US|A|C|NZ|HK|S))?[$£€]|\b(?:USD|GBP|EUR))\s?(\d[\d,]*(?:\.\d+)?)\s*(bn|bln|b|billion|m|mn|mln|million|k|thousand)?\b").expect("money")
});
static PERCENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(\d+(?:\.\d+)?)\s?(?:%|per\s?cent\b)").expect("percent"));
/// A count, one word allowed between it and its noun ("1,000 more jobs").
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d[\d,]*)\s+(?:[a-z-]+\s+)?(jobs|job\s+cuts|job\s+losses|roles|staff|workers|employees|positions|people|redundancies|layoffs|lay-offs|flights|sites|stores|plants|branches|shops|offices|factories)\b",
    )
    .expect("count")
});

/// A count that is the whole an event hit part of, not its measure: "of the firm's 310 staff",
/// "of its 40 stores", "out of 4,000 employees", "employs 310 people", "a workforce of 310".
static WHOLE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\bof\s+(?:its|their|the|his|her|[\p{L}-]+['’]s?)(?:\s+[\p{L}-]+['’]s?)?|\bout\s+of|\b(?:employs|employing|employed|workforce\s+of|headcount\s+of|staff\s+of)(?:\s+(?:about|around|some|nearly|almost|roughly|over|more\s+than))?)\s+$",
    )
    .expect("whole")
});
/// The part of a whole ("180 of the firm's 310 staff", "12 of its 40 stores"): the part is the
/// event's measure, counted in the whole's noun.
static PART_OF_WHOLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d[\d,]*)\s+(?:of|out\s+of)\s+(?:(?:its|their|the|[\p{L}-]+['’]s?)\s+){1,2}\d[\d,]*\s+(?:[a-z-]+\s+)?(jobs|roles|staff|workers|employees|positions|people|flights|sites|stores|plants|branches|shops|offices|factories)\b",
    )
    .expect("part of whole")
});

fn count_kind(noun: &str) -> NumberKind {
    match noun.to_ascii_lowercase().as_str() {
        "flights" => NumberKind::Flights,
        "sites" | "stores" | "plants" | "branches" | "shops" | "offices" | "factories" => NumberKind::Sites,
        _ => NumberKind::Jobs,
    }
}

fn number(text: &str) -> Option<f64> {
    text.replace(',', "").parse().ok()
}

/// Money that measures no event: a price per share ("$18.50 a share", "shares jumped to $18.12",
/// "$14.50 in cash and 0.21 Harmony shares for each share held")
/// and the debt around a deal ("$1.6 billion including debt", "$950 million of new debt").
static PER_SHARE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^[\s-]*(?:in\s+cash\s+)?(?:(?:and|plus)\s+\d[\d.]*\s+(?:[\p{L}'’-]+\s+){0,2}shares?\s+)?(?:a|per|for\s+each)[\s-]+share|^\s*(?:of\s+(?:new\s+)?debt|including\s+debt)",
    )
    .expect("per share")
});
static SHARE_PRICE_BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:shares?|stock)\b[^.;]{0,40}\b(?:to|at|from)\s*$").expect("share price"));
/// And what each of many gets: a payout per head ("£250 each", "$40 per customer", "between
/// $2,000 and $90,000 each" — both ends of a range —, "you could be
/// owed up to £4,000"), where the reports of a settlement or a fine measure its total; and a
/// regulator's redress beside its fine ("will also pay £11 million in redress").
static PER_HEAD_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:and|to|-|–)\s*(?:[$£€]\s?)?\d[\d,]*(?:\.\d+)?\s*(?:bn|m|mn|k|million|billion|thousand)?\s+)?(?:each|apiece|a\s+head|per\s+(?:person|customer|claimant|household|head|employee|worker|member|passenger|pupil|patient|policyholder|victim|buyer|owner)|in\s+redress)\b")
        .expect("per head")
});
static OWED_BEFORE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\bowed\s+(?:up\s+to\s+)?$").expect("owed"));

/// Whether the money at [start, end) of `text` is a share's price, debt or a payout per head,
/// not an event's measure.
fn no_measure(text: &str, start: usize, end: usize) -> bool {
    let before = &text[text[..start].char_indices().rev().nth(60).map_or(0, |(i, _)| i)..start];
    PER_SHARE_AFTER.is_match(&text[end..])
        || PER_HEAD_AFTER.is_match(&text[end..])
        || SHARE_PRICE_BEFORE.is_match(before)
        || OWED_BEFORE.is_match(before)
}

/// The numbers `text` states, with their kinds.
pub fn stated(text: &str) -> Vec<(NumberKind, f64)> {
    let mut out = Vec::new();
    for c in MONEY.captures_iter(text) {
        let whole = c.get(0).expect("a match");
        if no_measure(text, whole.start(), whole.end()) {
            continue;
        }
        let scale = match c.get(2).map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
            Some("bn" | "bln" | "b" | "billion") => 1e9,
            Some("m" | "mn" | "mln" | "million") => 1e6,
            Some("k" | "thousand") => 1e3,
            _ => 1.0,
        };
        if let Some(n) = c.get(1).and_then(|m| number(m.as_str())) {
            out.push((NumberKind::Money, n * scale));
        }
    }
    for c in PERCENT.captures_iter(text) {
        if let Some(n) = c.get(1).and_then(|m| number(m.as_str())) {
            out.push((NumberKind::Percent, n));
        }
    }
    let counts = COUNT
        .captures_iter(text)
        .filter(|c| !WHOLE_BEFORE.is_match(&text[..c.get(0).map_or(0, |m| m.start())]))
        .chain(PART_OF_WHOLE.captures_iter(text));
    for c in counts {
        let kind = count_kind(c.get(2).map_or("", |m| m.as_str()));
        if let Some(n) = c.get(1).and_then(|m| number(m.as_str())) {
            out.push((kind, n));
        }
    }
    out
}

/// The kinds of number that measure an event of `category` itself — the jobs cut, the flights
/// or sites hit, the money of a fine, a settlement, a deal or a round — so that two reports
/// stating different ones tell of two events (issue 57). Results, insolvencies, ratings,
/// breaches and appointments are told with many figures of other things (revenue and profit,
/// debt and new financing, records and customers), which say nothing about which event it is.
pub fn measures(category: &str) -> &'static [NumberKind] {
    match category {
        "workforce_reduction" => &[NumberKind::Jobs],
        "operational_disruption" => &[NumberKind::Flights, NumberKind::Sites],
        "regulatory" | "legal" | "corporate_transaction" | "funding_award" => &[NumberKind::Money],
        _ => &[],
    }
}

/// Whether two reports state numbers of one of `kinds` that differ by more than 25 %: for some
/// such kind both state, no number of one is within 25 % of a number of the other.
pub fn disagree(a: &[(NumberKind, f64)], b: &[(NumberKind, f64)], kinds: &[NumberKind]) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 0.25 * x.abs().max(y.abs());
    a.iter().filter(|(kind, _)| kinds.contains(kind)).any(|(kind, _)| {
        let (of_a, of_b): (Vec<f64>, Vec<f64>) = (
            a.iter().filter(|(k, _)| k == kind).map(|(_, n)| *n).collect(),
            b.iter().filter(|(k, _)| k == kind).map(|(_, n)| *n).collect(),
        );
        !of_b.is_empty() && !of_a.iter().any(|x| of_b.iter().any(|y| close(*x, *y)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_with_their_kinds() {
        assert_eq!(stated("Acme fined $262m"), [(NumberKind::Money, 262e6)]);
        assert_eq!(stated("a £1.2bn deal"), [(NumberKind::Money, 1.2e9)]);
        assert_eq!(stated("raises GBP120m"), [(NumberKind::Money, 120e6)], "an ISO code");
        assert_eq!(stated("a EUR 5 million loan"), [(NumberKind::Money, 5e6)]);
        assert_eq!(stated("a US$40m order"), [(NumberKind::Money, 40e6)]);
        assert!(!stated("Fleur 5 stores").iter().any(|(kind, _)| *kind == NumberKind::Money), "a code inside a word");
        assert_eq!(stated("to buy Ledger Line for $410 mln"), [(NumberKind::Money, 410e6)], "a wire's mln");
        assert_eq!(stated("shares fell 12%"), [(NumberKind::Percent, 12.0)]);
        assert_eq!(stated("cuts 1,000 more jobs"), [(NumberKind::Jobs, 1000.0)]);
        assert_eq!(stated("announces 4,000 job cuts"), [(NumberKind::Jobs, 4000.0)]);
        assert_eq!(stated("cancels 40 flights"), [(NumberKind::Flights, 40.0)]);
        assert_eq!(stated("to close 12 stores"), [(NumberKind::Sites, 12.0)]);
        assert!(stated("Acme reports in 2026").is_empty(), "a year is not a count");
    }

    /// Issue 57: "180 of the firm's 310 staff" and "cut 180 jobs" tell one count.
    #[test]
    fn a_whole_is_no_measure_and_its_part_is() {
        assert_eq!(stated("made 180 of the firm's 310 staff redundant"), [(NumberKind::Jobs, 180.0)]);
        assert_eq!(stated("to shut 12 of its 40 stores"), [(NumberKind::Sites, 12.0)]);
        assert_eq!(stated("cuts 90 jobs out of 4,000 employees"), [(NumberKind::Jobs, 90.0)]);
        assert!(stated("Acme, which employs 310 people, is closing").is_empty());
        assert!(stated("a workforce of 2,000 staff").is_empty());
        assert_eq!(stated("a total of 500 jobs will go"), [(NumberKind::Jobs, 500.0)], "a total is a measure");
        assert!(!disagree(
            &stated("Administrators made 180 of the firm's 310 staff redundant"),
            &stated("administrators cut 180 jobs"),
            measures("workforce_reduction")
        ));
    }

    #[test]
    fn reports_disagree_only_on_a_kind_both_state() {
        let (a, b) = (stated("Acme to cut 200 jobs"), stated("Acme cuts 4,000 jobs worldwide"));
        let all = [NumberKind::Money, NumberKind::Percent, NumberKind::Jobs, NumberKind::Flights, NumberKind::Sites];
        assert!(disagree(&a, &b, &all));
        assert!(!disagree(&stated("cuts 1,000 jobs"), &stated("about 1,100 roles to go"), &all));
        assert!(!disagree(&stated("cuts 1,000 jobs"), &stated("fined $2m"), &all), "different kinds");
        assert!(!disagree(&stated("job cuts announced"), &stated("cuts 4,000 jobs"), &all), "one states none");
        // Only the kinds that measure the category's event count (issue 57).
        let (debt, owed) = (stated("files for bankruptcy with $780m of debt"), stated("owes Redfern $14m"));
        assert!(!disagree(&debt, &owed, measures("insolvency")));
        assert!(disagree(&stated("fined $2m"), &stated("fined $9m"), measures("regulatory")));
        assert!(!disagree(&stated("profit £6.4m"), &stated("revenue £312m"), measures("financial_results")));
        // A deal's price per share is no measure of the deal.
        let deal = measures("corporate_transaction");
        assert!(!disagree(&stated("for $310 million"), &stated("$18.50 a share, or $310m"), deal));
        assert!(disagree(&stated("buys unit for $50m"), &stated("sells arm for $400m"), deal));
    }

    #[test]
    fn share_prices_and_debt_are_no_measure() {
        assert_eq!(stated("for $18.50 per share in cash, or about $310 million"), [(NumberKind::Money, 310e6)]);
        assert!(stated("Shareholders get $27 a share").is_empty());
        // Cash and stock for each share: the cash is a price per share, not the deal's value.
        assert!(stated("Holders will receive $14.50 in cash and 0.21 Harmony shares for each share held.").is_empty());
        assert_eq!(
            stated("$14.50 in cash, valuing the company at $1.1 billion"),
            [(NumberKind::Money, 14.5), (NumberKind::Money, 1.1e9)]
        );
        assert!(stated("Lagoon Spas Soars 34% on $31.50-a-Share Takeover")
            .iter()
            .all(|(k, _)| *k != NumberKind::Money));
        assert!(stated("Shares of Nickel jumped to $18.12 after the deal").is_empty());
        assert!(stated("an enterprise value of $1.6 billion including debt").is_empty());
        assert!(stated("financing the purchase with $950 million of new debt").is_empty());
        assert_eq!(stated("Acme fined $262m"), [(NumberKind::Money, 262e6)], "money of its own");
    }

    /// Issue 57: what each claimant gets is no measure of the settlement all of them share.
    #[test]
    fn payouts_per_head_are_no_measure() {
        assert!(stated("Bought a Robin shed? You could be owed up to £4,000").is_empty());
        assert!(stated("carriers are owed between $2,000 and $90,000 each").is_empty(), "a range per head");
        assert_eq!(stated("paid $2,000 and $90,000 in fines"), [(NumberKind::Money, 2e3), (NumberKind::Money, 9e4)]);
        assert!(stated("Customers will get £250 each").is_empty());
        assert!(stated("a refund of $40 per customer").is_empty());
        assert!(stated("Selwyn will also pay £11 million in redress to investors").is_empty());
        assert_eq!(stated("300 buyers will share £1.2m"), [(NumberKind::Money, 1.2e6)]);
        assert_eq!(
            stated("Acme owes its lenders £26m"),
            [(NumberKind::Money, 26e6)],
            "a debt owed is money of its own"
        );
    }
}
