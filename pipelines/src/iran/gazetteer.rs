//! Our gazetteer of Iranian places (`data/reference/iran_places.csv`, compiled in): the first name
//! of the file found in a headline locates the event; otherwise the Iran centroid.

use std::sync::OnceLock;

const PLACES_CSV: &str = include_str!("../../../data/reference/iran_places.csv");

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Place {
    pub name: &'static str,
    pub latitude: f64,
    pub longitude: f64,
}

pub const IRAN_CENTROID: Place = Place { name: "Iran", latitude: 32.4279, longitude: 53.6880 };

fn places() -> &'static [(String, Place)] {
    static P: OnceLock<Vec<(String, Place)>> = OnceLock::new();
    P.get_or_init(|| {
        PLACES_CSV
            .lines()
            .skip(1)
            .filter_map(|l| {
                let mut it = l.trim_end().splitn(3, ',');
                let name = it.next()?;
                let latitude = it.next()?.parse().ok()?;
                let longitude = it.next()?.parse().ok()?;
                Some((name.to_lowercase(), Place { name, latitude, longitude }))
            })
            .collect()
    })
}

/// Whole-word, case-insensitive match, so "Iranshahr" is not found inside "Piranshahr".
pub fn locate(title: &str) -> Place {
    let lower = title.to_lowercase();
    for (needle, place) in places() {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(needle.as_str()) {
            let start = from + pos;
            let end = start + needle.len();
            let before_ok = lower[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let after_ok = lower[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            if before_ok && after_ok {
                return *place;
            }
            from = end;
        }
    }
    IRAN_CENTROID
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_whole_words_or_falls_back() {
        assert_eq!(locate("Explosion reported near Isfahan airbase").name, "Isfahan");
        assert_eq!(locate("Sirens in Piranshahr").name, "Piranshahr");
        assert_eq!(locate("Statement from the foreign ministry"), IRAN_CENTROID);
    }
}
