//! The dashboard's company-monitoring page (issue 28, flag `ui`): the account's companies with
//! their coverage, and the latest impacts. It reads through the operations themselves, in process
//! (`Dispatch`), as the signed-in key: the runtime gate, the key's scopes and the plan decide what
//! it may see, exactly as over REST.

use poem::{http::StatusCode, Response};
use serde_json::Value;
use sitrep_platform::{app_state::AppState, dispatch::Dispatch, state::Session};

use super::reads::{principal_of, read};
use crate::html::{cell, document, escape};

/// The enum's readable tail: `COMPANY_COVERAGE_STATE_AWAITING_FIRST_SCAN` → "awaiting first scan".
fn readable(value: &Value, prefix: &str) -> String {
    let s = value.as_str().unwrap_or_default();
    s.strip_prefix(prefix).unwrap_or(s).to_ascii_lowercase().replace('_', " ")
}

/// The page for `session`, or a page saying why there is none.
pub async fn page(dispatch: &Dispatch, state: &AppState, session: &Session) -> Response {
    let not_here = |why: &str| {
        document(
            StatusCode::NOT_FOUND,
            "Company monitoring — sitrep",
            &format!("<h1>Company monitoring</h1><p>{}</p><p><a href=\"/dashboard\">Dashboard</a></p>", escape(why)),
        )
    };
    let principal = principal_of(state, session).await;
    let status = match read(dispatch, state, &principal, "GetCompanyMonitoringStatus", "").await {
        Ok(status) => status,
        Err(too_many) => return too_many,
    };
    let shown = status.as_ref().is_some_and(|s| {
        s["accessState"] == "COMPANY_MONITORING_ACCESS_STATE_ENTITLED" && s["featureFlags"]["ui"] == true
    });
    if !shown {
        return not_here("Company monitoring pages are not available for this account on this deployment.");
    }
    let companies = match read(dispatch, state, &principal, "ListMonitoredCompanies", "page_size=100").await {
        Ok(Some(companies)) => companies,
        Ok(None) => {
            return not_here("Sign in with a key that may read company monitoring (scope company_monitoring:read).")
        }
        Err(too_many) => return too_many,
    };
    let impacts = match read(dispatch, state, &principal, "ListCompanyEventImpacts", "page_size=50").await {
        Ok(impacts) => impacts.unwrap_or_default(),
        Err(too_many) => return too_many,
    };
    let names: std::collections::HashMap<&str, &str> = companies["companies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["companyId"].as_str()?, c["name"].as_str()?)))
        .collect();
    let company_rows: String = companies["companies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "<tr>{}{}{}{}</tr>",
                cell("Company", &escape(c["name"].as_str().unwrap_or_default())),
                cell("State", &escape(&readable(&c["lifecycle"], "MONITORED_COMPANY_LIFECYCLE_"))),
                cell("Coverage", &escape(&readable(&c["coverage"], "COMPANY_COVERAGE_STATE_"))),
                cell("Observed", &escape(&readable(&c["observation"], "COMPANY_OBSERVATION_STATE_"))),
            )
        })
        .collect();
    let impact_rows: String = impacts["impacts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            let company = names.get(i["companyId"].as_str().unwrap_or_default()).copied().unwrap_or("(removed)");
            let url = i["canonicalUrl"].as_str().unwrap_or_default();
            let source = if url.starts_with("https://") {
                format!("<a href=\"{}\" rel=\"noopener noreferrer\">source</a>", escape(url))
            } else {
                String::new()
            };
            format!(
                "<tr>{}{}{}{}{}{}</tr>",
                cell("Company", &escape(company)),
                cell("Direction", &escape(&readable(&i["direction"], "MATERIAL_IMPACT_DIRECTION_"))),
                cell("Magnitude", &escape(&readable(&i["magnitude"], "MATERIAL_IMPACT_MAGNITUDE_"))),
                cell("State", &escape(&readable(&i["lifecycle"], "MATERIAL_IMPACT_LIFECYCLE_"))),
                cell("Occurred", &escape(i["occurredAt"].as_str().unwrap_or_default().get(..10).unwrap_or_default())),
                cell("Evidence", &source),
            )
        })
        .collect();
    let impacts_table = if impact_rows.is_empty() {
        "<p>No impacts yet.</p>".to_string()
    } else {
        format!(
            "<div class=\"table\"><table><thead><tr><th>Company</th><th>Direction</th><th>Magnitude</th><th>State</th>\
<th>Occurred</th><th>Evidence</th></tr></thead><tbody>{impact_rows}</tbody></table></div>"
        )
    };
    let body = format!(
        "<header><h1>Company monitoring</h1><a href=\"/dashboard\">Dashboard</a></header>\
<h2>Companies</h2><div class=\"table\"><table><thead><tr><th>Company</th><th>State</th><th>Coverage</th>\
<th>Observed</th></tr></thead><tbody>{company_rows}</tbody></table></div>\
<h2>Impacts</h2>{impacts_table}"
    );
    document(StatusCode::OK, "Company monitoring — sitrep", &body)
}
