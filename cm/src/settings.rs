//! What a deployment configures for company monitoring (SUPPLEMENT 4.1): the runtime gate's
//! dependencies, the feature flags and each plan's company limit.

/// The flags of `CM_FLAG_*` as configured (the defaults are 4.1's decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub rest_writes: bool,
    pub publication: bool,
    pub search_provider: bool,
    pub alerts: bool,
    pub ui: bool,
}

impl Default for Flags {
    fn default() -> Self {
        Flags { rest_writes: true, publication: true, search_provider: true, alerts: false, ui: false }
    }
}

#[derive(Debug, Clone)]
pub struct CmSettings {
    /// `CM_CURSOR_SECRET`: signs list and poll cursors; the gate needs at least 32 bytes.
    pub cursor_secret: Option<Vec<u8>>,
    /// `SEARCH_PROVIDER_URL`: the gate needs a search provider.
    pub search_provider_url: Option<String>,
    pub flags: Flags,
    /// companyLimit of the free, pro and business plans (`CM_COMPANY_LIMIT_<PLAN>`; 0, 0, 500).
    pub company_limits: [i64; 3],
    /// How often an active company is scanned (`CM_SCAN_INTERVAL_MIN`, default 360 minutes).
    pub scan_interval_ms: i64,
    /// Hosts whose items are INDEPENDENT_AUTHORITATIVE evidence (`CM_AUTHORITATIVE_PUBLISHERS`,
    /// comma-separated; lower-cased, `www.` dropped; a subdomain counts as its host).
    pub authoritative_publishers: Vec<String>,
}

impl Default for CmSettings {
    fn default() -> Self {
        CmSettings {
            cursor_secret: None,
            search_provider_url: None,
            flags: Flags::default(),
            company_limits: [0, 0, 500],
            scan_interval_ms: 360 * 60_000,
            authoritative_publishers: SHIPPED_PUBLISHERS.iter().map(|h| h.to_string()).collect(),
        }
    }
}

/// The authoritative publishers a deployment trusts unless `CM_AUTHORITATIVE_PUBLISHERS` says
/// otherwise (4.8): `data/reference/authoritative-publishers.txt`, hosts one a line (its source and
/// date in that directory's README).
pub static SHIPPED_PUBLISHERS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    include_str!("../../data/reference/authoritative-publishers.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// GDELT's DOC 2.0 API: the SEARCH provider when `SEARCH_PROVIDER_KIND=gdelt` names no URL.
pub const GDELT_DOC_API: &str = "https://api.gdeltproject.org/api/v2/doc/doc";
/// Exa's search API: the SEARCH provider when `SEARCH_PROVIDER_KIND=exa` names no URL.
pub const EXA_SEARCH_API: &str = "https://api.exa.ai/search";

/// Variables whose empty value means something (an empty list), not "unset".
const EMPTY_IS_A_VALUE: &[&str] = &["CM_AUTHORITATIVE_PUBLISHERS"];

/// A setting that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}: `{value}` is not {expected}")]
pub struct SettingError {
    pub name: &'static str,
    pub value: String,
    pub expected: &'static str,
}

/// Why the runtime gate is closed (logged when it closes; never shown to clients).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateClosed {
    SchemaBehind,
    NoCursorSecret,
    NoSearchProvider,
}

