//! What a listed company's current report (Form 8-K) discloses, item by item (SUPPLEMENT 4.8's
//! FILINGS provider): each mapped item is a candidate of its category, attributed by the
//! company's own CIK claim and primary evidence by nature. The form's items are fixed by the SEC,
//! so the mapping is a table, not the lexicon; an item the table leaves out (exhibits, Regulation
//! FD, "other events") is not an event on its own.

use crate::{
    pipeline::lexicon::{self, Classification},
    records::{Direction, Magnitude, Provider},
};

/// A filing's attribution: the identifier is the company's own claim.
pub const ATTRIBUTION: f64 = 0.99;
/// The attribution's rule, in the impact's rationale.
pub const RULE: &str = "the company's CIK";
/// The publisher of every filing.
pub const PUBLISHER: &str = "sec.gov";

/// How an item maps: its category, and what the item itself says where the category's default
/// does not (a concept, a fixed direction, a magnitude); `cued`: the direction is read from the
/// item's text as the lexicon reads results.
struct Mapping {
    category: &'static str,
    concept: Option<&'static str>,
    direction: Option<Direction>,
    magnitude: Option<Magnitude>,
    cued: bool,
}

const fn to(category: &'static str) -> Option<Mapping> {
    Some(Mapping { category, concept: None, direction: None, magnitude: None, cued: false })
}

/// Form 8-K's items: the SEC's names, and the mapping of those that report a material event.
const ITEMS: &[(&str, &str, Option<Mapping>)] = &[
    ("1.01", "Entry into a Material Definitive Agreement", to("corporate_transaction")),
    ("1.02", "Termination of a Material Definitive Agreement", to("corporate_transaction")),
    ("1.03", "Bankruptcy or Receivership", to("insolvency")),
    ("1.04", "Mine Safety - Reporting of Shutdowns and Patterns of Violations", None),
    ("1.05", "Material Cybersecurity Incidents", to("security_incident")),
    ("2.01", "Completion of Acquisition or Disposition of Assets", to("corporate_transaction")),
    (
        "2.02",
        "Results of Operations and Financial Condition",
        Some(Mapping { category: "financial_results", concept: None, direction: None, magnitude: None, cued: true }),
    ),
    ("2.03", "Creation of a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement", None),
    (
        "2.04",
        "Triggering Events That Accelerate or Increase a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement",
        Some(Mapping { category: "insolvency", concept: Some("default"), direction: None, magnitude: None, cued: false }),
    ),
    ("2.05", "Costs Associated with Exit or Disposal Activities", to("workforce_reduction")),
    (
        "2.06",
        "Material Impairments",
        Some(Mapping {
            category: "financial_results",
            concept: None,
            direction: Some(Direction::Negative),
            magnitude: None,
            cued: false,
        }),
    ),
    (
        "3.01",
        "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard; Transfer of Listing",
        Some(Mapping { category: "regulatory", concept: Some("penalty"), direction: None, magnitude: None, cued: false }),
    ),
    ("3.02", "Unregistered Sales of Equity Securities", None),
    ("3.03", "Material Modification to Rights of Security Holders", None),
    ("4.01", "Changes in Registrant's Certifying Accountant", None),
    (
        "4.02",
        "Non-Reliance on Previously Issued Financial Statements or a Related Audit Report or Completed Interim Review",
        Some(Mapping {
            category: "regulatory",
            concept: Some("investigation"),
            direction: None,
            magnitude: Some(Magnitude::High),
            cued: false,
        }),
    ),
    ("5.01", "Changes in Control of Registrant", to("corporate_transaction")),
    (
        "5.02",
        "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers; Compensatory Arrangements of Certain Officers",
        to("leadership_change"),
    ),
    ("5.03", "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year", None),
    ("5.04", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans", None),
    ("5.05", "Amendment to Registrant's Code of Ethics, or Waiver of a Provision of the Code of Ethics", None),
    ("5.06", "Change in Shell Company Status", None),
    ("5.07", "Submission of Matters to a Vote of Security Holders", None),
    ("5.08", "Shareholder Director Nominations", None),
    ("6.01", "ABS Informational and Computational Material", None),
    ("6.02", "Change of Servicer or Trustee", None),
    ("6.03", "Change in Credit Enhancement or Other External Support", None),
    ("6.04", "Failure to Make a Required Distribution", None),
    ("6.05", "Securities Act Updating Disclosure", None),
    ("7.01", "Regulation FD Disclosure", None),
    ("8.01", "Other Events", None),
    ("9.01", "Financial Statements and Exhibits", None),
];

/// The SEC's name of an 8-K item (`None`: not an item of the form).
pub fn item_name(item: &str) -> Option<&'static str> {
    ITEMS.iter().find(|(code, _, _)| *code == item).map(|(_, name, _)| *name)
}

