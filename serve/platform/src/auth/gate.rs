//! An operation's access rule applied to the resolved principal: PRO gating (SUPPLEMENT 1.11),
//! suspension and lapse (1.10), company-monitoring scopes and entitlement (4.1). Runs before
//! validation, so an unentitled caller never sees a 400.

use super::Principal;
use sitrep_schemas::DatasetId;

use crate::{
    kit::error::ApiError,
    registry::{Access, Operation},
    state::Standing,
};

/// `Ok` when `principal` may call an operation with `access`. `missing` builds the 401 for a
/// request that sent no credential.
pub fn gate(access: Access, principal: Option<&Principal>, missing: impl FnOnce() -> ApiError) -> Result<(), ApiError> {
    let Some(p) = principal else {
        return if access.needs_credential() { Err(missing()) } else { Ok(()) };
    };
    if p.standing == Standing::Suspended {
        return Err(ApiError::Suspended);
    }
    let lapsed = p.standing == Standing::Lapsed;
    match access {
        Access::Public | Access::Subscription | Access::CmStatus => Ok(()),
        Access::Pro if !p.plan.has_pro_data() => {
            Err(ApiError::ProRequired { current_tier: p.plan.tier(), plan_key: p.plan.as_str() })
        }
        Access::Pro if lapsed => Err(ApiError::Lapsed { plan_key: p.plan.as_str() }),
        Access::Pro => Ok(()),
        Access::CmRead | Access::CmWrite => {
            let scope = if access == Access::CmRead { "company_monitoring:read" } else { "company_monitoring:write" };
            if !p.scopes.iter().any(|s| s == scope) {
                return Err(ApiError::InsufficientScope { scope });
            }
            if !p.plan.has_company_monitoring() || lapsed {
                return Err(ApiError::CmAccessDenied { lapsed: lapsed && p.plan.has_company_monitoring() });
            }
            Ok(())
        }
    }
}

/// `Ok` when `principal` may call `op` with `dataset_named` (the value of its dataset parameter,
/// if it declares one): the operation's own rule, then what the named dataset's own operations
/// ask. Every surface that reaches a handler (REST and batch through the edge, MCP's tool calls)
/// asks through here, so access follows the data whatever the door. An unknown name asks nothing
/// more (it is the handler's 400).
pub fn admit(
    op: &Operation,
    dataset_access: impl Fn(DatasetId) -> Access,
    dataset_named: Option<&str>,
    principal: Option<&Principal>,
    missing: impl Fn() -> ApiError,
) -> Result<(), ApiError> {
    gate(op.access, principal, &missing)?;
    match dataset_named.and_then(|name| name.parse::<DatasetId>().ok()) {
        Some(dataset) if op.dataset_param.is_some() => gate(dataset_access(dataset), principal, &missing),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Plan;

    fn principal(plan: Plan, standing: Standing, scopes: &[&str]) -> Principal {
        Principal {
            account_id: "a".into(),
            key_id: "k".into(),
            plan,
            standing,
            scopes: scopes.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn outcome(access: Access, p: Option<&Principal>) -> String {
        match gate(access, p, || ApiError::NotFound) {
            Ok(()) => "ok".into(),
            Err(ApiError::NotFound) => "401".into(),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn pro_gating_in_the_documented_order() {
        let free = principal(Plan::Free, Standing::Active, &["mcp"]);
        let pro = principal(Plan::Pro, Standing::Active, &["mcp"]);
        let lapsed_pro = principal(Plan::Pro, Standing::Lapsed, &["mcp"]);
        let lapsed_free = principal(Plan::Free, Standing::Lapsed, &["mcp"]);
        let suspended = principal(Plan::Business, Standing::Suspended, &["mcp"]);
        assert_eq!(outcome(Access::Pro, None), "401");
        assert_eq!(outcome(Access::Pro, Some(&suspended)), "Suspended");
        assert_eq!(outcome(Access::Pro, Some(&free)), "ProRequired { current_tier: 0, plan_key: \"free\" }");
        assert_eq!(outcome(Access::Pro, Some(&lapsed_free)), "ProRequired { current_tier: 0, plan_key: \"free\" }");
        assert_eq!(outcome(Access::Pro, Some(&lapsed_pro)), "Lapsed { plan_key: \"pro\" }");
        assert_eq!(outcome(Access::Pro, Some(&pro)), "ok");
        // Free-level operations keep working for lapsed accounts; suspension refuses everything.
        assert_eq!(outcome(Access::Subscription, Some(&lapsed_pro)), "ok");
        assert_eq!(outcome(Access::Subscription, None), "401");
        assert_eq!(outcome(Access::Subscription, Some(&suspended)), "Suspended");
        assert_eq!(outcome(Access::Public, None), "ok");
        assert_eq!(outcome(Access::Public, Some(&suspended)), "Suspended");
    }

    #[test]
    fn company_monitoring_scopes_then_entitlement() {
        let biz_read = principal(Plan::Business, Standing::Active, &["mcp", "company_monitoring:read"]);
        let biz_lapsed = principal(Plan::Business, Standing::Lapsed, &["company_monitoring:read"]);
        let pro_read = principal(Plan::Pro, Standing::Active, &["company_monitoring:read"]);
        assert_eq!(outcome(Access::CmRead, Some(&biz_read)), "ok");
        // Write does not follow from read.
        assert_eq!(
            outcome(Access::CmWrite, Some(&biz_read)),
            "InsufficientScope { scope: \"company_monitoring:write\" }"
        );
        assert_eq!(outcome(Access::CmRead, Some(&pro_read)), "CmAccessDenied { lapsed: false }");
        assert_eq!(outcome(Access::CmRead, Some(&biz_lapsed)), "CmAccessDenied { lapsed: true }");
        // The status operation only needs a valid credential.
        assert_eq!(outcome(Access::CmStatus, Some(&pro_read)), "ok");
        assert_eq!(outcome(Access::CmStatus, None), "401");
    }

    /// What reaches a dataset asks that dataset's access, whichever operation names it.
    #[test]
    fn a_named_dataset_asks_its_own_access() {
        use crate::kit::params::{Param, ParamKind};
        const DATASET: Param =
            Param { name: "dataset", kind: ParamKind::Text { max_bytes: None }, required: true, description: "" };
        static NAMES: Operation = Operation { dataset_param: Some(DATASET), ..Operation::GET };
        static PLAIN: Operation = Operation::GET;
        let pro_only = |d: DatasetId| if d == DatasetId::AIRPORT_FLIGHTS { Access::Pro } else { Access::Subscription };
        let free = principal(Plan::Free, Standing::Active, &["mcp"]);
        let admitted = |op: &Operation, named: Option<&str>| {
            admit(op, pro_only, named, Some(&free), || ApiError::NotFound).map_err(|e| format!("{e:?}"))
        };
        assert!(admitted(&NAMES, Some("airport-flights")).unwrap_err().starts_with("ProRequired"));
        assert_eq!(admitted(&NAMES, Some("armed-events")), Ok(()));
        assert_eq!(admitted(&NAMES, Some("no-such-dataset")), Ok(()), "the handler's 400");
        assert_eq!(admitted(&PLAIN, Some("airport-flights")), Ok(()), "an operation naming no dataset");
    }
}