impl CmSettings {
    /// The settings from the environment (`lookup`: a variable's non-empty value).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<CmSettings, SettingError> {
        let defaults = CmSettings::default();
        let flag = |name: &'static str, default: bool| match lookup(name).map(|v| v.trim().to_ascii_lowercase()) {
            None => Ok(default),
            Some(v) if matches!(v.as_str(), "on" | "true" | "1") => Ok(true),
            Some(v) if matches!(v.as_str(), "off" | "false" | "0") => Ok(false),
            Some(value) => Err(SettingError { name, value, expected: "on or off" }),
        };
        let count = |name: &'static str, default: i64| match lookup(name) {
            None => Ok(default),
            Some(v) => v.trim().parse::<i64>().ok().filter(|n| *n >= 0).ok_or(SettingError {
                name,
                value: v,
                expected: "a count",
            }),
        };
        let f = defaults.flags;
        let interval_min = count("CM_SCAN_INTERVAL_MIN", defaults.scan_interval_ms / 60_000)?;
        if interval_min == 0 {
            return Err(SettingError { name: "CM_SCAN_INTERVAL_MIN", value: "0".into(), expected: "a positive count" });
        }
        Ok(CmSettings {
            cursor_secret: lookup("CM_CURSOR_SECRET").map(String::into_bytes),
            // GDELT needs no key: naming it is configuring it, at its public endpoint by default;
            // Exa is configured by naming it with its key.
            search_provider_url: lookup("SEARCH_PROVIDER_URL").or_else(|| {
                let kind = lookup("SEARCH_PROVIDER_KIND").unwrap_or_default().trim().to_ascii_lowercase();
                match kind.as_str() {
                    "gdelt" => Some(GDELT_DOC_API.to_string()),
                    "exa" => lookup("SEARCH_PROVIDER_API_KEY").map(|_| EXA_SEARCH_API.to_string()),
                    _ => None,
                }
            }),
            flags: Flags {
                rest_writes: flag("CM_FLAG_REST_WRITES", f.rest_writes)?,
                publication: flag("CM_FLAG_PUBLICATION", f.publication)?,
                search_provider: flag("CM_FLAG_SEARCH_PROVIDER", f.search_provider)?,
                alerts: flag("CM_FLAG_ALERTS", f.alerts)?,
                ui: flag("CM_FLAG_UI", f.ui)?,
            },
            company_limits: [
                count("CM_COMPANY_LIMIT_FREE", defaults.company_limits[0])?,
                count("CM_COMPANY_LIMIT_PRO", defaults.company_limits[1])?,
                count("CM_COMPANY_LIMIT_BUSINESS", defaults.company_limits[2])?,
            ],
            scan_interval_ms: interval_min * 60_000,
            // Setting the variable replaces the shipped list; an empty value empties it.
            authoritative_publishers: match lookup("CM_AUTHORITATIVE_PUBLISHERS") {
                None => defaults.authoritative_publishers,
                Some(hosts) => hosts
                    .split(',')
                    .map(|h| h.trim().to_ascii_lowercase())
                    .map(|h| h.strip_prefix("www.").map(str::to_string).unwrap_or(h))
                    .filter(|h| !h.is_empty())
                    .collect(),
            },
        })
    }

    /// The settings from the process environment (empty values count as unset, but where an
    /// empty value is one: [`EMPTY_IS_A_VALUE`]).
    pub fn from_env() -> Result<CmSettings, SettingError> {
        Self::from_lookup(|name| {
            std::env::var(name).ok().filter(|v| EMPTY_IS_A_VALUE.contains(&name) || !v.trim().is_empty())
        })
    }

    /// The runtime gate of 4.1: open only when the store's schema is current, the cursor secret
    /// has at least 32 bytes and a search provider is configured.
    pub fn gate(&self, schema_current: bool) -> Result<(), GateClosed> {
        if !schema_current {
            return Err(GateClosed::SchemaBehind);
        }
        if self.cursor_secret.as_ref().is_none_or(|s| s.len() < 32) {
            return Err(GateClosed::NoCursorSecret);
        }
        if self.search_provider_url.as_deref().is_none_or(str::is_empty) {
            return Err(GateClosed::NoSearchProvider);
        }
        Ok(())
    }

    /// The flags as they take effect: `searchProvider` only with a provider configured.
    pub fn effective_flags(&self) -> Flags {
        Flags { search_provider: self.flags.search_provider && self.search_provider_url.is_some(), ..self.flags }
    }

    /// companyLimit of a plan by its tier (0 free, 1 pro, 2 business).
    pub fn company_limit(&self, tier: u8) -> i64 {
        self.company_limits.get(tier as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_needs_all_three() {
        let open = CmSettings {
            cursor_secret: Some(vec![7; 32]),
            search_provider_url: Some("https://search.example/v1".into()),
            ..CmSettings::default()
        };
        assert_eq!(open.gate(true), Ok(()));
        assert_eq!(open.gate(false), Err(GateClosed::SchemaBehind));
        let short = CmSettings { cursor_secret: Some(vec![7; 31]), ..open.clone() };
        assert_eq!(short.gate(true), Err(GateClosed::NoCursorSecret));
        let no_search = CmSettings { search_provider_url: None, ..open.clone() };
        assert_eq!(no_search.gate(true), Err(GateClosed::NoSearchProvider));
        assert!(!no_search.effective_flags().search_provider && open.effective_flags().search_provider);
        assert_eq!((open.company_limit(2), open.company_limit(0), open.company_limit(9)), (500, 0, 0));
    }

    #[test]
    fn settings_parse_from_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        let s = CmSettings::from_lookup(env(&[
            ("CM_FLAG_UI", "on"),
            ("CM_SCAN_INTERVAL_MIN", "60"),
            ("CM_AUTHORITATIVE_PUBLISHERS", "www.Reuters.com, apnews.com,"),
            ("CM_COMPANY_LIMIT_PRO", "5"),
        ]))
        .unwrap();
        assert!(s.flags.ui && s.flags.rest_writes);
        assert_eq!((s.scan_interval_ms, s.company_limits), (3_600_000, [0, 5, 500]));
        assert_eq!(s.authoritative_publishers, ["reuters.com", "apnews.com"], "the variable replaces the list");
        let shipped = CmSettings::from_lookup(env(&[])).unwrap().authoritative_publishers;
        assert!(["reuters.com", "apnews.com", "afp.com", "ft.com"].iter().all(|h| shipped.contains(&h.to_string())));
        assert!(shipped.iter().all(|h| h == &h.to_ascii_lowercase() && !h.starts_with("www.") && h.contains('.')));
        let gdelt = CmSettings::from_lookup(env(&[("SEARCH_PROVIDER_KIND", "GDELT")])).unwrap();
        assert_eq!(gdelt.search_provider_url.as_deref(), Some(GDELT_DOC_API), "keyless: configured by naming it");
        let exa =
            CmSettings::from_lookup(env(&[("SEARCH_PROVIDER_KIND", "exa"), ("SEARCH_PROVIDER_API_KEY", "k")])).unwrap();
        assert_eq!(exa.search_provider_url.as_deref(), Some(EXA_SEARCH_API));
        let keyless = CmSettings::from_lookup(env(&[("SEARCH_PROVIDER_KIND", "exa")])).unwrap();
        assert_eq!(keyless.search_provider_url, None, "Exa without its key is not configured");
        assert!(CmSettings::from_lookup(env(&[])).unwrap().search_provider_url.is_none());
        let emptied = CmSettings::from_lookup(env(&[("CM_AUTHORITATIVE_PUBLISHERS", "")])).unwrap();
        assert!(emptied.authoritative_publishers.is_empty(), "an empty value empties it");
        let bad = CmSettings::from_lookup(env(&[("CM_FLAG_ALERTS", "maybe")])).unwrap_err();
        assert_eq!(bad.to_string(), "CM_FLAG_ALERTS: `maybe` is not on or off");
        assert!(CmSettings::from_lookup(env(&[("CM_SCAN_INTERVAL_MIN", "0")])).is_err());
    }
}
