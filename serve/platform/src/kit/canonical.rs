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
        let mut out = String::with_capacity(self.pairs.iter().map(|(n, v)| n.len() + v.len() + 2).sum());
        self.write_to(&mut out);
        out
    }

    fn write_to(&self, out: &mut String) {
        for (i, (name, value)) in self.pairs.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(name);
            out.push('=');
            out.push_str(value);
        }
    }

    /// The cursor's `fh`: first 16 hex of SHA-256 of the canonical filter string.
    pub fn filter_hash(&self) -> String {
        hex::encode(&Sha256::digest(self.string().as_bytes())[..8])
    }

    /// The body-cache key of this request's answer from one dataset version (built in one buffer:
    /// every request, cached or not, computes it).
    pub fn cache_key(&self, op: &str, version: u64, paging: &str, jmespath: Option<&str>) -> String {
        use std::fmt::Write;
        let mut key = String::with_capacity(64 + op.len() + paging.len() + jmespath.map_or(0, str::len));
        let _ = write!(key, "{op}|v{version}|");
        self.write_to(&mut key);
        let _ = write!(key, "|{paging}|{}", jmespath.unwrap_or(""));
        key
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
