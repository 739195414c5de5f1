//! Which of an account's companies an item is about, and how surely (SUPPLEMENT 4.8): candidate
//! matches on names, aliases and domains, the ambiguity guard within a company and across the
//! account's companies, attribution and the authority tier of the item's publisher.

use std::collections::BTreeSet;

use super::{
    lexicon::{Classification, KeywordAt},
    words::{
        contains_bounded, core_words, headline_cased, is_distinctive, name_forms, phrase_spans, short_form, tokens,
        words, Token, LEGAL_FORMS,
    },
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
    /// Whether it is written with a capital (as nearly every name is; not "easyJet").
    capitalised: bool,
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
        let mut shorts: Vec<NameClaim> = Vec::new();
        // The company's name first, then its other aliases in their order.
        let mut claims: Vec<&crate::store::Claim> = company.claims.iter().filter(usable).collect();
        claims.sort_by_key(|c| !(c.kind == ClaimType::Alias && c.value == company.name));
        for claim in claims {
            match claim.kind {
                ClaimType::Alias => {
                    let w = words(&claim.value);
                    own_words.extend(w.iter().cloned());
                    let capitalised = claim.value.chars().next().is_some_and(char::is_uppercase);
                    names.push(NameClaim {
                        claim_id: claim.claim_id.clone(),
                        forms: name_forms(&w),
                        distinctive: is_distinctive(&w),
                        core: core_words(&w),
                        capitalised,
                    });
                    if let Some(short) = short_form(&w) {
                        shorts.push(NameClaim {
                            claim_id: claim.claim_id.clone(),
                            forms: vec![short.clone()],
                            distinctive: false,
                            core: short,
                            capitalised,
                        });
                    }
                }
                ClaimType::Domain => domains.push((claim.claim_id.clone(), claim.value.to_lowercase())),
                ClaimType::LegalIdentifier => identifiers.push(words(&claim.value)),
                ClaimType::Location => locations.push(words(&claim.value)),
                ClaimType::CustomerReference => {}
            }
        }
        // Short forms after the aliases, unless an alias already is that word.
        for short in shorts {
            if !names.iter().any(|n| n.core == short.core) {
                names.push(short);
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

/// What a company does as the subject of business news, written right after its name: the
/// verbs of reporting ("X said") and of the lexicon's events in their headline forms ("X axes",
/// "X swung to a loss"). A common word opening a sentence is rarely followed by one.
const CORPORATE_VERBS: &[&str] = &[
    "said",
    "says",
    "reported",
    "reports",
    "posted",
    "posts",
    "announced",
    "announces",
    "confirmed",
    "confirms",
    "warned",
    "warns",
    "agreed",
    "agrees",
    "filed",
    "files",
    "plans",
    "planned",
    "expects",
    "cut",
    "cuts",
    "named",
    "names",
    "appointed",
    "appoints",
    "issued",
    "issues",
    "unveiled",
    "unveils",
    "swung",
    "swings",
    "slumped",
    "sank",
    "lost",
    "axed",
    "axes",
    "axing",
    "shed",
    "sheds",
    "shedding",
    "closes",
    "closed",
    "halts",
    "halted",
    "recalls",
    "recalled",
    "raised",
    "raises",
    "lowered",
    "lowers",
    "lands",
    "landed",
    "wins",
    "won",
    "secures",
    "secured",
    "buys",
    "bought",
    "sells",
    "sold",
    "acquires",
    "acquired",
    "settles",
    "settled",
    "fined",
    "sued",
    "disclosed",
    "discloses",
    "suspends",
    "suspended",
    "grounds",
    "grounded",
    "idles",
    "idled",
    "hires",
    "hired",
    "taps",
    "tapped",
    "ousts",
    "ousted",
    "slashes",
    "slashed",
    "eliminates",
    "eliminated",
    "missed",
    "misses",
    "beat",
    "beats",
    "lifted",
    "lifts",
    "blames",
    "blamed",
];

/// Words after a name that make it a company only when the headline and the snippet both name
/// it: "X will …", "X to …" (a headline's future), "X is …", "X has …".
const AUXILIARIES: &[&str] = &["will", "to", "is", "has", "was", "had", "would"];

/// What a company owns, after its name's possessive ("X's chief executive", "X's shares").
const OWNED: &[&str] = &[
    "chief",
    "ceo",
    "boss",
    "shares",
    "stock",
    "board",
    "profit",
    "profits",
    "revenue",
    "sales",
    "results",
    "chairman",
    "chair",
    "founder",
    "staff",
    "workers",
    "employees",
    "plant",
    "factory",
    "customers",
    "bonds",
    "debt",
    "rating",
    "auditor",
    "lenders",
    "finance",
];

/// Whether the words at `span` are written as a company's name, not as the common word a name
/// may also be (4.8's guard, for names such as Apple, Shell, Next, Target): with the company's
/// legal form ("Apple Inc", "Next plc"), or as a proper noun of its own in running text —
/// capitalised, not part of a longer capitalised name ("the Big Apple", "Royal Dutch Shell").
///
/// Where capitals say nothing — the first word of a sentence, a title-cased headline — the words
/// after it decide, as a reader's would (issue 57: news writes the subject first): a corporate
/// verb or a possessive of what companies own ("Anchor posted a wider loss", "Meridian said",
/// "Keystone's chief executive"); an auxiliary ("Keystone will close two plants") when the
/// headline and the snippet both name it (`named_in_both`); and the item's event keyword right
/// after it, or after an auxiliary (`keywords`: where they start in this text) — "Loom to
/// axe 300 jobs", "Anvil axes 220 jobs": the name is the subject of the event.
fn written_as_a_name(
    field: Field,
    text: &[Token],
    span: (usize, usize),
    named_in_both: bool,
    mut keywords: impl Iterator<Item = usize>,
) -> bool {
    let named = &text[span.0..span.1];
    if named.iter().any(|t| LEGAL_FORMS.contains(&t.word.as_str())) {
        return true;
    }
    if !named.iter().all(|t| t.capitalised) {
        return false;
    }
    let word = |i: usize| text.get(i).map_or("", |t| t.word.as_str());
    let opens = named[0].sentence_start || (field == Field::Title && headline_cased(text));
    if opens {
        let governs_the_keyword =
            keywords.any(|k| k == span.1 || (k == span.1 + 1 && AUXILIARIES.contains(&word(span.1))));
        let followed_by_a_company_word = governs_the_keyword
            || match word(span.1) {
                "s" => OWNED.contains(&word(span.1 + 1)),
                next => CORPORATE_VERBS.contains(&next) || (named_in_both && AUXILIARIES.contains(&next)),
            };
        let after = text.get(span.1).filter(|t| !t.after_comma);
        // In running text a capitalised word after it makes a longer name ("Anchor Bay said");
        // in a title-cased headline every word is capitalised.
        let longer = !headline_cased(text) && after.is_some_and(|t| t.capitalised && !t.upper);
        return followed_by_a_company_word && !longer;
    }
    let in_a_longer_name = |t: &Token| t.capitalised && !t.upper && !t.sentence_start;
    let before = span.0.checked_sub(1).and_then(|i| text.get(i));
    let after = text.get(span.1).filter(|t| !t.after_comma);
    !before.is_some_and(in_a_longer_name) && !after.is_some_and(in_a_longer_name)
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

/// Kinds of thing that bear names, written before the name they bear ("the superyacht Nimbus",
/// "Storm Ciara", "the racehorse Galloway"): a name after one is not a company's.
const THINGS_NAMED: &[&str] = &[
    "yacht",
    "superyacht",
    "vessel",
    "ship",
    "tanker",
    "ferry",
    "boat",
    "trawler",
    "storm",
    "hurricane",
    "typhoon",
    "cyclone",
    "horse",
    "racehorse",
    "colt",
    "mare",
    "band",
    "album",
    "film",
    "movie",
    "song",
    "novel",
    "rocket",
    "probe",
    "spacecraft",
    "satellite",
    "asteroid",
    "comet",
    "river",
    "mount",
    "lake",
    "village",
    "hamlet",
];

/// The kinds of place a name is given to, written right after it ("Virginia's Tidewater region",
/// "the Thames Valley", a mall called after its owner: "store in Crossways centre"): a place, not
/// the company.
const PLACES_NAMED: &[&str] = &[
    "region",
    "area",
    "county",
    "valley",
    "coast",
    "district",
    "estuary",
    "peninsula",
    "basin",
    "centre",
    "center",
    "mall",
];

/// Whether the words at `span` name something else than the company: written in lower case in
/// text that has capitals (the common word, "low nimbus cloud"), after the kind of thing they
/// name ([`THINGS_NAMED`]), or before a kind of place ([`PLACES_NAMED`]).
fn names_something_else(text: &[Token], span: (usize, usize), capitalised: bool) -> bool {
    // A domain or an address is written in lower case ("status.nimbus.example").
    const HOST_PARTS: &[&str] = &["com", "co", "net", "org", "io", "example", "uk", "www"];
    let in_a_host = HOST_PARTS.contains(&text.get(span.1).map_or("", |t| t.word.as_str()))
        || span.0.checked_sub(1).is_some_and(|i| HOST_PARTS.contains(&text[i].word.as_str()));
    let in_lower_case = capitalised && !text[span.0].capitalised && !in_a_host && text.iter().any(|t| t.capitalised);
    let after_a_thing = span.0.checked_sub(1).is_some_and(|i| THINGS_NAMED.contains(&text[i].word.as_str()));
    let before_a_place = PLACES_NAMED.contains(&text.get(span.1).map_or("", |t| t.word.as_str()));
    in_lower_case || after_a_thing || before_a_place
}

/// Nouns that, right before a name, give the company a part in another's event ("administrators
/// from X", "adviser X"), and verbs that do so right after it ("X advised", "X acted for").
const ROLE_NOUNS: &[&str] = &[
    "adviser",
    "advisers",
    "advisor",
    "advisors",
    "auditor",
    "auditors",
    "administrator",
    "administrators",
    "broker",
    "brokers",
    "lender",
    "lenders",
    "insurer",
    "underwriter",
    "underwriters",
    "consultancy",
    "landlord",
    "landlords",
];
const ROLE_VERBS: &[&str] = &["advised", "advises", "advising", "audited", "audits", "acted", "underwrote"];
/// Work another firm does for a company, written before the company's name with "of" or "to"
/// ("audits of X", "adviser to X"): the company is the client in the firm's event. Not the
/// roles that follow a company's own trouble ("administrators of X" are there because X failed).
const SERVICES_FOR: &[&str] =
    &["audit", "audits", "auditing", "auditor", "auditors", "adviser", "advisers", "advisor", "advisors"];

/// Whether the words at `span` name a company in a part of another's event — an adviser, an
/// administrator, an auditor, a lender (issue 57) — rather than the company the event is about:
/// "administrators from X", "advised by X", "X advised the buyer", "X, acting as administrator".
fn in_a_role(text: &[Token], span: (usize, usize)) -> bool {
    let word = |i: usize| text.get(i).map_or("", |t| t.word.as_str());
    let before = |n: usize| span.0.checked_sub(n).map_or("", word);
    let next = word(span.1);
    let role_before = beside(text, span)
        || ROLE_NOUNS.contains(&before(1))
        || (matches!(before(1), "from" | "at" | "by")
            && (ROLE_NOUNS.contains(&before(2)) || ROLE_VERBS.contains(&before(2))));
    let client = matches!(before(1), "of" | "to") && SERVICES_FOR.contains(&before(2));
    // "X's auditor", "X audit": the firm that serves X is the subject.
    let owned = if next == "s" { word(span.1 + 1) } else { next };
    let role_after = ROLE_VERBS.contains(&next)
        || SERVICES_FOR.contains(&owned)
        || (matches!(next, "as" | "acting") && (1..=3).any(|n| ROLE_NOUNS.contains(&word(span.1 + n))));
    role_before || client || role_after
}

/// Whether the words at `span` name the company only to place another's event beside it ("next
/// door to X", "near X", "opposite X"): a landmark, not the event's subject.
fn beside(text: &[Token], span: (usize, usize)) -> bool {
    let before = |n: usize| span.0.checked_sub(n).and_then(|i| text.get(i)).map_or("", |t| t.word.as_str());
    matches!((before(2), before(1)), ("door" | "next", "to") | (_, "near" | "beside" | "opposite"))
}

/// Words that, after a negation, clear someone of a part in what a sentence reports ("did not
/// allege wrongdoing by X", "X was not accused"): the wording of regulators' and courts' notices
/// and of the reports quoting them. A company's own denial ("X denies wrongdoing") clears nobody.
const CLEARED: &[&str] =
    &["accused", "allege", "alleged", "allegation", "allegations", "wrongdoing", "charged", "implicated"];

/// Whether the sentence that names the company at `span` clears it (a negation, then within three
/// words one of [`CLEARED`]): it is named in another's event only to say it had no part.
fn cleared(text: &[Token], span: (usize, usize)) -> bool {
    let from = (0..=span.0).rev().find(|&i| text[i].sentence_start).unwrap_or(0);
    let to = (span.1..text.len()).find(|&i| text[i].sentence_start).unwrap_or(text.len());
    let sentence = &text[from..to];
    sentence.iter().enumerate().any(|(i, t)| {
        matches!(t.word.as_str(), "not" | "no" | "never")
            && sentence[i + 1..].iter().take(3).any(|u| CLEARED.contains(&u.word.as_str()))
    })
}

/// What `profile`'s claims find in `item`; `keywords` are where the item's event keywords start
/// (their field and first word), when the lexicon read one.
fn hits(profile: &Profile, item: &Item, texts: &Texts, keywords: &[(Field, usize)]) -> Hits {
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
    // A namesake: where one mention of a name is something else — the word in lower case, or
    // a thing of another kind ("the superyacht Nimbus", "Storm Ciara") — the item is about it,
    // and its other mentions are too (a reader who met "the yacht Nimbus" reads on so).
    let namesakes: BTreeSet<usize> = hits
        .names
        .iter()
        .filter(|h| names_something_else(texts.tokens(h.field), h.span, profile.names[h.claim_index].capitalised))
        .map(|h| h.claim_index)
        .collect();
    hits.names.retain(|h| !namesakes.contains(&h.claim_index));
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
    let named_in_both = |claim: usize| {
        let fields: BTreeSet<bool> =
            hits.names.iter().filter(|h| h.claim_index == claim).map(|h| h.field == Field::Title).collect();
        fields.len() == 2
    };
    let kept: Vec<NameHit> = hits
        .names
        .iter()
        .filter(|h| {
            profile.names[h.claim_index].distinctive
                || second_signal
                || written_as_a_name(
                    h.field,
                    texts.tokens(h.field),
                    h.span,
                    named_in_both(h.claim_index),
                    keywords.iter().filter(|(f, _)| *f == h.field).map(|(_, k)| *k),
                )
        })
        .cloned()
        .collect();
    hits.names = kept;
    // Named only as the source of what the item reports, or in a part of another's event (its
    // adviser, its administrator): the item is not about the company.
    let aside = |h: &NameHit| {
        let text = texts.tokens(h.field);
        cited_as_a_source(text, h.span) || in_a_role(text, h.span) || cleared(text, h.span)
    };
    // A shorter alias inside a longer one's match reads as the longer one ("Beacon" in "Beacon
    // Partners audits").
    let inside_a_longer = |h: &&NameHit| {
        hits.names.iter().any(|o| {
            o.field == h.field
                && o.span.0 <= h.span.0
                && h.span.1 <= o.span.1
                && o.span.1 - o.span.0 > h.span.1 - h.span.0
        })
    };
    // Where the event's keyword is (the title or the snippet), the company named only as the
    // landmark beside it ("Fire at print unit next door to X"): what the item reports happened
    // to another, whatever the other field says of it ("X said its workshop was undamaged"). (A
    // source or a role named there — "…, X said", "UK lender X" — is often the company's own
    // event.)
    let beside_where_the_event_is = keywords.first().is_some_and(|(field, _)| {
        let there: Vec<&NameHit> = hits.names.iter().filter(|h| h.field == *field && !inside_a_longer(h)).collect();
        !there.is_empty() && there.iter().all(|h| beside(texts.tokens(h.field), h.span))
    });
    if (hits.names.iter().filter(|h| !inside_a_longer(h)).all(aside) || beside_where_the_event_is)
        && !hits.identifying()
    {
        hits.names.clear();
    }
    hits
}

/// What a company does when it is the one suing: "<name> sues", "<name> is suing".
const SUING: &[&[&str]] = &[&["sues"], &["is", "suing"]];
/// Or it files or brings one: "<name> files suit", "<name> filed a patent infringement lawsuit
/// against", "<name> issued proceedings", "<name> commences patent proceedings", "<name> takes
/// Acme to court" (the suit within four
/// words of the verb).
const FILES: &[&str] = &[
    "files",
    "filed",
    "issues",
    "issued",
    "brings",
    "brought",
    "takes",
    "took",
    "commences",
    "commenced",
    "launches",
    "launched",
];
const SUITS: &[&str] = &["suit", "lawsuit", "claim", "complaint", "action", "proceedings", "court"];
/// Adverbs a company's statement puts between its auxiliary and its verb ("has today issued").
const ADVERBS_BEFORE_A_VERB: &[&str] = &["today", "now", "also", "formally", "yesterday", "already"];

impl Profile {
    /// Whether the item names the company as the one suing ("Acme sues Globex"): litigation it
    /// brings is not litigation against it (4.8).
    pub fn is_plaintiff_in(&self, item: &Item) -> bool {
        [words(&item.title), words(&item.snippet)].iter().any(|text| {
            self.names.iter().flat_map(|n| &n.forms).any(|form| {
                phrase_spans(form, text).iter().any(|&(_, end)| {
                    // "<name> has issued proceedings", "<name> has today issued proceedings": the
                    // verb after its auxiliary and an adverb of time.
                    let skip = |at: usize, words: &[&str]| {
                        at + usize::from(text.get(at).is_some_and(|w| words.contains(&w.as_str())))
                    };
                    let verb = skip(skip(end, &["has", "have", "had"]), ADVERBS_BEFORE_A_VERB);
                    let files = text.get(verb).is_some_and(|w| FILES.contains(&w.as_str()))
                        && text.iter().skip(verb + 1).take(4).any(|w| SUITS.contains(&w.as_str()));
                    files || SUING.iter().any(|verb| text.get(end..end + verb.len()).is_some_and(|next| next == *verb))
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

/// Verbs whose subject gives a contract away, its winner after them ("Navy awards a contract to
/// Acme", "Mosaic picks Nimbus to run its core", "MoJ extends Gavel's contract").
const AWARDING: &[&str] = &[
    "awards",
    "award",
    "hands",
    "handed",
    "grants",
    "granted",
    "picks",
    "picked",
    "chooses",
    "chose",
    "selects",
    "taps",
    "outsource",
    "outsources",
    "outsourcing",
    "outsourced",
    // A customer extends or renews its supplier's contract ("MoJ extends Gavel's contract").
    "extends",
    "extended",
    "extending",
    "renews",
    "renewed",
    "renewing",
];
/// Verbs that are a passive headline's ("Acme awarded a contract", "Acme selected by the Navy")
/// unless a name follows them ("the Navy awarded Acme a contract").
const AWARDED: &[&str] = &["awarded", "selected", "chosen", "tapped"];

/// Whether the contract keyword `at`, at word `k0` of `tokens`, gives the contract away, its
/// winner after it: "X awards a contract to Acme", "X outsources its catering to Acme", "X has
/// awarded the contract to Acme", "X awarded Acme a contract" (`named_right_after`: a company
/// of the account right after the verb; else "Acme awarded a contract" is a passive headline).
fn gives_away(at: KeywordAt, tokens: &[Token], k0: usize, named_right_after: bool) -> bool {
    let first_word = tokens.get(k0).map_or("", |t| t.word.as_str());
    let after_an_auxiliary = k0 > 0 && ["has", "have", "had"].contains(&tokens[k0 - 1].word.as_str());
    at.concept == "contract"
        && (AWARDING.contains(&first_word)
            || (AWARDED.contains(&first_word) && (named_right_after || after_an_auxiliary)))
}

/// Each company's names in the sentence of the keyword at word `k0` of `field` (not over it).
fn placed_in_sentence(
    found: &[(usize, Hits)],
    texts: &Texts,
    (field, k0): (Field, usize),
) -> Vec<(usize, Vec<(usize, usize)>)> {
    let tokens = texts.tokens(field);
    let start = (0..=k0.min(tokens.len().saturating_sub(1))).rev().find(|&i| tokens[i].sentence_start).unwrap_or(0);
    let end = (k0 + 1..tokens.len()).find(|&i| tokens[i].sentence_start).unwrap_or(tokens.len());
    found
        .iter()
        .map(|(i, h)| {
            let spans = h
                .names
                .iter()
                .filter(|n| n.field == field && n.span.0 >= start && n.span.1 <= end)
                .filter(|n| n.span.1 <= k0 || n.span.0 > k0)
                .map(|n| n.span)
                .collect();
            (*i, spans)
        })
        .collect()
}

/// Which of two or more companies named in an item the event its keyword reports is about,
/// decided from the keyword's sentence (issue 57): each side of a deal; a contract's winner,
/// not its customer; else the company the sentence is about — the subject named nearest before
/// the keyword (with any named beside it: "Acme and Beacon cut jobs"), or, with none before, the
/// object nearest after it ("Moody's downgrades Acme", "layoffs at Acme"). `placed` is
/// [`placed_in_sentence`]. Returns the owners and every company the sentence names; `None`: it
/// names none of them or three and more (a list, as market wraps write), and structure decides
/// nothing.
fn owners(
    placed: &[(usize, Vec<(usize, usize)>)],
    texts: &Texts,
    at: KeywordAt,
    (field, k0): (Field, usize),
) -> Option<(BTreeSet<usize>, BTreeSet<usize>)> {
    let tokens = texts.tokens(field);
    let named: BTreeSet<usize> = placed.iter().filter(|(_, spans)| !spans.is_empty()).map(|(i, _)| *i).collect();
    // None of them, or a list of three or more (a market wrap, a sector round-up): structure
    // does not say whose event it is.
    if named.is_empty() || named.len() >= 3 {
        return None;
    }
    // The agent of a passive ("appointed by Castle Vaults to provide … Castle's centres under a
    // contract", "Acme, owned by Globex, cuts jobs") acts on the sentence's subject: it is the
    // subject's event, so the agent, wherever the sentence names it, is passed over while another
    // company is named before the keyword.
    let is_agent = |spans: &[(usize, usize)]| spans.iter().any(|s| s.0 > 0 && tokens[s.0 - 1].word == "by");
    let before = |skip_agents: bool| {
        placed
            .iter()
            .filter(|(_, spans)| !(skip_agents && is_agent(spans)))
            .filter_map(|(i, spans)| spans.iter().filter(|s| s.1 <= k0).map(|s| (k0 - s.1, *i, *s)).min())
            .min()
    };
    let nearest_before = before(true).or_else(|| before(false));
    let nearest_after = placed
        .iter()
        .filter_map(|(i, spans)| spans.iter().filter(|s| s.0 > k0).map(|s| (s.0 - k0 - 1, *i, *s)).min())
        .min();
    if at.category == "corporate_transaction" {
        return Some((named.clone(), named));
    }
    let first_word = tokens.get(k0).map_or("", |t| t.word.as_str());
    let named_right_after = nearest_after.is_some_and(|(d, _, _)| d == 0);
    // "X sued Acme": the defendant follows ("Acme sued by X", "Acme sued over patents": it
    // precedes).
    let gives_away = gives_away(at, tokens, k0, named_right_after);
    let sues_the_next = at.category == "legal" && first_word == "sued" && named_right_after;
    let object_owns = gives_away || sues_the_next;
    let chosen = if object_owns { nearest_after.or(nearest_before) } else { nearest_before.or(nearest_after) };
    let (_, owner, span) = chosen?;
    let mut owners = BTreeSet::from([owner]);
    // Named beside the owner ("Acme and Beacon cut jobs", "Acme, Beacon cut jobs"): subjects too.
    for (i, spans) in placed {
        let beside = spans.iter().any(|s| {
            let between = if s.1 <= span.0 {
                s.1..span.0
            } else if span.1 <= s.0 {
                span.1..s.0
            } else {
                0..0
            };
            !between.is_empty() && tokens[between].iter().all(|t| t.word == "and")
                || (s.1 == span.0 && tokens[span.0].after_comma)
                || (span.1 == s.0 && tokens[s.0].after_comma)
        });
        if beside && !object_owns {
            owners.insert(*i);
        }
    }
    Some((owners, named))
}

/// Where a keyword starts among the words of its field of `item`: names before it, or after it
/// (within its gap too: "awarded Acme a contract").
fn keyword_word(item: &Item, at: KeywordAt) -> Option<(Field, usize)> {
    let (field, text) = if at.in_title { (Field::Title, &item.title) } else { (Field::Snippet, &item.snippet) };
    Some((field, words(text.get(..at.start)?).len()))
}

/// The companies of `profiles` that `item` is about, with their attribution; `class` is what the
/// lexicon made of the item (where its keyword is decides between companies); `authoritative`
/// are the hosts of CM_AUTHORITATIVE_PUBLISHERS.
pub fn attribute(
    profiles: &[Profile],
    item: &Item,
    class: Option<&Classification>,
    authoritative: &[String],
) -> Vec<Attribution> {
    let texts = Texts::of(item);
    let keyword = class.and_then(|c| Some((c.at?, keyword_word(item, c.at?)?)));
    // The keywords a name may head: the event's, and any other the item reports an event by.
    let others = class.into_iter().flat_map(|c| c.also_at.iter().filter_map(|at| keyword_word(item, *at)));
    let keywords: Vec<(Field, usize)> = keyword.map(|(_, k)| k).into_iter().chain(others).collect();
    let mut found: Vec<(usize, Hits)> = profiles
        .iter()
        .enumerate()
        .map(|(i, p)| (i, hits(p, item, &texts, &keywords)))
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
        // Still two or more: the keyword's sentence decides whose event it is; where it names
        // none of them, a company matched on names alone is dropped.
        if found.len() >= 2 {
            // The keyword whose sentence decides: the event's, or where that sentence names none of
            // them ("Contract awarded for Northern Isles cable"), the item's next keyword of its
            // category whose sentence names one ("Thistle Fibre has awarded the contract … to
            // Mariner Cable").
            let of_its_category = class.into_iter().flat_map(|c| {
                c.also_at
                    .iter()
                    .filter(move |a| a.category == c.category)
                    .filter_map(|a| Some((*a, keyword_word(item, *a)?)))
            });
            let deciding = keyword
                .into_iter()
                .chain(of_its_category)
                .map(|(at, k)| (at, k, placed_in_sentence(&found, &texts, k)))
                .find(|(_, _, placed)| placed.iter().any(|(_, spans)| !spans.is_empty()));
            match deciding.and_then(|(at, k, placed)| owners(&placed, &texts, at, k)) {
                // A company identified by more than names (its own site, its domain) and not
                // named in the keyword's sentence stays: structure says nothing against it.
                Some((owners, placed)) => {
                    found.retain(|(i, h)| owners.contains(i) || (h.identifying() && !placed.contains(i)))
                }
                None => found.retain(|(_, h)| h.identifying()),
            }
        }
    }
    // A company that gives a contract away is its customer, not its winner, also when no other
    // company of the account is named ("Halyard outsources UK food service to Trestle", its own
    // page's "Thistle Fibre has awarded the contract to …"): named only before such a keyword in
    // its sentence, it has no event.
    if let Some((at, (field, k0))) = keyword {
        let tokens = texts.tokens(field);
        if gives_away(at, tokens, k0, false) {
            let placed = placed_in_sentence(&found, &texts, (field, k0));
            found.retain(|(i, _)| {
                let spans = placed.iter().find(|(j, _)| j == i).map_or(&[][..], |(_, s)| s.as_slice());
                spans.is_empty() || spans.iter().any(|s| s.0 > k0)
            });
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
                provenance: crate::records::Provenance::Customer,
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
        let at = |title: &str, snippet: &str, host: &str| attribute(&p, &item(title, snippet, host), None, none);
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
        let tiered = attribute(&p, &item("Ashgrove Pharma recall", "", "uk.reuters.com"), None, &authoritative);
        assert_eq!(tiered[0].tier, AuthorityTier::IndependentAuthoritative);
    }

    #[test]
    fn a_common_word_name_needs_a_second_signal() {
        let summit = company(json!({"name": "Summit", "domicileCountry": "US", "domains": ["summit-foods.com"],
            "aliases": ["Summit Foods"], "locations": ["Ohio"]}));
        let p = [Profile::of(&summit)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]);
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
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]);
        assert!(at("Record apple harvest in Kent", "").is_empty(), "one word, two aliases: one signal");
        assert!(at("Apple harvest", "apple growers cheer").is_empty(), "aliases alike: one alias");
        assert_eq!(at("Apple shares fall", "apple.com posted the results").len(), 1, "a domain is a second signal");
        let two = company(json!({"name": "Apple Inc", "domicileCountry": "US", "aliases": ["Macs"]}));
        let p = [Profile::of(&two)];
        let found = attribute(&p, &item("Apple cuts prices of Macs", "", "wire.example"), None, &[]);
        assert_eq!(found.len(), 1, "another alias on other words is a second signal");
    }

    /// Issue 46: a common-word brand name written as a name — with its legal form, or as a
    /// proper noun of its own in running text — is the company; the word is not.
    #[test]
    fn a_common_word_name_written_as_a_name_is_the_company() {
        let next = company(json!({"name": "Next plc", "domicileCountry": "GB", "aliases": ["Next"]}));
        let p = [Profile::of(&next)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]).len();
        assert_eq!(
            at("Profit warning", "The clothing retailer Next said sales fell."),
            1,
            "a proper noun mid-sentence"
        );
        assert_eq!(at("Shares in Next slide 6% as mild weather hits coats", ""), 1, "in a sentence-case title");
        assert_eq!(at("Profit warning", "Next plc lowered its guidance."), 1, "with its legal form");
        assert_eq!(at("Sales fall", "Sales fell, Next said, as the weather stayed mild."), 1, "a speech tag");
        // Issue 57: a sentence's first word is a name when a company's verb follows it.
        assert_eq!(at("Next cuts profit guidance", "Sales fell."), 1, "a corporate verb after the first word");
        assert_eq!(at("Next season looks bright", "Sales fell."), 0, "a sentence's first word alone says nothing");
        assert_eq!(at("Next's chief executive quits", ""), 1, "a possessive of what companies own");
        assert_eq!(at("Next will close 20 stores", "Next will shut them in March."), 1, "an auxiliary, named in both");
        assert_eq!(at("Next will tell", "Sales fell."), 0, "an auxiliary, named once");
        assert_eq!(at("Next Axes 500 Jobs At Leicester Depot", ""), 1, "a title-cased headline and a verb");
        assert_eq!(at("The next step in the probe", "Regulators said the next stage would follow."), 0);
        assert_eq!(at("Probe Moves To Next Stage After Fines", ""), 0, "a title-cased headline says nothing");
        let apple = company(json!({"name": "Apple Inc.", "domicileCountry": "US", "aliases": ["Apple"]}));
        let p = [Profile::of(&apple)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]).len();
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
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]).len();
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

    /// The companies an item names, attributed with the lexicon's reading of it.
    fn attributed(p: &[Profile], title: &str, snippet: &str, host: &str) -> Vec<usize> {
        let it = item(title, snippet, host);
        let class = crate::pipeline::lexicon::classify(title, snippet);
        names_of(p, &attribute(p, &it, class.as_ref(), &[]))
    }

    /// A sentence's first word heads an event when any keyword the item reports an event by
    /// follows it, not only the one that decided the category ("Rowan to shut 85 pharmacies with
    /// 520 jobs at risk" is job cuts; the closure follows the name).
    #[test]
    fn a_common_word_name_heading_any_event_keyword_is_the_company() {
        let rowan = company(json!({"name": "Rowan Pharmacy Group plc", "domicileCountry": "GB", "aliases": ["Rowan"]}));
        let p = [Profile::of(&rowan)];
        let at = |title: &str, snippet: &str| attributed(&p, title, snippet, "wire.example").len();
        assert_eq!(at("Rowan to shut 85 pharmacies with 520 jobs at risk", "Most are in towns."), 1);
        assert_eq!(at("Rowan blames funding squeeze as it closes 85 branches", ""), 1, "a corporate verb");
        assert_eq!(at("Rowan berries brighten stores as chain cuts 85 jobs", ""), 0, "no keyword follows the word");
    }

    /// Issue 46: in "Corvel sues Bayfield" both names match; the suit is Bayfield's news, and the
    /// company suing does not make it ambiguous.
    #[test]
    fn the_company_suing_does_not_contest_the_defendants_item() {
        let corvel = company(json!({"name": "Corvel Therapeutics", "domicileCountry": "US"}));
        let bayfield = company(json!({"name": "Bayfield Biologics", "domicileCountry": "US"}));
        let p = [Profile::of(&corvel), Profile::of(&bayfield)];
        let found = attributed(&p, "Corvel Therapeutics sues Bayfield Biologics over patent", "", "wire.example");
        assert_eq!(found, [1]);
        // Issue 57: a deal is news of both sides.
        let merger = attributed(&p, "Corvel Therapeutics and Bayfield Biologics agree merger", "", "wire.example");
        assert_eq!(merger, [0, 1]);
        let bought = attributed(&p, "Corvel Therapeutics to buy Bayfield Biologics for $2bn", "", "wire.example");
        assert_eq!(bought, [0, 1]);
        let passive = attributed(&p, "Bayfield Biologics sued by Corvel Therapeutics", "", "wire.example");
        assert_eq!(passive, [1], "the passive's subject is the defendant");
    }

    /// Issue 57: the keyword's sentence decides whose event it is when an item names two
    /// companies: the contract's winner, not its customer (also when only the snippet's sentence
    /// names them); the subject nearest before the keyword, or the object after it; each named
    /// beside the subject.
    #[test]
    fn the_keywords_sentence_decides_between_companies() {
        let acme = company(json!({"name": "Acme Robotics", "domicileCountry": "US"}));
        let navy = company(json!({"name": "Harbour Logistics", "domicileCountry": "US"}));
        let p = [Profile::of(&acme), Profile::of(&navy)];
        let at = |title: &str, snippet: &str| attributed(&p, title, snippet, "wire.example");
        assert_eq!(at("Acme Robotics wins $40m contract from Harbour Logistics", ""), [0]);
        assert_eq!(at("Harbour Logistics awards $40m contract to Acme Robotics", ""), [0]);
        assert_eq!(at("Harbour Logistics awarded Acme Robotics a $40m contract", ""), [0]);
        assert_eq!(at("Acme Robotics awarded $40m Harbour Logistics contract", ""), [0]);
        assert_eq!(at("Acme Robotics has been awarded a $40m contract by Harbour Logistics", ""), [0]);
        // A headline naming neither: the snippet's sentence of the contract decides.
        let awarded = "Harbour Logistics has awarded the contract for its depots to Acme Robotics after a tender.";
        assert_eq!(at("Contract worth $40m awarded for depot robots", awarded), [0]);
        let won = "Acme Robotics has won the contract for Harbour Logistics' depots.";
        assert_eq!(at("Contract worth $40m awarded for depot robots", won), [0]);
        // The only company of the account named gives the work away: its customer, no event.
        let alone = [Profile::of(&navy)];
        let only = |title: &str| attributed(&alone, title, "", "wire.example");
        assert_eq!(only("Harbour Logistics outsources depot work to Trestle"), Vec::<usize>::new());
        assert_eq!(only("Harbour Logistics has awarded the contract for its depots to a rival"), Vec::<usize>::new());
        assert_eq!(only("Harbour Logistics wins contract to run Trestle's depots"), [0]);
        assert_eq!(only("Harbour Logistics awarded $40m Navy contract"), [0]);
        assert_eq!(only("Harbour Logistics extends Trestle's depot contract"), Vec::<usize>::new());
        assert_eq!(at("Harbour Logistics renews Acme Robotics contract for three years", ""), [0]);
        assert_eq!(at("Harbour Logistics to cut 300 jobs as Acme Robotics orders dry up", ""), [1]);
        assert_eq!(at("Orders dry up", "Acme Robotics said Harbour Logistics would cut 300 jobs."), [1]);
        assert_eq!(at("Ratings agency downgrades Acme Robotics", "Harbour Logistics was unaffected."), [0]);
        assert_eq!(at("Acme Robotics and Harbour Logistics cut jobs", ""), [0, 1]);
        // "Inc." ends no sentence before a lower-case word: the winner is still its subject.
        let selected =
            "Acme Robotics Inc. has been selected as the exclusive partner for Harbour Logistics' nine depots.";
        assert_eq!(at("Acme Robotics named partner of Harbour Logistics", selected), [0]);
        // The agent of a passive is not the sentence's subject: the one it acted on owns the event.
        let appointed = "Acme Robotics has been appointed by Harbour Logistics to run Harbour Logistics' depots under a five-year contract worth $40m.";
        assert_eq!(at("Acme Robotics appointed by Harbour Logistics", appointed), [0]);
        assert_eq!(at("Update", "Acme Robotics, owned by Harbour Logistics, will cut 300 jobs."), [0]);
        let third = company(json!({"name": "Corvel Therapeutics", "domicileCountry": "US"}));
        let three = [Profile::of(&acme), Profile::of(&navy), Profile::of(&third)];
        assert_eq!(
            attributed(
                &three,
                "Acme Robotics, Harbour Logistics and Corvel Therapeutics fell after a profit warning",
                "",
                "wire.example"
            ),
            Vec::<usize>::new(),
            "a list of three is a market wrap: names alone decide nothing"
        );
        assert_eq!(
            at("Robots in demand", "Acme Robotics and Harbour Logistics both gained; trading was light."),
            Vec::<usize>::new(),
            "no event keyword: names alone decide nothing"
        );
    }

    /// Issue 57: a namesake — the word in lower case, a thing of another kind — is not the
    /// company, nor are the item's other mentions of the name.
    #[test]
    fn a_namesake_is_not_the_company() {
        let nimbus = company(json!({"name": "Nimbus", "domicileCountry": "US", "domains": ["nimbus.example"]}));
        let p = [Profile::of(&nimbus)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]).len();
        assert_eq!(at("Low nimbus cloud grounds flights at Belfast", "Forecasters expect more."), 0);
        assert_eq!(at("Superyacht Nimbus runs aground off Mallorca", "The 52-metre Nimbus was refloated."), 0);
        assert_eq!(at("Nimbus outage takes apps offline", "Nimbus said power failed."), 1);
        assert_eq!(at("NIMBUS OUTAGE TAKES APPS OFFLINE", ""), 1, "capitals throughout say nothing");
        assert_eq!(at("Nimbus outage", "Updates at status.nimbus.example"), 1, "a host in lower case");
        assert_eq!(at("Coastal flooding closes roads across Virginia's Nimbus region", ""), 0, "a place");
        assert_eq!(at("Fire at print unit next door to Nimbus repair centre", ""), 0, "a neighbour");
        assert_eq!(at("Fashion chain to close store in Nimbus centre", ""), 0, "a centre named after its owner");
        let fire = item(
            "Fire at print works next door to Nimbus repair centre",
            "Nimbus, which shares the yard, said its workshop was undamaged.",
            "wire.example",
        );
        let class = crate::pipeline::lexicon::classify(&fire.title, &fire.snippet);
        assert!(class.is_some());
        assert!(attribute(&p, &fire, class.as_ref(), &[]).is_empty(), "named aside where the event is");
    }

    /// Issue 57: a company in a part of another's event (its adviser, administrator, auditor) is
    /// not what the item is about.
    #[test]
    fn a_company_in_a_role_is_not_the_subject() {
        let beacon = company(json!({"name": "Beacon Partners", "domicileCountry": "GB"}));
        let p = [Profile::of(&beacon)];
        let at = |title: &str, snippet: &str| attribute(&p, &item(title, snippet, "wire.example"), None, &[]).len();
        assert_eq!(
            at("Retailer collapses into administration", "Administrators from Beacon Partners were appointed."),
            0
        );
        assert_eq!(at("Chipmaker agrees takeover", "The buyer was advised by Beacon Partners."), 0);
        assert_eq!(at("Takeover agreed", "Beacon Partners advised the buyer on the deal."), 0);
        assert_eq!(at("Beacon Partners cuts 40 jobs", ""), 1);
        assert_eq!(at("Beacon Partners fined £2m", "The adviser was censured."), 1);
        // The client of another firm's work, and a company a notice clears.
        assert_eq!(
            at(
                "Watchdog fines accounting firm over Beacon Partners audits",
                "The regulator faulted its audits of Beacon Partners. It did not allege wrongdoing by Beacon Partners."
            ),
            0
        );
        assert_eq!(at("Adviser to Beacon Partners quits", "Beacon Partners' auditor resigned."), 0);
        assert_eq!(at("Beacon Partners denies wrongdoing in fraud suit", ""), 1, "its own denial clears nobody");
        assert_eq!(
            at("Regulator fines Beacon Partners £2m", "Its chief executive was not accused of wrongdoing."),
            1,
            "cleared in a sentence that does not name it"
        );
        assert_eq!(at("Beacon Partners in administration", "Administrators of Beacon Partners were named."), 1);
        assert_eq!(at("Fashion chain shuts Leeds store", "Its landlord Beacon Partners will relet the unit."), 0);
    }

    /// Issue 46: "Acme sues X" is not litigation against Acme; "X sues Acme" is.
    #[test]
    fn the_company_suing_is_the_plaintiff() {
        let acme = company(json!({"name": "Acme Robotics", "domicileCountry": "US"}));
        let p = Profile::of(&acme);
        assert!(p.is_plaintiff_in(&item("Acme Robotics sues Globex over patents", "", "wire.example")));
        assert!(p.is_plaintiff_in(&item("Patent fight", "Acme Robotics is suing Globex", "wire.example")));
        assert!(p.is_plaintiff_in(&item(
            "Statement",
            "Acme Robotics has today issued proceedings in the High Court against Globex.",
            "acme.example"
        )));
        assert!(!p.is_plaintiff_in(&item("Globex sues Acme Robotics over patents", "", "wire.example")));
        assert!(!p.is_plaintiff_in(&item("Acme Robotics sued over patents", "", "wire.example")));
        let filed = item("Acme Robotics files patent infringement lawsuit against Globex", "", "acme.example");
        assert!(p.is_plaintiff_in(&filed), "the suit a few words after the verb");
        assert!(!p.is_plaintiff_in(&item("Acme Robotics files for bankruptcy protection", "", "wire.example")));
        assert!(p.is_plaintiff_in(&item("Acme Robotics takes Globex to court over design", "", "wire.example")));
        assert!(p.is_plaintiff_in(&item(
            "Bat battle",
            "Acme Robotics has issued proceedings against Globex",
            "wire.example"
        )));
        assert!(!p.is_plaintiff_in(&item("Globex takes Acme Robotics to court", "", "wire.example")));
        assert!(p.is_plaintiff_in(&item("Acme Robotics commences patent proceedings in the US", "", "acme.example")));
        assert!(p.is_plaintiff_in(&item("Acme Robotics launches legal action against Globex", "", "wire.example")));
        assert!(!p.is_plaintiff_in(&item("Globex commences proceedings against Acme Robotics", "", "wire.example")));
    }

    #[test]
    fn across_companies_the_longer_match_wins_and_names_alone_do_not_share() {
        let ashgrove = company(json!({"name": "Ashgrove", "domicileCountry": "GB", "domains": ["ashgrove.example"]}));
        let pharma =
            company(json!({"name": "Ashgrove Pharma", "domicileCountry": "GB", "domains": ["ashgrovepharma.example"]}));
        let p = [Profile::of(&ashgrove), Profile::of(&pharma)];
        let found = attribute(&p, &item("Ashgrove Pharma sued over patent", "", "wire.example"), None, &[]);
        assert_eq!(names_of(&p, &found), [1]);
        let both = attribute(&p, &item("Ashgrove and Ashgrove Pharma in merger", "", "wire.example"), None, &[]);
        assert!(both.is_empty(), "two companies on names alone, no keyword read: neither");
        let one_identified =
            attribute(&p, &item("Ashgrove and Ashgrove Pharma in merger", "", "ashgrove.example"), None, &[]);
        assert_eq!(names_of(&p, &one_identified), [0]);
    }
}
