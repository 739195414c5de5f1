//! The category lexicon of SUPPLEMENT 4.8: which kind of material event an item reports, with
//! the direction, channels and magnitude that category carries. Keywords match whole words,
//! case-insensitively; a one-word keyword and the first word of a phrase also match their
//! regular inflections (-s, -es, -ed, -ing: recall → recalls, recalled; defaulted on → defaults
//! on). The first row with a keyword in the title wins, else the first in the snippet.

use std::sync::LazyLock;

use regex::Regex;

use crate::records::{Channel, Direction, Magnitude};

/// How a category's direction is decided.
#[derive(Debug, Clone, Copy)]
enum DirectionRule {
    Fixed(Direction),
    /// credit_rating: by the keyword (downgrade negative, upgrade positive).
    ByKeyword,
    /// financial_results: negative cues, then positive cues, else mixed.
    ByCues,
}

struct Row {
    category: &'static str,
    /// What the row's keywords report (4.8's Concept column), unless `other_concepts` names one.
    concept: &'static str,
    /// Keywords that report another concept of the category.
    other_concepts: &'static [(&'static str, &'static [&'static str])],
    keywords: &'static [&'static str],
    direction: DirectionRule,
    channels: &'static [Channel],
    magnitude: Magnitude,
    /// Keywords that make the magnitude HIGH (legal: indicted, fraud).
    high_for: &'static [&'static str],
    /// Words one of which must also occur in the item (credit_rating: rating, outlook, credit).
    context: &'static [&'static str],
}

const ROWS: &[Row] = &[
    Row {
        category: "security_incident",
        concept: "breach",
        other_concepts: &[],
        keywords: &[
            "data breach",
            "hacked",
            "ransomware",
            "cyber attack",
            "cyberattack",
            "cyber incident",
            "security incident",
            "data leak",
            "exposed data",
        ],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Reputation],
        magnitude: Magnitude::High,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "insolvency",
        concept: "insolvency",
        other_concepts: &[(
            "default",
            &["debt default", "defaulted on", "missed a debt payment", "missed an interest payment"],
        )],
        keywords: &[
            "bankruptcy",
            "insolvency",
            "insolvent",
            "chapter 11",
            "enters administration",
            "into administration",
            "appoints administrators",
            "receivership",
            "liquidation",
            "debt default",
            "defaulted on",
            "missed a debt payment",
            "missed an interest payment",
        ],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Finances],
        magnitude: Magnitude::High,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "legal",
        concept: "litigation",
        other_concepts: &[("criminal", &["fraud", "indicted", "charged with"])],
        keywords: &["fraud", "indicted", "charged with", "lawsuit", "sued", "class action", "settlement", "settles"],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Reputation, Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &["indicted", "fraud", "charged with"],
        context: &[],
    },
    Row {
        category: "regulatory",
        concept: "penalty",
        other_concepts: &[("investigation", &["investigation", "probe", "subpoena"])],
        keywords: &["fined", "fine of", "penalty", "sanctioned", "investigation", "probe", "subpoena"],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Reputation, Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "workforce_reduction",
        concept: "job_cuts",
        other_concepts: &[],
        keywords: &[
            "layoffs",
            "lays off",
            "laid off",
            "lay offs",
            "job cuts",
            "cuts jobs",
            "cut jobs",
            "cutting jobs",
            "jobs cut",
            "redundancies",
            "workforce reduction",
            "reduce its workforce",
            "headcount reduction",
        ],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Finances, Channel::Reputation],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "operational_disruption",
        concept: "outage",
        other_concepts: &[
            ("recall", &["recall"]),
            ("closure", &["plant closure", "shutdown", "shut down", "closes plant"]),
            ("strike", &["on strike", "strike action", "walkout", "walk out", "workers strike"]),
        ],
        keywords: &[
            "outage",
            "service disruption",
            "systems down",
            "recall",
            "plant closure",
            "shutdown",
            "shut down",
            "closes plant",
            "on strike",
            "strike action",
            "walkout",
            "walk out",
            "workers strike",
        ],
        direction: DirectionRule::Fixed(Direction::Negative),
        channels: &[Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "credit_rating",
        concept: "rating",
        other_concepts: &[],
        keywords: &["downgrade", "downgraded", "upgrade", "upgraded"],
        direction: DirectionRule::ByKeyword,
        channels: &[Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &["rating", "outlook", "credit"],
    },
    Row {
        category: "financial_results",
        concept: "results",
        other_concepts: &[],
        keywords: &["earnings", "revenue", "profit", "guidance", "quarterly results", "profit warning"],
        direction: DirectionRule::ByCues,
        channels: &[Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "corporate_transaction",
        concept: "deal",
        other_concepts: &[],
        keywords: &["acquires", "acquisition", "merger", "takeover", "divests", "to buy", "agrees to sell"],
        direction: DirectionRule::Fixed(Direction::Mixed),
        channels: &[Channel::Finances],
        magnitude: Magnitude::Medium,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "leadership_change",
        concept: "leadership",
        other_concepts: &[],
        keywords: &["chief executive", "ceo", "resigns", "steps down", "appoints"],
        direction: DirectionRule::Fixed(Direction::Mixed),
        channels: &[Channel::Reputation],
        magnitude: Magnitude::Low,
        high_for: &[],
        context: &[],
    },
    Row {
        category: "funding_award",
        concept: "funding",
        other_concepts: &[("contract", &["wins contract", "contract award", "awarded a contract"])],
        keywords: &[
            "funding round",
            "series a",
            "series b",
            "series c",
            "raises $",
            "raises £",
            "raises €",
            "wins contract",
            "contract award",
            "awarded a contract",
        ],
        direction: DirectionRule::Fixed(Direction::Positive),
        channels: &[Channel::Finances],
        magnitude: Magnitude::Low,
        high_for: &[],
        context: &[],
    },
];

const NEGATIVE_CUES: &[&str] = &["warning", "miss", "misses", "loss", "cuts guidance", "lowers guidance"];
const POSITIVE_CUES: &[&str] = &["beat", "beats", "record", "raises guidance", "raises forecast"];

/// What the lexicon made of an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub category: &'static str,
    /// What the matched keyword reports: candidates of one concept are one event (4.8).
    pub concept: &'static str,
    pub direction: Direction,
    pub channels: Vec<Channel>,
    pub magnitude: Magnitude,
}

