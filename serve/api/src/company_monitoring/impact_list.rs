//! ListCompanyEventImpacts (SUPPLEMENT 4.6): the account's current impacts, newest change
//! first, at a snapshot boundary; keyset positions are (changedAt, impactId).

use poem::Request;
use sitrep_cm::{
    cursor::{CursorError, Surface},
    filters::{FeedFilter, ImpactFilter},
    ids::Kind,
    impacts::SETTLE_MS,
    records::{Direction, ImpactLifecycle},
    store::Window,
};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::Answer,
        error::{ApiError, Violations},
        params::{Param, ParamKind, RawQuery},
        parse::parse_with,
    },
    registry::Operation,
};

use super::{
    company_monitoring,
    listing::{cursor_violation, enum_filter, Boundary, CURSOR, PAGE_SIZE},
    model::ListCompanyEventImpactsResponse,
    principal, records, scanned_get,
};

const COMPANY_IDS: Param = Param {
    name: "company_id",
    kind: ParamKind::Repeated { max_items: 100 },
    required: false,
    description: "Repeated (at most 100): companyIds, `cm_company_` and 26 Crockford base32 characters.",
};

const DIRECTION: Param = Param {
    name: "direction",
    kind: ParamKind::Repeated { max_items: 3 },
    required: false,
    description: "Repeated: positive, negative, mixed (or MATERIAL_IMPACT_DIRECTION_<UPPER>); default any.",
};

const LIFECYCLE: Param = Param {
    name: "lifecycle",
    kind: ParamKind::Repeated { max_items: 3 },
    required: false,
    description: "Repeated: admitted, corrected, retracted (or MATERIAL_IMPACT_LIFECYCLE_<UPPER>); default all.",
};

pub const PARAMS: &[Param] = &[COMPANY_IDS, DIRECTION, LIFECYCLE, PAGE_SIZE, CURSOR];

/// The company ids filter: each well formed, de-duplicated and sorted.
fn company_ids(q: &RawQuery, v: &mut Violations) -> Vec<String> {
    let mut ids = Vec::new();
    for (i, id) in COMPANY_IDS.repeated(q, v).into_iter().enumerate() {
        if Kind::Company.matches(&id) {
            ids.push(id);
        } else {
            v.push(
                &format!("{}[{i}]", COMPANY_IDS.field()),
                format!("string must match pattern {}", Kind::Company.pattern()),
            );
        }
    }
    ids.sort();
    ids.dedup();
    ids
}

/// A keyset position as cursors carry it: changedAt in decimal, and the impactId.
pub fn position(changed_at: i64, impact_id: &str) -> (String, String) {
    (changed_at.to_string(), impact_id.to_string())
}

/// A carried position back (a signed cursor that holds another shape is an invalid payload).
pub fn parse_position((key, id): &(String, String)) -> Result<(i64, &str), ApiError> {
    key.parse().map(|k| (k, id.as_str())).map_err(|_| cursor_violation(CursorError::Payload))
}

struct Query {
    filter: ImpactFilter,
    page_size: usize,
    cursor: Option<String>,
}

pub async fn list(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListCompanyEventImpactsResponse> {
    let parsed = parse_with::<ListCompanyEventImpactsResponse, _>(req, op, |q, v| Query {
        filter: ImpactFilter {
            company_ids: company_ids(q, v),
            directions: enum_filter::<Direction>(&DIRECTION, q, v),
            lifecycles: enum_filter::<ImpactLifecycle>(&LIFECYCLE, q, v),
        },
        page_size: PAGE_SIZE.int32(q, v).max(1) as usize,
        cursor: CURSOR.raw(q).map(str::to_string),
    });
    let parsed = match parsed {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let account = principal(req)?.account_id.as_str();
        let query = &parsed.params;
        let feed = FeedFilter::Impacts(query.filter.clone());
        let boundary =
            Boundary::open(state, account, Surface::ListCompanyEventImpacts, &feed, query.cursor.as_deref()).await?;
        let cm = company_monitoring(state);
        let mut impacts = if cm.settings.flags.publication {
            let after = boundary.after.as_ref().map(parse_position).transpose()?;
            // Settled changes only; the poll cursor's feed starts after them.
            let window = Window::Newest { as_of: boundary.as_of_ms - SETTLE_MS, after };
            // One more than the page: whether another page follows.
            let fetched = cm.store.impacts(account, &feed, window, query.page_size + 1);
            fetched.await.map_err(ApiError::internal)?
        } else {
            Vec::new()
        };
        let more = impacts.len() > query.page_size;
        impacts.truncate(query.page_size);
        let last = impacts.last().filter(|_| more).map(|i| position(i.changed_at, &i.impact_id));
        Ok::<_, ApiError>(ListCompanyEventImpactsResponse {
            next_cursor: boundary.next_cursor(last),
            snapshot: boundary.snapshot(),
            impacts: impacts.into_iter().map(records::impact).collect(),
        })
    };
    scanned_get(state, req, parsed.jmespath.as_deref(), result.await)
}
