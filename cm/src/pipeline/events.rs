//! Events and impacts (SUPPLEMENT 4.8): a scan's candidates join a company's events or start new
//! ones, each touched event is weighed again, and its impact is admitted, corrected or left.
//!
//! Candidates of one company join an event when they share its category, lie within 72 h of one
//! of its reports and either report the same lexicon concept as one of its items (two newsrooms
//! rarely word one event alike, but both name it) or, failing that, their content tokens have a
//! Jaccard similarity ≥ 0.3 with one of its items'; an item stating a number of a kind one of the
//! event's items also states, more than 25 % apart, never joins it. One happening told in two categories
//! (a closure some outlets count in jobs) is one event when both sides name the consequence
//! ([`telling`]). Below the
//! admission bar (overall < 0.6) an event stays pending and is weighed again whenever evidence
//! joins it; it is discarded 72 h after it was first seen.

use std::collections::BTreeSet;

use super::{
    filings,
    lexicon::{self, Classification},
    matching::{Attribution, Item},
    numbers,
    words::{content_tokens, jaccard, normalised_title},
};
use crate::{
    ids::Kind,
    impacts::{Confidence, Event, EventState, Evidence, Impact},
    records::{AuthorityTier, ImpactLifecycle, Magnitude, Provider},
    store::{EventWrite, StoredEvent},
};

pub const WINDOW_MS: i64 = 72 * 3600 * 1000;
const SIMILAR: f64 = 0.3;
pub const ADMISSION_BAR: f64 = 0.6;
/// A change of a confidence axis that makes a new impact revision.
const CORRECTION_STEP: f64 = 0.05;

/// An item attributed to a company and given a category: what may join an event.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub provider: Provider,
    pub source_id: String,
    pub item: Item,
    pub publisher: String,
    pub published_at: Option<i64>,
    pub attribution: Attribution,
    pub class: Classification,
}

/// What weighing a company's events came to: the writes, and whether every candidate of this
/// scan was admitted or discarded (assessmentReady of 4.9).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub writes: Vec<EventWrite>,
    pub assessment_ready: bool,
}

struct Working {
    event: Event,
    evidence: Vec<Evidence>,
    new_evidence: Vec<Evidence>,
    impact: Option<Impact>,
    /// A new impact revision (the store gives it the account's next changedAt).
    impact_changed: bool,
    touched: bool,
    is_new: bool,
}

