//! A request reduced to what determines its answer: parameters after parsing (defaults applied,
//! case normalised, numbers in canonical decimal), in name order. Every key of a cached answer
//! ([`AnswerKey`], and through it the ETag of the cached body) and every key of a cached upstream
//! answer ([`LiveKey`]) is derived from it here and nowhere else, so two requests that mean the
//! same thing share one answer and one cursor, and two that differ never share one.
//!
//! The keys are an injective encoding: every part is written with its length in front
//! (`<len>:<bytes>`), so no value — however it is spelled, commas, separators or `|` included —
//! can reach into the next part. The cursor's filter hash keeps SUPPLEMENT 1.7's `name=value&…`
//! string, which the contract fixes.

use std::fmt::Write;

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Canonical {
    /// `(name, values)` in name order; an absent parameter has one empty value, a repeated one
    /// its items in the order that determines the answer.
    pairs: Vec<(&'static str, Value)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    One(String),
    Many(Vec<String>),
}

impl Canonical {
    pub fn new(pairs: Vec<(&'static str, String)>) -> Self {
        let mut c = Canonical { pairs: pairs.into_iter().map(|(n, v)| (n, Value::One(v))).collect() };
        c.pairs.sort_by_key(|(name, _)| *name);
        c
    }

    /// With one more parameter.
    pub fn with(mut self, name: &'static str, value: String) -> Self {
        self.pairs.push((name, Value::One(value)));
        self.pairs.sort_by_key(|(name, _)| *name);
        self
    }

    /// With a repeated parameter's items (`?airports=IST&airports=LHR`): each item stays one
    /// item in the keys, so `IST,LHR` as one value never meets `IST` and `LHR` as two.
    pub fn with_list(mut self, name: &'static str, items: Vec<String>) -> Self {
        self.pairs.push((name, Value::Many(items)));
        self.pairs.sort_by_key(|(name, _)| *name);
        self
    }

    /// `name=value&…` (SUPPLEMENT 1.7's canonical filter string; a list's items joined by `,`).
    pub fn string(&self) -> String {
        let mut out = String::new();
        for (i, (name, value)) in self.pairs.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            out.push_str(name);
            out.push('=');
            match value {
                Value::One(v) => out.push_str(v),
                Value::Many(items) => out.push_str(&items.join(",")),
            }
        }
        out
    }

    /// The cursor's `fh`: first 16 hex of SHA-256 of the canonical filter string.
    pub fn filter_hash(&self) -> String {
        hex::encode(&Sha256::digest(self.string().as_bytes())[..8])
    }

    /// The key of the answer `op` gives this request from `scope`: the dataset version(s) it
    /// reads and whatever else it is a function of besides the parameters (a paged list's bounds,
    /// offset and page size; a computed answer's reuse window). The answer kit adds the request's
    /// projection ([`AnswerKey::projected`]) before it reads or fills the body cache.
    pub fn answer_key(&self, op: &str, scope: &[i64]) -> AnswerKey {
        let mut key = String::with_capacity(32 + op.len() + self.encoded_len());
        part(&mut key, "answer");
        part(&mut key, op);
        count(&mut key, scope.len());
        for n in scope {
            let _ = write!(key, "{n};");
        }
        self.encode(&mut key);
        AnswerKey(key)
    }

    /// The key of what `upstream` answered this request (the read-through cache's slots): every
    /// parameter the upstream call is made from.
    pub fn live_key(&self, upstream: &str) -> LiveKey {
        let mut key = String::with_capacity(16 + upstream.len() + self.encoded_len());
        part(&mut key, "live");
        part(&mut key, upstream);
        self.encode(&mut key);
        LiveKey(key)
    }

    fn encode(&self, out: &mut String) {
        count(out, self.pairs.len());
        for (name, value) in &self.pairs {
            part(out, name);
            match value {
                Value::One(v) => {
                    out.push('=');
                    part(out, v);
                }
                Value::Many(items) => {
                    out.push('*');
                    count(out, items.len());
                    for item in items {
                        part(out, item);
                    }
                }
            }
        }
    }

    fn encoded_len(&self) -> usize {
        let item = |v: &str| v.len() + 8;
        self.pairs
            .iter()
            .map(|(n, v)| {
                item(n)
                    + match v {
                        Value::One(v) => item(v),
                        Value::Many(items) => 8 + items.iter().map(|i| item(i)).sum::<usize>(),
                    }
            })
            .sum()
    }
}

/// One part of a key: its length, then its bytes.
fn part(out: &mut String, s: &str) {
    let _ = write!(out, "{}:", s.len());
    out.push_str(s);
}

/// How many parts follow.
fn count(out: &mut String, n: usize) {
    let _ = write!(out, "#{n};");
}

/// The key of an answer before its projection: made only by [`Canonical::answer_key`], so no
/// handler writes a key by hand, and completed only by the answer kit, so no cached body is
/// shared between two projections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerKey(String);

impl AnswerKey {
    /// The body-cache key of this answer under `jmespath` (none and the empty expression differ).
    pub(crate) fn projected(mut self, jmespath: Option<&str>) -> String {
        match jmespath {
            Some(expression) => {
                self.0.push('p');
                part(&mut self.0, expression);
            }
            None => self.0.push('-'),
        }
        self.0
    }
}

/// The key of a cached upstream answer (made only by [`Canonical::live_key`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LiveKey(String);

impl LiveKey {
    /// A value that depends on no request (an upstream's access token, a whole feed).
    pub fn fixed(upstream: &str) -> LiveKey {
        Canonical::default().live_key(upstream)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A parsed optional value in canonical form (absent = empty).
pub fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn name_order_and_stable_hash() {
        let a = Canonical::new(vec![("start", "1".into()), ("country", "UA".into()), ("end", String::new())]);
        assert_eq!(a.string(), "country=UA&end=&start=1");
        assert_eq!(a.filter_hash().len(), 16);
        let b = Canonical::new(vec![("country", "UA".into()), ("end", String::new()), ("start", "1".into())]);
        assert_eq!(a.filter_hash(), b.filter_hash());
        assert_ne!(a.filter_hash(), Canonical::new(vec![("country", "YE".into())]).filter_hash());
        assert_eq!(a.answer_key("op", &[3]), b.answer_key("op", &[3]));
    }

    /// The reproduced collisions of issue 55: one item spelled as two, a separator inside a
    /// value, and a projection (no projection, the empty one, and one that is a literal).
    #[test]
    fn the_reproduced_collisions_are_apart() {
        let default = Canonical::default().with_list("airports", ["IST", "ESB", "SAW"].map(String::from).to_vec());
        let one_item = Canonical::default().with_list("airports", vec!["IST,ESB,SAW".into()]);
        assert_ne!(default.answer_key("ops", &[1]), one_item.answer_key("ops", &[1]));
        assert_eq!(default.string(), one_item.string(), "1.7's filter string is as the contract writes it");
        let unit = |v: &str| Canonical::new(vec![("entities", v.into()), ("max_items", "20".into())]);
        assert_ne!(unit("A\u{1f}B").answer_key("news", &[1]), unit("A").answer_key("news", &[1]));
        let key = || Canonical::default().answer_key("track", &[7]);
        let literal = "{positions:`[]`}";
        let keys = [key().projected(None), key().projected(Some("")), key().projected(Some(literal))];
        assert!(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2]);
        assert_ne!(LiveKey::fixed("a").as_str(), Canonical::default().answer_key("a", &[]).projected(None));
    }

    /// A request as the keys see it: parameters (one value or a list each), scope, projection.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Request {
        op: String,
        scope: Vec<i64>,
        params: Vec<(&'static str, Result<String, Vec<String>>)>,
        jmespath: Option<String>,
    }

    const NAMES: [&str; 4] = ["airports", "country", "end", "start"];

    fn request() -> impl Strategy<Value = Request> {
        // Few letters and the separators the old keys used, so near misses are common.
        let text = || proptest::string::string_regex("[a,|=&:#;*p\u{1f}0-9-]{0,4}").unwrap();
        let value = prop_oneof![text().prop_map(Ok), proptest::collection::vec(text(), 0..3).prop_map(Err)];
        (
            prop_oneof![Just("a".to_string()), Just("a|v1".to_string()), text()],
            proptest::collection::vec(-2i64..3, 0..3),
            proptest::sample::subsequence(NAMES.to_vec(), 0..=NAMES.len())
                .prop_flat_map(move |names| {
                    let n = names.len();
                    (Just(names), proptest::collection::vec(value.clone(), n))
                })
                .prop_map(|(names, values)| names.into_iter().zip(values).collect::<Vec<_>>()),
            proptest::option::of(text()),
        )
            .prop_map(|(op, scope, params, jmespath)| Request { op, scope, params, jmespath })
    }

    fn canonical(r: &Request) -> Canonical {
        let mut c = Canonical::new(r.params.iter().filter_map(|(n, v)| Some((*n, v.clone().ok()?))).collect());
        for (name, v) in &r.params {
            if let Err(items) = v {
                c = c.with_list(name, items.clone());
            }
        }
        c
    }

    fn keys(r: &Request) -> (String, String) {
        let c = canonical(r);
        (c.answer_key(&r.op, &r.scope).projected(r.jmespath.as_deref()), c.live_key(&r.op).as_str().to_string())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        /// Equal requests share their keys; requests that differ in anything never do (the live
        /// key, which has no scope and no projection, differs when the parameters or the
        /// upstream do).
        #[test]
        fn keys_are_equal_exactly_when_requests_are(a in request(), b in request()) {
            let (ka, kb) = (keys(&a), keys(&b));
            let sorted = |r: &Request| { let mut p = r.params.clone(); p.sort_by_key(|(n, _)| *n); p };
            let same_params = sorted(&a) == sorted(&b);
            prop_assert_eq!(ka.0 == kb.0, same_params && a.op == b.op && a.scope == b.scope && a.jmespath == b.jmespath);
            prop_assert_eq!(ka.1 == kb.1, same_params && a.op == b.op);
        }

        #[test]
        fn parameter_order_does_not_matter(a in request()) {
            let mut reversed = a.clone();
            reversed.params.reverse();
            prop_assert_eq!(keys(&a), keys(&reversed));
        }
    }
}
