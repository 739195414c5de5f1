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
}

impl Default for CmSettings {
    fn default() -> Self {
        CmSettings {
            cursor_secret: None,
            search_provider_url: None,
            flags: Flags::default(),
            company_limits: [0, 0, 500],
        }
    }
}

/// Why the runtime gate is closed (logged when it closes; never shown to clients).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateClosed {
    SchemaBehind,
    NoCursorSecret,
    NoSearchProvider,
}

impl CmSettings {
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
}
