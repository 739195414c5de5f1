//! Which of an account's companies an item is about, and how surely (SUPPLEMENT 4.8): candidate
//! matches on names, aliases and domains, the ambiguity guard within a company and across the
//! account's companies, attribution and the authority tier of the item's publisher.

use std::collections::BTreeSet;

use super::words::{
    contains_bounded, core_words, is_distinctive, name_forms, phrase_spans, tokens, words, Token, LEGAL_FORMS,
};
use crate::{
    records::{AllowedUse, AuthorityTier, ClaimType, TrustState},
    store::Company,
};

/// A name or alias as the matcher uses it.
#[derive(Debug, Clone)]
struct NameClaim {
    claim_id: String,
    /// The words of each form news writes it in.
    forms: Vec<Vec<String>>,
    distinctive: bool,
    /// Its words without corporate words: two aliases with the same core are one alias.
    core: Vec<String>,
}

/// A company as the matcher sees it: the claims it may attribute by.
#[derive(Debug, Clone)]
pub struct Profile {
    pub company_id: String,
    /// Name and aliases, the name first.
    names: Vec<NameClaim>,
    /// Domains (claim id, lower-case domain).
    domains: Vec<(String, String)>,
    identifiers: Vec<Vec<String>>,
    locations: Vec<Vec<String>>,
    /// The words of every name and alias: left out of the content events are grouped by.
    pub own_words: BTreeSet<String>,
}

impl Profile {
    pub fn of(company: &Company) -> Profile {
        let usable = |c: &&crate::store::Claim| {
            !matches!(c.trust, TrustState::Expired | TrustState::Rejected)
                && (c.allowed_uses.contains(&AllowedUse::Attribution) || c.kind == ClaimType::Location)
        };
        let mut names = Vec::new();
        let mut domains = Vec::new();
        let mut identifiers = Vec::new();
        let mut locations = Vec::new();
        let mut own_words = BTreeSet::new();
        // The company's name first, then its other aliases in their order.
        let mut claims: Vec<&crate::store::Claim> = company.claims.iter().filter(usable).collect();
        claims.sort_by_key(|c| !(c.kind == ClaimType::Alias && c.value == company.name));
        for claim in claims {
            match claim.kind {
                ClaimType::Alias => {
                    let w = words(&claim.value);
                    own_words.extend(w.iter().cloned());
                    names.push(NameClaim {
                        claim_id: claim.claim_id.clone(),
                        forms: name_forms(&w),
                        distinctive: is_distinctive(&w),
                        core: core_words(&w),
                    });
                }
                ClaimType::Domain => domains.push((claim.claim_id.clone(), claim.value.to_lowercase())),
                ClaimType::LegalIdentifier => identifiers.push(words(&claim.value)),
                ClaimType::Location => locations.push(words(&claim.value)),
                ClaimType::CustomerReference => {}
            }
        }
        Profile { company_id: company.company_id.clone(), names, domains, identifiers, locations, own_words }
    }

    /// The aliases searched for: up to 3 (the name first) — the queries of 4.8.
    pub fn search_aliases(&self, company: &Company) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut discovery: Vec<&crate::store::Claim> = company
            .claims
            .iter()
            .filter(|c| c.kind == ClaimType::Alias && c.allowed_uses.contains(&AllowedUse::Discovery))
            .collect();
        discovery.sort_by_key(|c| c.value != company.name);
        for c in discovery {
            if out.len() < 3 && !out.contains(&c.value) {
                out.push(c.value.clone());
            }
        }
        out
    }

    /// The domains searched for: up to 2.
    pub fn search_domains(&self) -> Vec<String> {
        self.domains.iter().take(2).map(|(_, d)| d.clone()).collect()
    }
}

/// An item of news as any provider reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub title: String,
    pub snippet: String,
    /// The item's URL in canonical form (https, no userinfo, host lower-cased without `www.`).
    pub canonical_url: String,
    /// Its host, as in the canonical URL.
    pub host: String,
}

/// Where in an item a name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Snippet,
}

