//! The airport registry of SUPPLEMENT 2.1.0 (115 airports), compiled in from
//! `data/reference/airports.csv`, and the coverage sets the aviation upstreams use.

use std::sync::OnceLock;

use crate::countries::split_csv_line;

const AIRPORTS_CSV: &str = include_str!("../../data/reference/airports.csv");

#[derive(Debug, Clone, PartialEq)]
pub struct Airport {
    pub iata: &'static str,
    pub icao: &'static str,
    pub name: &'static str,
    pub city: &'static str,
    /// ISO 3166-1 alpha-2.
    pub country: &'static str,
    pub lat: f64,
    pub lon: f64,
    /// AMERICAS, EUROPE, APAC, MENA or AFRICA (the AirportRegion enum without its prefix).
    pub region: &'static str,
    /// IANA time zone.
    pub timezone: &'static str,
}

/// The 56 hubs AviationStack is asked about (2.1.0).
pub const AVIATIONSTACK_HUBS: [&str; 56] = [
    "YYZ", "YVR", "MEX", "GRU", "EZE", "BOG", "SCL", "LHR", "CDG", "FRA", "AMS", "MAD", "FCO", "MUC", "BCN", "ZRH",
    "IST", "VIE", "CPH", "DUB", "LIS", "ATH", "WAW", "HND", "NRT", "PEK", "PVG", "CAN", "SZX", "CTU", "KMG", "URC",
    "HKG", "SIN", "ICN", "BKK", "SYD", "DEL", "BOM", "KUL", "TPE", "MNL", "DXB", "DOH", "AUH", "RUH", "CAI", "TLV",
    "AMM", "KWI", "CMN", "JNB", "NBO", "LOS", "ADD", "CPT",
];

/// Every registry row, in the spec's order.
pub fn all() -> &'static [Airport] {
    static ROWS: OnceLock<Vec<Airport>> = OnceLock::new();
    ROWS.get_or_init(|| {
        AIRPORTS_CSV
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let f = split_csv_line(line);
                let number =
                    |s: &str| s.parse::<f64>().unwrap_or_else(|_| panic!("airports.csv: bad coordinate in {line}"));
                Airport {
                    iata: f[0],
                    icao: f[1],
                    name: f[2],
                    city: f[3],
                    country: f[4],
                    lat: number(f[5]),
                    lon: number(f[6]),
                    region: f[7],
                    timezone: f[8],
                }
            })
            .collect()
    })
}

pub fn by_iata(iata: &str) -> Option<&'static Airport> {
    all().iter().find(|a| a.iata == iata)
}

/// The FAA NAS Status coverage: the US rows.
pub fn faa() -> impl Iterator<Item = &'static Airport> {
    all().iter().filter(|a| a.country == "US")
}

/// The ICAO NOTAM coverage: the ICAO codes of every non-US row.
pub fn notam_icaos() -> Vec<&'static str> {
    all().iter().filter(|a| a.country != "US").map(|a| a.icao).collect()
}

/// Travelpayouts' default market for fares from `origin` (SUPPLEMENT 2.1.10): Turkish airports
/// `tr`, the UAE's DXB/AUH/SHJ/DWC `ae`, other European registry airports `gb`, else `us`.
pub fn default_market(origin: &str) -> &'static str {
    match by_iata(origin) {
        Some(a) if a.country == "TR" => "tr",
        _ if ["DXB", "AUH", "SHJ", "DWC"].contains(&origin) => "ae",
        Some(a) if a.region == "EUROPE" => "gb",
        _ => "us",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn markets_follow_the_origin() {
        assert_eq!(default_market("IST"), "tr");
        assert_eq!(default_market("ESB"), "tr");
        assert_eq!(default_market("DWC"), "ae");
        assert_eq!(default_market("LHR"), "gb");
        assert_eq!(default_market("JFK"), "us");
        assert_eq!(default_market("DOH"), "us", "MENA, not Europe");
        assert_eq!(default_market("ZZZ"), "us");
    }

    #[test]
    fn the_registry_of_2_1_0() {
        let rows = all();
        assert_eq!(rows.len(), 115);
        assert_eq!(rows.iter().map(|a| a.iata).collect::<HashSet<_>>().len(), 115);
        assert_eq!(rows.iter().map(|a| a.icao).collect::<HashSet<_>>().len(), 115);
        let count = |region: &str| rows.iter().filter(|a| a.region == region).count();
        assert_eq!(
            [count("AMERICAS"), count("EUROPE"), count("APAC"), count("MENA"), count("AFRICA")],
            [22, 21, 25, 36, 11]
        );
        assert!(rows.iter().all(|a| crate::aviation::AirportRegion::of_registry(a.region).is_some()));
        assert!(AVIATIONSTACK_HUBS.iter().all(|h| by_iata(h).is_some()));
        assert_eq!(faa().count(), 14);
        assert_eq!(notam_icaos().len(), 101);
        let ist = by_iata("IST").unwrap();
        assert_eq!((ist.icao, ist.country, ist.region, ist.timezone), ("LTFM", "TR", "EUROPE", "Europe/Istanbul"));
        assert!(rows.iter().all(|a| (-90.0..=90.0).contains(&a.lat) && (-180.0..=180.0).contains(&a.lon)));
        assert!(
            rows.iter().all(|a| crate::countries::name_of(a.country).is_some()),
            "every country is in countries.csv"
        );
    }
}
