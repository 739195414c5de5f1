//! The Conflict group's query parameters (API.md 4.6, SUPPLEMENT 1.6, 2.3), declared once: the
//! registry lists them per operation, and the same declarations parse the requests.

use sitrep_platform::kit::{
    canonical::{opt, Canonical},
    error::Violations,
    paged_list::{ListParams, QueryParams},
    params::{Param, ParamKind, RawQuery, CURSOR, PAGE_SIZE},
};

pub const START: Param = Param {
    name: "start",
    kind: ParamKind::EpochMs,
    required: false,
    description: "Inclusive start of the time range, epoch ms as a decimal string. Default: ListArmedEvents \
                  00:00 UTC of (as-of date − 30 days); ListViolenceEvents no lower bound.",
};

pub const END: Param = Param {
    name: "end",
    kind: ParamKind::EpochMs,
    required: false,
    description: "Inclusive end of the time range, epoch ms as a decimal string. Default: the dataset's as-of time.",
};

pub const COUNTRY: Param = Param {
    name: "country",
    kind: ParamKind::Country,
    required: false,
    description: "ISO 3166-1 alpha-2 country filter (any case).",
};

pub const COUNTRY_CODE: Param = Param {
    name: "country_code",
    kind: ParamKind::CountryCode,
    required: true,
    description: "Upper-case ISO 3166-1 alpha-2 code from the fixed list of API.md 4.6.",
};

pub const ARMED_EVENTS: &[Param] = &[START, END, PAGE_SIZE, CURSOR, COUNTRY];
pub const VIOLENCE_EVENTS: &[Param] = &[START, END, PAGE_SIZE, CURSOR, COUNTRY];
pub const HUMANITARIAN_SUMMARY: &[Param] = &[COUNTRY_CODE];

/// The filters of both event lists: a time range and a country.
#[derive(Debug, Clone)]
pub struct EventFilters {
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub country: Option<String>,
}

impl QueryParams for EventFilters {
    fn parse(q: &RawQuery, v: &mut Violations) -> Self {
        EventFilters { start: START.epoch_ms(q, v), end: END.epoch_ms(q, v), country: COUNTRY.country(q, v) }
    }
}

impl ListParams for EventFilters {
    fn canonical(&self) -> Canonical {
        Canonical::new(vec![("country", opt(&self.country)), ("end", opt(&self.end)), ("start", opt(&self.start))])
    }
}

/// The body of GetHumanitarianSummaryBatch (SUPPLEMENT 2.3.3).
pub fn humanitarian_batch_body() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "required": ["countryCodes"],
        "properties": {
            "countryCodes": {
                "type": "array",
                "minItems": 1,
                "maxItems": 25,
                "items": {"type": "string"},
                "description": "ISO 3166-1 alpha-2 codes (trimmed, upper-cased, de-duplicated; malformed codes are dropped).",
            },
        },
    })
}