fn truncate(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_string();
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

fn tier_rank(t: AuthorityTier) -> u8 {
    match t {
        AuthorityTier::PrimaryVerified => 0,
        AuthorityTier::IndependentAuthoritative => 1,
        AuthorityTier::Ordinary => 2,
    }
}

fn material_impact(m: Magnitude) -> f64 {
    match m {
        Magnitude::High => 0.9,
        Magnitude::Medium => 0.75,
        Magnitude::Low => 0.6,
    }
}

/// The host of an evidence URL (its canonical form: lower-case, without `www.`).
fn host(e: &Evidence) -> String {
    url::Url::parse(&e.canonical_url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default()
}

/// The press-release wires of 4.8 (hosts, and the names they publish under).
const WIRES: &[(&str, &str)] = &[
    ("prnewswire.com", "pr newswire"),
    ("globenewswire.com", "globenewswire"),
    ("businesswire.com", "business wire"),
    ("accesswire.com", "accesswire"),
    ("einpresswire.com", "ein presswire"),
    ("newsfilecorp.com", "newsfile"),
];

fn is_wire(e: &Evidence) -> bool {
    let host = host(e);
    let publisher = e.publisher.to_lowercase();
    WIRES.iter().any(|(h, name)| {
        host == *h || host.strip_suffix(h).is_some_and(|rest| rest.ends_with('.')) || publisher == *name
    })
}

/// Distinct publishers: items of one canonical host are one publisher, press-release wires are
/// one together, and items whose
/// normalised titles are identical are one (a syndicated copy counts once).
fn publishers(evidence: &[Evidence]) -> usize {
    let mut group: Vec<usize> = (0..evidence.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    let titles: Vec<String> = evidence.iter().map(|e| normalised_title(&e.title)).collect();
    // Press-release wires publish the issuer's own words: all of them are one publisher.
    let hosts: Vec<String> = evidence.iter().map(|e| if is_wire(e) { "wire".into() } else { host(e) }).collect();
    for i in 0..evidence.len() {
        for j in 0..i {
            if hosts[i] == hosts[j] || (!titles[i].is_empty() && titles[i] == titles[j]) {
                let (a, b) = (root(&mut group, i), root(&mut group, j));
                group[a] = b;
            }
        }
    }
    (0..evidence.len()).filter(|&i| root(&mut group, i) == i).count()
}

/// occurrenceTruth of 4.8: 0.9 with a primary source, 0.85 with an authoritative one, else
/// 0.5 + 0.1 per additional distinct publisher, at most 0.8.
fn occurrence_truth(evidence: &[Evidence]) -> f64 {
    if evidence.iter().any(|e| e.tier == AuthorityTier::PrimaryVerified) {
        0.9
    } else if evidence.iter().any(|e| e.tier == AuthorityTier::IndependentAuthoritative) {
        0.85
    } else {
        f64::min(0.5 + 0.1 * publishers(evidence).saturating_sub(1) as f64, 0.8)
    }
}

/// The evidence that speaks for the event: the highest tier, the earliest published on ties.
fn representative(evidence: &[Evidence]) -> Option<&Evidence> {
    evidence.iter().min_by_key(|e| (tier_rank(e.tier), e.published_at.unwrap_or(i64::MAX), e.first_seen_at))
}

fn text_of(e: &Evidence) -> String {
    format!("{} {}", e.title, e.excerpt)
}

fn tokens_of(e: &Evidence, own: &BTreeSet<String>) -> BTreeSet<String> {
    content_tokens(&text_of(e), own)
}

/// What grouping compares of an event's item, read once per item and scan: the lexicon concept
/// it reports (stored items are classified again: their words are stored, their concept is not)
/// and the numbers it states.
struct Read {
    /// The concepts the item reports in its category ([`Classification::concepts`]).
    concepts: Vec<&'static str>,
    numbers: Vec<(numbers::NumberKind, f64)>,
}

fn read(e: &Evidence) -> Read {
    let class = filings::classify_evidence(e.provider, &e.title, &e.excerpt);
    let concepts = class.map(|c| c.concepts().collect()).unwrap_or_default();
    Read { concepts, numbers: numbers::stated(&text_of(e)) }
}

fn changed_by_a_step(a: f64, b: f64) -> bool {
    (a - b).abs() >= CORRECTION_STEP - 1e-9
}

/// The company's stored events with this scan's candidates applied, at `now`.
pub fn apply(stored: Vec<StoredEvent>, candidates: Vec<Candidate>, own: &BTreeSet<String>, now: i64) -> Outcome {
    let mut working: Vec<Working> = stored
        .into_iter()
        .map(|s| Working {
            event: s.event,
            evidence: s.evidence,
            new_evidence: Vec::new(),
            impact: s.impact,
            impact_changed: false,
            touched: false,
            is_new: false,
        })
        .collect();
    let mut candidates = candidates;
    candidates.sort_by_key(|c| (c.published_at.unwrap_or(now), c.item.canonical_url.clone()));
    let mut joined: BTreeSet<usize> = BTreeSet::new();
    let mut reads: std::collections::HashMap<String, Read> =
        working.iter().flat_map(|w| &w.evidence).map(|e| (e.evidence_id.clone(), read(e))).collect();
    for c in candidates {
        // Already evidence of an event it tells (a filing's items are one URL, each evidence of
        // its own category's event).
        let seen = working.iter().position(|w| {
            w.evidence.iter().any(|e| e.canonical_url == c.item.canonical_url) && telling(w, &c, &reads).is_some()
        });
        if let Some(at) = seen {
            joined.insert(at);
            continue;
        }
        let at = c.published_at.unwrap_or(now);
        let text = format!("{} {}", c.item.title, c.item.snippet);
        let tokens = content_tokens(&text, own);
        let stated = numbers::stated(&text);
        // The closest open event: one of the same concept first, then the most similar words.
        let best = working
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                // The cheap tests first: telling reads the event's items again across categories.
                let open = w.event.state != EventState::Discarded
                    && w.impact.as_ref().is_none_or(|i| i.lifecycle != ImpactLifecycle::Retracted)
                    && within_its_window(w, at)
                    && !w.evidence.iter().any(|e| {
                        reads.get(&e.evidence_id).is_some_and(|r| {
                            numbers::disagree(&stated, &r.numbers, numbers::measures(&w.event.category))
                        })
                    });
                if !open {
                    return None;
                }
                Some((i, telling(w, &c, &reads)?))
            })
            .map(|(i, telling)| {
                let w = &working[i];
                let same_concept = telling != Telling::Alike
                    || w.evidence.iter().any(|e| {
                        reads.get(&e.evidence_id).is_some_and(|r| {
                            r.concepts.iter().any(|x| c.class.concepts().any(|y| lexicon::one_kind_of_event(x, y)))
                        })
                    });
                let similarity = w.evidence.iter().map(|e| jaccard(&tokens, &tokens_of(e, own))).fold(0.0, f64::max);
                (i, telling, same_concept, similarity)
            })
            .filter(|(_, _, same_concept, similarity)| *same_concept || *similarity >= SIMILAR)
            .max_by(|a, b| (a.2, a.3).partial_cmp(&(b.2, b.3)).unwrap_or(std::cmp::Ordering::Equal));
        let index = match best {
            Some((i, telling, ..)) => {
                let w = &mut working[i];
                // Counted as the candidate's category: the event has no impact yet to contradict.
                if telling == Telling::CountedAsMine && w.impact.is_none() {
                    w.event.category = c.class.category.to_string();
                }
                i
            }
            None => {
                working.push(Working {
                    event: Event {
                        event_id: Kind::Event.new_id(),
                        company_id: c.attribution.company_id.clone(),
                        category: c.class.category.to_string(),
                        revision: 1,
                        title: String::new(),
                        summary: String::new(),
                        occurred_at: at,
                        canonical_url: String::new(),
                        tokens: tokens.iter().cloned().collect(),
                        state: EventState::Pending,
                        first_seen_at: now,
                        updated_at: now,
                    },
                    evidence: Vec::new(),
                    new_evidence: Vec::new(),
                    impact: None,
                    impact_changed: false,
                    touched: true,
                    is_new: true,
                });
                working.len() - 1
            }
        };
        let evidence = Evidence {
            evidence_id: Kind::Evidence.new_id(),
            provider: c.provider,
            source_id: truncate(&c.source_id, 512),
            canonical_url: c.item.canonical_url.clone(),
            publisher: truncate(&c.publisher, 256),
            published_at: c.published_at,
            tier: c.attribution.tier,
            title: truncate(&c.item.title, 512),
            excerpt: truncate(&c.item.snippet, 2_048),
            attribution: c.attribution.attribution,
            attribution_rule: c.attribution.rule.to_string(),
            claim_id: c.attribution.claim_id.clone(),
            first_seen_at: now,
            gone_at: None,
        };
        let w = &mut working[index];
        reads.insert(evidence.evidence_id.clone(), read(&evidence));
        w.evidence.push(evidence.clone());
        w.new_evidence.push(evidence);
        w.touched = true;
        joined.insert(index);
    }
    join_events_left_apart(&mut working, &reads, &mut joined);
    for w in working.iter_mut().filter(|w| w.touched) {
        weigh(w, now);
    }
    // Pending events not admitted within 72 h of first sight are discarded.
    for w in working.iter_mut() {
        if w.event.state == EventState::Pending && now - w.event.first_seen_at >= WINDOW_MS {
            w.event.state = EventState::Discarded;
            w.event.updated_at = now;
            w.touched = true;
        }
    }
    let assessment_ready = joined.iter().all(|&i| working[i].event.state != EventState::Pending);
    let writes = working
        .into_iter()
        .filter(|w| w.touched)
        .map(|w| EventWrite {
            event: w.event,
            new_evidence: w.new_evidence,
            impact: w.impact,
            impact_changed: w.impact_changed,
        })
        .collect();
    Outcome { writes, assessment_ready }
}

/// Whether a candidate published at `at` lies within 72 h of one of event `w`'s reports (4.8's
/// "candidates … within 72 h join one event", read between candidates): a story is told while
/// it runs, its wire copy and follow-ups often more than three days after its first report
/// (issue 57's held-out weeks published a ransomware attack and a lawsuit twice). What keeps two
/// events of one kind apart is what their reports state: an amount or a count (so a company's
/// two leadership changes within 72 h of each other are one event, as 4.8 joins one concept).
fn within_its_window(w: &Working, at: i64) -> bool {
    (at - w.event.occurred_at).abs() <= WINDOW_MS
        || w.evidence.iter().filter_map(|e| e.published_at).any(|t| (at - t).abs() <= WINDOW_MS)
}

/// Joins events the order of a scan's candidates left apart though the rules above join them:
/// within 72 h, no number apart, and one category with a concept in common, or one happening in
/// two (an outage and the attack's event, named or not: `lexicon::one_happening_unnamed`; a
/// closure and the job cuts whose report names it: [`telling`]). Which
/// event a candidate joins depends on what came before it, so an outage's reports, then the
/// attack's own, then one naming the attack behind the outage left two events of one attack
/// (issue 57's tenth held-out corpus). Only an event this scan made, with no impact yet, is
/// taken into another (the newest first), and an event with an impact keeps its category, so
/// nothing stored is lost or contradicted.
fn join_events_left_apart(
    working: &mut Vec<Working>,
    reads: &std::collections::HashMap<String, Read>,
    joined: &mut BTreeSet<usize>,
) {
    let concepts = |w: &Working| -> Vec<&'static str> {
        w.evidence.iter().filter_map(|e| reads.get(&e.evidence_id)).flat_map(|r| r.concepts.iter().copied()).collect()
    };
    // `x` tells a consequence (an outage) counted as `y`'s category, which `y`'s reports name
    // (`named`), or need not (`lexicon::one_happening_unnamed`).
    let counted_in = |x: &Working, y: &Working, named: bool| {
        concepts(x).into_iter().any(|c| {
            lexicon::counted_as(c) == Some(y.event.category.as_str())
                && ((!named && lexicon::one_happening_unnamed(c))
                    || y.evidence.iter().any(|e| lexicon::reports_concept(&e.title, &e.excerpt, c)))
        })
    };
    // The nearest two reports of two events, apart (in ms).
    let nearest = |x: &Working, y: &Working| {
        let times = |w: &Working| w.evidence.iter().filter_map(|e| e.published_at).collect::<Vec<_>>();
        let (xs, ys) = (times(x), times(y));
        xs.iter().flat_map(|a| ys.iter().map(move |b| (a - b).abs())).min().unwrap_or(i64::MAX)
    };
    // The category `into` and `from` tell one happening in, if they do.
    let one_happening = |into: &Working, from: &Working| -> Option<String> {
        let open = into.event.state != EventState::Discarded
            && into.impact.as_ref().is_none_or(|i| i.lifecycle != ImpactLifecycle::Retracted);
        if !open {
            return None;
        }
        let within = (into.event.occurred_at - from.event.occurred_at).abs() <= WINDOW_MS;
        let alike = within
            && into.event.category == from.event.category
            && concepts(into).iter().any(|x| concepts(from).iter().any(|y| lexicon::one_kind_of_event(x, y)));
        // One happening in two categories, when a report of the one names the other, is told
        // while it runs: its two stories' nearest reports within 72 h will do (an outage's
        // earliest report may be a passing mention days before the attack's reports). Unnamed,
        // 4.8's window from the events' times.
        let near = nearest(into, from) <= WINDOW_MS;
        let counted =
            |x: &Working, y: &Working| (within && counted_in(x, y, false)) || (near && counted_in(x, y, true));
        let category = if alike || counted(from, into) {
            into.event.category.clone()
        } else if counted(into, from) && into.impact.is_none() {
            from.event.category.clone()
        } else {
            return None;
        };
        let measures = numbers::measures(&category);
        let stated = |w: &Working| w.evidence.iter().filter_map(|e| reads.get(&e.evidence_id)).collect::<Vec<_>>();
        let apart = stated(into)
            .iter()
            .any(|x| stated(from).iter().any(|y| numbers::disagree(&x.numbers, &y.numbers, measures)));
        (!apart).then_some(category)
    };
    loop {
        let pair = (0..working.len()).rev().find_map(|from| {
            let w = &working[from];
            let new = w.is_new && w.impact.is_none() && w.event.state != EventState::Discarded;
            new.then(|| (0..from).find_map(|into| Some((into, from, one_happening(&working[into], w)?))))?
        });
        let Some((into, from, category)) = pair else { return };
        let taken = working.remove(from);
        let w = &mut working[into];
        w.event.category = category;
        w.evidence.extend(taken.evidence);
        w.new_evidence.extend(taken.new_evidence);
        w.touched = true;
        *joined = joined
            .iter()
            .map(|&k| match k.cmp(&from) {
                std::cmp::Ordering::Less => k,
                std::cmp::Ordering::Equal => into,
                std::cmp::Ordering::Greater => k - 1,
            })
            .collect();
    }
}