#[derive(Debug, Clone)]
struct NameHit {
    claim_index: usize,
    field: Field,
    span: (usize, usize),
}

/// What one company's claims found in an item, before the guard across companies.
#[derive(Debug, Clone)]
struct Hits {
    names: Vec<NameHit>,
    /// The claim of a domain named in the text (title or snippet), and whether in the title.
    domain_in_text: Option<(String, bool)>,
    /// The claim of the domain the item's host is, or is under.
    host_domain: Option<String>,
    identifier: bool,
    location: bool,
}

impl Hits {
    /// A signal beyond names: the host, a domain string or a legal identifier.
    fn identifying(&self) -> bool {
        self.host_domain.is_some() || self.domain_in_text.is_some() || self.identifier
    }

    fn is_candidate(&self) -> bool {
        !self.names.is_empty() || self.domain_in_text.is_some()
    }
}

fn host_under(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|rest| rest.ends_with('.'))
}

/// An item's title and snippet, as words and as written.
struct Texts {
    title: Vec<String>,
    snippet: Vec<String>,
    title_tokens: Vec<Token>,
    snippet_tokens: Vec<Token>,
}

impl Texts {
    fn of(item: &Item) -> Texts {
        let (title_tokens, snippet_tokens) = (tokens(&item.title), tokens(&item.snippet));
        let words = |t: &[Token]| t.iter().map(|t| t.word.clone()).collect();
        Texts { title: words(&title_tokens), snippet: words(&snippet_tokens), title_tokens, snippet_tokens }
    }

    fn tokens(&self, field: Field) -> &[Token] {
        match field {
            Field::Title => &self.title_tokens,
            Field::Snippet => &self.snippet_tokens,
        }
    }
}

/// Whether most of a title's longer words (four letters or more, after the first word) are
/// capitalised: a headline in title case, where capitals say nothing about names. (Not asked of
/// a snippet: running text naming three brands in a row is not title case.)
fn headline_cased(text: &[Token]) -> bool {
    let long: Vec<&Token> =
        text.iter().skip(1).filter(|t| t.word.chars().filter(|c| c.is_alphabetic()).count() >= 4).collect();
    long.len() >= 2 && long.iter().filter(|t| t.capitalised).count() * 10 >= long.len() * 6
}

/// Whether the words at `span` are written as a company's name, not as the common word a name
/// may also be (4.8's guard, for names such as Apple, Shell, Next, Target): with the company's
/// legal form ("Apple Inc", "Next plc"), or as a proper noun of its own in running text —
/// capitalised, not the first word of a sentence, not in a title-cased headline, and not part
/// of a longer capitalised name ("the Big Apple", "Royal Dutch Shell").
fn written_as_a_name(field: Field, text: &[Token], span: (usize, usize)) -> bool {
    let named = &text[span.0..span.1];
    if named.iter().any(|t| LEGAL_FORMS.contains(&t.word.as_str())) {
        return true;
    }
    let in_a_longer_name = |t: &Token| t.capitalised && !t.upper && !t.sentence_start;
    let before = span.0.checked_sub(1).and_then(|i| text.get(i));
    let after = text.get(span.1).filter(|t| !t.after_comma);
    let capitals_say_nothing = field == Field::Title && headline_cased(text);
    !capitals_say_nothing
        && named.iter().all(|t| t.capitalised)
        && !named[0].sentence_start
        && !before.is_some_and(in_a_longer_name)
        && !after.is_some_and(in_a_longer_name)
}

/// Words that make the company named before them the source of figures ("Oakridge's survey").
const SOURCE_NOUNS: &[&str] =
    &["survey", "surveys", "study", "tracker", "index", "poll", "research", "analysis", "tally"];
/// Verbs of a source counting or estimating ("Oakridge counted 38,000 job cuts").
/// (Not "estimated": "Acme estimated the breach would cost $20m" is Acme's own news.)
const SOURCE_VERBS: &[&str] = &["counted", "tallied", "tracked", "surveyed"];
/// Verbs of a reported-speech tag after a comma (", Oakridge says").
const SAYS: &[&str] = &["says", "said", "reports", "reported", "estimates", "found", "finds"];

