//! The one request-parsing step of every GET handler: the query read once into the operation's
//! parameters (every violation collected, reported in the order the operation declares its
//! parameters), then the jmespath expression's length checked before any query runs.

use chrono::{DateTime, Utc};
use poem::Request;
use poem_openapi::types::Type;

use super::{
    answer::check_jmespath_length,
    error::{ApiError, Violations},
    paged_list::QueryParams,
    params::{Param, RawQuery, AS_OF, JMESPATH},
};
use crate::{app_state::AppState, registry::Operation};

/// What a request asked: its parameters, its jmespath expression and, for an operation that
/// reads dataset versions, the past time it asks about.
pub struct Parsed<P> {
    pub params: P,
    pub jmespath: Option<String>,
    pub as_of: Option<DateTime<Utc>>,
}

/// The `as_of` of a request to `op`: read only where the operation reads dataset versions
/// (elsewhere it is an unknown parameter, ignored like any other).
pub fn as_of(op: &Operation, q: &RawQuery, v: &mut Violations) -> Option<DateTime<Utc>> {
    op.reads_versions().then(|| AS_OF.instant(q, v)).flatten()
}

/// Orders violations as the parameters are declared (an item of a repeated parameter,
/// `airlines[0]`, ranks with its parameter; a violation of no parameter comes last).
pub fn in_declared_order(mut v: Violations, params: &[Param]) -> Violations {
    let of =
        |field: &str, name: &str| field.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('['));
    let rank = |field: &str| params.iter().position(|p| of(field, &p.field())).unwrap_or(usize::MAX);
    v.0.sort_by_key(|x| rank(&x.field));
    v
}

/// `read`'s parameters of `req` for `op`, whose 200 body is a `T`; or the 400 answer (the
/// violations, or a jmespath expression over its limit).
pub fn parse_with<T: Type, P>(
    req: &Request,
    op: &'static Operation,
    read: impl FnOnce(&RawQuery, &mut Violations) -> P,
) -> Result<Parsed<P>, ApiError> {
    let query = RawQuery::of(req);
    let mut v = Violations::default();
    let params = read(&query, &mut v);
    let as_of = as_of(op, &query, &mut v);
    in_declared_order(v, op.params).into_result()?;
    let jmespath = JMESPATH.raw(&query);
    check_jmespath_length::<T>(jmespath)?;
    Ok(Parsed { params, jmespath: jmespath.map(str::to_string), as_of })
}

/// [`parse_with`] of a [`QueryParams`] type, with the deployment's defaults applied.
pub fn parse<P: QueryParams, T: Type>(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Result<Parsed<P>, ApiError> {
    parse_with::<T, P>(req, op, |q, v| {
        let mut params = P::parse(q, v);
        params.apply_deployment(state);
        params
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::params::ParamKind;

    #[test]
    fn violations_come_in_declared_order_with_items_beside_their_parameter() {
        let param = |name| Param { name, kind: ParamKind::Bool, required: false, description: "" };
        let declared = [param("origin"), param("airlines"), param("max_passengers")];
        let mut v = Violations::default();
        for field in ["maxPassengers", "start", "airlines[0]", "origin", "airlinesX"] {
            v.push(field, "bad");
        }
        let fields: Vec<String> = in_declared_order(v, &declared).0.into_iter().map(|x| x.field).collect();
        assert_eq!(fields, ["origin", "airlines[0]", "maxPassengers", "start", "airlinesX"]);
    }
}
