//! ListCompanyEventChanges (SUPPLEMENT 4.6): the change feed a poll cursor follows. Current
//! revisions of the impacts the issuing list selected, after the cursor's keyset position,
//! oldest first, only once settled (changedAt ≤ now − 2 s); a snapshot generation that moved on
//! answers 200 SNAPSHOT_REQUIRED.

use poem::Request;
use sitrep_cm::{
    cursor::{Claims, CursorError, Expected, Mode, Surface, LIFETIME_MS},
    filters::FeedFilter,
    impacts::SETTLE_MS,
    records::PollState,
    store::Window,
};
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::Answer,
        error::ApiError,
        params::{Param, ParamKind},
        parse::parse_with,
    },
    registry::Operation,
};

use super::{
    company_monitoring,
    impact_list::{parse_position, position},
    listing::{cursor_secret, cursor_violation, PAGE_SIZE},
    model::ListCompanyEventChangesResponse,
    principal, records, scanned_get,
};

const CURSOR: Param = Param {
    name: "cursor",
    kind: ParamKind::Text { max_bytes: None },
    required: true,
    description: "A poll cursor: `snapshot.pollCursor` of a list, then each `nextCursor` of this operation.",
};

pub const PARAMS: &[Param] = &[CURSOR, PAGE_SIZE];

struct Query {
    cursor: String,
    page_size: usize,
}

pub async fn changes(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListCompanyEventChangesResponse> {
    let parsed = parse_with::<ListCompanyEventChangesResponse, _>(req, op, |q, v| {
        let cursor = CURSOR.raw(q).map(str::to_string);
        if cursor.is_none() {
            v.push("cursor", "value is required");
        }
        Query { cursor: cursor.unwrap_or_default(), page_size: PAGE_SIZE.int32(q, v).max(1) as usize }
    });
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let account = principal(req)?.account_id.as_str();
        let cm = company_monitoring(state);
        let secret = cursor_secret(state)?;
        let now = state.clock.now_ms();
        let generation = cm.store.generation(account).await.map_err(ApiError::internal)?;
        let expected = Expected {
            account_id: account,
            surface: Surface::ListCompanyEventChanges,
            mode: Mode::Poll,
            filter_hash: None,
            generation,
            now_ms: now,
        };
        let claims = match Claims::open(secret, &parsed.params.cursor, &expected) {
            Ok(claims) => claims,
            Err(CursorError::Generation) => {
                return Ok(ListCompanyEventChangesResponse {
                    impacts: Vec::new(),
                    next_cursor: String::new(),
                    poll_state: WireName(PollState::SnapshotRequired),
                })
            }
            Err(e) => return Err(cursor_violation(e)),
        };
        let payload_invalid = || cursor_violation(CursorError::Payload);
        let filter = claims.filters.as_ref().and_then(FeedFilter::from_canonical).ok_or_else(payload_invalid)?;
        let carried = claims.after_key.clone().zip(claims.after_id.clone());
        let after = match &carried {
            Some(p) => parse_position(p).map(|(k, id)| (k, Some(id)))?,
            // A list's poll cursor: the feed starts where its listing stopped showing changes.
            None => (records::epoch_ms(&claims.watermark).ok_or_else(payload_invalid)? - SETTLE_MS, None),
        };
        let impacts = if cm.settings.flags.publication {
            let window = Window::Oldest { after, until: now - SETTLE_MS };
            cm.store.impacts(account, &filter, window, parsed.params.page_size).await.map_err(ApiError::internal)?
        } else {
            Vec::new()
        };
        // The next poll starts after the last impact shown, or where this one started.
        let mut next = Claims { issued_at: now, expires_at: now + LIFETIME_MS, ..claims };
        if let Some(last) = impacts.last() {
            let (k, id) = position(last.changed_at, &last.impact_id);
            (next.after_key, next.after_id) = (Some(k), Some(id));
        }
        Ok(ListCompanyEventChangesResponse {
            impacts: impacts.into_iter().map(records::impact).collect(),
            next_cursor: next.sign(secret),
            poll_state: WireName(PollState::Current),
        })
    };
    scanned_get(state, req, parsed.jmespath.as_deref(), result.await)
}
