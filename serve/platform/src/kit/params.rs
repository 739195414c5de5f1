//! Query parameters, declared once: a [`Param`] names a parameter, its kind and its range, and the
//! same declaration parses the raw value into the exact violation messages of SUPPLEMENT 1.2–1.4,
//! documents it in the OpenAPI document and in the MCP tool's input schema.

use std::borrow::Cow;

use serde_json::{json, Value};

use super::error::Violations;

pub use sitrep_lake::AS_OF_PATTERN;

#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// int32; absent or 0 = `default`; otherwise `min..=max`.
    Int32 { min: i32, max: i32, default: i32 },
    /// int64 epoch milliseconds as a decimal string, ≥ 0.
    EpochMs,
    /// Optional ISO 3166-1 alpha-2 filter, any case (normalised to upper case).
    Country,
    /// Required upper-case alpha-2 code from API.md 4.6's fixed list.
    CountryCode,
    /// A dataset cursor (SUPPLEMENT 1.7's format; checked by `cursor::decode`).
    Cursor,
    /// A free string.
    Text { max_bytes: Option<usize> },
    /// A string checked by character length and, optionally, a pattern (`check` implements the
    /// documented regex `pattern`).
    Checked { min_chars: usize, max_chars: usize, pattern: Option<Pattern> },
    /// A repeated string parameter (`?entities=a&entities=b`), at most `max_items` values.
    Repeated { max_items: usize },
    /// A boolean: `true`/`1` or `false`/`0` (any case); empty = false.
    Bool,
    /// A closed set of strings (exact): `value must be one of A, B, C`.
    OneOf { values: &'static [&'static str] },
    /// A double in `min..=max` (coordinates); no default, 0 is a value.
    Double { min: f64, max: f64 },
    /// An instant: RFC 3339 or epoch milliseconds ([`sitrep_lake::parse_as_of`]).
    Instant,
    /// A proto enum (SUPPLEMENT 1.2): the full name (`FLIGHT_DIRECTION_ARRIVAL`) or the upper-case
    /// suffix (`ARRIVAL`); `<prefix>_UNSPECIFIED` is "not set". `values` are the suffixes.
    Enum { prefix: &'static str, values: &'static [&'static str] },
}

/// A documented regex and the function that checks it (no regex engine at request time).
pub type Pattern = (&'static str, fn(&str) -> bool);

#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    pub required: bool,
    pub description: &'static str,
}

/// `page_size` of the dataset lists (SUPPLEMENT 1.6).
pub const PAGE_SIZE: Param = Param {
    name: "page_size",
    kind: ParamKind::Int32 { min: 1, max: 100, default: 100 },
    required: false,
    description: "Rows per page, 1–100; 0 or absent = 100.",
};

pub const CURSOR: Param = Param {
    name: "cursor",
    kind: ParamKind::Cursor,
    required: false,
    description: "Dataset cursor from `pagination.nextCursor`; pins the dataset version of the first page.",
};

/// Added to every GET by the pipeline (API.md 1 rule 4).
pub const JMESPATH: Param = Param {
    name: "jmespath",
    kind: ParamKind::Text { max_bytes: Some(super::jmes::MAX_EXPRESSION_BYTES) },
    required: false,
    description: "JMESPath projection of the response (at most 1024 UTF-8 bytes; output at most 256 KB).",
};

/// Added by the pipeline to every GET that answers from dataset versions (issue 31).
pub const AS_OF: Param = Param {
    name: "as_of",
    kind: ParamKind::Instant,
    required: false,
    description: "Answer as of a past time (RFC 3339 or epoch milliseconds): each dataset at its newest retained version published at or before it. Before the oldest retained version: 400; later than the current version: the current answer.",
};

impl Param {
    /// The violation `field`: the camelCase form of the name (`page_size` → `pageSize`).
    pub fn field(&self) -> Cow<'static, str> {
        if !self.name.contains('_') {
            return Cow::Borrowed(self.name);
        }
        let mut out = String::with_capacity(self.name.len());
        let mut upper = false;
        for c in self.name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    }

    /// The raw value, with "empty = absent" applied.
    pub fn raw<'q>(&self, q: &'q RawQuery) -> Option<&'q str> {
        q.first(self.name)
    }

    /// An int32 parameter with "absent or 0 = default" and its inclusive range.
    pub fn int32(&self, q: &RawQuery, v: &mut Violations) -> i32 {
        let ParamKind::Int32 { min, max, default } = self.kind else {
            unreachable!("{} is not an int32 parameter", self.name)
        };
        let Some(s) = self.raw(q) else { return default };
        let n = match parse_int(s) {
            Ok(n) => n,
            Err(msg) => {
                v.push(&self.field(), msg);
                return default;
            }
        };
        if n == 0 {
            return default;
        }
        if n < min as i64 {
            v.push(&self.field(), format!("number must be greater than or equal to {min}"));
            default
        } else if n > max as i64 {
            v.push(&self.field(), format!("number must be less than or equal to {max}"));
            default
        } else {
            n as i32
        }
    }

    /// An int64 epoch-ms decimal string, ≥ 0.
    pub fn epoch_ms(&self, q: &RawQuery, v: &mut Violations) -> Option<i64> {
        let s = self.raw(q)?;
        let digits = s.strip_prefix('-').unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            v.push(&self.field(), "value must be a base-10 integer string");
            return None;
        }
        match s.parse::<i64>() {
            Ok(n) if n < 0 => {
                v.push(&self.field(), "number must be greater than or equal to 0");
                None
            }
            Ok(n) => Some(n),
            Err(_) => {
                v.push(&self.field(), "value must be a base-10 integer string");
                None
            }
        }
    }

    /// An instant parameter (RFC 3339 or epoch milliseconds).
    pub fn instant(&self, q: &RawQuery, v: &mut Violations) -> Option<chrono::DateTime<chrono::Utc>> {
        let s = self.raw(q)?;
        let at = sitrep_lake::parse_as_of(s);
        if at.is_none() {
            v.push(&self.field(), "value must be an RFC 3339 time or epoch milliseconds");
        }
        at
    }

    /// An optional alpha-2 filter, normalised to upper case.
    pub fn country(&self, q: &RawQuery, v: &mut Violations) -> Option<String> {
        let s = self.raw(q)?;
        if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
            v.push(&self.field(), "string must match pattern ^[A-Za-z]{2}$");
            return None;
        }
        Some(s.to_ascii_uppercase())
    }

    /// A required code of API.md 4.6's fixed list (exact case).
    pub fn country_code(&self, q: &RawQuery, v: &mut Violations) -> Option<String> {
        let field = self.field();
        match self.raw(q) {
            None => v.push(&field, "value is required"),
            Some(c) if c.chars().count() != 2 => v.push(&field, "string length must be exactly 2"),
            Some(c) if !c.bytes().all(|b| b.is_ascii_uppercase()) => {
                v.push(&field, "string must match pattern ^[A-Z]{2}$")
            }
            Some(c) if !sitrep_schemas::countries::is_api_country_code(c) => {
                v.push(&field, "enum value must be defined")
            }
            Some(c) => return Some(c.to_string()),
        }
        None
    }

    /// A [`ParamKind::Checked`] string: `value is required` when required and absent, else the
    /// length messages, then the pattern (skipped when a length rule already failed, SUPPLEMENT 1.4).
    pub fn checked(&self, q: &RawQuery, v: &mut Violations) -> Option<String> {
        let ParamKind::Checked { min_chars, max_chars, pattern } = self.kind else {
            unreachable!("{} is not a checked string parameter", self.name)
        };
        let field = self.field();
        let Some(s) = self.raw(q) else {
            if self.required {
                v.push(&field, "value is required");
            }
            return None;
        };
        let n = s.chars().count();
        if n < min_chars {
            v.push(&field, format!("string length must be at least {min_chars}"));
        } else if n > max_chars {
            v.push(&field, format!("string length must be at most {max_chars}"));
        } else if let Some((regex, _)) = pattern.filter(|(_, check)| !check(s)) {
            v.push(&field, format!("string must match pattern {regex}"));
        } else {
            return Some(s.to_string());
        }
        None
    }

    /// A closed-set parameter's value, or `None` when absent.
    pub fn one_of(&self, q: &RawQuery, v: &mut Violations) -> Option<&'static str> {
        let ParamKind::OneOf { values } = self.kind else {
            unreachable!("{} is not a closed-set parameter", self.name)
        };
        let s = self.raw(q)?;
        let found = values.iter().find(|v| **v == s).copied();
        if found.is_none() {
            v.push(&self.field(), format!("value must be one of {}", values.join(", ")));
        }
        found
    }

    /// A boolean parameter (SUPPLEMENT 1.2); absent = false.
    pub fn boolean(&self, q: &RawQuery, v: &mut Violations) -> bool {
        let Some(s) = self.raw(q) else { return false };
        match s.to_ascii_lowercase().as_str() {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => {
                v.push(&self.field(), "value must be a boolean");
                false
            }
        }
    }

    /// A double parameter: `value must be a finite number`, then the range.
    pub fn double(&self, q: &RawQuery, v: &mut Violations) -> Option<f64> {
        let ParamKind::Double { min, max } = self.kind else { unreachable!("{} is not a double parameter", self.name) };
        let s = self.raw(q)?;
        let field = self.field();
        match s.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x < min => {
                v.push(&field, format!("number must be greater than or equal to {min}"))
            }
            Ok(x) if x.is_finite() && x > max => v.push(&field, format!("number must be less than or equal to {max}")),
            Ok(x) if x.is_finite() => return Some(x),
            _ => v.push(&field, "value must be a finite number"),
        }
        None
    }

    /// An enum parameter's suffix (`ARRIVAL`), or `None` when absent or UNSPECIFIED (then
    /// `value is required` if it is required).
    pub fn enumerated(&self, q: &RawQuery, v: &mut Violations) -> Option<&'static str> {
        let ParamKind::Enum { prefix, values } = self.kind else {
            unreachable!("{} is not an enum parameter", self.name)
        };
        let field = self.field();
        let raw = self.raw(q);
        let suffix = raw.map(|s| s.strip_prefix(prefix).and_then(|r| r.strip_prefix('_')).unwrap_or(s));
        match suffix {
            None | Some("UNSPECIFIED") => {
                if self.required {
                    v.push(&field, "value is required");
                }
                None
            }
            Some(s) if s.bytes().all(|b| b.is_ascii_digit() || b == b'-') && !s.is_empty() => {
                v.push(
                    &field,
                    "value must be an enum name (this API does not accept the numeric proto3-JSON enum form)",
                );
                None
            }
            Some(s) => match values.iter().find(|v| **v == s) {
                Some(v) => Some(v),
                None => {
                    v.push(&field, "enum value must be defined");
                    None
                }
            },
        }
    }

    /// The accepted spellings of an enum parameter: full names, suffixes and UNSPECIFIED.
    pub fn enum_names(&self) -> Vec<String> {
        let ParamKind::Enum { prefix, values } = self.kind else { return Vec::new() };
        let mut names: Vec<String> = values.iter().map(|v| format!("{prefix}_{v}")).collect();
        names.extend(values.iter().map(|v| v.to_string()));
        names.push(format!("{prefix}_UNSPECIFIED"));
        names
    }

    /// The values of a repeated parameter, trimmed, empty ones dropped.
    pub fn repeated(&self, q: &RawQuery, v: &mut Violations) -> Vec<String> {
        let ParamKind::Repeated { max_items } = self.kind else {
            unreachable!("{} is not a repeated parameter", self.name)
        };
        let values: Vec<String> = q.all(self.name).map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        if values.len() > max_items {
            v.push(&self.field(), format!("array must contain at most {max_items} item(s)"));
            return Vec::new();
        }
        values
    }

    /// The parameter's JSON Schema (OpenAPI 3.0 subset). Patterns of optional parameters also
    /// accept the empty string: an empty value is an absent one (SUPPLEMENT 1.2).
    pub fn schema(&self) -> Value {
        match self.kind {
            ParamKind::Int32 { min, max, .. } => {
                let number = json!({"type": "integer", "format": "int32", "minimum": if min > 0 { 0 } else { min }, "maximum": max});
                if self.required {
                    number
                } else {
                    json!({"anyOf": [number, {"type": "string", "enum": [""]}]})
                }
            }
            ParamKind::EpochMs => json!({"type": "string", "format": "int64", "pattern": "^[0-9]*$"}),
            ParamKind::Country => json!({"type": "string", "pattern": "^([A-Za-z]{2})?$"}),
            ParamKind::Instant => {
                // Empty is absent (SUPPLEMENT 1.2).
                let pattern = AS_OF_PATTERN.replacen('^', "^(", 1).replacen('$', ")?$", 1);
                json!({"type": "string", "pattern": pattern})
            }
            ParamKind::CountryCode => json!({
                "type": "string",
                "enum": sitrep_schemas::countries::API_COUNTRY_CODES,
            }),
            ParamKind::Cursor => json!({"type": "string", "pattern": format!("^({})?$", super::cursor::FORM)}),
            ParamKind::Text { max_bytes: Some(n) } => json!({"type": "string", "maxLength": n}),
            ParamKind::Text { max_bytes: None } => json!({"type": "string"}),
            ParamKind::Repeated { max_items } => {
                json!({"type": "array", "items": {"type": "string"}, "maxItems": max_items})
            }
            ParamKind::OneOf { values } => {
                let mut names: Vec<&str> = values.to_vec();
                // Empty is absent: a value only of an optional parameter.
                if !self.required {
                    names.push("");
                }
                json!({"type": "string", "enum": names})
            }
            ParamKind::Bool => json!({"type": "string", "enum": ["true", "false", "1", "0", "TRUE", "FALSE", ""]}),
            ParamKind::Double { min, max } => {
                json!({"anyOf": [{"type": "number", "minimum": min, "maximum": max}, {"type": "string", "enum": [""]}]})
            }
            ParamKind::Enum { .. } => {
                let mut names = self.enum_names();
                if !self.required {
                    names.push(String::new());
                }
                json!({"type": "string", "enum": names})
            }
            ParamKind::Checked { min_chars, max_chars, pattern } => {
                let mut schema = json!({"type": "string"});
                if min_chars > 0 {
                    schema["minLength"] = json!(min_chars);
                }
                if max_chars < usize::MAX {
                    schema["maxLength"] = json!(max_chars);
                }
                if let Some((regex, _)) = pattern {
                    schema["pattern"] = json!(regex);
                }
                if self.required {
                    schema
                } else {
                    json!({"anyOf": [schema, {"type": "string", "enum": [""]}]})
                }
            }
        }
    }

    /// The OpenAPI parameter object.
    pub fn openapi(&self) -> Value {
        json!({
            "name": self.name,
            "in": "query",
            "required": self.required,
            "description": self.description,
            "schema": self.schema(),
        })
    }
}

