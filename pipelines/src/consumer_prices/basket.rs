//! The essentials basket of each market (`data/reference/baskets/<market>.json`, compiled in):
//! its items, their categories and weights (normalised to sum 1), its currency and base date.

use std::sync::OnceLock;

use chrono::NaiveDate;
use serde::Deserialize;

const FILES: [(&str, &str); 8] = [
    ("ae", include_str!("../../../data/reference/baskets/ae.json")),
    ("au", include_str!("../../../data/reference/baskets/au.json")),
    ("br", include_str!("../../../data/reference/baskets/br.json")),
    ("gb", include_str!("../../../data/reference/baskets/gb.json")),
    ("in", include_str!("../../../data/reference/baskets/in.json")),
    ("sa", include_str!("../../../data/reference/baskets/sa.json")),
    ("sg", include_str!("../../../data/reference/baskets/sg.json")),
    ("us", include_str!("../../../data/reference/baskets/us.json")),
];

#[derive(Debug, Clone, Deserialize)]
pub struct Basket {
    pub slug: String,
    pub market_code: String,
    pub currency: String,
    pub base_date: NaiveDate,
    pub items: Vec<BasketItem>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BasketItem {
    pub item_id: String,
    pub name: String,
    pub category: String,
    pub weight: f64,
}

impl Basket {
    /// A config as written, with its weights normalised to sum 1.
    pub fn parse(json: &str) -> Result<Basket, String> {
        let mut b: Basket = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let total: f64 = b.items.iter().map(|i| i.weight).sum();
        // Written so a NaN weight fails too.
        let valid = |w: f64| w.is_finite() && w >= 0.0;
        if b.items.is_empty() || !total.is_finite() || total <= 0.0 || !b.items.iter().all(|i| valid(i.weight)) {
            return Err(format!("basket {}: weights must be non-negative with a positive sum", b.slug));
        }
        b.items.iter_mut().for_each(|i| i.weight /= total);
        Ok(b)
    }

    pub fn item(&self, item_id: &str) -> Option<&BasketItem> {
        self.items.iter().find(|i| i.item_id == item_id)
    }
}

/// Every configured market's basket.
pub fn all() -> &'static [Basket] {
    static BASKETS: OnceLock<Vec<Basket>> = OnceLock::new();
    BASKETS.get_or_init(|| {
        FILES
            .iter()
            .map(|(market, json)| {
                let b = Basket::parse(json).unwrap_or_else(|e| panic!("data/reference/baskets/{market}.json: {e}"));
                assert_eq!(b.market_code, *market, "a basket file names its own market");
                b
            })
            .collect()
    })
}

pub fn of_market(market_code: &str) -> Option<&'static Basket> {
    all().iter().find(|b| b.market_code == market_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_market_is_configured_with_weights_summing_to_one() {
        let markets: Vec<&str> = all().iter().map(|b| b.market_code.as_str()).collect();
        assert_eq!(markets, ["ae", "au", "br", "gb", "in", "sa", "sg", "us"]);
        let ae = of_market("ae").unwrap();
        assert_eq!((ae.slug.as_str(), ae.currency.as_str(), ae.items.len()), ("essentials-ae", "AED", 12));
        for b in all() {
            assert!((b.items.iter().map(|i| i.weight).sum::<f64>() - 1.0).abs() < 1e-12, "{}", b.slug);
        }
        assert!((ae.item("eggs_12").unwrap().weight - 0.12).abs() < 1e-12, "the example's weights already sum to 1");
        let doubled = Basket::parse(
            r#"{"slug":"essentials-zz","market_code":"zz","currency":"ZZZ","base_date":"2026-01-01",
                "items":[{"item_id":"a","name":"A","category":"c","weight":1.5},{"item_id":"b","name":"B","category":"c","weight":0.5}]}"#,
        )
        .unwrap();
        assert_eq!(doubled.items.iter().map(|i| i.weight).collect::<Vec<_>>(), [0.75, 0.25], "normalised to sum 1");
        assert!(Basket::parse(r#"{"slug":"x","market_code":"x","currency":"X","base_date":"2026-01-01","items":[]}"#)
            .is_err());
    }
}
