//! What the two listings share (SUPPLEMENT 4.6): the paging parameters, enum filters in their
//! canonical form, and the signed snapshot boundary the first page fixes and every later page's
//! cursor carries, with the poll cursor each page hands out for ListCompanyEventChanges.

use serde_json::Value;
use sitrep_cm::{
    cursor::{Claims, CursorError, Expected, Mode, Surface},
    filters::FeedFilter,
    records::WireEnum,
};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        error::{ApiError, Violations},
        params::{Param, ParamKind, RawQuery},
    },
};

use super::{company_monitoring, model::Snapshot, records};

pub const PAGE_SIZE: Param = Param {
    name: "page_size",
    kind: ParamKind::Int32 { min: 1, max: 100, default: 50 },
    required: false,
    description: "Items per page, 1–100; 0 or absent = 50.",
};

pub const CURSOR: Param = Param {
    name: "cursor",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description:
        "`nextCursor` of the previous page: `cmc1.<16–1536 of [A-Za-z0-9_-]>.<43 of the same>`, at most 2,048 bytes.",
};

/// The values of a repeated enum filter (the exact short or full form), de-duplicated and sorted.
pub fn enum_filter<E: WireEnum + Ord>(param: &Param, q: &RawQuery, v: &mut Violations) -> Vec<E> {
    let mut out: Vec<E> = Vec::new();
    for (i, raw) in param.repeated(q, v).iter().enumerate() {
        match E::from_filter(raw) {
            Some(e) => out.push(e),
            None => {
                v.push(&format!("{}[{i}]", param.field()), format!("string must match pattern {}", E::filter_pattern()))
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A cursor refused by one of the checks of 4.6, as the violation on field `cursor`.
pub fn cursor_violation(e: CursorError) -> ApiError {
    let mut v = Violations::default();
    v.push("cursor", e.to_string());
    ApiError::Validation(v.0)
}

/// The cursor secret (the runtime gate, checked before every handler, holds only with one).
pub fn cursor_secret(state: &AppState) -> Result<&[u8], ApiError> {
    company_monitoring(state).settings.cursor_secret.as_deref().ok_or_else(|| ApiError::internal("no cursor secret"))
}

/// A listing's snapshot boundary: the time and generation the first page fixed, the filters it
/// is bound to, and where this page starts.
pub struct Boundary<'a> {
    secret: &'a [u8],
    account: &'a str,
    surface: Surface,
    filters: Value,
    filter_hash: String,
    generation: i64,
    now: i64,
    /// snapshotAsOf, as shown.
    pub as_of: String,
    /// snapshotAsOf in epoch milliseconds.
    pub as_of_ms: i64,
    /// The keyset position this page starts after (none on the first page).
    pub after: Option<(String, String)>,
}

impl<'a> Boundary<'a> {
    /// The boundary of a page of `surface` for `account`: the cursor's, after the checks of 4.6,
    /// or a new one at now and the account's current generation.
    pub async fn open(
        state: &'a AppState,
        account: &'a str,
        surface: Surface,
        filter: &FeedFilter,
        cursor: Option<&str>,
    ) -> Result<Boundary<'a>, ApiError> {
        let secret = cursor_secret(state)?;
        let (filters, filter_hash) = filter.canonical();
        let now = state.clock.now_ms();
        let store = &company_monitoring(state).store;
        let generation = store.generation(account).await.map_err(ApiError::internal)?;
        let mut boundary = Boundary {
            secret,
            account,
            surface,
            filters,
            filter_hash,
            generation,
            now,
            as_of: records::iso(now),
            as_of_ms: now,
            after: None,
        };
        if let Some(cursor) = cursor {
            let expected = Expected {
                account_id: account,
                surface,
                mode: Mode::Snapshot,
                filter_hash: Some(&boundary.filter_hash),
                generation,
                now_ms: now,
            };
            let claims = Claims::open(secret, cursor, &expected).map_err(cursor_violation)?;
            boundary.as_of_ms =
                records::epoch_ms(&claims.snapshot_as_of).ok_or_else(|| cursor_violation(CursorError::Payload))?;
            boundary.as_of = claims.snapshot_as_of;
            boundary.after = claims.after_key.zip(claims.after_id);
        }
        Ok(boundary)
    }

    fn signed(&self, surface: Surface, mode: Mode, position: Option<(String, String)>) -> String {
        let mut c = Claims::new(self.account, surface, mode, &self.filter_hash, self.now);
        c.snapshot_generation = self.generation.to_string();
        c.snapshot_as_of = self.as_of.clone();
        c.watermark = self.as_of.clone();
        (c.after_key, c.after_id) = position.unzip();
        c.filters = (mode == Mode::Poll).then(|| self.filters.clone());
        c.sign(self.secret)
    }

    /// The next page's cursor after `position`, or "" after the last page.
    pub fn next_cursor(&self, position: Option<(String, String)>) -> String {
        match position {
            Some(position) => self.signed(self.surface, Mode::Snapshot, Some(position)),
            None => String::new(),
        }
    }

    /// The page's snapshot, with a poll cursor at its watermark.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            snapshot_as_of: self.as_of.clone(),
            snapshot_generation: self.generation.to_string(),
            poll_cursor: self.signed(Surface::ListCompanyEventChanges, Mode::Poll, None),
        }
    }
}
