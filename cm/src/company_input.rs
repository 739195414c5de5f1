//! The company input of CreateMonitoredCompany and ImportMonitoredCompanyBatch (SUPPLEMENT 4.3,
//! 4.4): validated and normalised from JSON, fingerprinted, and turned into the claims a new
//! company starts with.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::{
    records::{ClaimType, Domicile, WireEnum},
    violations::{is_numeric_enum, TextRule, Violations, NUMERIC_ENUM},
};

/// The documented pattern of a domain (violation descriptions quote it as written).
pub const DOMAIN_PATTERN: &str =
    r"^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$";

const NAME: TextRule = TextRule { max_bytes: 256, required: true };
const ALIAS: TextRule = TextRule { max_bytes: 256, required: true };
const DOMAIN: TextRule = TextRule { max_bytes: 253, required: true };
const IDENTIFIER: TextRule = TextRule { max_bytes: 512, required: true };
const LOCATION: TextRule = TextRule { max_bytes: 256, required: true };
const CUSTOMER_REFERENCE: TextRule = TextRule { max_bytes: 128, required: false };

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompanyInput {
    pub name: String,
    pub domicile: Domicile,
    pub aliases: Vec<String>,
    pub domains: Vec<String>,
    pub identifiers: Vec<String>,
    pub locations: Vec<String>,
    /// Empty when not given.
    pub customer_reference: String,
}

/// A claim a company is created with: its type and normalised value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClaim {
    pub kind: ClaimType,
    pub value: String,
}

/// A domain as 4.4 normalises it (lower case, no leading `www.`, no trailing dot), or the
/// violation's description.
pub fn normalise_domain(value: String) -> Result<String, String> {
    let lower = value.to_lowercase();
    let stripped = lower.strip_prefix("www.").unwrap_or(&lower);
    let stripped = stripped.strip_suffix('.').unwrap_or(stripped);
    // The documented pattern's look-ahead is the length check; `regex` has no look-ahead.
    static LABELS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$")
            .expect("a valid pattern")
    });
    if stripped.is_empty() || stripped.len() > 253 || !LABELS.is_match(stripped) {
        return Err(format!("string must match pattern {DOMAIN_PATTERN}"));
    }
    Ok(stripped.to_string())
}

/// The domicile enum of a request: the full name, or `US` / `GB` (case-insensitive, trimmed).
pub fn parse_domicile(field: &str, value: Option<&Value>, v: &mut Violations) -> Option<Domicile> {
    let text = match value {
        None | Some(Value::Null) => {
            v.push(field, "value is required");
            return None;
        }
        Some(x) if is_numeric_enum(x) => {
            v.push(field, NUMERIC_ENUM);
            return None;
        }
        Some(Value::String(s)) => s,
        Some(_) => {
            v.push(field, "value must be a string");
            return None;
        }
    };
    match Domicile::parse(text) {
        Some(Domicile::Unspecified) => {
            v.push(field, "value is required");
            None
        }
        Some(d) => Some(d),
        None => {
            v.push(field, "enum value must be defined");
            None
        }
    }
}

impl CompanyInput {
    /// Validates `value` found at `path` (`company`, `rows[3].company`): the input, or its
    /// violations pushed in field order.
    pub fn parse(path: &str, value: Option<&Value>, v: &mut Violations) -> Option<CompanyInput> {
        let object = v.object(path, value)?;
        let before = v.0.len();
        let field = |name: &str| format!("{path}.{name}");
        let name = v.text(&field("name"), object.get("name"), NAME);
        let domicile = parse_domicile(&field("domicileCountry"), object.get("domicileCountry"), v);
        let aliases = v.text_list(&field("aliases"), object.get("aliases"), 20, ALIAS, Ok);
        let domains = v.text_list(&field("domains"), object.get("domains"), 10, DOMAIN, normalise_domain);
        let identifiers = v.text_list(&field("identifiers"), object.get("identifiers"), 20, IDENTIFIER, Ok);
        let locations = v.text_list(&field("locations"), object.get("locations"), 20, LOCATION, Ok);
        let customer_reference =
            v.text(&field("customerReference"), object.get("customerReference"), CUSTOMER_REFERENCE);
        if v.0.len() > before {
            return None;
        }
        Some(CompanyInput {
            name: name?,
            domicile: domicile?,
            aliases,
            domains,
            identifiers,
            locations,
            customer_reference: customer_reference?,
        })
    }

    /// The normalised input as canonical JSON (keys sorted, no insignificant whitespace): what
    /// fingerprints and import-size limits are computed over.
    pub fn canonical(&self) -> Value {
        let mut m = Map::new();
        m.insert("aliases".into(), json!(self.aliases));
        m.insert("customerReference".into(), json!(self.customer_reference));
        m.insert("domains".into(), json!(self.domains));
        m.insert("domicileCountry".into(), json!(self.domicile.full_name()));
        m.insert("identifiers".into(), json!(self.identifiers));
        m.insert("locations".into(), json!(self.locations));
        m.insert("name".into(), json!(self.name));
        Value::Object(m)
    }

