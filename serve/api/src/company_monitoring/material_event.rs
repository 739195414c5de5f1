//! GetCompanyMaterialEvent (SUPPLEMENT 4.6): an impact with its event and bounded evidence.

use poem::Request;
use sitrep_cm::ids::Kind;
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

use super::{company_monitoring, errors, model::GetCompanyMaterialEventResponse, principal, records, scanned_get};

const IMPACT_ID: Param = Param {
    name: "impact_id",
    kind: ParamKind::Checked {
        min_chars: 1,
        max_chars: 64,
        pattern: Some((Kind::Impact.pattern(), |s| Kind::Impact.matches(s))),
    },
    required: true,
    description: "An impactId: `cm_impact_` and 26 Crockford base32 characters.",
};

pub const PARAMS: &[Param] = &[IMPACT_ID];

pub async fn get(state: &AppState, req: &Request, op: &'static Operation) -> Answer<GetCompanyMaterialEventResponse> {
    let parsed = match parse_with::<GetCompanyMaterialEventResponse, _>(req, op, |q, v| IMPACT_ID.checked(q, v)) {
        Ok(p) => p,
        Err(e) => return e.into(),
    };
    let result = async {
        let account = principal(req)?.account_id.as_str();
        let cm = company_monitoring(state);
        // With publication off, impacts, events and evidence are hidden (4.1).
        if !cm.settings.flags.publication {
            return Err(errors::impact_not_found());
        }
        let impact_id = parsed.params.as_deref().unwrap_or_default();
        let Some(shown) = cm.store.material_event(account, impact_id).await.map_err(ApiError::internal)? else {
            return Err(errors::impact_not_found());
        };
        let total = i32::try_from(shown.evidence_total).unwrap_or(i32::MAX);
        Ok(GetCompanyMaterialEventResponse {
            event: records::event(shown.event, &shown.impact),
            evidence_truncated: shown.evidence_total > shown.evidence.len() as i64,
            evidence: shown.evidence.into_iter().map(records::evidence).collect(),
            evidence_total_count: total,
            impact: records::impact(shown.impact),
        })
    };
    scanned_get(state, req, parsed.jmespath.as_deref(), result.await)
}
