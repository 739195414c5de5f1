//! Which country a point lies in, and each country's label point: Natural Earth admin-0
//! boundaries (`data/reference/admin0.json`, compiled in) behind a grid index.
//!
//! The index splits the globe into 1° cells. At build time it records, for every cell, the country
//! containing the cell's corner (an even-odd scanline along each row of corners) and the boundary
//! edges that touch the cell. A lookup in a cell no boundary touches is the corner's country; in a
//! boundary cell, each country's parity flips once per edge crossed on the way from the corner to
//! the point. So a lookup reads one cell's edges, never a whole polygon.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::SourceError;

const SOURCE: &str = include_str!("../../data/reference/admin0.json");

/// Corners sit off every 4-decimal coordinate of the data, so no vertex lies on a corner's
/// scanline or at a corner (the crossing rules stay unambiguous).
const CORNER_OFFSET_LON: f64 = 0.000_123_456_7;
const CORNER_OFFSET_LAT: f64 = 0.000_234_567_8;
const COLUMNS: usize = 360;
const ROWS: usize = 181;
const NONE: u16 = u16::MAX;

#[derive(Deserialize)]
struct File {
    countries: Vec<CountryRecord>,
}

#[derive(Deserialize)]
struct CountryRecord {
    iso2: String,
    name: String,
    label: [f64; 2],
    /// Polygons, each a list of rings (outer first), each ring flat `lon, lat, lon, lat, …`.
    polygons: Vec<Vec<Vec<f64>>>,
}

/// A country of the boundary file.
#[derive(Debug, Clone)]
pub struct Country {
    /// ISO 3166-1 alpha-2; "" for territories without one.
    pub iso2: String,
    pub name: String,
    /// The label point (lon, lat).
    pub label: (f64, f64),
}

#[derive(Debug, Clone, Copy)]
struct Edge {
    country: u16,
    ax: f64,
    ay: f64,
    bx: f64,
    by: f64,
}

pub struct Admin0 {
    countries: Vec<Country>,
    /// Per cell (row-major from the south-west), the country holding its south-west corner.
    corner: Vec<u16>,
    /// Per cell, its edges: `edges[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    edges: Vec<Edge>,
}

fn cell_of(lon: f64, lat: f64) -> (usize, usize) {
    let col = ((lon - CORNER_OFFSET_LON + 180.0).floor().max(0.0) as usize).min(COLUMNS - 1);
    let row = ((lat - CORNER_OFFSET_LAT + 90.0).floor().max(0.0) as usize).min(ROWS - 1);
    (col, row)
}

fn corner_of(col: usize, row: usize) -> (f64, f64) {
    (col as f64 - 180.0 + CORNER_OFFSET_LON, row as f64 - 90.0 + CORNER_OFFSET_LAT)
}