/// How a candidate may tell the happening an open event tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Telling {
    /// In the event's category.
    Alike,
    /// The candidate reports a consequence (a closure) of the event's category (a workforce
    /// reduction) that one of the event's items names too: it joins as evidence of that category.
    AsConsequence,
    /// The event reports a consequence (a closure) of the candidate's category (a workforce
    /// reduction), which the candidate names too: the event is counted as the candidate's
    /// category while it has no impact.
    CountedAsMine,
}

/// Whether candidate `c` may tell what event `w` tells, and how: in one category, or one
/// happening in two (`lexicon::counted_as`: outlets that count the jobs tell a plant's closure
/// as a workforce reduction, those that do not as an operational disruption — issue 57's
/// fourth held-out corpus published one closure twice). Across categories the consequence must
/// be named on both sides, so a layoff and an unrelated plant stoppage stay two events.
fn telling(w: &Working, c: &Candidate, reads: &std::collections::HashMap<String, Read>) -> Option<Telling> {
    let category = w.event.category.as_str();
    if category == c.class.category {
        return Some(Telling::Alike);
    }
    let consequence = c.class.concept;
    if lexicon::counted_as(consequence) == Some(category)
        && w.evidence.iter().any(|e| lexicon::reports_concept(&e.title, &e.excerpt, consequence))
    {
        return Some(Telling::AsConsequence);
    }
    let told = |concept: &str| {
        lexicon::counted_as(concept) == Some(c.class.category)
            && lexicon::reports_concept(&c.item.title, &c.item.snippet, concept)
    };
    w.evidence
        .iter()
        .filter_map(|e| reads.get(&e.evidence_id))
        .flat_map(|r| r.concepts.iter().copied())
        .any(told)
        .then_some(Telling::CountedAsMine)
}

