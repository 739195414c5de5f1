//! Material events, evidence and impacts: the pipeline's writes, and the reads of
//! ListCompanyEventImpacts, ListCompanyEventChanges and GetCompanyMaterialEvent (4.6).

use sqlx::{any::AnyRow, Any, Row, Transaction};

use super::{parse, CmError, CmStore, Placeholders};
use crate::{
    filters::FeedFilter,
    impacts::{Confidence, Event, EventState, Evidence, Impact, MaterialEvent, EVIDENCE_SHOWN},
    records::{AuthorityTier, Channel, Direction, ImpactLifecycle, Magnitude, Provider, WireEnum},
};

/// A page's place in the feed; positions are (changedAt, impactId).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window<'a> {
    /// The listing: newest first, changedAt ≤ `as_of`, after `after`.
    Newest { as_of: i64, after: Option<(i64, &'a str)> },
    /// The change feed: oldest first, after `after` (a bare time: everything later), changedAt ≤ `until`.
    Oldest { after: (i64, Option<&'a str>), until: i64 },
}

/// An event as the pipeline hands it back: its new evidence, and its impact when it has one
/// (`impact_changed`: a new revision, which gets a new changedAt).
#[derive(Debug, Clone, PartialEq)]
pub struct EventWrite {
    pub event: Event,
    pub new_evidence: Vec<Evidence>,
    pub impact: Option<Impact>,
    pub impact_changed: bool,
}

/// An event with everything the pipeline weighs again when evidence joins it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub event: Event,
    pub evidence: Vec<Evidence>,
    pub impact: Option<Impact>,
}

const IMPACT_COLUMNS: &str = "i.impact_id, i.company_id, i.event_id, i.event_revision, i.impact_revision, \
     i.direction, i.channels, i.magnitude, i.attribution, i.occurrence_truth, i.material_impact, i.rationale, \
     i.lifecycle, i.occurred_at, i.changed_at, i.admitted_at, i.evidence_total, e.canonical_url";
/// The impacts with their events (whose canonical URL they show).
const IMPACTS_WITH_EVENTS: &str = "cm_impacts i JOIN cm_events e ON e.event_id = i.event_id";
const EVENT_COLUMNS: &str = "event_id, company_id, category, revision, title, summary, occurred_at, canonical_url, \
     tokens, state, first_seen_at, updated_at";
const EVIDENCE_COLUMNS: &str = "evidence_id, provider, source_id, canonical_url, publisher, published_at, \
     authority_tier, title, excerpt, attribution, attribution_rule, claim_id, first_seen_at, gone_at";
/// Evidence in the order GetCompanyMaterialEvent shows it: authority tier, then latest published.
const EVIDENCE_ORDER: &str = "CASE authority_tier WHEN 'primary_verified' THEN 0 \
     WHEN 'independent_authoritative' THEN 1 ELSE 2 END, published_at DESC NULLS LAST, evidence_id";

fn impact_of(row: &AnyRow) -> Result<Impact, CmError> {
    let channels: String = row.try_get("channels")?;
    Ok(Impact {
        impact_id: row.try_get("impact_id")?,
        company_id: row.try_get("company_id")?,
        event_id: row.try_get("event_id")?,
        event_revision: row.try_get("event_revision")?,
        impact_revision: row.try_get("impact_revision")?,
        direction: parse(Direction::from_filter(row.try_get("direction")?), "direction")?,
        channels: channels
            .split(',')
            .filter(|c| !c.is_empty())
            .map(|c| parse(Channel::from_filter(c), "channel"))
            .collect::<Result<_, _>>()?,
        magnitude: parse(Magnitude::from_filter(row.try_get("magnitude")?), "magnitude")?,
        confidence: Confidence {
            attribution: row.try_get("attribution")?,
            occurrence_truth: row.try_get("occurrence_truth")?,
            material_impact: row.try_get("material_impact")?,
        },
        rationale: row.try_get("rationale")?,
        lifecycle: parse(ImpactLifecycle::from_filter(row.try_get("lifecycle")?), "impact lifecycle")?,
        occurred_at: row.try_get("occurred_at")?,
        changed_at: row.try_get("changed_at")?,
        admitted_at: row.try_get("admitted_at")?,
        evidence_total: row.try_get("evidence_total")?,
        canonical_url: row.try_get("canonical_url")?,
    })
}

fn event_of(row: &AnyRow) -> Result<Event, CmError> {
    let tokens: String = row.try_get("tokens")?;
    Ok(Event {
        event_id: row.try_get("event_id")?,
        company_id: row.try_get("company_id")?,
        category: row.try_get("category")?,
        revision: row.try_get("revision")?,
        title: row.try_get("title")?,
        summary: row.try_get("summary")?,
        occurred_at: row.try_get("occurred_at")?,
        canonical_url: row.try_get("canonical_url")?,
        tokens: tokens.split(' ').filter(|t| !t.is_empty()).map(str::to_string).collect(),
        state: parse(EventState::parse(row.try_get("state")?), "event state")?,
        first_seen_at: row.try_get("first_seen_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn evidence_of(row: &AnyRow) -> Result<Evidence, CmError> {
    Ok(Evidence {
        evidence_id: row.try_get("evidence_id")?,
        provider: parse(Provider::from_filter(row.try_get("provider")?), "provider")?,
        source_id: row.try_get("source_id")?,
        canonical_url: row.try_get("canonical_url")?,
        publisher: row.try_get("publisher")?,
        published_at: row.try_get("published_at")?,
        tier: parse(AuthorityTier::from_filter(row.try_get("authority_tier")?), "authority tier")?,
        title: row.try_get("title")?,
        excerpt: row.try_get("excerpt")?,
        attribution: row.try_get("attribution")?,
        attribution_rule: row.try_get("attribution_rule")?,
        claim_id: row.try_get("claim_id")?,
        first_seen_at: row.try_get("first_seen_at")?,
        gone_at: row.try_get("gone_at")?,
    })
}

/// The next changedAt of the account: `now`, or one past the last when that is not later.
pub(super) async fn next_changed_at(tx: &mut Transaction<'_, Any>, account: &str, now: i64) -> Result<i64, CmError> {
    Ok(sqlx::query_scalar(
        "UPDATE cm_accounts SET last_changed_at = \
         CASE WHEN last_changed_at + 1 > $2 THEN last_changed_at + 1 ELSE $2 END \
         WHERE account_id = $1 RETURNING last_changed_at",
    )
    .bind(account)
    .bind(now)
    .fetch_one(&mut **tx)
    .await?)
}

async fn upsert_event(tx: &mut Transaction<'_, Any>, account: &str, e: &Event) -> Result<(), CmError> {
    sqlx::query(
        "INSERT INTO cm_events (event_id, account_id, company_id, category, revision, title, summary, occurred_at, \
         canonical_url, tokens, state, first_seen_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) \
         ON CONFLICT (event_id) DO UPDATE SET category = excluded.category, revision = excluded.revision, \
         title = excluded.title, summary = excluded.summary, occurred_at = excluded.occurred_at, \
         canonical_url = excluded.canonical_url, tokens = excluded.tokens, state = excluded.state, updated_at = excluded.updated_at",
    )
    .bind(&e.event_id)
    .bind(account)
    .bind(&e.company_id)
    .bind(&e.category)
    .bind(e.revision)
    .bind(&e.title)
    .bind(&e.summary)
    .bind(e.occurred_at)
    .bind(&e.canonical_url)
    .bind(e.tokens.join(" "))
    .bind(e.state.name())
    .bind(e.first_seen_at)
    .bind(e.updated_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn insert_evidence(tx: &mut Transaction<'_, Any>, event_id: &str, e: &Evidence) -> Result<(), CmError> {
    sqlx::query(
        "INSERT INTO cm_evidence (evidence_id, event_id, provider, source_id, canonical_url, publisher, published_at, \
         authority_tier, title, excerpt, attribution, attribution_rule, claim_id, first_seen_at, gone_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
         ON CONFLICT (event_id, canonical_url) DO NOTHING",
    )
    .bind(&e.evidence_id)
    .bind(event_id)
    .bind(e.provider.short_name())
    .bind(&e.source_id)
    .bind(&e.canonical_url)
    .bind(&e.publisher)
    .bind(e.published_at)
    .bind(e.tier.short_name())
    .bind(&e.title)
    .bind(&e.excerpt)
    .bind(e.attribution)
    .bind(&e.attribution_rule)
    .bind(&e.claim_id)
    .bind(e.first_seen_at)
    .bind(e.gone_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn upsert_impact(tx: &mut Transaction<'_, Any>, account: &str, i: &Impact) -> Result<(), CmError> {
    let channels: Vec<String> = i.channels.iter().map(|c| c.short_name()).collect();
    sqlx::query(
        "INSERT INTO cm_impacts (impact_id, account_id, company_id, event_id, event_revision, impact_revision, \
         direction, channels, magnitude, attribution, occurrence_truth, material_impact, rationale, lifecycle, \
         occurred_at, changed_at, admitted_at, evidence_total) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
         ON CONFLICT (impact_id) DO UPDATE SET event_revision = excluded.event_revision, \
         impact_revision = excluded.impact_revision, direction = excluded.direction, channels = excluded.channels, \
         magnitude = excluded.magnitude, attribution = excluded.attribution, \
         occurrence_truth = excluded.occurrence_truth, material_impact = excluded.material_impact, \
         rationale = excluded.rationale, lifecycle = excluded.lifecycle, occurred_at = excluded.occurred_at, \
         changed_at = excluded.changed_at, evidence_total = excluded.evidence_total",
    )
    .bind(&i.impact_id)
    .bind(account)
    .bind(&i.company_id)
    .bind(&i.event_id)
    .bind(i.event_revision)
    .bind(i.impact_revision)
    .bind(i.direction.short_name())
    .bind(channels.join(","))
    .bind(i.magnitude.short_name())
    .bind(i.confidence.attribution)
    .bind(i.confidence.occurrence_truth)
    .bind(i.confidence.material_impact)
    .bind(&i.rationale)
    .bind(i.lifecycle.short_name())
    .bind(i.occurred_at)
    .bind(i.changed_at)
    .bind(i.admitted_at)
    .bind(i.evidence_total)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Writes events, their new evidence and impacts in `tx`, each new impact revision given the
/// account's next changedAt.
pub(super) async fn write_events(
    tx: &mut Transaction<'_, Any>,
    account: &str,
    writes: &mut [EventWrite],
    now: i64,
) -> Result<(), CmError> {
    for w in writes.iter_mut() {
        upsert_event(tx, account, &w.event).await?;
        for e in &w.new_evidence {
            insert_evidence(tx, &w.event.event_id, e).await?;
        }
        if let Some(impact) = w.impact.as_mut() {
            if w.impact_changed {
                impact.changed_at = next_changed_at(tx, account, now).await?;
            }
            upsert_impact(tx, account, impact).await?;
            if w.impact_changed {
                announce(tx, account, impact, now).await?;
            }
        }
    }
    Ok(())
}

/// The impact revision just written, as an event for the account's webhook endpoints, in the
/// same transaction: it is announced if and only if it commits.
async fn announce(tx: &mut Transaction<'_, Any>, account: &str, impact: &Impact, now: i64) -> Result<(), CmError> {
    let event = sitrep_webhooks::store::NewEvent {
        event_type: sitrep_webhooks::EventType::CompanyImpactChanged,
        account_id: Some(account.to_string()),
        subject: impact.company_id.clone(),
        dedupe_key: None,
        data: serde_json::to_value(impact).map_err(|_| CmError::Corrupt("impact"))?,
    };
    sitrep_webhooks::store::enqueue(tx, &event, now).await.map_err(CmError::Webhooks)?;
    Ok(())
}

/// Retracts the company's impacts attributed by one of `removed` claims (the claim of the
/// evidence that gave the impact its attribution: the highest, the earliest seen on ties): a new
/// revision, RETRACTED, with the account's next changedAt. Returns how many.
pub(super) async fn retract_attributed_by(
    tx: &mut Transaction<'_, Any>,
    account: &str,
    company_id: &str,
    removed: &[String],
    now: i64,
) -> Result<usize, CmError> {
    let rows = sqlx::query(
        "SELECT i.impact_id, (SELECT e.claim_id FROM cm_evidence e WHERE e.event_id = i.event_id \
         ORDER BY e.attribution DESC, e.first_seen_at, e.evidence_id LIMIT 1) AS claim_id \
         FROM cm_impacts i WHERE i.company_id = $1 AND i.lifecycle <> 'retracted' ORDER BY i.impact_id",
    )
    .bind(company_id)
    .fetch_all(&mut **tx)
    .await?;
    let mut retracted = 0;
    for row in rows {
        let claim: Option<String> = row.try_get("claim_id")?;
        if !claim.is_some_and(|c| removed.contains(&c)) {
            continue;
        }
        let changed_at = next_changed_at(tx, account, now).await?;
        sqlx::query(
            "UPDATE cm_impacts SET lifecycle = 'retracted', impact_revision = impact_revision + 1, changed_at = $1 \
             WHERE impact_id = $2",
        )
        .bind(changed_at)
        .bind(row.try_get::<String, _>("impact_id")?)
        .execute(&mut **tx)
        .await?;
        let sql = format!("SELECT {IMPACT_COLUMNS} FROM {IMPACTS_WITH_EVENTS} WHERE i.impact_id = $1");
        let impact =
            impact_of(&sqlx::query(&sql).bind(row.try_get::<String, _>("impact_id")?).fetch_one(&mut **tx).await?)?;
        announce(tx, account, &impact, now).await?;
        retracted += 1;
    }
    Ok(retracted)
}

impl CmStore {
    /// Writes what a scan made of a company's events, in one transaction: events, new evidence,
    /// and impacts, each new impact revision given the account's next changedAt (set in `writes`).
    pub async fn save_events(&self, account: &str, writes: &mut [EventWrite], now: i64) -> Result<(), CmError> {
        let mut tx = self.begin_for(account, now).await?;
        write_events(&mut tx, account, writes, now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The company's events that occurred at or after `since`, and those still pending, with
    /// their evidence and impacts: what a scan's candidates may join, or discard.
    pub async fn events_of(&self, company_id: &str, since: i64) -> Result<Vec<StoredEvent>, CmError> {
        let mut conn = self.pool.acquire().await?;
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM cm_events WHERE company_id = $1 \
             AND (occurred_at >= $2 OR state = 'pending') ORDER BY first_seen_at, event_id"
        );
        let rows = sqlx::query(&sql).bind(company_id).bind(since).fetch_all(&mut *conn).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let event = event_of(row)?;
            let evidence = evidence_for(&mut conn, &event.event_id, None).await?;
            let sql = format!("SELECT {IMPACT_COLUMNS} FROM {IMPACTS_WITH_EVENTS} WHERE i.event_id = $1");
            let impact = sqlx::query(&sql).bind(&event.event_id).fetch_optional(&mut *conn).await?;
            out.push(StoredEvent { event, evidence, impact: impact.as_ref().map(impact_of).transpose()? });
        }
        Ok(out)
    }

    /// A page of the account's current impacts (companies not removed) matching `filter`, in
    /// `window`'s order, at most `limit`.
    pub async fn impacts(
        &self,
        account: &str,
        filter: &FeedFilter,
        window: Window<'_>,
        limit: usize,
    ) -> Result<Vec<Impact>, CmError> {
        // $1 account, $2 the position's time, $3 its id, $4 the bound; the filters' lists after.
        let (position, bound, order) = match window {
            Window::Newest { after: None, .. } => ("TRUE", "i.changed_at <= $4", "DESC"),
            Window::Newest { after: Some(_), .. } => {
                ("(i.changed_at < $2 OR (i.changed_at = $2 AND i.impact_id < $3))", "i.changed_at <= $4", "DESC")
            }
            Window::Oldest { after: (_, None), .. } => ("i.changed_at > $2", "i.changed_at <= $4", "ASC"),
            Window::Oldest { after: (_, Some(_)), .. } => {
                ("(i.changed_at > $2 OR (i.changed_at = $2 AND i.impact_id > $3))", "i.changed_at <= $4", "ASC")
            }
        };
        let (key, id, limit_at) = match window {
            Window::Newest { as_of, after } => {
                let (k, id) = after.unwrap_or((0, ""));
                (k, id, as_of)
            }
            Window::Oldest { after: (k, id), until } => (k, id.unwrap_or(""), until),
        };
        let mut places = Placeholders::after(4);
        let mut values: Vec<String> = Vec::new();
        let mut clauses = String::new();
        let mut list = |column: &str, items: Vec<String>, clauses: &mut String| {
            if !items.is_empty() {
                clauses.push_str(&format!(" AND {column} IN ({})", places.list(items.len())));
                values.extend(items);
            }
        };
        match filter {
            FeedFilter::Companies(f) => {
                list("c.lifecycle", f.effective_lifecycles().iter().map(|l| l.short_name()).collect(), &mut clauses);
                list("c.coverage", f.coverages.iter().map(|c| c.short_name()).collect(), &mut clauses);
            }
            FeedFilter::Impacts(f) => {
                list("i.company_id", f.company_ids.clone(), &mut clauses);
                list("i.direction", f.directions.iter().map(|d| d.short_name()).collect(), &mut clauses);
                list("i.lifecycle", f.lifecycles.iter().map(|l| l.short_name()).collect(), &mut clauses);
            }
        }
        let sql = format!(
            "SELECT {IMPACT_COLUMNS} FROM {IMPACTS_WITH_EVENTS} JOIN cm_companies c ON c.company_id = i.company_id \
             WHERE i.account_id = $1 AND c.lifecycle <> 'removed' AND {position} AND {bound}{clauses} \
             ORDER BY i.changed_at {order}, i.impact_id {order} LIMIT {limit}"
        );
        let mut query = sqlx::query(&sql).bind(account).bind(key).bind(id).bind(limit_at);
        for v in &values {
            query = query.bind(v);
        }
        let rows = query.fetch_all(&self.pool).await?;
        rows.iter().map(impact_of).collect()
    }

    /// The account's current impact `impact_id` (its company not removed) with its event and
    /// the first evidence references in order.
    pub async fn material_event(&self, account: &str, impact_id: &str) -> Result<Option<MaterialEvent>, CmError> {
        let mut conn = self.pool.acquire().await?;
        let sql = format!(
            "SELECT {IMPACT_COLUMNS} FROM {IMPACTS_WITH_EVENTS} JOIN cm_companies c ON c.company_id = i.company_id \
             WHERE i.impact_id = $1 AND i.account_id = $2 AND c.lifecycle <> 'removed'"
        );
        let Some(row) = sqlx::query(&sql).bind(impact_id).bind(account).fetch_optional(&mut *conn).await? else {
            return Ok(None);
        };
        let impact = impact_of(&row)?;
        let sql = format!("SELECT {EVENT_COLUMNS} FROM cm_events WHERE event_id = $1");
        let event = event_of(&sqlx::query(&sql).bind(&impact.event_id).fetch_one(&mut *conn).await?)?;
        let evidence = evidence_for(&mut conn, &impact.event_id, Some(EVIDENCE_SHOWN)).await?;
        let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM cm_evidence WHERE event_id = $1")
            .bind(&impact.event_id)
            .fetch_one(&mut *conn)
            .await?;
        Ok(Some(MaterialEvent { impact, event, evidence, evidence_total: total }))
    }
}

/// An event's evidence in display order, the first `limit` when given.
async fn evidence_for(
    conn: &mut sqlx::AnyConnection,
    event_id: &str,
    limit: Option<usize>,
) -> Result<Vec<Evidence>, CmError> {
    let limit = limit.map(|n| format!(" LIMIT {n}")).unwrap_or_default();
    let sql =
        format!("SELECT {EVIDENCE_COLUMNS} FROM cm_evidence WHERE event_id = $1 ORDER BY {EVIDENCE_ORDER}{limit}");
    let rows = sqlx::query(&sql).bind(event_id).fetch_all(&mut *conn).await?;
    rows.iter().map(evidence_of).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::{
        company_input::CompanyInput,
        filters::{ImpactFilter, ListFilter},
        ids::Kind,
        store::{memory_store, Created},
        violations::Violations,
    };

    /// A company of `account` created in `store`: its id.
    pub(crate) async fn company(store: &CmStore, account: &str, name: &str) -> String {
        let mut v = Violations::default();
        let value =
            json!({"name": name, "domicileCountry": "US", "domains": [format!("{}.example", name.to_lowercase())]});
        let input = CompanyInput::parse("company", Some(&value), &mut v).unwrap();
        let Created::New(c) = store.create(account, name, &input, 100, 1_000).await.unwrap() else { panic!() };
        c.company_id
    }

    /// An admitted event of `company_id` with `evidence` items (published at 1, 2, … s) and its impact.
    pub(crate) fn admitted(company_id: &str, direction: Direction, evidence: usize) -> EventWrite {
        let event_id = Kind::Event.new_id();
        let items: Vec<Evidence> = (0..evidence)
            .map(|n| Evidence {
                evidence_id: Kind::Evidence.new_id(),
                provider: Provider::Search,
                source_id: format!("https://news{n}.example/a"),
                canonical_url: format!("https://news{n}.example/a"),
                publisher: format!("news{n}.example"),
                published_at: Some(1_000 * (n as i64 + 1)),
                tier: if n == 0 { AuthorityTier::Ordinary } else { AuthorityTier::IndependentAuthoritative },
                title: format!("Title {n}"),
                excerpt: format!("Excerpt {n}"),
                attribution: 0.75,
                attribution_rule: "name in title".into(),
                claim_id: Kind::Claim.new_id(),
                first_seen_at: 5_000,
                gone_at: None,
            })
            .collect();
        let event = Event {
            event_id: event_id.clone(),
            company_id: company_id.to_string(),
            category: "legal".into(),
            revision: 1,
            title: "Title 1".into(),
            summary: "Excerpt 1".into(),
            occurred_at: 1_000,
            canonical_url: "https://news1.example/a".into(),
            tokens: vec!["lawsuit".into()],
            state: EventState::Admitted,
            first_seen_at: 5_000,
            updated_at: 5_000,
        };
        let impact = Impact {
            impact_id: Kind::Impact.new_id(),
            company_id: company_id.to_string(),
            event_id,
            event_revision: 1,
            impact_revision: 1,
            direction,
            channels: vec![Channel::Reputation, Channel::Finances],
            magnitude: Magnitude::Medium,
            confidence: Confidence { attribution: 0.75, occurrence_truth: 0.85, material_impact: 0.75 },
            rationale: "legal signal from 2 source(s); attribution by name in title".into(),
            lifecycle: ImpactLifecycle::Admitted,
            occurred_at: 1_000,
            changed_at: 0,
            admitted_at: 5_000,
            evidence_total: evidence as i64,
            canonical_url: "https://news1.example/a".into(),
        };
        EventWrite { event, new_evidence: items, impact: Some(impact), impact_changed: true }
    }

    #[tokio::test]
    async fn changed_at_increases_and_the_feed_pages_both_ways() {
        let store = memory_store().await;
        let acme = company(&store, "a1", "Acme").await;
        let beta = company(&store, "a1", "Beta").await;
        let mut writes: Vec<EventWrite> =
            (0..5).map(|n| admitted(if n % 2 == 0 { &acme } else { &beta }, Direction::Negative, 1)).collect();
        // All written in the same millisecond: still five distinct, increasing changedAt values.
        store.save_events("a1", &mut writes, 10_000).await.unwrap();
        let times: Vec<i64> = writes.iter().map(|w| w.impact.as_ref().unwrap().changed_at).collect();
        assert_eq!(times, [10_000, 10_001, 10_002, 10_003, 10_004]);
        let all = FeedFilter::Impacts(ImpactFilter::default());
        let newest = store.impacts("a1", &all, Window::Newest { as_of: 10_003, after: None }, 2).await.unwrap();
        assert_eq!(newest.iter().map(|i| i.changed_at).collect::<Vec<_>>(), [10_003, 10_002]);
        let last = &newest[1];
        let after = Some((last.changed_at, last.impact_id.as_str()));
        let rest = store.impacts("a1", &all, Window::Newest { as_of: 10_003, after }, 10).await.unwrap();
        assert_eq!(rest.iter().map(|i| i.changed_at).collect::<Vec<_>>(), [10_001, 10_000]);
        let feed =
            store.impacts("a1", &all, Window::Oldest { after: (10_001, None), until: 10_003 }, 10).await.unwrap();
        assert_eq!(feed.iter().map(|i| i.changed_at).collect::<Vec<_>>(), [10_002, 10_003]);
        let only_acme = FeedFilter::Impacts(ImpactFilter { company_ids: vec![acme.clone()], ..Default::default() });
        let acme_feed =
            store.impacts("a1", &only_acme, Window::Newest { as_of: 20_000, after: None }, 10).await.unwrap();
        assert_eq!(acme_feed.len(), 3);
        let positive =
            FeedFilter::Impacts(ImpactFilter { directions: vec![Direction::Positive], ..Default::default() });
        assert!(store
            .impacts("a1", &positive, Window::Newest { as_of: 20_000, after: None }, 10)
            .await
            .unwrap()
            .is_empty());
        assert!(store.impacts("a2", &all, Window::Newest { as_of: 20_000, after: None }, 10).await.unwrap().is_empty());
        // A removed company's impacts leave the feed.
        store.set_lifecycle("a1", &beta, crate::records::Lifecycle::Removed, 11_000).await.unwrap();
        let companies = FeedFilter::Companies(ListFilter::default());
        assert_eq!(
            store.impacts("a1", &companies, Window::Newest { as_of: 20_000, after: None }, 10).await.unwrap().len(),
            3
        );
        // A later write in an earlier millisecond still moves changedAt on.
        let mut late = vec![admitted(&acme, Direction::Mixed, 1)];
        store.save_events("a1", &mut late, 9_000).await.unwrap();
        assert_eq!(late[0].impact.as_ref().unwrap().changed_at, 10_005);
    }

    #[tokio::test]
    async fn a_material_event_shows_its_first_twenty_evidence_in_order() {
        let store = memory_store().await;
        let acme = company(&store, "a1", "Acme").await;
        let mut writes = vec![admitted(&acme, Direction::Negative, 23)];
        store.save_events("a1", &mut writes, 10_000).await.unwrap();
        let impact_id = writes[0].impact.as_ref().unwrap().impact_id.clone();
        let shown = store.material_event("a1", &impact_id).await.unwrap().unwrap();
        assert_eq!((shown.evidence.len(), shown.evidence_total), (20, 23));
        assert_eq!(shown.evidence[0].tier, AuthorityTier::IndependentAuthoritative);
        assert_eq!(shown.evidence[0].published_at, Some(23_000), "latest first within a tier");
        assert!(shown.evidence.iter().all(|e| e.tier == AuthorityTier::IndependentAuthoritative));
        assert_eq!(shown.event.event_id, shown.impact.event_id);
        assert_eq!(store.material_event("a2", &impact_id).await.unwrap(), None);
        let stored = store.events_of(&acme, 0).await.unwrap();
        assert_eq!((stored.len(), stored[0].evidence.len()), (1, 23));
        assert_eq!(stored[0].impact.as_ref().map(|i| i.impact_id.as_str()), Some(impact_id.as_str()));
    }
}
