//! UpdateMonitoredCompany's patch (SUPPLEMENT 4.3, 4.4): validated and normalised from JSON.

use serde_json::Value;

use crate::{
    company_input::{normalise_domain, parse_domicile, NewClaim},
    ids::Kind,
    records::{ClaimType, Domicile},
    violations::{TextRule, Violations},
};

/// Claims a company may hold at most, and a patch may add or remove at most.
pub const MAX_CLAIMS: usize = 81;

const NAME: TextRule = TextRule { max_bytes: 256, required: true };
const CUSTOMER_REFERENCE: TextRule = TextRule { max_bytes: 128, required: false };
const CLAIM_VALUE: TextRule = TextRule { max_bytes: 512, required: true };

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patch {
    pub name: Option<String>,
    /// `Some("")`: the reference is removed.
    pub customer_reference: Option<String>,
    pub domicile: Option<Domicile>,
    pub add_claims: Vec<NewClaim>,
    pub remove_claim_ids: Vec<String>,
}

/// A claim type to add: any but CUSTOMER_REFERENCE, which only `customerReference` sets.
fn claim_type(field: &str, value: Option<&Value>, v: &mut Violations) -> Option<ClaimType> {
    match v.request_enum::<ClaimType>(field, value) {
        Some(ClaimType::CustomerReference) => {
            v.push(field, "enum value must not be COMPANY_CLAIM_TYPE_CUSTOMER_REFERENCE");
            None
        }
        other => other,
    }
}

fn array<'a>(field: &str, value: Option<&'a Value>, v: &mut Violations) -> &'a [Value] {
    match value {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) if items.len() > MAX_CLAIMS => {
            v.push(field, format!("array must contain at most {MAX_CLAIMS} item(s)"));
            &[]
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            v.push(field, "value must be an array");
            &[]
        }
    }
}

impl Patch {
    /// Validates the patch found at `path`: the patch, or its violations pushed in field order.
    pub fn parse(path: &str, value: Option<&Value>, v: &mut Violations) -> Option<Patch> {
        let object = v.object(path, value)?;
        let before = v.0.len();
        let field = |name: &str| format!("{path}.{name}");
        let name = match object.get("name") {
            None | Some(Value::Null) => None,
            some => v.text(&field("name"), some, NAME),
        };
        let customer_reference = match object.get("customerReference") {
            None | Some(Value::Null) => None,
            some => v.text(&field("customerReference"), some, CUSTOMER_REFERENCE),
        };
        let domicile = match object.get("domicileCountry") {
            None | Some(Value::Null) => None,
            some => parse_domicile(&field("domicileCountry"), some, v),
        };
        let mut add_claims = Vec::new();
        for (i, item) in array(&field("addClaims"), object.get("addClaims"), v).iter().enumerate() {
            let at = format!("{}[{i}]", field("addClaims"));
            let Some(claim) = item.as_object() else {
                v.push(&at, "value must be an object");
                continue;
            };
            let kind = claim_type(&format!("{at}.type"), claim.get("type"), v);
            let value = v.text(&format!("{at}.value"), claim.get("value"), CLAIM_VALUE);
            let (Some(kind), Some(value)) = (kind, value) else { continue };
            let value = if kind == ClaimType::Domain {
                match normalise_domain(value) {
                    Ok(d) => d,
                    Err(description) => {
                        v.push(format!("{at}.value"), description);
                        continue;
                    }
                }
            } else {
                value
            };
            add_claims.push(NewClaim { kind, value });
        }
        let mut remove_claim_ids = Vec::new();
        for (i, item) in array(&field("removeClaimIds"), object.get("removeClaimIds"), v).iter().enumerate() {
            let at = format!("{}[{i}]", field("removeClaimIds"));
            match item {
                Value::String(s) if Kind::Claim.matches(s) => remove_claim_ids.push(s.clone()),
                Value::String(_) => v.push(at, format!("string must match pattern {}", Kind::Claim.pattern())),
                _ => v.push(at, "value must be a string"),
            }
        }
        remove_claim_ids.sort();
        remove_claim_ids.dedup();
        (v.0.len() == before).then_some(Patch { name, customer_reference, domicile, add_claims, remove_claim_ids })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> Result<Patch, Vec<(String, String)>> {
        let mut v = Violations::default();
        Patch::parse("patch", Some(&value), &mut v)
            .ok_or_else(|| v.0.into_iter().map(|x| (x.field, x.description)).collect())
    }

    #[test]
    fn normalises_and_refuses_per_field() {
        let p = parse(json!({"name": " New  Name ", "customerReference": "", "domicileCountry": "gb",
            "addClaims": [{"type": "COMPANY_CLAIM_TYPE_DOMAIN", "value": "WWW.New.example."}],
            "removeClaimIds": ["cm_claim_01ARZ3NDEKTSV4RRFFQ69G5FAV"]}))
        .unwrap();
        assert_eq!(p.name.as_deref(), Some("New Name"));
        assert_eq!(p.customer_reference.as_deref(), Some(""), "an empty reference removes it");
        assert_eq!(p.domicile, Some(Domicile::Gb));
        assert_eq!(p.add_claims, [NewClaim { kind: ClaimType::Domain, value: "new.example".into() }]);
        let e =
            parse(json!({"name": "", "addClaims": [{"type": "COMPANY_CLAIM_TYPE_CUSTOMER_REFERENCE", "value": "x"},
            {"type": 3, "value": "y"}], "removeClaimIds": ["cm_company_01ARZ3NDEKTSV4RRFFQ69G5FAV"]}))
            .unwrap_err();
        let fields: Vec<&str> = e.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            ["patch.name", "patch.addClaims[0].type", "patch.addClaims[1].type", "patch.removeClaimIds[0]"]
        );
        assert_eq!(e[1].1, "enum value must not be COMPANY_CLAIM_TYPE_CUSTOMER_REFERENCE");
        assert_eq!(parse(json!({})).unwrap(), Patch::default());
    }
}