fn parse_int(s: &str) -> Result<i64, &'static str> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().map_err(|_| "value must be a finite number");
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Err("value must be an integer"),
        _ => Err("value must be a finite number"),
    }
}

/// The decoded query string (SUPPLEMENT 1.2): for scalars the first occurrence wins and an empty
/// value is absent; unknown parameters are ignored.
#[derive(Debug, Default, Clone)]
pub struct RawQuery {
    pairs: Vec<(String, String)>,
}

impl RawQuery {
    pub fn parse(query: Option<&str>) -> Self {
        let pairs = query
            .map(|q| url::form_urlencoded::parse(q.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
            .unwrap_or_default();
        RawQuery { pairs }
    }

    pub fn of(req: &poem::Request) -> Self {
        Self::parse(req.uri().query())
    }

    /// Every value of `name`, in order.
    pub fn all<'q>(&'q self, name: &'q str) -> impl Iterator<Item = &'q str> + 'q {
        self.pairs.iter().filter(move |(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The first occurrence of `name`, unless it is empty.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> RawQuery {
        RawQuery::parse(Some(s))
    }

    #[test]
    fn int32_messages() {
        let mut v = Violations::default();
        assert_eq!(PAGE_SIZE.int32(&q(""), &mut v), 100);
        assert_eq!(PAGE_SIZE.int32(&q("page_size=0"), &mut v), 100);
        assert_eq!(PAGE_SIZE.int32(&q("page_size=7&page_size=9"), &mut v), 7, "first occurrence wins");
        assert_eq!(PAGE_SIZE.int32(&q("page_size="), &mut v), 100, "empty = absent");
        for bad in ["abc", "1.5", "101", "-1"] {
            PAGE_SIZE.int32(&q(&format!("page_size={bad}")), &mut v);
        }
        let d: Vec<(&str, &str)> = v.0.iter().map(|x| (x.field.as_str(), x.description.as_str())).collect();
        assert_eq!(
            d,
            [
                ("pageSize", "value must be a finite number"),
                ("pageSize", "value must be an integer"),
                ("pageSize", "number must be less than or equal to 100"),
                ("pageSize", "number must be greater than or equal to 1")
            ]
        );
    }

    #[test]
    fn enums_take_full_names_or_suffixes() {
        const DIRECTION: Param = Param {
            name: "direction",
            kind: ParamKind::Enum { prefix: "FLIGHT_DIRECTION", values: &["DEPARTURE", "ARRIVAL", "BOTH"] },
            required: false,
            description: "",
        };
        let mut v = Violations::default();
        assert_eq!(DIRECTION.enumerated(&q("direction=FLIGHT_DIRECTION_ARRIVAL"), &mut v), Some("ARRIVAL"));
        assert_eq!(DIRECTION.enumerated(&q("direction=BOTH"), &mut v), Some("BOTH"));
        assert_eq!(DIRECTION.enumerated(&q("direction=FLIGHT_DIRECTION_UNSPECIFIED"), &mut v), None);
        assert_eq!(DIRECTION.enumerated(&q(""), &mut v), None);
        assert!(v.0.is_empty());
        DIRECTION.enumerated(&q("direction=2"), &mut v);
        DIRECTION.enumerated(&q("direction=arrival"), &mut v);
        let d: Vec<&str> = v.0.iter().map(|x| x.description.as_str()).collect();
        assert_eq!(
            d,
            [
                "value must be an enum name (this API does not accept the numeric proto3-JSON enum form)",
                "enum value must be defined"
            ]
        );
        assert_eq!(DIRECTION.enum_names().len(), 7);
    }

    #[test]
    fn checked_strings() {
        const FN: Param = Param {
            name: "flight_number",
            kind: ParamKind::Checked { min_chars: 3, max_chars: 10, pattern: None },
            required: true,
            description: "",
        };
        const DATE: Param = Param {
            name: "date",
            kind: ParamKind::Checked {
                min_chars: 1,
                max_chars: 64,
                pattern: Some((r"^\d{4}-\d{2}-\d{2}$", |s| s.len() == 10 && s.as_bytes()[4] == b'-')),
            },
            required: true,
            description: "",
        };
        let mut v = Violations::default();
        assert_eq!(FN.checked(&q("flight_number=TK1979"), &mut v), Some("TK1979".into()));
        assert_eq!(FN.checked(&q(""), &mut v), None);
        assert_eq!(FN.checked(&q("flight_number=TK"), &mut v), None);
        assert_eq!(FN.checked(&q("flight_number=TK19791979X"), &mut v), None);
        assert_eq!(DATE.checked(&q("date=20261120"), &mut v), None);
        let d: Vec<(&str, &str)> = v.0.iter().map(|x| (x.field.as_str(), x.description.as_str())).collect();
        assert_eq!(
            d,
            [
                ("flightNumber", "value is required"),
                ("flightNumber", "string length must be at least 3"),
                ("flightNumber", "string length must be at most 10"),
                ("date", r"string must match pattern ^\d{4}-\d{2}-\d{2}$"),
            ]
        );
    }

    #[test]
    fn epoch_country_and_codes() {
        const START: Param = Param { name: "start", kind: ParamKind::EpochMs, required: false, description: "" };
        const COUNTRY: Param = Param { name: "country", kind: ParamKind::Country, required: false, description: "" };
        const CODE: Param =
            Param { name: "country_code", kind: ParamKind::CountryCode, required: true, description: "" };
        let mut v = Violations::default();
        assert_eq!(START.epoch_ms(&q("start=1780099200000"), &mut v), Some(1_780_099_200_000));
        assert_eq!(START.epoch_ms(&q("start=12.5"), &mut v), None);
        assert_eq!(START.epoch_ms(&q("start=-3"), &mut v), None);
        assert_eq!(COUNTRY.country(&q("country=ye"), &mut v), Some("YE".into()));
        assert_eq!(COUNTRY.country(&q("country=YEM"), &mut v), None);
        assert_eq!(CODE.country_code(&q("country_code=YE"), &mut v), Some("YE".into()));
        assert_eq!(CODE.country_code(&q("country_code=ye"), &mut v), None);
        assert_eq!(CODE.country_code(&q("country_code=QQ"), &mut v), None);
        assert_eq!(CODE.country_code(&q(""), &mut v), None);
        let d: Vec<&str> = v.0.iter().map(|x| x.description.as_str()).collect();
        assert_eq!(
            d,
            [
                "value must be a base-10 integer string",
                "number must be greater than or equal to 0",
                "string must match pattern ^[A-Za-z]{2}$",
                "string must match pattern ^[A-Z]{2}$",
                "enum value must be defined",
                "value is required"
            ]
        );
        assert_eq!(CODE.field(), "countryCode");
    }
}