/// Whether the words at `span` name a company as the source of what the text reports: "according
/// to X", "per X", "data from X", "X's survey", "X counted …", "…, X says" closing the text. Such
/// a company is quoted about others' news (an analyst's count of other companies' job cuts), and
/// an item that names it only so is not about it. A company's own announcement still is: its
/// name then heads a clause ("X said on Thursday it would cut …") rather than tagging one.
fn cited_as_a_source(text: &[Token], span: (usize, usize)) -> bool {
    let word = |i: usize| text.get(i).map_or("", |t| t.word.as_str());
    let before = |n: usize| span.0.checked_sub(n).map_or("", word);
    let (next, then) = (word(span.1), word(span.1 + 1));
    let possessive_or_not = if next == "s" { (then, word(span.1 + 2)) } else { (next, then) };
    (before(2) == "according" && before(1) == "to")
        || before(1) == "per"
        || (matches!(before(1), "from" | "by") && matches!(before(2), "data" | "figures" | "numbers" | "compiled"))
        || SOURCE_NOUNS.contains(&possessive_or_not.0)
        || SOURCE_NOUNS.contains(&possessive_or_not.1)
        || SOURCE_VERBS.contains(&next)
        || (text[span.0].after_comma && SAYS.contains(&next) && span.1 + 1 == text.len())
}

fn hits(profile: &Profile, item: &Item, texts: &Texts) -> Hits {
    let (title, snippet) = (texts.title.as_slice(), texts.snippet.as_slice());
    let text = format!("{}\n{}", item.title, item.snippet);
    let appears =
        |phrase: &Vec<String>| !phrase_spans(phrase, title).is_empty() || !phrase_spans(phrase, snippet).is_empty();
    let mut names = Vec::new();
    for (i, name) in profile.names.iter().enumerate() {
        for form in &name.forms {
            for (field, words) in [(Field::Title, title), (Field::Snippet, snippet)] {
                names.extend(phrase_spans(form, words).into_iter().map(|span| NameHit { claim_index: i, field, span }));
            }
        }
    }
    let domain_in_text = profile
        .domains
        .iter()
        .find_map(|(id, d)| contains_bounded(&text, d).then(|| (id.clone(), contains_bounded(&item.title, d))));
    let host_domain = profile.domains.iter().find(|(_, d)| host_under(&item.host, d)).map(|(id, _)| id.clone());
    let mut hits = Hits {
        names,
        domain_in_text,
        host_domain,
        identifier: profile.identifiers.iter().any(appears),
        location: profile.locations.iter().any(appears),
    };
    // The guard within the company: a name that is not distinctive needs a second signal —
    // the host, a domain string, an identifier, a location, or another of its aliases matching
    // other words of the item (not "Apple" inside the same words as "Apple Inc").
    let another_alias = hits.names.iter().enumerate().any(|(i, a)| {
        hits.names[i + 1..].iter().any(|b| {
            let apart = a.field != b.field || a.span.1 <= b.span.0 || b.span.1 <= a.span.0;
            apart && profile.names[a.claim_index].core != profile.names[b.claim_index].core
        })
    });
    let second_signal = hits.identifying() || hits.location || another_alias;
    hits.names.retain(|h| {
        profile.names[h.claim_index].distinctive
            || second_signal
            || written_as_a_name(h.field, texts.tokens(h.field), h.span)
    });
    // Named only as the source of what the item reports: the item is not about the company.
    if hits.names.iter().all(|h| cited_as_a_source(texts.tokens(h.field), h.span)) && !hits.identifying() {
        hits.names.clear();
    }
    hits
}

/// What a company does when it is the one suing: "<name> sues", "<name> is suing", "<name> files
/// suit/lawsuit against", "<name> takes … to court".
const SUING: &[&[&str]] = &[
    &["sues"],
    &["is", "suing"],
    &["files", "suit"],
    &["files", "lawsuit"],
    &["filed", "suit"],
    &["filed", "a", "lawsuit"],
    &["files", "a", "lawsuit"],
];