/// Twice the signed area of (a, b, c): > 0 when c is left of a→b.
fn orient(ax: f64, ay: f64, bx: f64, by: f64, cx: f64, cy: f64) -> f64 {
    (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
}

/// Whether segment c→p crosses edge a→b. Half-open on both sides (a zero orientation counts as
/// "right of"), so a path through a vertex is counted as if nudged off it, consistently.
fn crosses(e: &Edge, cx: f64, cy: f64, px: f64, py: f64) -> bool {
    (orient(cx, cy, px, py, e.ax, e.ay) > 0.0) != (orient(cx, cy, px, py, e.bx, e.by) > 0.0)
        && (orient(e.ax, e.ay, e.bx, e.by, cx, cy) > 0.0) != (orient(e.ax, e.ay, e.bx, e.by, px, py) > 0.0)
}

impl Admin0 {
    /// The compiled-in Natural Earth boundaries, indexed once per process.
    pub fn get() -> &'static Admin0 {
        static INDEX: OnceLock<Admin0> = OnceLock::new();
        INDEX.get_or_init(|| Admin0::parse(SOURCE).expect("data/reference/admin0.json is valid"))
    }

    pub fn parse(json: &str) -> Result<Admin0, SourceError> {
        let file: File = serde_json::from_str(json).map_err(|e| SourceError::parse("admin0", e))?;
        if file.countries.len() >= NONE as usize {
            return Err(SourceError::parse("admin0", "too many countries"));
        }
        let mut all_edges: Vec<Edge> = Vec::new();
        let mut countries = Vec::with_capacity(file.countries.len());
        for (k, c) in file.countries.into_iter().enumerate() {
            for ring in c.polygons.iter().flatten() {
                let points: Vec<(f64, f64)> = ring.chunks_exact(2).map(|p| (p[0], p[1])).collect();
                for (i, &(ax, ay)) in points.iter().enumerate() {
                    let (bx, by) = points[(i + 1) % points.len()];
                    if (ax, ay) != (bx, by) {
                        all_edges.push(Edge { country: k as u16, ax, ay, bx, by });
                    }
                }
            }
            countries.push(Country { iso2: c.iso2, name: c.name, label: (c.label[0], c.label[1]) });
        }
        Ok(Admin0 { corner: corners(&all_edges), ..bucket(countries, &all_edges) })
    }

    pub fn countries(&self) -> &[Country] {
        &self.countries
    }

    /// The country containing (lon, lat), if any.
    pub fn locate(&self, lon: f64, lat: f64) -> Option<&Country> {
        if !(lon.is_finite() && lat.is_finite()) {
            return None;
        }
        let (col, row) = cell_of(lon, lat);
        let cell = row * COLUMNS + col;
        let at_corner = self.corner[cell];
        let edges = &self.edges[self.starts[cell] as usize..self.starts[cell + 1] as usize];
        if edges.is_empty() {
            return self.country(at_corner);
        }
        let (cx, cy) = corner_of(col, row);
        // Edges are grouped by country: one parity per run.
        let mut i = 0;
        let mut found = None;
        let mut corner_seen = false;
        while i < edges.len() {
            let k = edges[i].country;
            let mut odd = false;
            while i < edges.len() && edges[i].country == k {
                odd ^= crosses(&edges[i], cx, cy, lon, lat);
                i += 1;
            }
            corner_seen |= k == at_corner;
            if odd != (k == at_corner) {
                found = Some(k);
            }
        }
        // The corner's country keeps the point when no edge of it lies in the cell.
        if found.is_none() && !corner_seen {
            found = Some(at_corner);
        }
        found.and_then(|k| self.country(k))
    }

    fn country(&self, k: u16) -> Option<&Country> {
        (k != NONE).then(|| &self.countries[k as usize])
    }

    /// Every boundary vertex (each once per cell it is listed in): points on borders and coasts,
    /// the hardest lookups, for the benchmark.
    pub fn vertices(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.edges.iter().map(|e| (e.ax, e.ay))
    }

    /// A country by ISO alpha-2 (its label point for ReliefWeb's country-level disasters).
    pub fn by_iso2(&self, iso2: &str) -> Option<&Country> {
        self.countries.iter().find(|c| !c.iso2.is_empty() && c.iso2.eq_ignore_ascii_case(iso2))
    }
}

/// Every edge listed in each cell its bounding box touches, grouped by country within a cell.
fn bucket(countries: Vec<Country>, all_edges: &[Edge]) -> Admin0 {
    let mut per_cell: Vec<Vec<u32>> = vec![Vec::new(); COLUMNS * ROWS];
    for (n, e) in all_edges.iter().enumerate() {
        let (c0, r0) = cell_of(e.ax.min(e.bx), e.ay.min(e.by));
        let (c1, r1) = cell_of(e.ax.max(e.bx), e.ay.max(e.by));
        for row in r0..=r1 {
            for col in c0..=c1 {
                per_cell[row * COLUMNS + col].push(n as u32);
            }
        }
    }
    let mut starts = Vec::with_capacity(per_cell.len() + 1);
    let mut edges = Vec::new();
    for list in &mut per_cell {
        starts.push(edges.len() as u32);
        list.sort_by_key(|&n| all_edges[n as usize].country);
        edges.extend(list.iter().map(|&n| all_edges[n as usize]));
    }
    starts.push(edges.len() as u32);
    Admin0 { countries, corner: Vec::new(), starts, edges }
}

