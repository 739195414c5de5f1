//! A request reduced to what determines its answer: parameters after parsing (defaults applied,
//! case normalised, numbers in canonical decimal), in name order. The body-cache key, the ETag
//! (through the cached body) and the dataset cursor's filter hash are all derived from it, so two
//! requests that mean the same thing share one answer and one cursor, by construction.

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Canonical {
    /// `(name, value)` in name order; an absent parameter has the empty value.
    pairs: Vec<(&'static str, String)>,
}

impl Canonical {
    pub fn new(mut pairs: Vec<(&'static str, String)>) -> Self {
        pairs.sort_by_key(|(name, _)| *name);
        Canonical { pairs }
    }

    /// `name=value&…` (SUPPLEMENT 1.7's canonical filter string).
    pub fn string(&self) -> String {
        let parts: Vec<String> = self.pairs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        parts.join("&")
    }

    /// The cursor's `fh`: first 16 hex of SHA-256 of the canonical filter string.
    pub fn filter_hash(&self) -> String {
        hex::encode(&Sha256::digest(self.string().as_bytes())[..8])
    }

    /// The body-cache key of this request's answer from one dataset version.
    pub fn cache_key(&self, op: &str, version: u64, paging: &str, jmespath: Option<&str>) -> String {
        format!("{op}|v{version}|{}|{paging}|{}", self.string(), jmespath.unwrap_or(""))
    }
}

/// A parsed optional value in canonical form (absent = empty).
pub fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_order_and_stable_hash() {
        let a = Canonical::new(vec![("start", "1".into()), ("country", "UA".into()), ("end", String::new())]);
        assert_eq!(a.string(), "country=UA&end=&start=1");
        assert_eq!(a.filter_hash().len(), 16);
        let b = Canonical::new(vec![("country", "UA".into()), ("end", String::new()), ("start", "1".into())]);
        assert_eq!(a.filter_hash(), b.filter_hash());
        assert_ne!(a.filter_hash(), Canonical::new(vec![("country", "YE".into())]).filter_hash());
        assert_eq!(a.cache_key("op", 3, "0|100", None), "op|v3|country=UA&end=&start=1|0|100|");
    }
}