impl Profile {
    /// Whether the item names the company as the one suing ("Acme sues Globex"): litigation it
    /// brings is not litigation against it (4.8).
    pub fn is_plaintiff_in(&self, item: &Item) -> bool {
        [words(&item.title), words(&item.snippet)].iter().any(|text| {
            self.names.iter().flat_map(|n| &n.forms).any(|form| {
                phrase_spans(form, text).iter().any(|&(_, end)| {
                    SUING.iter().any(|verb| text.get(end..end + verb.len()).is_some_and(|next| next == *verb))
                })
            })
        })
    }
}

/// An item attributed to a company.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    pub company_id: String,
    pub attribution: f64,
    /// Which rule gave it (for the impact's rationale).
    pub rule: &'static str,
    /// The claim whose match attributed it.
    pub claim_id: String,
    pub tier: AuthorityTier,
}

/// The companies of `profiles` that `item` is about, with their attribution; `authoritative`
/// are the hosts of CM_AUTHORITATIVE_PUBLISHERS.
pub fn attribute(profiles: &[Profile], item: &Item, authoritative: &[String]) -> Vec<Attribution> {
    let texts = Texts::of(item);
    let mut found: Vec<(usize, Hits)> = profiles
        .iter()
        .enumerate()
        .map(|(i, p)| (i, hits(p, item, &texts)))
        .filter(|(_, h)| h.is_candidate())
        .collect();
    if found.len() >= 2 {
        // A match inside another company's longer match does not count ("Ashgrove" in "Ashgrove Pharma").
        let spans: Vec<(usize, Field, (usize, usize))> =
            found.iter().flat_map(|(i, h)| h.names.iter().map(move |n| (*i, n.field, n.span))).collect();
        for (i, h) in found.iter_mut() {
            h.names.retain(|n| {
                !spans.iter().any(|(j, field, span)| {
                    j != i
                        && *field == n.field
                        && span.0 <= n.span.0
                        && n.span.1 <= span.1
                        && span.1 - span.0 > n.span.1 - n.span.0
                })
            });
        }
        found.retain(|(_, h)| h.is_candidate());
        // "Corvel sues Bayfield": the suit is the defendant's news (4.8's legal row), so the
        // company suing does not contest it.
        if found.len() >= 2 {
            let plaintiff = |i: usize| profiles[i].is_plaintiff_in(item);
            if found.iter().any(|(i, _)| !plaintiff(*i)) {
                found.retain(|(i, _)| !plaintiff(*i));
            }
        }
        // Still two or more: a company matched on names alone is dropped.
        if found.len() >= 2 {
            found.retain(|(_, h)| h.identifying());
        }
    }
    found
        .into_iter()
        .map(|(i, h)| {
            let profile = &profiles[i];
            let name_in_title = h.names.iter().find(|n| n.field == Field::Title);
            // A name or alias in the title (a domain string there alone is not one: 4.8).
            let title_claim = name_in_title.map(|n| profile.names[n.claim_index].claim_id.clone());
            let any_claim = || {
                h.names
                    .first()
                    .map(|n| profile.names[n.claim_index].claim_id.clone())
                    .or_else(|| h.domain_in_text.as_ref().map(|(id, _)| id.clone()))
                    .unwrap_or_default()
            };
            let (mut attribution, rule, claim_id) = match (&h.host_domain, title_claim) {
                (Some(domain), _) => (0.95, "the publisher's host is the company's domain", domain.clone()),
                (None, Some(claim)) if h.domain_in_text.is_some() || h.identifier => {
                    (0.9, "name in the title with a domain or identifier", claim)
                }
                (None, Some(claim)) => (0.75, "name in the title", claim),
                (None, None) if h.names.is_empty() => {
                    (0.55, "the domain in the text, no name in the title", any_claim())
                }
                (None, None) => (0.55, "name in the snippet only", any_claim()),
            };
            if h.location {
                attribution = f64::min(attribution + 0.05, 1.0);
            }
            let tier = if h.host_domain.is_some() {
                AuthorityTier::PrimaryVerified
            } else if authoritative.iter().any(|a| host_under(&item.host, a)) {
                AuthorityTier::IndependentAuthoritative
            } else {
                AuthorityTier::Ordinary
            };
            Attribution { company_id: profile.company_id.clone(), attribution, rule, claim_id, tier }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{company_input::CompanyInput, ids::Kind, store::Claim, violations::Violations};

    fn company(value: serde_json::Value) -> Company {
        let mut v = Violations::default();
        let input = CompanyInput::parse("company", Some(&value), &mut v).unwrap();
        let claims = input
            .claims()
            .into_iter()
            .map(|c| Claim {
                claim_id: Kind::Claim.new_id(),
                kind: c.kind,
                value: c.value,
                provenance: "customer".into(),
                trust: TrustState::Declared,
                allowed_uses: c.kind.declared_uses().to_vec(),
                expires_at: None,
            })
            .collect();
        Company {
            company_id: Kind::Company.new_id(),
            name: input.name.clone(),
            domicile: input.domicile,
            lifecycle: crate::records::Lifecycle::Active,
            customer_reference: None,
            coverage: crate::records::CoverageState::AwaitingFirstScan,
            observation: crate::records::ObservationState::Unknown,
            coverage_changed_at: 0,
            created_at: 0,
            updated_at: 0,
            claims,
        }
    }

    fn item(title: &str, snippet: &str, url_host: &str) -> Item {
        Item {
            title: title.into(),
            snippet: snippet.into(),
            canonical_url: format!("https://{url_host}/story"),
            host: url_host.into(),
        }
    }

    fn names_of(profiles: &[Profile], found: &[Attribution]) -> Vec<usize> {
        found.iter().map(|a| profiles.iter().position(|p| p.company_id == a.company_id).unwrap()).collect()
    }

    #[test]
    fn attribution_follows_the_rules_in_order() {
        let ashgrove = company(json!({"name": "Ashgrove Pharma Ltd", "domicileCountry": "GB",
            "domains": ["ashgrovepharma.co.uk"], "identifiers": ["LEI 213800ABCDEF"], "locations": ["Leeds"]}));
        let p = [Profile::of(&ashgrove)];
        let none: &[String] = &[];
        let at = |title: &str, snippet: &str, host: &str| attribute(&p, &item(title, snippet, host), none);
        let own = at("Ashgrove Pharma recalls inhaler", "", "news.ashgrovepharma.co.uk");
        assert_eq!((own[0].attribution, own[0].tier), (0.95, AuthorityTier::PrimaryVerified));
        let with_domain = at("Ashgrove Pharma recalls inhaler", "See ashgrovepharma.co.uk for batches", "wire.example");
        assert_eq!(with_domain[0].attribution, 0.9);
        assert_eq!(at("Ashgrove Pharma recalls inhaler", "", "wire.example")[0].attribution, 0.75);
        assert_eq!(at("Inhaler recall", "Ashgrove Pharma said", "wire.example")[0].attribution, 0.55);
        // Issue 46: a domain string alone in the title is not a name in the title.
        let domain_only = at("ashgrovepharma.co.uk goes dark", "", "wire.example");
        assert_eq!(
            (domain_only[0].attribution, domain_only[0].rule),
            (0.55, "the domain in the text, no name in the title")
        );
        let located = at("Ashgrove Pharma recalls inhaler", "at its Leeds site", "wire.example");
        assert!((located[0].attribution - 0.8).abs() < 1e-9);
        assert!(at("Ash grove in bloom", "", "wire.example").is_empty());
        assert_eq!(at("Ashgrove Pharma Ltd recall", "", "wire.example")[0].claim_id, ashgrove.claims[0].claim_id);
        let authoritative = ["reuters.com".to_string()];
        let tiered = attribute(&p, &item("Ashgrove Pharma recall", "", "uk.reuters.com"), &authoritative);
        assert_eq!(tiered[0].tier, AuthorityTier::IndependentAuthoritative);
    }

    #[test]
    fn a_common_word_name_needs_a_second_signal() {
        let summit = company(json!({"name": "Summit", "domicileCountry": "US", "domains": ["summit-foods.com"],
            "aliases": ["Summit Foods"], "locations": ["Ohio"]}));
        let p = [Profile::of(&summit)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), &[]);
        assert!(at("Summit talks end in lawsuit", "Leaders met in Geneva").is_empty());
        assert_eq!(at("Summit recalls soup", "The Ohio company said").len(), 1, "a location");
        assert_eq!(at("Summit Foods recalls soup", "").len(), 1, "a distinctive alias");
        assert_eq!(at("Summit recalls soup", "summit-foods.com lists the batches").len(), 1, "a domain");
    }

    /// Issue 46: "Apple Inc" (trimmed to "apple") and the alias "Apple" both hit the same word of
    /// "apple harvest"; one hit is one signal, so the guard holds. Aliases that differ only in case
    /// or corporate words are one alias even when they hit different words.
    #[test]
    fn one_hit_is_one_signal_and_aliases_alike_are_one_alias() {
        let apple = company(json!({"name": "Apple Inc", "domicileCountry": "US", "aliases": ["Apple", "APPLE INC."],
            "domains": ["apple.com"]}));
        let p = [Profile::of(&apple)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), &[]);
        assert!(at("Record apple harvest in Kent", "").is_empty(), "one word, two aliases: one signal");
        assert!(at("Apple harvest", "apple growers cheer").is_empty(), "aliases alike: one alias");
        assert_eq!(at("Apple shares fall", "apple.com posted the results").len(), 1, "a domain is a second signal");
        let two = company(json!({"name": "Apple Inc", "domicileCountry": "US", "aliases": ["Macs"]}));
        let p = [Profile::of(&two)];
        let found = attribute(&p, &item("Apple cuts prices of Macs", "", "wire.example"), &[]);
        assert_eq!(found.len(), 1, "another alias on other words is a second signal");
    }

    /// Issue 46: a common-word brand name written as a name — with its legal form, or as a
    /// proper noun of its own in running text — is the company; the word is not.
    #[test]
    fn a_common_word_name_written_as_a_name_is_the_company() {
        let next = company(json!({"name": "Next plc", "domicileCountry": "GB", "aliases": ["Next"]}));
        let p = [Profile::of(&next)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), &[]).len();
        assert_eq!(
            at("Profit warning", "The clothing retailer Next said sales fell."),
            1,
            "a proper noun mid-sentence"
        );
        assert_eq!(at("Shares in Next slide 6% as mild weather hits coats", ""), 1, "in a sentence-case title");
        assert_eq!(at("Profit warning", "Next plc lowered its guidance."), 1, "with its legal form");
        assert_eq!(at("Sales fall", "Sales fell, Next said, as the weather stayed mild."), 1, "a speech tag");
        assert_eq!(at("Next cuts profit guidance", "Sales fell."), 0, "a sentence's first word says nothing");
        assert_eq!(at("The next step in the probe", "Regulators said the next stage would follow."), 0);
        assert_eq!(at("Probe Moves To Next Stage After Fines", ""), 0, "a title-cased headline says nothing");
        let apple = company(json!({"name": "Apple Inc.", "domicileCountry": "US", "aliases": ["Apple"]}));
        let p = [Profile::of(&apple)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), &[]).len();
        assert_eq!(at("Subway outage", "An outage in the Big Apple left riders stuck."), 0, "part of a longer name");
        assert_eq!(at("Outage", "Photos stopped syncing; Apple's status page lists an outage."), 1);
        assert_eq!(at("Outage", "Apple, Google and Meta said the outage was over."), 0, "first word of the text");
        assert_eq!(at("Outage", "Users of Apple, Google and Meta saw an outage."), 1, "a list after a comma");
    }

    /// Issue 46: a company quoted as the source of others' news ("tech layoffs rose 40%,
    /// Oakridge says") is not what the item is about; its own news told by it still is.
    #[test]
    fn a_company_cited_only_as_a_source_is_not_the_subject() {
        let oak =
            company(json!({"name": "Oakridge Analytics", "domicileCountry": "US", "domains": ["oakridge.example"]}));
        let p = [Profile::of(&oak)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), &[]).len();
        assert_eq!(
            at(
                "Tech layoffs rose 40% in October, Oakridge Analytics says",
                "Oakridge Analytics counted 38,000 job cuts."
            ),
            0
        );
        assert_eq!(
            at("Job cuts accelerate, per Oakridge Analytics data", "Oakridge Analytics' monthly tracker found more."),
            0
        );
        assert_eq!(at("Layoffs rise", "according to Oakridge Analytics, and data from Oakridge Analytics"), 0);
        assert_eq!(
            at("Oakridge Analytics cuts 200 jobs", "The firm said, Oakridge Analytics says"),
            1,
            "the subject once"
        );
        assert_eq!(at("Layoffs rise, Oakridge Analytics says", "oakridge.example has the figures"), 1, "a domain too");
        assert_eq!(at("Oakridge Analytics estimated the breach cost $2m", ""), 1);
    }

    /// Issue 46: in "Corvel sues Bayfield" both names match; the suit is Bayfield's news, and the
    /// company suing does not make it ambiguous.
    #[test]
    fn the_company_suing_does_not_contest_the_defendants_item() {
        let corvel = company(json!({"name": "Corvel Therapeutics", "domicileCountry": "US"}));
        let bayfield = company(json!({"name": "Bayfield Biologics", "domicileCountry": "US"}));
        let p = [Profile::of(&corvel), Profile::of(&bayfield)];
        let found =
            attribute(&p, &item("Corvel Therapeutics sues Bayfield Biologics over patent", "", "wire.example"), &[]);
        assert_eq!(names_of(&p, &found), [1]);
        let merger =
            attribute(&p, &item("Corvel Therapeutics and Bayfield Biologics agree merger", "", "wire.example"), &[]);
        assert!(merger.is_empty(), "two companies on names alone, neither suing: neither");
    }

    /// Issue 46: "Acme sues X" is not litigation against Acme; "X sues Acme" is.
    #[test]
    fn the_company_suing_is_the_plaintiff() {
        let acme = company(json!({"name": "Acme Robotics", "domicileCountry": "US"}));
        let p = Profile::of(&acme);
        assert!(p.is_plaintiff_in(&item("Acme Robotics sues Globex over patents", "", "wire.example")));
        assert!(p.is_plaintiff_in(&item("Patent fight", "Acme Robotics is suing Globex", "wire.example")));
        assert!(!p.is_plaintiff_in(&item("Globex sues Acme Robotics over patents", "", "wire.example")));
        assert!(!p.is_plaintiff_in(&item("Acme Robotics sued over patents", "", "wire.example")));
    }

    #[test]
    fn across_companies_the_longer_match_wins_and_names_alone_do_not_share() {
        let ashgrove = company(json!({"name": "Ashgrove", "domicileCountry": "GB", "domains": ["ashgrove.example"]}));
        let pharma =
            company(json!({"name": "Ashgrove Pharma", "domicileCountry": "GB", "domains": ["ashgrovepharma.example"]}));
        let p = [Profile::of(&ashgrove), Profile::of(&pharma)];
        let found = attribute(&p, &item("Ashgrove Pharma sued over patent", "", "wire.example"), &[]);
        assert_eq!(names_of(&p, &found), [1]);
        let both = attribute(&p, &item("Ashgrove and Ashgrove Pharma in merger", "", "wire.example"), &[]);
        assert!(both.is_empty(), "two companies on names alone: neither");
        let one_identified =
            attribute(&p, &item("Ashgrove and Ashgrove Pharma in merger", "", "ashgrove.example"), &[]);
        assert_eq!(names_of(&p, &one_identified), [0]);
    }
}