/// The regular inflections of a keyword's word: the word with -s, -es, -ed, -ing, and, for a
/// word that is itself inflected, its stem's (`defaulted` → defaults, defaulting). The bare stem
/// of an -ed or -ing word is left out: "fined" must not match "fine".
fn inflections(word: &str) -> Vec<String> {
    let mut forms = vec![word.to_string()];
    let mut stems: Vec<(&str, bool)> = vec![(word, false)];
    for (suffix, bare_too) in [("ed", false), ("ing", false), ("es", true), ("s", true)] {
        if let Some(stem) = word.strip_suffix(suffix).filter(|s| s.len() >= 3) {
            stems.push((stem, bare_too));
        }
    }
    // "sued", "fined": the stem kept its final e.
    if let Some(stem) = word.strip_suffix('d').filter(|s| s.ends_with('e') && s.len() >= 3) {
        stems.push((stem, false));
    }
    for (stem, bare_too) in stems {
        if bare_too {
            forms.push(stem.to_string());
        }
        for suffix in ["s", "es", "ed", "ing"] {
            forms.push(format!("{stem}{suffix}"));
        }
        if let Some(without_e) = stem.strip_suffix('e') {
            forms.push(format!("{without_e}ing"));
            forms.push(format!("{stem}d"));
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

/// Letters, digits and the hyphen join words: "non-profit" holds no "profit".
const OUTSIDE: &str = r"(?:^|[^\p{L}\p{N}\-])";
const OUTSIDE_END: &str = r"(?:$|[^\p{L}\p{N}\-])";

/// The pattern of a keyword: its first word in any inflection, the rest as written.
fn keyword_pattern(keyword: &str, inflect: bool) -> String {
    let mut parts = keyword.split(' ');
    let first = parts.next().unwrap_or_default();
    let firsts: Vec<String> = if inflect { inflections(first) } else { vec![first.to_string()] };
    let mut pattern = format!("{OUTSIDE}(?:{})", firsts.iter().map(|f| regex::escape(f)).collect::<Vec<_>>().join("|"));
    let mut last_is_word = true;
    for word in parts {
        last_is_word = word.chars().all(char::is_alphanumeric);
        // A space or hyphen inside a keyword matches a space, a hyphen or nothing (4.8): cyber
        // attack = cyber-attack = cyberattack, lay offs = lay-offs = layoffs.
        pattern.push_str(if last_is_word { r"(?:\s+|-)?" } else { r"\s*" });
        pattern.push_str(&regex::escape(word));
    }
    if last_is_word {
        pattern.push_str(OUTSIDE_END);
    }
    pattern
}

fn compile(keyword: &str, inflect: bool) -> Regex {
    Regex::new(&format!("(?i){}", keyword_pattern(keyword, inflect))).expect("a lexicon pattern compiles")
}

struct Compiled {
    keywords: Vec<(&'static str, Regex)>,
    context: Vec<Regex>,
}

static COMPILED: LazyLock<Vec<Compiled>> = LazyLock::new(|| {
    ROWS.iter()
        .map(|row| Compiled {
            keywords: row.keywords.iter().map(|k| (*k, compile(k, true))).collect(),
            context: row.context.iter().map(|w| compile(w, true)).collect(),
        })
        .collect()
});

static CUES: LazyLock<(Vec<Regex>, Vec<Regex>)> = LazyLock::new(|| {
    let cues = |list: &[&str]| list.iter().map(|c| compile(c, false)).collect();
    (cues(NEGATIVE_CUES), cues(POSITIVE_CUES))
});

/// The first keyword of the first row that occurs in `text` (with its row's context word in `whole`).
fn first_match(text: &str, whole: &str) -> Option<(usize, &'static str)> {
    COMPILED.iter().enumerate().find_map(|(i, row)| {
        let in_context = row.context.is_empty() || row.context.iter().any(|c| c.is_match(whole));
        let keyword = row.keywords.iter().find(|(_, re)| re.is_match(text)).map(|(k, _)| *k);
        keyword.filter(|_| in_context).map(|k| (i, k))
    })
}

/// A law firm's or an investor-alert service's solicitation: not evidence of a legal or
/// regulatory event at all (4.8).
static SOLICITATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)on\s+behalf\s+of\s+(?:its\s+|their\s+)?(?:investors|shareholders|stockholders)|(?:shareholder|investor|stockholder)\s+alert|lead\s+plaintiff\s+deadline|class\s+action\b[^\n]*\bdeadline|deadline\b[^\n]*\bclass\s+action|reminds\s+(?:investors|shareholders)",
    )
    .expect("the solicitation pattern compiles")
});

