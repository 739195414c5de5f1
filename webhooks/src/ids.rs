//! The identifiers webhooks hand out: endpoints `ep_<ULID>`, deliveries (the `webhook-id` of
//! every attempt) `msg_<ULID>`, ULIDs in Crockford base32 as `ulid` writes them.

const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Endpoint,
    Delivery,
}

impl Kind {
    const fn prefix(self) -> &'static str {
        match self {
            Kind::Endpoint => "ep_",
            Kind::Delivery => "msg_",
        }
    }

    /// The documented pattern.
    pub const fn pattern(self) -> &'static str {
        match self {
            Kind::Endpoint => "^ep_[0-9A-HJKMNP-TV-Z]{26}$",
            Kind::Delivery => "^msg_[0-9A-HJKMNP-TV-Z]{26}$",
        }
    }

    pub fn new_id(self) -> String {
        format!("{}{}", self.prefix(), ulid::Ulid::new())
    }

    /// Whether `id` is one of this kind, as [`Kind::pattern`] says.
    pub fn matches(self, id: &str) -> bool {
        id.strip_prefix(self.prefix())
            .is_some_and(|body| body.len() == 26 && body.bytes().all(|b| CROCKFORD.contains(&b)))
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn new_ids_match_their_pattern_and_no_other() {
        for kind in [Kind::Endpoint, Kind::Delivery] {
            let id = kind.new_id();
            assert!(kind.matches(&id), "{id}");
            assert!(!kind.matches(&id.to_lowercase()) && !kind.matches(&id[..id.len() - 1]));
        }
        assert!(!Kind::Endpoint.matches(&Kind::Delivery.new_id()));
        assert!(!Kind::Endpoint.matches("ep_0123456789ABCDEFGHJKMNPQRI"));
    }
}