/// The country of every cell corner: along each row of corners, the boundary crossings sorted by
/// longitude and swept from the east, so each corner's parity per country is its crossings to the east.
fn corners(all_edges: &[Edge]) -> Vec<u16> {
    let mut corner = vec![NONE; COLUMNS * ROWS];
    for row in 0..ROWS {
        let (_, y) = corner_of(0, row);
        let mut crossings: Vec<(f64, u16)> = all_edges
            .iter()
            .filter(|e| (e.ay > y) != (e.by > y))
            .map(|e| (e.ax + (y - e.ay) / (e.by - e.ay) * (e.bx - e.ax), e.country))
            .collect();
        crossings.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut inside: Vec<u16> = Vec::new();
        let mut next = 0;
        for col in (0..COLUMNS).rev() {
            let (x, _) = corner_of(col, row);
            while next < crossings.len() && crossings[next].0 > x {
                let k = crossings[next].1;
                match inside.iter().position(|&i| i == k) {
                    Some(at) => {
                        inside.swap_remove(at);
                    }
                    None => inside.push(k),
                }
                next += 1;
            }
            corner[row * COLUMNS + col] = inside.first().copied().unwrap_or(NONE);
        }
    }
    corner
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two unit squares side by side, one with a hole, over several cells.
    fn squares() -> Admin0 {
        Admin0::parse(
            r#"{"countries":[
            {"iso2":"AA","name":"A","label":[10.5,10.5],"polygons":[[[10,10,12.5,10,12.5,12,10,12],[10.5,10.5,11,10.5,11,11,10.5,11]]]},
            {"iso2":"BB","name":"B","label":[13,11],"polygons":[[[12.5,10,14,10,14,12,12.5,12]]]}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn points_inside_on_either_side_of_a_border_in_a_hole_and_at_sea() {
        let a = squares();
        let code = |lon: f64, lat: f64| a.locate(lon, lat).map(|c| c.iso2.as_str());
        assert_eq!(code(12.49, 11.0), Some("AA"), "just west of the shared border");
        assert_eq!(code(12.51, 11.0), Some("BB"), "just east of it");
        assert_eq!(code(10.75, 10.75), None, "in A's hole");
        assert_eq!(code(10.25, 10.25), Some("AA"));
        assert_eq!(code(11.5, 10.5), Some("AA"), "a cell no edge touches: its corner's country");
        assert_eq!(code(11.5, 11.5), Some("AA"), "a cell with a far edge: no crossing on the way");
        assert_eq!(code(15.0, 11.0), None, "east of both");
        assert_eq!(code(11.0, 13.0), None, "north of both");
        assert_eq!(code(f64::NAN, 0.0), None);
        assert_eq!(a.by_iso2("bb").map(|c| c.label), Some((13.0, 11.0)));
    }

    #[test]
    fn natural_earth_points() {
        let a = Admin0::get();
        let code = |lon: f64, lat: f64| a.locate(lon, lat).map(|c| c.iso2.as_str()).unwrap_or("");
        for (lon, lat, expected) in [
            (2.3522, 48.8566, "FR"),
            (30.52, 50.45, "UA"),
            (-40.0, 30.0, ""),
            (90.41, 23.81, "BD"),
            (14.99, 37.75, "IT"),
            (-118.24, 34.05, "US"),
            (106.85, -6.2, "ID"),
            (-21.94, 64.15, "IS"),
            (-157.8583, 21.3069, "US"),
            // 0.05° either side of the Oder, where this outline's border crosses 52.35° N at 14.5578° E.
            (14.53, 52.35, "DE"),
            (14.58, 52.35, "PL"),
            // Both sides of the antimeridian, and the pole.
            (179.5, 71.2, "RU"),
            (-179.5, 71.2, "RU"),
            (-179.9, -16.8, "FJ"),
            (0.0, -89.5, "AQ"),
        ] {
            assert_eq!(code(lon, lat), expected, "({lon}, {lat})");
        }
    }
}