    /// SHA-256 (hex) of the canonical JSON: a create's replay fingerprint.
    pub fn fingerprint(&self) -> String {
        fingerprint_of(&self.canonical())
    }

    /// The claims a company created from this input starts with (4.4): an ALIAS for the name and
    /// each alias (once each), a DOMAIN per domain, a LEGAL_IDENTIFIER per identifier, a
    /// LOCATION per location and the CUSTOMER_REFERENCE when given.
    pub fn claims(&self) -> Vec<NewClaim> {
        let mut claims = vec![NewClaim { kind: ClaimType::Alias, value: self.name.clone() }];
        for alias in &self.aliases {
            if !claims.iter().any(|c| c.value == *alias) {
                claims.push(NewClaim { kind: ClaimType::Alias, value: alias.clone() });
            }
        }
        for (kind, values) in [
            (ClaimType::Domain, &self.domains),
            (ClaimType::LegalIdentifier, &self.identifiers),
            (ClaimType::Location, &self.locations),
        ] {
            claims.extend(values.iter().map(|v| NewClaim { kind, value: v.clone() }));
        }
        if !self.customer_reference.is_empty() {
            claims.push(NewClaim { kind: ClaimType::CustomerReference, value: self.customer_reference.clone() });
        }
        claims
    }
}

/// SHA-256 (hex) of a JSON value serialised compactly (its keys already in canonical order).
pub fn fingerprint_of(canonical: &Value) -> String {
    hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<CompanyInput, Vec<(String, String)>> {
        let mut v = Violations::default();
        CompanyInput::parse("company", Some(&value), &mut v)
            .ok_or_else(|| v.0.into_iter().map(|x| (x.field, x.description)).collect())
    }

    #[test]
    fn normalises_lists_and_fingerprints_the_meaning() {
        let a = parse(json!({"name": " Ashgrove  Pharma ", "domicileCountry": "gb",
            "aliases": ["Ashgrove", "Ashgrove", "AGP"], "domains": ["WWW.Ashgrove.example.", "ashgrove.example"]}))
        .unwrap();
        assert_eq!(a.name, "Ashgrove Pharma");
        assert_eq!(a.domicile, Domicile::Gb);
        assert_eq!(a.aliases, ["AGP", "Ashgrove"]);
        assert_eq!(a.domains, ["ashgrove.example"]);
        let b = parse(json!({"name": "Ashgrove Pharma", "domicileCountry": "DOMICILE_COUNTRY_GB",
            "aliases": ["AGP", "Ashgrove"], "domains": ["ashgrove.example"], "customerReference": ""}))
        .unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
        let kinds: Vec<_> = a.claims().iter().map(|c| (c.kind, c.value.clone())).collect();
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        assert_eq!(kinds[0], (ClaimType::Alias, "Ashgrove Pharma".into()));
        assert_eq!(kinds[3], (ClaimType::Domain, "ashgrove.example".into()));
    }

    #[test]
    fn reports_every_violation_in_field_order() {
        let e = parse(json!({"name": "", "domicileCountry": 1, "aliases": ["ok", "\u{200B}"],
            "domains": ["https://acme.example/x", "a".repeat(254)], "customerReference": "r".repeat(129)}))
        .unwrap_err();
        let pattern = format!("string must match pattern {DOMAIN_PATTERN}");
        assert_eq!(
            e,
            [
                ("company.name".into(), "value is required".into()),
                ("company.domicileCountry".into(), NUMERIC_ENUM.into()),
                ("company.aliases[1]".into(), "string must not contain control or invisible characters".into()),
                ("company.domains[0]".into(), pattern),
                ("company.domains[1]".into(), "string UTF-8 length must be at most 253 bytes".into()),
                ("company.customerReference".into(), "string UTF-8 length must be at most 128 bytes".into()),
            ]
            .map(|(f, d): (String, String)| (f, d))
        );
    }

    #[test]
    fn domicile_accepts_full_names_and_the_two_codes_only() {
        for (raw, want) in
            [(" us ", Some(Domicile::Us)), ("DOMICILE_COUNTRY_US", Some(Domicile::Us)), ("GB", Some(Domicile::Gb))]
        {
            let mut v = Violations::default();
            assert_eq!(parse_domicile("d", Some(&json!(raw)), &mut v), want, "{raw}");
        }
        for (raw, description) in [
            (json!("FR"), "enum value must be defined"),
            (json!("DOMICILE_COUNTRY_UNSPECIFIED"), "value is required"),
            (json!("2"), NUMERIC_ENUM),
            (json!(true), "value must be a string"),
        ] {
            let mut v = Violations::default();
            assert_eq!(parse_domicile("d", Some(&raw), &mut v), None);
            assert_eq!(v.0[0].description, description, "{raw}");
        }
    }

    #[test]
    fn list_limits() {
        let e = parse(json!({"name": "A", "domicileCountry": "US", "domains": vec!["a.example"; 11],
            "aliases": "Acme"}))
        .unwrap_err();
        assert_eq!(e[0], ("company.aliases".into(), "value must be an array".into()));
        assert_eq!(e[1], ("company.domains".into(), "array must contain at most 10 item(s)".into()));
    }
}