/// The item's category by the lexicon, or `None` (the item is discarded).
pub fn classify(title: &str, snippet: &str) -> Option<Classification> {
    let whole = format!("{title}\n{snippet}");
    let (row, keyword) = first_match(title, &whole).or_else(|| first_match(snippet, &whole))?;
    let row = &ROWS[row];
    if matches!(row.category, "legal" | "regulatory") && SOLICITATION.is_match(&format!("{title} {snippet}")) {
        return None;
    }
    let direction = match row.direction {
        DirectionRule::Fixed(d) => d,
        DirectionRule::ByKeyword if keyword.starts_with("down") => Direction::Negative,
        DirectionRule::ByKeyword => Direction::Positive,
        DirectionRule::ByCues => cued_direction(&whole),
    };
    let magnitude = if row.high_for.contains(&keyword) { Magnitude::High } else { row.magnitude };
    let concept = row.other_concepts.iter().find(|(_, ks)| ks.contains(&keyword)).map_or(row.concept, |(c, _)| *c);
    Some(Classification { category: row.category, concept, direction, channels: row.channels.to_vec(), magnitude })
}

/// financial_results' direction over `text`: negative cues, then positive cues, else mixed.
pub fn cued_direction(text: &str) -> Direction {
    let (negative, positive) = &*CUES;
    if negative.iter().any(|c| c.is_match(text)) {
        Direction::Negative
    } else if positive.iter().any(|c| c.is_match(text)) {
        Direction::Positive
    } else {
        Direction::Mixed
    }
}

