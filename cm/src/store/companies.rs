//! Monitored companies and their claims: create (4.5), import (4.5), read and list (4.6).

use sitrep_schemas::closed_set::ClosedSet;
use sqlx::{Any, Row, Transaction};

use super::{bump_generation, impacts::retract_attributed_by, parse, CmError, CmStore, Placeholders};
use crate::{
    company_input::CompanyInput,
    filters::ListFilter,
    ids::Kind,
    patch::Patch,
    records::{
        AllowedUse, ClaimType, CoverageState, Domicile, ImportOutcome, Lifecycle, ObservationState, Provenance,
        TrustState, WireEnum,
    },
};

#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub claim_id: String,
    pub kind: ClaimType,
    pub value: String,
    pub provenance: Provenance,
    pub trust: TrustState,
    pub allowed_uses: Vec<AllowedUse>,
    /// Epoch ms; `None` when the claim does not expire.
    pub expires_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Company {
    pub company_id: String,
    pub name: String,
    pub domicile: Domicile,
    pub lifecycle: Lifecycle,
    pub customer_reference: Option<String>,
    pub coverage: CoverageState,
    pub observation: ObservationState,
    /// When the coverage state or observation last changed.
    pub coverage_changed_at: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub claims: Vec<Claim>,
}

/// What a create came to (4.5, the first matching rule).
#[derive(Debug, Clone, PartialEq)]
pub enum Created {
    /// The clientRequestId was used before with the same company: its current state.
    Replayed(Company),
    /// The clientRequestId was used before with a different company.
    Conflict,
    /// A live company already has this customerReference: that company, unchanged.
    Existing(Company),
    LimitReached,
    New(Company),
}

/// What a lifecycle change came to (4.6's transition table).
#[derive(Debug, Clone, PartialEq)]
pub enum LifecycleChange {
    /// No such company in the account.
    NotFound,
    /// A removed company asked to become active or paused.
    Terminal,
    /// Already there: the company as it is (no generation bump).
    Unchanged(Company),
    Changed(Company),
}

/// What an update came to (4.6).
#[derive(Debug, Clone, PartialEq)]
pub enum Updated {
    /// Missing, removed or another account's.
    NotFound,
    /// A claim to remove that the company does not have.
    ClaimNotFound(String),
    /// Another live company has the new customer reference.
    ReferenceConflict,
    /// More than 81 claims afterwards.
    BudgetExceeded,
    /// Nothing changed: the company as it is (no generation bump).
    Unchanged(Company),
    Changed(Company),
}