/// Weighs an event again: its title, summary and time from its evidence, its assessment, and
/// its impact admitted, corrected, or brought up to date.
fn weigh(w: &mut Working, now: i64) {
    let Some(rep) = representative(&w.evidence).cloned() else { return };
    let title = truncate(&rep.title, 512);
    let summary = truncate(&rep.excerpt, 4_096);
    if !w.is_new && (title != w.event.title || summary != w.event.summary) {
        w.event.revision += 1;
    }
    w.event.title = title;
    w.event.summary = summary;
    w.event.canonical_url = rep.canonical_url.clone();
    w.event.occurred_at = w
        .evidence
        .iter()
        .filter_map(|e| e.published_at)
        .min()
        .unwrap_or_else(|| w.evidence.iter().map(|e| e.first_seen_at).min().unwrap_or(now));
    w.event.updated_at = now;
    let class = filings::classify_evidence(rep.provider, &rep.title, &rep.excerpt)
        .filter(|c| c.category == w.event.category)
        .or_else(|| lexicon::defaults(&w.event.category));
    let Some(class) = class else { return };
    let best = w.evidence.iter().max_by(|a, b| a.attribution.total_cmp(&b.attribution)).unwrap_or(&rep);
    let confidence = Confidence {
        attribution: best.attribution,
        occurrence_truth: occurrence_truth(&w.evidence),
        material_impact: material_impact(class.magnitude),
    };
    let rationale = format!(
        "{} signal from {} source(s); attribution by {}",
        w.event.category,
        w.evidence.len(),
        best.attribution_rule
    );
    let total = w.evidence.len() as i64;
    match w.impact.as_mut() {
        Some(impact) if impact.lifecycle == ImpactLifecycle::Retracted => {}
        Some(impact) => {
            let corrected = impact.direction != class.direction
                || impact.magnitude != class.magnitude
                || impact.channels != class.channels
                || changed_by_a_step(impact.confidence.attribution, confidence.attribution)
                || changed_by_a_step(impact.confidence.occurrence_truth, confidence.occurrence_truth)
                || changed_by_a_step(impact.confidence.material_impact, confidence.material_impact);
            let new_event_revision = impact.event_revision != w.event.revision;
            if corrected {
                impact.impact_revision += 1;
                impact.lifecycle = ImpactLifecycle::Corrected;
                impact.direction = class.direction;
                impact.magnitude = class.magnitude;
                impact.channels = class.channels;
                impact.confidence = confidence;
            }
            w.impact_changed = corrected || new_event_revision;
            impact.event_revision = w.event.revision;
            impact.rationale = rationale;
            impact.occurred_at = w.event.occurred_at;
            impact.evidence_total = total;
            impact.canonical_url = w.event.canonical_url.clone();
        }
        None if w.event.state == EventState::Pending && confidence.overall() >= ADMISSION_BAR - 1e-9 => {
            w.event.state = EventState::Admitted;
            w.impact_changed = true;
            w.impact = Some(Impact {
                impact_id: Kind::Impact.new_id(),
                company_id: w.event.company_id.clone(),
                event_id: w.event.event_id.clone(),
                event_revision: w.event.revision,
                impact_revision: 1,
                direction: class.direction,
                channels: class.channels,
                magnitude: class.magnitude,
                confidence,
                rationale,
                lifecycle: ImpactLifecycle::Admitted,
                occurred_at: w.event.occurred_at,
                changed_at: 0,
                admitted_at: now,
                evidence_total: total,
                canonical_url: w.event.canonical_url.clone(),
            });
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Direction;

    const HOUR: i64 = 3_600_000;
    const NOW: i64 = 1_800_000_000_000;

    fn candidate(host: &str, title: &str, snippet: &str, tier: AuthorityTier, published_at: i64) -> Candidate {
        let class = lexicon::classify(title, snippet).expect("a category");
        Candidate {
            provider: Provider::Search,
            source_id: format!("https://{host}/{}", normalised_title(title).replace(' ', "-")),
            item: Item {
                title: title.into(),
                snippet: snippet.into(),
                canonical_url: format!("https://{host}/{}", normalised_title(title).replace(' ', "-")),
                host: host.into(),
            },
            publisher: host.into(),
            published_at: Some(published_at),
            attribution: Attribution {
                company_id: "cm_company_X".into(),
                attribution: 0.75,
                rule: "name in the title",
                claim_id: "cm_claim_X".into(),
                tier,
            },
            class,
        }
    }

    fn own() -> BTreeSet<String> {
        ["ashgrove", "pharma"].iter().map(|s| s.to_string()).collect()
    }

    /// Applies `candidates` at `now` to the company's events in `store`, and saves the outcome.
    async fn scan(store: &crate::store::CmStore, candidates: Vec<Candidate>, now: i64) -> Outcome {
        let stored = store.events_of("cm_company_X", now - 10 * 24 * HOUR).await.unwrap();
        let mut outcome = apply(stored, candidates, &own(), now);
        store.save_events("a1", &mut outcome.writes, now).await.unwrap();
        outcome
    }

    #[tokio::test]
    async fn one_ordinary_article_stays_pending_and_a_second_publisher_admits() {
        let store = crate::store::memory_store().await;
        let first = candidate(
            "wire.example",
            "Ashgrove Pharma sued over inhaler patent",
            "A lawsuit was filed in London",
            AuthorityTier::Ordinary,
            NOW - 2 * HOUR,
        );
        let one = scan(&store, vec![first], NOW).await;
        assert_eq!(one.writes.len(), 1);
        assert_eq!((one.writes[0].event.state, one.assessment_ready), (EventState::Pending, false));
        assert!(one.writes[0].impact.is_none(), "occurrence 0.5 is below the bar");
        // A syndicated copy (same title, another host) is the same publisher: still pending.
        let copy = candidate(
            "copy.example",
            "Ashgrove Pharma sued over inhaler patent",
            "A lawsuit was filed",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let syndicated = scan(&store, vec![copy], NOW).await;
        assert_eq!(syndicated.writes[0].event.state, EventState::Pending);
        // An independent second publisher: occurrence 0.6, overall 0.6, admitted.
        let second = candidate(
            "courier.example",
            "Inhaler patent lawsuit hits Ashgrove Pharma",
            "The suit over the patent",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let two = scan(&store, vec![second], NOW).await;
        let w = &two.writes[0];
        assert_eq!((w.event.state, two.assessment_ready), (EventState::Admitted, true));
        let impact = w.impact.as_ref().unwrap();
        assert_eq!(
            (impact.direction, impact.lifecycle, w.impact_changed),
            (Direction::Negative, ImpactLifecycle::Admitted, true)
        );
        assert!((impact.confidence.occurrence_truth - 0.6).abs() < 1e-9);
        assert_eq!(impact.rationale, "legal signal from 3 source(s); attribution by name in the title");
        assert_eq!(w.event.occurred_at, NOW - 2 * HOUR, "the earliest publication");
    }

    /// Issue 46: two newsrooms word one event differently (Jaccard far below 0.3) but name the
    /// same concept: one event, admitted by the second publisher. Two job cuts of one week whose
    /// counts differ by far more than 25 % stay two events.
    #[test]
    fn reports_of_one_concept_join_unless_their_numbers_differ() {
        let first = candidate(
            "courier.example",
            "Ashgrove Pharma to lay off 1,000 staff as sales slow",
            "The Leeds drugmaker said the redundancies follow a weak year",
            AuthorityTier::Ordinary,
            NOW - 3 * HOUR,
        );
        let second = candidate(
            "gazette.example",
            "Job cuts at Ashgrove Pharma hit northern plants",
            "Around 1,100 roles will go, unions said",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let (t1, t2) = (tokens_of_candidate(&first), tokens_of_candidate(&second));
        assert!(jaccard(&t1, &t2) < SIMILAR, "the two reports share few words");
        let out = apply(Vec::new(), vec![first, second], &own(), NOW);
        assert_eq!(out.writes.len(), 1, "one concept: one event");
        assert_eq!(out.writes[0].event.state, EventState::Admitted, "two publishers");

        let small = candidate(
            "courier.example",
            "Ashgrove Pharma job cuts: 200 roles to go at Leeds site",
            "",
            AuthorityTier::Ordinary,
            NOW - 3 * HOUR,
        );
        let big = candidate(
            "gazette.example",
            "Ashgrove Pharma announces 4,000 job cuts worldwide",
            "",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let apart = apply(Vec::new(), vec![small, big], &own(), NOW);
        assert_eq!(apart.writes.len(), 2, "200 and 4,000 jobs are two events");
    }

    /// Issue 57: a story joins by its nearest report — a follow-up or a late wire copy days after
    /// the first report but within 72 h of the latest is the same attack; a story with no report
    /// for more than 72 h is not running.
    #[test]
    fn a_running_story_joins_by_its_nearest_report() {
        let report =
            |host: &str, title: &str, hours| candidate(host, title, "", AuthorityTier::Ordinary, NOW - hours * HOUR);
        let first = candidate(
            "wire.example",
            "Ashgrove Pharma hit by ransomware attack",
            "The drugmaker took its ordering systems offline",
            AuthorityTier::IndependentAuthoritative,
            NOW - 100 * HOUR,
        );
        let running = report("trade.example", "Ashgrove Pharma ransomware attack: orders still frozen", 50);
        let follow_up =
            report("courier.example", "Most Ashgrove Pharma systems back online after ransomware attack", 1);
        let late_copy = report("daily.example", "Ashgrove Pharma hit by ransomware attack, orders frozen", 1);
        let joined = apply(Vec::new(), vec![first.clone(), running, follow_up, late_copy], &own(), NOW);
        assert_eq!(joined.writes.len(), 1, "the follow-up and the late copy join the running story");
        let stale = report("courier.example", "Ashgrove Pharma systems back online after ransomware attack", 1);
        let quiet_since = apply(Vec::new(), vec![first, stale], &own(), NOW);
        assert_eq!(quiet_since.writes.len(), 2, "a story with no report for 99 h is not running");

        // 4.8 joins one concept within 72 h: a finance director's departure days after the chief
        // executive's, while that story runs, is the same leadership event.
        let ceo = report("wire.example", "Ashgrove Pharma chief executive steps down", 100);
        let ceo_again = report("trade.example", "Ashgrove Pharma boss quits after six years", 50);
        let cfo = report("daily.example", "Ashgrove Pharma finance director to step down", 1);
        let one = apply(Vec::new(), vec![ceo, ceo_again, cfo], &own(), NOW);
        assert_eq!(one.writes.len(), 1, "one concept within 72 h of a report is one event");
    }

    /// Issue 57: a report that names two concepts of its category bridges the events each began
    /// ("has issued improvement notices … and has opened an investigation"); without it, notices
    /// served and an investigation opened the same days stay two events.
    #[test]
    fn a_report_naming_two_concepts_of_a_category_bridges_their_events() {
        let notices = candidate(
            "courier.example",
            "Ashgrove Pharma served improvement notices at three plants",
            "",
            AuthorityTier::Ordinary,
            NOW - 30 * HOUR,
        );
        let probe = candidate(
            "trade.example",
            "HSE opens wider investigation into Ashgrove Pharma extraction",
            "",
            AuthorityTier::Ordinary,
            NOW - 20 * HOUR,
        );
        assert_eq!((notices.class.concept, probe.class.concept), ("penalty", "investigation"));
        let apart = apply(Vec::new(), vec![notices.clone(), probe.clone()], &own(), NOW);
        assert_eq!(apart.writes.len(), 2, "two concepts, few words in common: two events");
        let both = candidate(
            "ashgrovepharma.example",
            "Statement on HSE inspections",
            "The HSE has issued improvement notices at three of our plants and has opened an investigation.",
            AuthorityTier::Ordinary,
            NOW - 25 * HOUR,
        );
        assert_eq!(both.class.concepts().collect::<Vec<_>>(), ["penalty", "investigation"]);
        let bridged = apply(Vec::new(), vec![notices, probe, both], &own(), NOW);
        assert_eq!(bridged.writes.len(), 1, "the statement names both: one event");
    }

    /// Issue 57: an outage whose earliest report came days before the attack's, and whose later
    /// reports ran beside them, is the attack's event when a report of the attack names the
    /// outage (the two stories' nearest reports within 72 h); unnamed, 4.8's window from the
    /// events' times keeps them apart.
    #[test]
    fn an_outage_named_by_the_attacks_reports_joins_it_by_their_nearest_reports() {
        let at = |hours: i64| NOW - hours * HOUR;
        let outage = |host: &str, title: &str, hours| candidate(host, title, "", AuthorityTier::Ordinary, at(hours));
        let early = outage("daily.example", "Ashgrove Pharma ordering systems down", 100);
        let later = outage("trade.example", "Ashgrove Pharma outage enters third day", 40);
        let named = candidate(
            "wire.example",
            "Ransomware attack behind Ashgrove Pharma outage, company says",
            "",
            AuthorityTier::Ordinary,
            at(20),
        );
        let unnamed =
            candidate("wire.example", "Ransomware gang claims Ashgrove Pharma", "", AuthorityTier::Ordinary, at(20));
        assert_eq!((later.class.category, named.class.category), ("operational_disruption", "security_incident"));
        let joined = apply(Vec::new(), vec![early.clone(), later.clone(), named], &own(), NOW);
        assert_eq!(joined.writes.len(), 1, "named by the attack's report: one event");
        assert_eq!(joined.writes[0].event.category, "security_incident");
        let apart = apply(Vec::new(), vec![early, later, unnamed], &own(), NOW);
        assert_eq!(apart.writes.len(), 2, "unnamed and 80 h apart: two events");
    }

    /// Issue 57: one closure, told by some outlets in jobs (workforce_reduction) and by others as
    /// the site stopping (operational_disruption), is one event in whichever order the reports
    /// come — counted as the workforce reduction, as one report counting the jobs makes it. A
    /// layoff that names no closure and a plant stopped the same day stay two events, and a
    /// report seen again does not join its event twice.
    #[tokio::test]
    async fn one_closure_told_in_jobs_and_as_a_stopped_plant_is_one_event() {
        let in_jobs = |at| {
            candidate(
                "wire.example",
                "Ashgrove Pharma to close Dayton plant, cutting 310 jobs",
                "The drugmaker said it would shut the site by March",
                AuthorityTier::Ordinary,
                at,
            )
        };
        let stopped = |at| {
            candidate(
                "trade.example",
                "Ashgrove Pharma shutters Dayton tablet plant",
                "Volumes will move to its plants in Indiana",
                AuthorityTier::Ordinary,
                at,
            )
        };
        let (early, late) = (NOW - 3 * HOUR, NOW - 2 * HOUR);
        assert_eq!(
            (in_jobs(early).class.category, stopped(early).class.category),
            ("workforce_reduction", "operational_disruption")
        );
        for (order, candidates) in
            [("jobs first", [in_jobs(early), stopped(late)]), ("closure first", [stopped(early), in_jobs(late)])]
        {
            let store = crate::store::memory_store().await;
            let out = scan(&store, candidates.to_vec(), NOW).await;
            assert_eq!(out.writes.len(), 1, "{order}: one event");
            let w = &out.writes[0];
            assert_eq!((w.event.category.as_str(), w.new_evidence.len()), ("workforce_reduction", 2), "{order}");
            assert_eq!(w.event.state, EventState::Admitted, "{order}: two publishers");
            let again = scan(&store, candidates.to_vec(), NOW + HOUR).await;
            assert!(again.writes.iter().all(|w| w.new_evidence.is_empty()), "{order}: nothing joins twice");
            let stored = store.events_of("cm_company_X", NOW - 10 * 24 * HOUR).await.unwrap();
            assert_eq!(stored.len(), 1, "{order}");
            assert_eq!(stored[0].event.category, "workforce_reduction", "{order}: the store keeps the category");
        }

        let layoff = candidate(
            "wire.example",
            "Ashgrove Pharma to cut 300 jobs in Leeds",
            "The drugmaker is trimming its sales force",
            AuthorityTier::Ordinary,
            NOW - 3 * HOUR,
        );
        let apart = apply(Vec::new(), vec![layoff, stopped(late)], &own(), NOW);
        let categories: BTreeSet<&str> = apart.writes.iter().map(|w| w.event.category.as_str()).collect();
        assert_eq!(categories, BTreeSet::from(["workforce_reduction", "operational_disruption"]), "two events");
    }

    /// Issue 57: an outage's reports, then the attack's own, then one that names the attack
    /// behind the outage: the outage's event becomes the attack's, and the attack's event its
    /// reports began joins it — one event, whatever came first, and without that report too. Two
    /// contracts' reports whose amounts are far apart stay two.
    #[tokio::test]
    async fn an_outage_counted_as_the_attack_behind_it_joins_the_attacks_own_event() {
        let at = |hours: i64| NOW - hours * HOUR;
        let outage = candidate(
            "daily.example",
            "Ashgrove Pharma booking app down for third day",
            "",
            AuthorityTier::Ordinary,
            at(9),
        );
        let attack = candidate(
            "breach.example",
            "Ransomware gang claims attack on Ashgrove Pharma",
            "",
            AuthorityTier::Ordinary,
            at(7),
        );
        // The report naming both, worded like the attack's reports or like the outage's: it
        // joins the one or the other, and the two become one either way.
        for behind in [
            "Ashgrove Pharma confirms cyber attack behind week-long outage",
            "Ashgrove Pharma booking app down for a week after cyber attack",
        ] {
            let behind = candidate("trade.example", behind, "", AuthorityTier::Ordinary, at(5));
            assert_eq!(
                (outage.class.category, attack.class.category, behind.class.category),
                ("operational_disruption", "security_incident", "security_incident")
            );
            let store = crate::store::memory_store().await;
            let out = scan(&store, vec![outage.clone(), attack.clone(), behind.clone()], NOW).await;
            let titles: Vec<&str> = out.writes.iter().map(|w| w.event.title.as_str()).collect();
            assert_eq!(out.writes.len(), 1, "{}: one event, not {titles:?}", behind.item.title);
            let w = &out.writes[0];
            assert_eq!((w.event.category.as_str(), w.new_evidence.len()), ("security_incident", 3));
            assert_eq!(w.event.state, EventState::Admitted);
            assert!(out.assessment_ready);
            assert_eq!(store.events_of("cm_company_X", NOW - 10 * 24 * HOUR).await.unwrap().len(), 1);
        }
        // No report names both: an outage the days of an attack is still the attack's.
        let unnamed = apply(Vec::new(), vec![outage.clone(), attack.clone()], &own(), NOW);
        assert_eq!(unnamed.writes.len(), 1, "one event");
        assert_eq!(unnamed.writes[0].event.category, "security_incident");

        let win = |host: &str, amount: &str, hours| {
            candidate(
                host,
                &format!("Ashgrove Pharma wins {amount} supply contract"),
                "",
                AuthorityTier::Ordinary,
                at(hours),
            )
        };
        let apart = apply(Vec::new(), vec![win("a.example", "$5m", 9), win("b.example", "$90m", 5)], &own(), NOW);
        assert!(apart.writes.iter().all(|w| w.event.category == "funding_award"));
        assert_eq!(apart.writes.len(), 2, "amounts more than 25 % apart keep two contracts apart");
    }

    /// Issue 46: the issuer's release on two wires is one publisher: the event stays pending.
    #[test]
    fn press_release_wires_are_one_publisher_together() {
        let on_wire = |host: &str, title: &str| candidate(host, title, "", AuthorityTier::Ordinary, NOW - HOUR);
        let out = apply(
            Vec::new(),
            vec![
                on_wire("prnewswire.com", "Ashgrove Pharma announces job cuts in Leeds"),
                on_wire("globenewswire.com", "Ashgrove Pharma to reduce its workforce"),
            ],
            &own(),
            NOW,
        );
        assert_eq!(out.writes.len(), 1, "one concept: one event");
        assert_eq!(out.writes[0].event.state, EventState::Pending, "two wires are one publisher");
    }

    fn tokens_of_candidate(c: &Candidate) -> BTreeSet<String> {
        content_tokens(&format!("{} {}", c.item.title, c.item.snippet), &own())
    }

    #[test]
    fn an_authoritative_source_admits_alone_and_unrelated_stories_stay_apart() {
        let reuters = candidate(
            "reuters.example",
            "Ashgrove Pharma fined by regulator",
            "The watchdog fined the drugmaker",
            AuthorityTier::IndependentAuthoritative,
            NOW - HOUR,
        );
        let other = candidate(
            "wire.example",
            "Ashgrove Pharma probe into factory emissions",
            "Environmental investigation opened",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let out = apply(Vec::new(), vec![reuters, other], &own(), NOW);
        assert_eq!(out.writes.len(), 2, "same category, dissimilar content: two events");
        let admitted: Vec<_> = out.writes.iter().filter(|w| w.impact.is_some()).collect();
        assert_eq!(admitted.len(), 1);
        assert!((admitted[0].impact.as_ref().unwrap().confidence.occurrence_truth - 0.85).abs() < 1e-9);
        assert!(!out.assessment_ready, "the ordinary one is pending");
    }

    #[tokio::test]
    async fn stronger_evidence_corrects_and_stale_pending_events_are_discarded() {
        let store = crate::store::memory_store().await;
        let a = candidate(
            "wire.example",
            "Ashgrove Pharma sued over inhaler patent",
            "lawsuit filed",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let b = candidate(
            "courier.example",
            "Inhaler patent lawsuit against Ashgrove Pharma",
            "lawsuit filed",
            AuthorityTier::Ordinary,
            NOW - HOUR,
        );
        let admitted = scan(&store, vec![a, b], NOW).await;
        let before = admitted.writes[0].impact.clone().unwrap();
        let primary = candidate(
            "ashgrovepharma.example",
            "Ashgrove Pharma statement on inhaler patent lawsuit",
            "We will defend the lawsuit",
            AuthorityTier::PrimaryVerified,
            NOW,
        );
        let corrected = scan(&store, vec![primary], NOW + HOUR).await;
        let w = &corrected.writes[0];
        let after = w.impact.as_ref().unwrap();
        assert_eq!(
            (after.impact_id.as_str(), after.impact_revision, after.lifecycle),
            (before.impact_id.as_str(), 2, ImpactLifecycle::Corrected)
        );
        assert!(w.impact_changed && after.changed_at > before.changed_at, "a new revision, a new changedAt");
        assert_eq!(w.event.revision, 2, "the primary source now speaks for the event");
        assert!(w.event.canonical_url.starts_with("https://ashgrovepharma.example/"));
        let lone =
            candidate("wire.example", "Ashgrove Pharma hit by outage", "systems down", AuthorityTier::Ordinary, NOW);
        scan(&store, vec![lone], NOW).await;
        let later = scan(&store, Vec::new(), NOW + WINDOW_MS).await;
        assert_eq!(later.writes.iter().map(|w| w.event.state).collect::<Vec<_>>(), [EventState::Discarded]);
    }
}