/// A category's direction, channels and magnitude when no keyword decides them (its fixed
/// direction, else mixed; its usual magnitude).
pub fn defaults(category: &str) -> Option<Classification> {
    let row = ROWS.iter().find(|r| r.category == category)?;
    let direction = match row.direction {
        DirectionRule::Fixed(d) => d,
        DirectionRule::ByKeyword | DirectionRule::ByCues => Direction::Mixed,
    };
    Some(Classification {
        category: row.category,
        concept: row.concept,
        direction,
        channels: row.channels.to_vec(),
        magnitude: row.magnitude,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn category(title: &str, snippet: &str) -> Option<&'static str> {
        classify(title, snippet).map(|c| c.category)
    }

    #[test]
    fn keywords_match_whole_words_and_their_inflections() {
        assert_eq!(category("Acme recalls 40,000 heaters", ""), Some("operational_disruption"));
        assert_eq!(category("Acme recalled heaters", ""), Some("operational_disruption"));
        assert_eq!(category("Acme defaults on bond payment", ""), Some("insolvency"));
        assert_eq!(category("Acme fined £2m by regulator", ""), Some("regulatory"));
        assert_eq!(category("Acme fines suppliers", ""), Some("regulatory"), "fines is an inflection of fined");
        assert_eq!(category("Acme workers on strike at Leeds plant", ""), Some("operational_disruption"));
        assert_eq!(category("Acme raises $40m in funding", ""), Some("funding_award"));
        assert_eq!(category("Acme hit by cyber attack", ""), Some("security_incident"));
    }

    /// Issue 46: the variants newsrooms write, missed before.
    #[test]
    fn spaces_and_hyphens_inside_keywords_and_the_common_variants_match() {
        assert_eq!(category("Acme hit by cyber-attack", ""), Some("security_incident"));
        assert_eq!(category("Acme confirms cyberattack", ""), Some("security_incident"));
        assert_eq!(category("Acme announces lay-offs", ""), Some("workforce_reduction"));
        assert_eq!(category("Hundreds laid off at Acme", ""), Some("workforce_reduction"));
        assert_eq!(category("Acme cutting jobs in Leeds", ""), Some("workforce_reduction"));
        assert_eq!(category("Acme to shut down Leeds plant", ""), Some("operational_disruption"));
        assert_eq!(category("Acme goes into liquidation", ""), Some("insolvency"));
        assert_eq!(category("Moody's downgrades Acme", "The agency cut its ratings"), Some("credit_rating"));
        assert_eq!(category("Acme agrees to sell its chips unit", ""), Some("corporate_transaction"));
    }

    /// Issue 46: a law firm's solicitation is not evidence of a legal or regulatory event.
    #[test]
    fn solicitations_are_not_legal_events() {
        let alert = "Law firm announces investigation on behalf of investors of Acme Corp";
        assert_eq!(category(alert, ""), None);
        assert_eq!(category("SHAREHOLDER ALERT: class action filed against Acme", "Deadline: 12 January"), None);
        assert_eq!(category("Acme faces class action over data use", "Filed in Delaware"), Some("legal"));
        assert_eq!(
            category("Investor alert: Acme hit by ransomware", ""),
            Some("security_incident"),
            "only legal and regulatory"
        );
    }

    #[test]
    fn other_senses_do_not_match() {
        assert_eq!(category("Acme changes default settings of its router", ""), None);
        assert_eq!(category("Lightning strike hits Acme warehouse roof", ""), None);
        assert_eq!(category("Acme backs non-profit literacy drive", ""), None);
        assert_eq!(category("Acme's fine dining range expands", ""), None, "fine is not fined");
        assert_eq!(category("Acme upgrades its app", ""), None, "an upgrade needs rating, outlook or credit");
    }

    #[test]
    fn the_title_first_then_row_order_and_the_direction_rules() {
        let c = classify("Acme profit beats forecasts", "The company also faces a lawsuit").unwrap();
        assert_eq!((c.category, c.direction), ("financial_results", Direction::Positive));
        let c = classify("Acme issues profit warning", "").unwrap();
        assert_eq!(c.direction, Direction::Negative);
        let c = classify("Acme reports quarterly results", "").unwrap();
        assert_eq!(c.direction, Direction::Mixed);
        let c = classify("Moody's downgrades Acme", "The credit rating falls to Ba1").unwrap();
        assert_eq!((c.category, c.direction), ("credit_rating", Direction::Negative));
        let c = classify("Acme founder indicted", "").unwrap();
        assert_eq!((c.category, c.magnitude), ("legal", Magnitude::High));
        let c = classify("Acme settles lawsuit", "").unwrap();
        assert_eq!((c.magnitude, c.channels.len()), (Magnitude::Medium, 2));
        assert_eq!(category("Acme news", "Acme lays off 200 staff"), Some("workforce_reduction"));
        assert_eq!(category("Acme news", "Nothing happened"), None);
    }
}
