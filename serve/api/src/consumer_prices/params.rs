//! The Consumer prices group's query parameters (SUPPLEMENT 1.6, 2.4.1–2.4.4).

use sitrep_platform::kit::params::{Param, ParamKind};

fn two_letters(s: &str) -> bool {
    s.len() == 2 && s.bytes().all(|b| b.is_ascii_alphabetic())
}

fn essentials_slug(s: &str) -> bool {
    s.len() == 13 && s[..11].eq_ignore_ascii_case("essentials-") && two_letters(&s[11..])
}

pub const MARKET_CODE: Param = Param {
    name: "market_code",
    kind: ParamKind::Checked { min_chars: 2, max_chars: 2, pattern: Some(("^[A-Za-z]{2}$", two_letters)) },
    required: false,
    description:
        "Market, ISO 3166-1 alpha-2 in any case (ae, sa, in, br, sg, au, us, gb). Empty = the default market (ae).",
};

/// Overview and categories: any value; one that is not `essentials-<market>` answers the empty shape.
pub const BASKET_SLUG: Param = Param {
    name: "basket_slug",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Basket, `essentials-<market>` in any case. Another basket answers the empty shape.",
};

pub const SERIES_BASKET_SLUG: Param = Param {
    name: "basket_slug",
    kind: ParamKind::Checked { min_chars: 13, max_chars: 13, pattern: Some(("^essentials-[A-Za-z]{2}$", essentials_slug)) },
    required: false,
    description: "Basket, `essentials-<market>` in any case; empty = the market's. Another market's basket answers the empty shape.",
};

pub const RANGE: Param = Param {
    name: "range",
    kind: ParamKind::OneOf { values: &["7d", "30d", "90d", "180d"] },
    required: false,
    description: "Window: 7d, 30d, 90d or 180d; empty = 30d.",
};

pub const LIMIT: Param = Param {
    name: "limit",
    kind: ParamKind::Int32 { min: 1, max: 50, default: 10 },
    required: false,
    description: "Movers per side, 1–50; 0 or absent = 10.",
};

pub const CATEGORY_SLUG: Param = Param {
    name: "category_slug",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Only movers of this category (its slug, e.g. `cooking-oil`, exact).",
};

pub const OVERVIEW: &[Param] = &[MARKET_CODE, BASKET_SLUG];
pub const BASKET_SERIES: &[Param] = &[MARKET_CODE, SERIES_BASKET_SLUG, RANGE];
pub const CATEGORIES: &[Param] = &[MARKET_CODE, BASKET_SLUG, RANGE];
pub const MOVERS: &[Param] = &[MARKET_CODE, RANGE, LIMIT, CATEGORY_SLUG];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(two_letters("AE") && two_letters("ae") && !two_letters("a1") && !two_letters("aed"));
        assert!(essentials_slug("essentials-ae") && essentials_slug("ESSENTIALS-Sa"));
        assert!(
            !essentials_slug("essentials-a1") && !essentials_slug("value-ae") && !essentials_slug("essentials-aed")
        );
    }
}