/// One row of an import, validated: its ordinal, company and fingerprint.
#[derive(Debug, Clone)]
pub struct ImportRow {
    pub ordinal: i64,
    pub input: CompanyInput,
    pub fingerprint: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RowResult {
    pub ordinal: i64,
    pub outcome: ImportOutcome,
    /// "" when none.
    pub company_id: String,
    /// "" when none.
    pub reason_code: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompanyPage {
    pub companies: Vec<Company>,
    /// The position after the last company, when more may follow: (name key, company id).
    pub next: Option<(String, String)>,
}

/// How long a removed company stays listable before it is purged (4.6).
pub const PURGE_AFTER_MS: i64 = 30 * 24 * 3600 * 1000;

const COMPANY_COLUMNS: &str = "company_id, name, domicile, lifecycle, customer_reference, coverage, observation, \
                               coverage_changed_at, created_at, updated_at";

fn company_of(row: &sqlx::any::AnyRow) -> Result<Company, CmError> {
    Ok(Company {
        company_id: row.try_get("company_id")?,
        name: row.try_get("name")?,
        domicile: parse(Domicile::parse(row.try_get("domicile")?), "domicile")?,
        lifecycle: parse(Lifecycle::from_filter(row.try_get("lifecycle")?), "lifecycle")?,
        customer_reference: row.try_get("customer_reference")?,
        coverage: parse(CoverageState::from_filter(row.try_get("coverage")?), "coverage state")?,
        observation: parse(ObservationState::from_filter(row.try_get("observation")?), "observation state")?,
        coverage_changed_at: row.try_get("coverage_changed_at")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        claims: Vec::new(),
    })
}

async fn claims_of(tx: &mut sqlx::AnyConnection, company_id: &str) -> Result<Vec<Claim>, CmError> {
    let rows = sqlx::query(
        "SELECT claim_id, claim_type, value, provenance, trust_state, allowed_uses, expires_at \
         FROM cm_claims WHERE company_id = $1 ORDER BY position",
    )
    .bind(company_id)
    .fetch_all(&mut *tx)
    .await?;
    rows.iter()
        .map(|r| {
            let uses: String = r.try_get("allowed_uses")?;
            Ok(Claim {
                claim_id: r.try_get("claim_id")?,
                kind: parse(ClaimType::from_filter(r.try_get("claim_type")?), "claim type")?,
                value: r.try_get("value")?,
                provenance: parse(Provenance::from_wire_name(r.try_get("provenance")?), "claim provenance")?,
                trust: parse(TrustState::from_filter(r.try_get("trust_state")?), "trust state")?,
                allowed_uses: uses
                    .split(',')
                    .filter(|u| !u.is_empty())
                    .map(|u| parse(AllowedUse::from_filter(u), "allowed use"))
                    .collect::<Result<_, _>>()?,
                expires_at: r.try_get("expires_at")?,
            })
        })
        .collect()
}

/// The company with its claims, if it belongs to `account`.
pub(super) async fn load(
    tx: &mut sqlx::AnyConnection,
    account: &str,
    company_id: &str,
) -> Result<Option<Company>, CmError> {
    let sql = format!("SELECT {COMPANY_COLUMNS} FROM cm_companies WHERE company_id = $1 AND account_id = $2");
    let Some(row) = sqlx::query(&sql).bind(company_id).bind(account).fetch_optional(&mut *tx).await? else {
        return Ok(None);
    };
    let mut company = company_of(&row)?;
    company.claims = claims_of(tx, company_id).await?;
    Ok(Some(company))
}

/// The live (active or paused) company with this customer reference.
async fn live_with_reference(
    tx: &mut sqlx::AnyConnection,
    account: &str,
    reference: &str,
) -> Result<Option<Company>, CmError> {
    if reference.is_empty() {
        return Ok(None);
    }
    let id: Option<String> = sqlx::query_scalar(
        "SELECT company_id FROM cm_companies \
         WHERE account_id = $1 AND customer_reference = $2 AND lifecycle IN ('active', 'paused')",
    )
    .bind(account)
    .bind(reference)
    .fetch_optional(&mut *tx)
    .await?;
    match id {
        Some(id) => load(tx, account, &id).await,
        None => Ok(None),
    }
}

pub(super) async fn live_count(tx: &mut sqlx::AnyConnection, account: &str) -> Result<i64, CmError> {
    Ok(sqlx::query_scalar(
        "SELECT COUNT(*) FROM cm_companies WHERE account_id = $1 AND lifecycle IN ('active', 'paused')",
    )
    .bind(account)
    .fetch_one(&mut *tx)
    .await?)
}

/// The observation once coverage moves from `before` to `after`: a company that now awaits its
/// first scan, or whose identity is unresolved, has observed nothing yet (IDENTITY_UNRESOLVED
/// always pairs with UNKNOWN, 4.9).
fn observation_for(before: CoverageState, after: CoverageState, observation: ObservationState) -> ObservationState {
    if before != after && matches!(after, CoverageState::IdentityUnresolved | CoverageState::AwaitingFirstScan) {
        ObservationState::Unknown
    } else {
        observation
    }
}

/// A claim the customer declared (4.4): provenance `customer`, DECLARED, its type's uses.
fn new_claim(kind: ClaimType, value: String) -> Claim {
    Claim {
        claim_id: Kind::Claim.new_id(),
        kind,
        value,
        provenance: Provenance::Customer,
        trust: TrustState::Declared,
        allowed_uses: kind.declared_uses().to_vec(),
        expires_at: None,
    }
}

/// Writes a company's claims in their order.
async fn insert_claims(tx: &mut Transaction<'_, Any>, company_id: &str, claims: &[Claim]) -> Result<(), CmError> {
    for (position, claim) in claims.iter().enumerate() {
        let uses: Vec<String> = claim.allowed_uses.iter().map(|u| u.short_name()).collect();
        sqlx::query(
            "INSERT INTO cm_claims (claim_id, company_id, position, claim_type, value, provenance, trust_state, \
             allowed_uses, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&claim.claim_id)
        .bind(company_id)
        .bind(position as i64)
        .bind(claim.kind.short_name())
        .bind(&claim.value)
        .bind(claim.provenance.as_str())
        .bind(claim.trust.short_name())
        .bind(uses.join(","))
        .bind(claim.expires_at)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// Inserts a new ACTIVE company and its claims (4.4) and moves the generation on.
async fn insert(
    tx: &mut Transaction<'_, Any>,
    account: &str,
    input: &CompanyInput,
    now: i64,
) -> Result<Company, CmError> {
    let company_id = Kind::Company.new_id();
    let claims: Vec<Claim> = input.claims().into_iter().map(|c| new_claim(c.kind, c.value)).collect();
    let identified = claims.iter().any(|c| matches!(c.kind, ClaimType::Domain | ClaimType::LegalIdentifier));
    let coverage = if identified { CoverageState::AwaitingFirstScan } else { CoverageState::IdentityUnresolved };
    let reference = (!input.customer_reference.is_empty()).then(|| input.customer_reference.clone());
    sqlx::query(
        "INSERT INTO cm_companies (company_id, account_id, name, name_key, domicile, lifecycle, customer_reference, \
         coverage, observation, coverage_changed_at, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $8, $9, $10, $11)",
    )
    .bind(&company_id)
    .bind(account)
    .bind(&input.name)
    .bind(input.name.to_lowercase())
    .bind(input.domicile.full_name())
    .bind(&reference)
    .bind(coverage.short_name())
    .bind(ObservationState::Unknown.short_name())
    .bind(now)
    .bind(now)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    insert_claims(tx, &company_id, &claims).await?;
    bump_generation(tx, account).await?;
    Ok(Company {
        company_id,
        name: input.name.clone(),
        domicile: input.domicile,
        lifecycle: Lifecycle::Active,
        customer_reference: reference,
        coverage,
        observation: ObservationState::Unknown,
        coverage_changed_at: now,
        created_at: now,
        updated_at: now,
        claims,
    })
}

impl CmStore {
    /// CreateMonitoredCompany's rules of 4.5, in order, in one transaction.
    pub async fn create(
        &self,
        account: &str,
        client_request_id: &str,
        input: &CompanyInput,
        limit: i64,
        now: i64,
    ) -> Result<Created, CmError> {
        let mut tx = self.begin_for(account, now).await?;
        let fingerprint = input.fingerprint();
        let earlier = sqlx::query(
            "SELECT fingerprint, company_id FROM cm_create_replays WHERE account_id = $1 AND client_request_id = $2",
        )
        .bind(account)
        .bind(client_request_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = earlier {
            let (stored, company_id): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            if stored != fingerprint {
                return Ok(Created::Conflict);
            }
            let company = parse(load(&mut tx, account, &company_id).await?, "replayed company")?;
            return Ok(Created::Replayed(company));
        }
        if let Some(existing) = live_with_reference(&mut tx, account, &input.customer_reference).await? {
            return Ok(Created::Existing(existing));
        }
        if live_count(&mut tx, account).await? >= limit {
            return Ok(Created::LimitReached);
        }
        let company = insert(&mut tx, account, input, now).await?;
        sqlx::query(
            "INSERT INTO cm_create_replays (account_id, client_request_id, fingerprint, company_id) VALUES ($1, $2, $3, $4)",
        )
        .bind(account)
        .bind(client_request_id)
        .bind(&fingerprint)
        .bind(&company.company_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Created::New(company))
    }

    /// ImportMonitoredCompanyBatch (4.5): rows in ordinal order, each by the first matching rule
    /// of the table, all in one transaction.
    pub async fn import(
        &self,
        account: &str,
        client_import_id: &str,
        rows: &[ImportRow],
        limit: i64,
        now: i64,
    ) -> Result<Vec<RowResult>, CmError> {
        let mut tx = self.begin_for(account, now).await?;
        let mut results = Vec::with_capacity(rows.len());
        let mut ordered: Vec<&ImportRow> = rows.iter().collect();
        ordered.sort_by_key(|r| r.ordinal);
        for row in ordered {
            let result = |outcome, company_id: String, reason_code| RowResult {
                ordinal: row.ordinal,
                outcome,
                company_id,
                reason_code,
            };
            let earlier = sqlx::query(
                "SELECT fingerprint, company_id FROM cm_import_rows \
                 WHERE account_id = $1 AND client_import_id = $2 AND ordinal = $3",
            )
            .bind(account)
            .bind(client_import_id)
            .bind(row.ordinal)
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(r) = earlier {
                let (stored, company_id): (String, String) = (r.try_get(0)?, r.try_get(1)?);
                results.push(if stored == row.fingerprint {
                    result(ImportOutcome::Replayed, company_id, "")
                } else {
                    result(ImportOutcome::Conflict, String::new(), "REPLAY_CONFLICT")
                });
                continue;
            }
            if let Some(existing) = live_with_reference(&mut tx, account, &row.input.customer_reference).await? {
                results.push(result(ImportOutcome::NoOp, existing.company_id, "CUSTOMER_REFERENCE_EXISTS"));
                continue;
            }
            if live_count(&mut tx, account).await? >= limit {
                results.push(result(ImportOutcome::Rejected, String::new(), "COMPANY_LIMIT_REACHED"));
                continue;
            }
            let company = insert(&mut tx, account, &row.input, now).await?;
            sqlx::query(
                "INSERT INTO cm_import_rows (account_id, client_import_id, ordinal, fingerprint, company_id) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(account)
            .bind(client_import_id)
            .bind(row.ordinal)
            .bind(&row.fingerprint)
            .bind(&company.company_id)
            .execute(&mut *tx)
            .await?;
            results.push(result(ImportOutcome::Created, company.company_id, ""));
        }
        tx.commit().await?;
        Ok(results)
    }

    /// SetMonitoredCompanyState (4.6): the transition table, in one transaction. Removal deletes
    /// the claims and stamps `removed_at` (the purge scrubs the company 30 days later); a paused
    /// company made active again awaits its next scan.
    pub async fn set_lifecycle(
        &self,
        account: &str,
        company_id: &str,
        target: Lifecycle,
        now: i64,
    ) -> Result<LifecycleChange, CmError> {
        let mut tx = self.begin_for(account, now).await?;
        let Some(company) = load(&mut tx, account, company_id).await? else { return Ok(LifecycleChange::NotFound) };
        match (company.lifecycle, target) {
            (from, to) if from == to => return Ok(LifecycleChange::Unchanged(company)),
            (Lifecycle::Removed, _) => return Ok(LifecycleChange::Terminal),
            _ => {}
        }
        let resumed = company.lifecycle == Lifecycle::Paused
            && target == Lifecycle::Active
            && company.coverage != CoverageState::IdentityUnresolved;
        let coverage = if resumed { CoverageState::AwaitingFirstScan } else { company.coverage };
        let removed_at = (target == Lifecycle::Removed).then_some(now);
        sqlx::query(
            "UPDATE cm_companies SET lifecycle = $1, coverage = $2, updated_at = $3, removed_at = $4, \
             coverage_changed_at = CASE WHEN coverage = $2 AND observation = $6 THEN coverage_changed_at ELSE $3 END, \
             observation = $6 WHERE company_id = $5",
        )
        .bind(target.short_name())
        .bind(coverage.short_name())
        .bind(now)
        .bind(removed_at)
        .bind(company_id)
        .bind(observation_for(company.coverage, coverage, company.observation).short_name())
        .execute(&mut *tx)
        .await?;
        if target == Lifecycle::Removed {
            sqlx::query("DELETE FROM cm_claims WHERE company_id = $1").bind(company_id).execute(&mut *tx).await?;
        }
        if resumed {
            // Active again: its scan is queued now, and it awaits that scan.
            sqlx::query("UPDATE cm_scans SET last_scan_at = NULL WHERE company_id = $1")
                .bind(company_id)
                .execute(&mut *tx)
                .await?;
        }
        bump_generation(&mut tx, account).await?;
        let changed = parse(load(&mut tx, account, company_id).await?, "changed company")?;
        tx.commit().await?;
        Ok(LifecycleChange::Changed(changed))
    }

    /// UpdateMonitoredCompany (4.6): removals, additions (a duplicate of a claim is ignored), the
    /// name (also added as an alias), the customer reference (its claim replaced), the domicile, in
    /// that order, in one transaction; coverage follows whether the company is still identified.
    pub async fn update(&self, account: &str, company_id: &str, patch: &Patch, now: i64) -> Result<Updated, CmError> {
        let mut tx = self.begin_for(account, now).await?;
        let Some(company) = load(&mut tx, account, company_id).await?.filter(|c| c.lifecycle != Lifecycle::Removed)
        else {
            return Ok(Updated::NotFound);
        };
        if let Some(missing) =
            patch.remove_claim_ids.iter().find(|id| !company.claims.iter().any(|c| &c.claim_id == *id))
        {
            return Ok(Updated::ClaimNotFound(missing.clone()));
        }
        let mut claims: Vec<Claim> =
            company.claims.iter().filter(|c| !patch.remove_claim_ids.contains(&c.claim_id)).cloned().collect();
        let add = |kind: ClaimType, value: &str, claims: &mut Vec<Claim>| {
            if !claims.iter().any(|c| c.kind == kind && c.value == value) {
                claims.push(new_claim(kind, value.to_string()));
            }
        };
        for c in &patch.add_claims {
            add(c.kind, &c.value, &mut claims);
        }
        let name = patch.name.clone().unwrap_or_else(|| company.name.clone());
        if patch.name.is_some() {
            add(ClaimType::Alias, &name, &mut claims);
        }
        let reference = match &patch.customer_reference {
            None => company.customer_reference.clone(),
            Some(r) if r.is_empty() => None,
            Some(r) => Some(r.clone()),
        };
        if reference != company.customer_reference {
            claims.retain(|c| c.kind != ClaimType::CustomerReference);
            if let Some(r) = &reference {
                let taken = live_with_reference(&mut tx, account, r).await?;
                if taken.is_some_and(|other| other.company_id != company.company_id) {
                    return Ok(Updated::ReferenceConflict);
                }
                claims.push(new_claim(ClaimType::CustomerReference, r.clone()));
            }
        }
        if claims.len() > crate::patch::MAX_CLAIMS {
            return Ok(Updated::BudgetExceeded);
        }
        let domicile = patch.domicile.unwrap_or(company.domicile);
        let identified = claims.iter().any(|c| matches!(c.kind, ClaimType::Domain | ClaimType::LegalIdentifier));
        let coverage = match (identified, company.coverage) {
            (false, _) => CoverageState::IdentityUnresolved,
            (true, CoverageState::IdentityUnresolved) => CoverageState::AwaitingFirstScan,
            (true, c) => c,
        };
        let same_claims = claims.len() == company.claims.len()
            && claims.iter().zip(&company.claims).all(|(a, b)| a.claim_id == b.claim_id);
        if same_claims
            && name == company.name
            && reference == company.customer_reference
            && domicile == company.domicile
        {
            return Ok(Updated::Unchanged(company));
        }
        sqlx::query(
            "UPDATE cm_companies SET name = $1, name_key = $2, domicile = $3, customer_reference = $4, coverage = $5, \
             coverage_changed_at = CASE WHEN coverage = $5 AND observation = $8 THEN coverage_changed_at ELSE $6 END, \
             updated_at = $6, observation = $8 WHERE company_id = $7",
        )
        .bind(&name)
        .bind(name.to_lowercase())
        .bind(domicile.full_name())
        .bind(&reference)
        .bind(coverage.short_name())
        .bind(now)
        .bind(company_id)
        .bind(observation_for(company.coverage, coverage, company.observation).short_name())
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM cm_claims WHERE company_id = $1").bind(company_id).execute(&mut *tx).await?;
        insert_claims(&mut tx, company_id, &claims).await?;
        // An impact whose attribution rested on a claim the customer removed is retracted (4.8).
        retract_attributed_by(&mut tx, account, company_id, &patch.remove_claim_ids, now).await?;
        bump_generation(&mut tx, account).await?;
        let updated = parse(load(&mut tx, account, company_id).await?, "updated company")?;
        tx.commit().await?;
        Ok(Updated::Changed(updated))
    }

    /// Purges companies removed more than 30 days before `now` (4.6): the company (with its name
    /// and customer reference) and its replay records are deleted, so it is NOT_FOUND and its
    /// clientRequestId may create a new company. Returns how many were purged.
    pub async fn purge_removed(&self, now: i64) -> Result<u64, CmError> {
        let cutoff = now - PURGE_AFTER_MS;
        let mut tx = self.pool.begin().await?;
        for table in ["cm_create_replays", "cm_import_rows"] {
            let sql = format!(
                "DELETE FROM {table} WHERE company_id IN \
                 (SELECT company_id FROM cm_companies WHERE lifecycle = 'removed' AND removed_at <= $1)"
            );
            sqlx::query(&sql).bind(cutoff).execute(&mut *tx).await?;
        }
        let purged = sqlx::query("DELETE FROM cm_companies WHERE lifecycle = 'removed' AND removed_at <= $1")
            .bind(cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(purged)
    }

    /// The account's company, with its claims.
    pub async fn company(&self, account: &str, company_id: &str) -> Result<Option<Company>, CmError> {
        let mut conn = self.pool.acquire().await?;
        load(&mut conn, account, company_id).await
    }

    /// A page of the account's companies matching `filter`, after `after` (name key, id), in
    /// listing order (lower-cased name, then id).
    pub async fn companies(
        &self,
        account: &str,
        filter: &ListFilter,
        after: Option<(&str, &str)>,
        page_size: usize,
    ) -> Result<CompanyPage, CmError> {
        let lifecycles: Vec<String> = filter.effective_lifecycles().iter().map(|l| l.short_name()).collect();
        let coverages: Vec<String> = filter.coverages.iter().map(|c| c.short_name()).collect();
        // The lists' placeholders follow the fixed parameters ($1 account, $2–$3 position).
        let mut places = Placeholders::after(3);
        let lifecycle_in = places.list(lifecycles.len());
        let coverage_clause = if coverages.is_empty() {
            String::new()
        } else {
            format!(" AND coverage IN ({})", places.list(coverages.len()))
        };
        let sql = format!(
            "SELECT {COMPANY_COLUMNS}, name_key FROM cm_companies \
             WHERE account_id = $1 AND (name_key > $2 OR (name_key = $2 AND company_id > $3)) \
             AND lifecycle IN ({lifecycle_in}){coverage_clause} \
             ORDER BY name_key, company_id LIMIT {}",
            page_size + 1
        );
        let (key, id) = after.unwrap_or(("", ""));
        let mut query = sqlx::query(&sql).bind(account).bind(key).bind(id);
        for value in lifecycles.iter().chain(&coverages) {
            query = query.bind(value);
        }
        let mut conn = self.pool.acquire().await?;
        let rows = query.fetch_all(&mut *conn).await?;
        let more = rows.len() > page_size;
        let mut companies = Vec::with_capacity(page_size);
        let mut last = None;
        for row in rows.iter().take(page_size) {
            let mut company = company_of(row)?;
            company.claims = claims_of(&mut conn, &company.company_id).await?;
            last = Some((row.try_get::<String, _>("name_key")?, company.company_id.clone()));
            companies.push(company);
        }
        Ok(CompanyPage { companies, next: if more { last } else { None } })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{store::memory_store, violations::Violations};

    fn input(value: serde_json::Value) -> CompanyInput {
        let mut v = Violations::default();
        CompanyInput::parse("company", Some(&value), &mut v).unwrap_or_else(|| panic!("{:?}", v.0))
    }

    #[tokio::test]
    async fn create_follows_the_rules_in_order() {
        let store = memory_store().await;
        let acme = input(json!({"name": "Acme Widgets", "domicileCountry": "US", "domains": ["acme.example"],
            "customerReference": "crm-1"}));
        let Created::New(created) = store.create("a1", "req-1", &acme, 2, 1_000).await.unwrap() else { panic!() };
        assert_eq!(created.coverage, CoverageState::AwaitingFirstScan);
        assert_eq!(created.claims.len(), 3, "name, domain, customer reference");
        assert_eq!(store.generation("a1").await.unwrap(), 1);
        // Rule 1: the same request again is a replay of the current state, with no generation bump.
        assert_eq!(store.create("a1", "req-1", &acme, 2, 2_000).await.unwrap(), Created::Replayed(created.clone()));
        let other = input(json!({"name": "Other", "domicileCountry": "GB"}));
        assert_eq!(store.create("a1", "req-1", &other, 2, 2_000).await.unwrap(), Created::Conflict);
        // Rule 2: a live company with the reference answers for it.
        let same_ref = input(json!({"name": "Acme Renamed", "domicileCountry": "US", "customerReference": "crm-1"}));
        assert_eq!(store.create("a1", "req-2", &same_ref, 2, 2_000).await.unwrap(), Created::Existing(created));
        assert_eq!(store.generation("a1").await.unwrap(), 1);
        // Rule 4, then rule 3 at the limit.
        let Created::New(second) = store.create("a1", "req-3", &other, 2, 3_000).await.unwrap() else { panic!() };
        assert_eq!(second.coverage, CoverageState::IdentityUnresolved, "no domain and no identifier");
        let third = input(json!({"name": "Third", "domicileCountry": "US"}));
        assert_eq!(store.create("a1", "req-4", &third, 2, 3_000).await.unwrap(), Created::LimitReached);
        assert_eq!(store.company_count("a1").await.unwrap(), 2);
        // Another account sees none of it.
        assert_eq!(store.company("a2", &second.company_id).await.unwrap(), None);
        assert_eq!(store.generation("a2").await.unwrap(), 0);
    }

    #[tokio::test]
    async fn import_decides_each_row_and_replays() {
        let store = memory_store().await;
        let row = |ordinal: i64, value: serde_json::Value| {
            let input = input(value);
            let fingerprint =
                crate::company_input::fingerprint_of(&json!({"ordinal": ordinal, "company": input.canonical()}));
            ImportRow { ordinal, input, fingerprint }
        };
        let rows = vec![
            row(1, json!({"name": "Beta", "domicileCountry": "GB", "customerReference": "r-1"})),
            row(0, json!({"name": "Alpha", "domicileCountry": "US", "customerReference": "r-1"})),
            row(2, json!({"name": "Gamma", "domicileCountry": "US"})),
        ];
        let results = store.import("a1", "imp-1", &rows, 2, 1_000).await.unwrap();
        let outcomes: Vec<_> = results.iter().map(|r| (r.ordinal, r.outcome, r.reason_code)).collect();
        assert_eq!(
            outcomes,
            [
                (0, ImportOutcome::Created, ""),
                (1, ImportOutcome::NoOp, "CUSTOMER_REFERENCE_EXISTS"),
                (2, ImportOutcome::Created, ""),
            ]
        );
        assert_eq!(results[1].company_id, results[0].company_id, "the company created earlier in this batch");
        assert_eq!(store.generation("a1").await.unwrap(), 2);
        // A retry: created rows replay, the no-op is evaluated again, a changed row conflicts.
        let mut again = rows.clone();
        again[2] = row(2, json!({"name": "Gamma Changed", "domicileCountry": "US"}));
        let retried = store.import("a1", "imp-1", &again, 3, 2_000).await.unwrap();
        let outcomes: Vec<_> = retried.iter().map(|r| (r.ordinal, r.outcome, r.reason_code)).collect();
        assert_eq!(
            outcomes,
            [
                (0, ImportOutcome::Replayed, ""),
                (1, ImportOutcome::NoOp, "CUSTOMER_REFERENCE_EXISTS"),
                (2, ImportOutcome::Conflict, "REPLAY_CONFLICT"),
            ]
        );
        assert_eq!(store.generation("a1").await.unwrap(), 2);
        let delta = [row(0, json!({"name": "Delta", "domicileCountry": "US"}))];
        let limited = store.import("a1", "imp-2", &delta, 2, 3_000).await.unwrap();
        assert_eq!(limited[0].reason_code, "COMPANY_LIMIT_REACHED");
    }

    #[tokio::test]
    async fn lifecycle_follows_the_transition_table() {
        let store = memory_store().await;
        let acme = input(
            json!({"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"], "customerReference": "c-1"}),
        );
        let Created::New(c) = store.create("a1", "r1", &acme, 5, 1_000).await.unwrap() else { panic!() };
        let id = c.company_id.as_str();
        let set = |target| store.set_lifecycle("a1", id, target, 2_000);
        assert!(matches!(set(Lifecycle::Active).await.unwrap(), LifecycleChange::Unchanged(_)));
        let LifecycleChange::Changed(paused) = set(Lifecycle::Paused).await.unwrap() else { panic!() };
        assert_eq!(paused.lifecycle, Lifecycle::Paused);
        assert_eq!(store.company_count("a1").await.unwrap(), 1, "paused companies count");
        let LifecycleChange::Changed(active) = set(Lifecycle::Active).await.unwrap() else { panic!() };
        assert_eq!(active.coverage, CoverageState::AwaitingFirstScan);
        let LifecycleChange::Changed(removed) = set(Lifecycle::Removed).await.unwrap() else { panic!() };
        assert_eq!((removed.lifecycle, removed.claims.len()), (Lifecycle::Removed, 0));
        assert_eq!(store.company_count("a1").await.unwrap(), 0);
        assert_eq!(set(Lifecycle::Active).await.unwrap(), LifecycleChange::Terminal);
        assert!(matches!(set(Lifecycle::Removed).await.unwrap(), LifecycleChange::Unchanged(_)));
        assert_eq!(store.generation("a1").await.unwrap(), 4, "create and three effective changes");
        assert_eq!(store.set_lifecycle("a2", id, Lifecycle::Paused, 3_000).await.unwrap(), LifecycleChange::NotFound);
        // The removed company's customer reference is free again.
        let again = input(json!({"name": "Acme Again", "domicileCountry": "US", "customerReference": "c-1"}));
        assert!(matches!(store.create("a1", "r2", &again, 5, 4_000).await.unwrap(), Created::New(_)));
        // Purged 30 days after removal: gone, and its clientRequestId creates a new company.
        assert_eq!(store.purge_removed(2_000 + PURGE_AFTER_MS - 1).await.unwrap(), 0);
        assert_eq!(store.purge_removed(2_000 + PURGE_AFTER_MS).await.unwrap(), 1);
        assert_eq!(store.company("a1", id).await.unwrap(), None);
        let other_input = input(json!({"name": "Acme", "domicileCountry": "US"}));
        let Created::New(fresh) = store.create("a1", "r1", &other_input, 5, 5_000).await.unwrap() else { panic!() };
        assert_ne!(fresh.company_id, id);
    }

    #[tokio::test]
    async fn update_applies_the_patch_in_order() {
        let store = memory_store().await;
        let acme = input(
            json!({"name": "Acme", "domicileCountry": "US", "domains": ["acme.example"], "customerReference": "c-1"}),
        );
        let Created::New(c) = store.create("a1", "r1", &acme, 5, 1_000).await.unwrap() else { panic!() };
        let other = input(json!({"name": "Other", "domicileCountry": "US", "customerReference": "c-2"}));
        store.create("a1", "r2", &other, 5, 1_000).await.unwrap();
        let id = c.company_id.as_str();
        let domain = c.claims.iter().find(|x| x.kind == ClaimType::Domain).unwrap().claim_id.clone();
        let patch = |p: serde_json::Value| {
            let mut v = Violations::default();
            Patch::parse("patch", Some(&p), &mut v).unwrap()
        };
        // Nothing effective: unchanged, no bump.
        assert!(matches!(
            store.update("a1", id, &patch(json!({"name": "Acme"})), 2_000).await.unwrap(),
            Updated::Unchanged(_)
        ));
        assert_eq!(store.generation("a1").await.unwrap(), 2);
        // Removing the only domain leaves the company unidentified; a new name becomes an alias too.
        let p = patch(json!({"removeClaimIds": [domain], "name": "Acme Corp", "domicileCountry": "GB"}));
        let Updated::Changed(u) = store.update("a1", id, &p, 2_000).await.unwrap() else { panic!() };
        assert_eq!(
            (u.name.as_str(), u.domicile, u.coverage),
            ("Acme Corp", Domicile::Gb, CoverageState::IdentityUnresolved)
        );
        assert!(u.claims.iter().any(|x| x.kind == ClaimType::Alias && x.value == "Acme Corp"));
        assert_eq!(store.generation("a1").await.unwrap(), 3);
        let p = patch(json!({"addClaims": [{"type": "COMPANY_CLAIM_TYPE_LEGAL_IDENTIFIER", "value": "LEI 123"}]}));
        let Updated::Changed(u) = store.update("a1", id, &p, 3_000).await.unwrap() else { panic!() };
        assert_eq!(u.coverage, CoverageState::AwaitingFirstScan, "identified again");
        assert_eq!(
            store.update("a1", id, &patch(json!({"customerReference": "c-2"})), 3_000).await.unwrap(),
            Updated::ReferenceConflict
        );
        let missing = Kind::Claim.new_id();
        let p = patch(json!({"removeClaimIds": [missing.clone()]}));
        assert_eq!(store.update("a1", id, &p, 3_000).await.unwrap(), Updated::ClaimNotFound(missing));
        let many: Vec<_> =
            (0..80).map(|i| json!({"type": "COMPANY_CLAIM_TYPE_LOCATION", "value": format!("Town {i}")})).collect();
        assert_eq!(
            store.update("a1", id, &patch(json!({"addClaims": many})), 3_000).await.unwrap(),
            Updated::BudgetExceeded
        );
        assert_eq!(store.update("a2", id, &patch(json!({})), 3_000).await.unwrap(), Updated::NotFound);
        let Updated::Changed(u) =
            store.update("a1", id, &patch(json!({"customerReference": ""})), 4_000).await.unwrap()
        else {
            panic!()
        };
        assert!(u.customer_reference.is_none() && !u.claims.iter().any(|x| x.kind == ClaimType::CustomerReference));
    }

    #[tokio::test]
    async fn listing_pages_in_name_order() {
        let store = memory_store().await;
        for (i, name) in ["beta", "Alpha", "gamma", "alpha"].iter().enumerate() {
            let c = input(json!({"name": name, "domicileCountry": "US", "domains": [format!("d{i}.example")]}));
            store.create("a1", &format!("r{i}"), &c, 10, 1_000).await.unwrap();
        }
        let filter = ListFilter::default();
        let first = store.companies("a1", &filter, None, 3).await.unwrap();
        let names: Vec<_> = first.companies.iter().map(|c| c.name.to_lowercase()).collect();
        assert_eq!(names, ["alpha", "alpha", "beta"]);
        let (key, id) = first.next.clone().unwrap();
        let second = store.companies("a1", &filter, Some((&key, &id)), 3).await.unwrap();
        assert_eq!(second.companies.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["gamma"]);
        assert_eq!(second.next, None);
        let removed_only = ListFilter { lifecycles: vec![Lifecycle::Removed], coverages: vec![] };
        assert!(store.companies("a1", &removed_only, None, 3).await.unwrap().companies.is_empty());
        let awaiting = ListFilter { lifecycles: vec![], coverages: vec![CoverageState::AwaitingFirstScan] };
        assert_eq!(store.companies("a1", &awaiting, None, 10).await.unwrap().companies.len(), 4);
        let unresolved = ListFilter { lifecycles: vec![], coverages: vec![CoverageState::IdentityUnresolved] };
        assert!(store.companies("a1", &unresolved, None, 10).await.unwrap().companies.is_empty());
    }
}
