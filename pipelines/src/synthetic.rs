//! Synthetic ACLED `read` pages of any size (10k … 5M events) for benchmarks, in the upstream's
//! exact wire format, so a benchmark exercises the same parser and normaliser as production.
//! Deterministic for a given seed.

use chrono::{DateTime, Duration, Utc};
use rand::{rngs::StdRng, Rng, SeedableRng};

/// (ISO numeric, country, ISO3-like id prefix, admin1 names, centre lat, centre lon).
type CountrySpec = (&'static str, &'static str, &'static str, &'static [&'static str], f64, f64);
const COUNTRIES: &[CountrySpec] = &[
    ("887", "Yemen", "YEM", &["Taizz", "Marib", "Al Hudaydah", "Sanaa"], 15.3, 44.2),
    ("729", "Sudan", "SDN", &["Khartoum", "North Darfur", "South Kordofan"], 15.5, 32.5),
    ("804", "Ukraine", "UKR", &["Donetsk", "Kharkiv", "Zaporizhia", "Kherson"], 48.4, 35.0),
    ("760", "Syria", "SYR", &["Aleppo", "Idleb", "Deir ez Zor"], 35.0, 38.5),
    ("104", "Myanmar", "MMR", &["Sagaing", "Shan", "Rakhine"], 21.0, 96.0),
    ("180", "Democratic Republic of Congo", "DRC", &["North Kivu", "Ituri", "South Kivu"], -1.5, 29.0),
    ("466", "Mali", "MLI", &["Mopti", "Gao", "Timbuktu"], 15.0, -2.0),
    ("706", "Somalia", "SOM", &["Banadir", "Lower Shabelle", "Bay"], 3.0, 45.0),
    ("586", "Pakistan", "PAK", &["Khyber Pakhtunkhwa", "Balochistan"], 32.0, 70.0),
    ("484", "Mexico", "MEX", &["Guerrero", "Michoacan", "Sinaloa"], 19.4, -100.0),
    ("275", "Palestine", "PSE", &["Gaza Strip", "West Bank"], 31.5, 34.4),
    ("566", "Nigeria", "NGA", &["Borno", "Zamfara", "Kaduna"], 11.0, 9.0),
    ("854", "Burkina Faso", "BFA", &["Sahel", "Est", "Nord"], 12.5, -1.5),
    ("004", "Afghanistan", "AFG", &["Kabul", "Helmand", "Kandahar"], 34.5, 69.2),
    ("231", "Ethiopia", "ETH", &["Amhara", "Oromia", "Tigray"], 9.0, 38.7),
    ("170", "Colombia", "COL", &["Cauca", "Antioquia", "Narino"], 3.0, -76.5),
];

const EVENT_TYPES: &[(&str, &[&str])] = &[
    ("Battles", &["Armed clash", "Government regains territory"]),
    (
        "Explosions/Remote violence",
        &["Shelling/artillery/missile attack", "Air/drone strike", "Remote explosive/landmine/IED"],
    ),
    ("Violence against civilians", &["Attack", "Abduction/forced disappearance"]),
];

const ACTORS: &[&str] = &[
    "Military Forces of the State",
    "Rapid Support Forces",
    "Unidentified Armed Group",
    "Civilians",
    "Police Forces",
    "Islamic State",
    "Communal Militia",
    "Rebel Forces",
];

pub struct AcledGenerator {
    rng: StdRng,
    remaining: usize,
    next_id: u64,
    as_of: DateTime<Utc>,
    days: i64,
}

impl AcledGenerator {
    /// `total` events dated over the `days` days up to `as_of`.
    pub fn new(total: usize, seed: u64, as_of: DateTime<Utc>, days: i64) -> Self {
        AcledGenerator { rng: StdRng::seed_from_u64(seed), remaining: total, next_id: 1, as_of, days: days.max(1) }
    }

    /// The next page of at most `page_size` events, as ACLED would send it; `None` when done.
    pub fn next_page(&mut self, page_size: usize) -> Option<Vec<u8>> {
        if self.remaining == 0 {
            return None;
        }
        let n = page_size.min(self.remaining);
        self.remaining -= n;
        let mut out = Vec::with_capacity(n * 520);
        out.extend_from_slice(
            format!(r#"{{"status":200,"success":true,"count":{n},"messages":[],"data":["#).as_bytes(),
        );
        for i in 0..n {
            if i > 0 {
                out.push(b',');
            }
            self.write_row(&mut out);
        }
        out.extend_from_slice(b"]}");
        Some(out)
    }

    fn write_row(&mut self, out: &mut Vec<u8>) {
        let r = &mut self.rng;
        let (iso, country, prefix, admins, clat, clon) = COUNTRIES[r.gen_range(0..COUNTRIES.len())];
        let (event_type, subs) = EVENT_TYPES[r.gen_range(0..EVENT_TYPES.len())];
        let sub = subs[r.gen_range(0..subs.len())];
        let date = (self.as_of - Duration::days(r.gen_range(0..self.days))).date_naive();
        let actor1 = ACTORS[r.gen_range(0..ACTORS.len())];
        let actor2 = if r.gen_bool(0.7) { ACTORS[r.gen_range(0..ACTORS.len())] } else { "" };
        let admin1 = admins[r.gen_range(0..admins.len())];
        let lat = clat + r.gen_range(-2.0..2.0);
        let lon = clon + r.gen_range(-2.0..2.0);
        let fatalities = if r.gen_bool(0.6) { 0 } else { r.gen_range(1..40) };
        let id = self.next_id;
        self.next_id += 1;
        let row = format!(
            r#"{{"event_id_cnty":"{prefix}{id}","event_date":"{date}","year":"{year}","time_precision":"1","disorder_type":"Political violence","event_type":"{event_type}","sub_event_type":"{sub}","actor1":"{actor1}","assoc_actor_1":"","inter1":"1","actor2":"{actor2}","assoc_actor_2":"","inter2":"2","interaction":"12","civilian_targeting":"","iso":"{iso}","region":"","country":"{country}","admin1":"{admin1}","admin2":"","admin3":"","location":"{admin1}","latitude":"{lat:.4}","longitude":"{lon:.4}","geo_precision":"1","source":"Local media","source_scale":"National","notes":"Synthetic benchmark event.","fatalities":"{fatalities}","tags":"","timestamp":"1763600000"}}"#,
            year = date.format("%Y"),
        );
        out.extend_from_slice(row.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_parse_with_the_real_parser() {
        let as_of = DateTime::parse_from_rfc3339("2026-11-20T06:00:00Z").unwrap().with_timezone(&Utc);
        let mut g = AcledGenerator::new(2500, 7, as_of, 90);
        let mut total = 0;
        while let Some(page) = g.next_page(1000) {
            let parsed = crate::acled::parse_page(&page).unwrap();
            total += crate::acled::normalise(parsed.data.iter(), usize::MAX).unwrap().num_rows();
        }
        assert_eq!(total, 2500);
    }
}