/// What item `item` reports, its direction read from `text` where the item leaves it open;
/// `None` for an item that is not an event on its own.
pub fn class_of_item(item: &str, text: &str) -> Option<Classification> {
    let (_, _, mapping) = ITEMS.iter().find(|(code, _, _)| *code == item)?;
    let m = mapping.as_ref()?;
    let mut class = lexicon::defaults(m.category)?;
    if let Some(concept) = m.concept {
        class.concept = concept;
    }
    if let Some(direction) = m.direction {
        class.direction = direction;
    } else if m.cued {
        class.direction = lexicon::cued_direction(text);
    }
    if let Some(magnitude) = m.magnitude {
        class.magnitude = magnitude;
    }
    Some(class)
}

/// The evidence title of a filing's item: "<company>: Form 8-K, Item 2.05 (<item name>)".
pub fn title(company: &str, form: &str, item: &str) -> String {
    format!("{company}: Form {form}, Item {item} ({})", item_name(item).unwrap_or("unknown item"))
}

/// The evidence excerpt of a filing: the names of all its items.
pub fn excerpt(items: &[String]) -> String {
    items.iter().map(|i| format!("Item {i} {}", item_name(i).unwrap_or_default())).collect::<Vec<_>>().join("; ")
}

/// The item a filing's evidence title names ([`title`]).
fn item_of_title(title: &str) -> Option<&str> {
    let (_, rest) = title.rsplit_once(", Item ")?;
    rest.split_whitespace().next()
}

/// What a stored item reports: a filing by its item, anything else by the lexicon (stored items
/// are classified again each scan: their words are stored, their class is not).
pub fn classify_evidence(provider: Provider, title: &str, excerpt: &str) -> Option<Classification> {
    match provider {
        Provider::Filings => class_of_item(item_of_title(title)?, excerpt),
        _ => lexicon::classify(title, excerpt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Channel;

    #[test]
    fn each_mapped_item_has_its_category_and_the_rest_are_not_events() {
        let category = |item: &str| class_of_item(item, "").map(|c| c.category);
        for (item, want) in [
            ("1.03", "insolvency"),
            ("2.04", "insolvency"),
            ("1.05", "security_incident"),
            ("2.05", "workforce_reduction"),
            ("2.06", "financial_results"),
            ("2.02", "financial_results"),
            ("3.01", "regulatory"),
            ("4.02", "regulatory"),
            ("1.01", "corporate_transaction"),
            ("1.02", "corporate_transaction"),
            ("2.01", "corporate_transaction"),
            ("5.01", "corporate_transaction"),
            ("5.02", "leadership_change"),
        ] {
            assert_eq!(category(item), Some(want), "{item}");
        }
        for item in ["7.01", "8.01", "9.01", "2.03", "5.07", "12.34"] {
            assert_eq!(category(item), None, "{item}");
        }
    }

    #[test]
    fn items_say_what_the_category_default_does_not() {
        let class = |item: &str, text: &str| class_of_item(item, text).unwrap();
        assert_eq!(class("2.04", "").concept, "default");
        assert_eq!(class("1.03", "").concept, "insolvency");
        assert_eq!(class("2.06", "").direction, Direction::Negative);
        assert_eq!(class("2.02", "").direction, Direction::Mixed);
        assert_eq!(class("2.02", "quarterly loss").direction, Direction::Negative);
        assert_eq!(class("2.02", "record revenue").direction, Direction::Positive);
        assert_eq!((class("3.01", "").concept, class("3.01", "").magnitude), ("penalty", Magnitude::Medium));
        assert_eq!((class("4.02", "").concept, class("4.02", "").magnitude), ("investigation", Magnitude::High));
        let cuts = class("2.05", "");
        assert_eq!(
            (cuts.concept, cuts.direction, cuts.channels.clone()),
            ("job_cuts", Direction::Negative, vec![Channel::Finances, Channel::Reputation])
        );
    }

    #[test]
    fn a_stored_filing_is_classified_by_its_item_again() {
        let title = title("Kestrel Avionics, Inc.", "8-K", "2.05");
        assert_eq!(
            title,
            "Kestrel Avionics, Inc.: Form 8-K, Item 2.05 (Costs Associated with Exit or Disposal Activities)"
        );
        let items = ["2.05".to_string(), "9.01".to_string()];
        let stored = classify_evidence(Provider::Filings, &title, &excerpt(&items)).unwrap();
        assert_eq!((stored.category, stored.concept), ("workforce_reduction", "job_cuts"));
        // The same words from a search provider are read by the lexicon (no keyword: nothing).
        assert_eq!(classify_evidence(Provider::Search, &title, ""), None);
    }
}
