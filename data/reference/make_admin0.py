"""Regenerates admin0.json: Natural Earth admin-0 country boundaries (1:50m) with ISO codes and a
label point per country, for point-in-polygon country lookup.

Input: `countries-50m.json` from the npm package `world-atlas` version 2.0.2 (ISC licence,
https://github.com/topojson/world-atlas), a TopoJSON build of Natural Earth 4.1.0 "Admin 0 -
Countries" 1:50m (public domain). Codes and English names come from countries.csv next to this
script. Python 3.11 standard library only; the output is deterministic.

usage:
    cd "$(mktemp -d)" && npm pack world-atlas@2.0.2 && tar xzf world-atlas-2.0.2.tgz
    python3 data/reference/make_admin0.py package/countries-50m.json

Output (data/reference/admin0.json, one compact JSON object):
    {"source": "...", "countries": [{"iso2", "iso3", "name", "label": [lon, lat],
     "polygons": [[outer_ring, hole_ring, ...], ...]}, ...]}
Each ring is a FLAT array lon,lat,lon,lat,... (WGS84 degrees, rounded to 4 decimals) and is OPEN:
the first point is NOT repeated at the end. Consecutive duplicate points (after rounding) are
dropped, and a ring left with fewer than 3 points is dropped (a polygon whose outer ring is dropped
is dropped entirely). Countries are sorted by iso2, then name; a geometry without an ISO code has
iso2 = iso3 = "" and keeps its world-atlas name. Geometries with the same code are merged into one
entry (world-atlas gives Ashmore and Cartier Is. Australia's numeric code 036).

world-atlas polygons are spherical (Natural Earth's antimeridian cuts were stitched), so polygons
crossing 180 degrees (Russia's mainland + Chukotka, Wrangel Island, one Fiji islet) are cut at
+-180 again, and Antarctica becomes one planar ring closed along lat -89.999 from 180 to -180.
All coordinates are within -180..180, so an even-odd point-in-polygon test over lon/lat (all
rings of a polygon together) works directly.

Label point: the pole of inaccessibility ("polylabel", precision 0.01 degrees, planar lon/lat) of
the country's largest polygon by planar area, holes included, rounded to 4 decimals. world-atlas
drops Natural Earth's LABEL_X/LABEL_Y, so this is our own rule.
"""

import csv
import heapq
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = ("Natural Earth 1:50m Cultural Vectors, Admin 0 \u2013 Countries (public domain), "
          "via world-atlas 2.0.2 countries-50m.json")
DECIMALS = 4
# Geometries without an id (or with an id missing from countries.csv) mapped by name. Only Kosovo
# has an obvious code; Somaliland, N. Cyprus, Siachen Glacier and Indian Ocean Ter. (Christmas
# Island + Cocos Islands in one geometry) stay without a code.
BY_NAME = {"Kosovo": "XK"}


# --- TopoJSON decoding -----------------------------------------------------------------------

def decode_arcs(topo):
    """Absolute lon/lat arcs from quantized, delta-encoded arcs."""
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy, *_ in arc:
            x += dx
            y += dy
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)
    return arcs


def ring_from_arcs(indexes, arcs):
    """Concatenates arcs (~i = arc i reversed), dropping each arc's first point after the first."""
    ring = []
    for i in indexes:
        pts = arcs[i] if i >= 0 else arcs[~i][::-1]
        ring.extend(pts if not ring else pts[1:])
    return ring


def geometry_polygons(geom, arcs):
    """List of polygons, each a list of rings (lists of (lon, lat)), of a (Multi)Polygon."""
    if geom["type"] == "Polygon":
        parts = [geom["arcs"]]
    elif geom["type"] == "MultiPolygon":
        parts = geom["arcs"]
    else:
        raise ValueError(f"unexpected geometry type {geom['type']}")
    return [[ring_from_arcs(r, arcs) for r in poly] for poly in parts]


# --- antimeridian ----------------------------------------------------------------------------
# world-atlas stitched Natural Earth's antimeridian cuts back together (its polygons are spherical,
# as d3-geo reads them): Russia's mainland + Chukotka, Wrangel Island and one Fiji islet cross
# 180 degrees, and Antarctica is a polygon whose outer ring circles the pole at -89.999 with the
# coast as its hole. A planar lookup needs them cut at the antimeridian again.

def unwrap(ring):
    """Longitudes made continuous (|step| <= 180) along a closed ring; returns [(u, lat)]."""
    out = [ring[0]]
    for (a, _), (b, lat) in zip(ring, ring[1:]):
        d = b - a
        d -= 360 * round(d / 360)
        out.append((out[-1][0] + d, lat))
    return out


def clip(ring, x, keep_greater):
    """Sutherland-Hodgman clip of a closed ring against the half-plane lon >= x (or <= x).
    A concave ring may come out with zero-width bridges along lon = x, which do not change
    even-odd point-in-polygon answers."""
    inside = (lambda p: p[0] >= x) if keep_greater else (lambda p: p[0] <= x)
    out = []
    for a, b in zip(ring, ring[1:]):
        if inside(b):
            if not inside(a):
                out.append((x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])))
            out.append(b)
        elif inside(a):
            out.append((x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])))
    return out + out[:1]


def planarize(poly):
    """Spherical polygon (closed rings) -> list of planar polygons within -180..180."""
    rings = [unwrap(r) for r in poly]
    winding = [round((r[-1][0] - r[0][0]) / 360) for r in rings]
    if any(winding):  # a ring around a pole (Antarctica): cut it open at the antimeridian
        paths = []
        for ring, s in zip(poly, winding):
            if s == 0:
                sys.exit("a polar polygon with a ring not around the pole: not handled")
            start = next((i for i, p in enumerate(ring) if abs(p[0]) == 180), None)
            if start is None:
                sys.exit("a polar ring without a vertex on the antimeridian: not handled")
            ring = ring[start:-1] + ring[:start + 1]
            path = unwrap([(-180.0 * s, ring[0][1])] + ring[1:])
            if min(u for u, _ in path) < -180 or max(u for u, _ in path) > 180:
                sys.exit("a polar ring crossing the antimeridian twice: not handled")
            paths.append((-s, path))
        paths.sort()  # eastward path (s = +1) first, then the westward one
        if len(paths) == 2 and paths[0][0] != paths[1][0]:
            ring = paths[0][1] + paths[1][1]
        elif len(paths) == 1:
            path = paths[0][1]
            pole = -90.0 if sum(lat for _, lat in path) < 0 else 90.0
            ring = path + [(path[-1][0], pole), (path[0][0], pole)]
        else:
            sys.exit("unexpected polar polygon")
        return [[ring + ring[:1]]]
    lo = min(u for r in rings for u, _ in r)
    hi = max(u for r in rings for u, _ in r)
    if lo >= -180 and hi <= 180:
        return [poly]
    if len(poly) > 1:
        sys.exit("a polygon with holes crossing the antimeridian: not handled")
    pieces = []
    for k in range(math.floor((lo + 180) / 360), math.ceil((hi - 180) / 360) + 1):
        piece = clip(clip(rings[0], -180 + 360 * k, True), 180 + 360 * k, False)
        if len(piece) >= 4:
            pieces.append([[(u - 360 * k, lat) for u, lat in piece]])
    return pieces


def clean_ring(ring):
    """Rounds, drops consecutive duplicates and the closing point; None if < 3 points remain."""
    out = []
    for lon, lat in ring:
        p = (round(lon, DECIMALS) + 0.0, round(lat, DECIMALS) + 0.0)  # + 0.0: no -0.0
        if not out or out[-1] != p:
            out.append(p)
    while len(out) > 1 and out[-1] == out[0]:
        out.pop()
    return out if len(out) >= 3 else None


# --- geometry helpers ------------------------------------------------------------------------

def ring_area(ring):
    """Absolute planar (shoelace) area of an open ring."""
    s = 0.0
    n = len(ring)
    for i in range(n):
        x1, y1 = ring[i]
        x2, y2 = ring[(i + 1) % n]
        s += x1 * y2 - x2 * y1
    return abs(s) / 2


def polygon_area(poly):
    return ring_area(poly[0]) - sum(ring_area(h) for h in poly[1:])


def point_to_polygon_dist(x, y, poly):
    """Signed distance from (x, y) to the polygon outline: positive inside, negative outside."""
    inside = False
    min_d2 = math.inf
    for ring in poly:
        n = len(ring)
        j = n - 1
        for i in range(n):
            ax, ay = ring[i]
            bx, by = ring[j]
            if (ay > y) != (by > y) and x < (bx - ax) * (y - ay) / (by - ay) + ax:
                inside = not inside
            min_d2 = min(min_d2, seg_dist2(x, y, ax, ay, bx, by))
            j = i
    return (1 if inside else -1) * math.sqrt(min_d2)


def seg_dist2(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    if dx or dy:
        t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
        if t > 1:
            ax, ay = bx, by
        elif t > 0:
            ax, ay = ax + dx * t, ay + dy * t
    dx, dy = px - ax, py - ay
    return dx * dx + dy * dy


def polylabel(poly, precision=0.01):
    """Pole of inaccessibility (port of mapbox/polylabel): the interior point farthest from the
    outline, found by quadtree search with a priority queue, to within `precision`."""
    xs = [p[0] for p in poly[0]]
    ys = [p[1] for p in poly[0]]
    min_x, min_y, max_x, max_y = min(xs), min(ys), max(xs), max(ys)
    width, height = max_x - min_x, max_y - min_y
    cell_size = min(width, height)
    if cell_size == 0:
        return (min_x, min_y)
    h = cell_size / 2
    queue = []
    counter = 0  # tie-breaker so heap order never compares beyond numbers

    def cell(x, y, half):
        d = point_to_polygon_dist(x, y, poly)
        return (d, x, y, half, d + half * math.sqrt(2))

    def push(c):
        nonlocal counter
        heapq.heappush(queue, (-c[4], counter, c))
        counter += 1

    x = min_x
    while x < max_x:
        y = min_y
        while y < max_y:
            push(cell(x + h, y + h, h))
            y += cell_size
        x += cell_size

    # first guess: the area centroid, else the bbox centre
    best = centroid_cell(poly, cell)
    bbox_cell = cell(min_x + width / 2, min_y + height / 2, 0)
    if bbox_cell[0] > best[0]:
        best = bbox_cell

    while queue:
        _, _, c = heapq.heappop(queue)
        d, cx, cy, half, cmax = c
        if d > best[0]:
            best = c
        if cmax - best[0] <= precision:
            continue
        half /= 2
        for sx in (-1, 1):
            for sy in (-1, 1):
                push(cell(cx + sx * half, cy + sy * half, half))
    return (best[1], best[2])


def centroid_cell(poly, cell):
    ring = poly[0]
    area = x = y = 0.0
    n = len(ring)
    j = n - 1
    for i in range(n):
        ax, ay = ring[i]
        bx, by = ring[j]
        f = ax * by - bx * ay
        x += (ax + bx) * f
        y += (ay + by) * f
        area += f * 3
        j = i
    if area == 0:
        return cell(ring[0][0], ring[0][1], 0)
    return cell(x / area, y / area, 0)


def in_ring(lon, lat, flat):
    """Even-odd test of a point against one flat ring."""
    inside = False
    n = len(flat) // 2
    j = n - 1
    for i in range(n):
        xi, yi, xj, yj = flat[2 * i], flat[2 * i + 1], flat[2 * j], flat[2 * j + 1]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def countries_at(lon, lat, countries):
    hits = []
    for c in countries:
        for poly in c["polygons"]:
            if sum(in_ring(lon, lat, r) for r in poly) % 2:
                hits.append(c["iso2"] or c["name"])
                break
    return hits


# --- main ------------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        topo = json.load(f)
    with open(os.path.join(HERE, "countries.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    by_numeric = {r["numeric"]: r for r in rows if r["numeric"]}
    by_alpha2 = {r["alpha2"]: r for r in rows}

    arcs = decode_arcs(topo)
    merged = {}  # key -> entry
    for geom in topo["objects"]["countries"]["geometries"]:
        wa_name = geom["properties"]["name"]
        row = by_numeric.get(geom.get("id"))
        if row is None and wa_name in BY_NAME:
            row = by_alpha2[BY_NAME[wa_name]]
        if row is not None:
            key = row["alpha2"]
            entry = merged.setdefault(key, {"iso2": row["alpha2"], "iso3": row["alpha3"],
                                            "name": row["name"], "polys": [], "from": []})
        else:
            key = "\0" + wa_name
            entry = merged.setdefault(key, {"iso2": "", "iso3": "", "name": wa_name,
                                            "polys": [], "from": []})
        entry["from"].append(f"{geom.get('id')} {wa_name}")
        for poly in (p for sp in geometry_polygons(geom, arcs) for p in planarize(sp)):
            outer = clean_ring(poly[0])
            if outer is None:
                continue
            holes = [r for r in (clean_ring(h) for h in poly[1:]) if r is not None]
            entry["polys"].append([outer] + holes)

    countries = []
    for entry in sorted(merged.values(), key=lambda e: (e["iso2"], e["name"])):
        if not entry["polys"]:
            print(f"warning: {entry['name']} has no polygon left", file=sys.stderr)
            continue
        largest = max(entry["polys"], key=polygon_area)
        lx, ly = polylabel(largest, 0.01)
        countries.append({
            "iso2": entry["iso2"],
            "iso3": entry["iso3"],
            "name": entry["name"],
            "label": [round(lx, DECIMALS) + 0.0, round(ly, DECIMALS) + 0.0],
            "polygons": [[[v for p in ring for v in p] for ring in poly] for poly in entry["polys"]],
        })
        if len(entry["from"]) > 1:
            print(f"merged into {entry['iso2']}: {entry['from']}")

    out_path = os.path.join(HERE, "admin0.json")
    text = json.dumps({"source": SOURCE, "countries": countries}, ensure_ascii=False,
                      separators=(",", ":"))
    with open(out_path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)

    n_points = sum(len(r) // 2 for c in countries for poly in c["polygons"] for r in poly)
    n_polys = sum(len(c["polygons"]) for c in countries)
    size = os.path.getsize(out_path)
    print(f"{len(countries)} countries, {n_polys} polygons, {n_points} points, "
          f"{size} bytes ({size / 1e6:.2f} MB) -> {out_path}")
    print("without ISO code:", [c["name"] for c in countries if not c["iso2"]])
    missing = sorted(set(by_alpha2) - {c["iso2"] for c in countries})
    print(f"countries.csv codes with no geometry ({len(missing)}):", " ".join(missing))

    # self-checks: (name, lat, lon, expected iso2 or None)
    checks = [
        ("Paris", 48.8566, 2.3522, "FR"),
        ("Kyiv", 50.45, 30.52, "UA"),
        ("mid-Atlantic", 30.0, -40.0, None),
        ("Dhaka", 23.81, 90.41, "BD"),
        ("Oder, west bank", 52.35, 14.50, "DE"),
        ("Oder, east bank", 52.35, 14.60, "PL"),
        ("Oder, 0.05 deg pair west", 52.35, 14.53, "DE"),
        ("Oder, 0.05 deg pair east", 52.35, 14.58, "PL"),
        ("Sicily/Etna", 37.75, 14.99, "IT"),
        ("Los Angeles", 34.05, -118.24, "US"),
        ("Jakarta", -6.2, 106.85, "ID"),
        ("Ho Chi Minh City", 10.8, 106.7, "VN"),
        ("Manila", 14.6, 120.98, "PH"),
        ("Reykjavik", 64.15, -21.94, "IS"),
        # 21.3 N, 157.86 W is on the harbour shore, ~100 m outside the 1:50m coastline.
        ("Honolulu shore", 21.3, -157.86, None),
        ("Honolulu centre", 21.3069, -157.8583, "US"),
        # 16.8 S, 179.9 E is sea west of Taveuni in the 1:50m data; Taveuni straddles 180.
        ("Fiji, W of Taveuni (sea)", -16.8, 179.9, None),
        ("Fiji, Taveuni W of 180", -16.9, 179.97, "FJ"),
        ("Fiji, Taveuni E of 180", -16.8, -179.9, "FJ"),
        ("Russia, Chukotka", 66.0, -173.0, "RU"),
        ("Russia, Wrangel E of 180", 71.2, -179.5, "RU"),
        ("Russia, Wrangel W of 180", 71.2, 179.5, "RU"),
        ("Antarctica, near the pole", -89.5, 0.0, "AQ"),
    ]
    failed = 0
    for name, lat, lon, want in checks:
        got = countries_at(lon, lat, countries)
        ok = got == ([want] if want else [])
        failed += not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {name:26} lon={lon:<9} lat={lat:<8} -> "
              f"{','.join(got) or 'none'} (want {want or 'none'})")
    # where the DE outline crosses lat 52.35 near the Oder
    de = next(c for c in countries if c["iso2"] == "DE")
    lat = 52.35
    xs = []
    for poly in de["polygons"]:
        for r in poly:
            n = len(r) // 2
            for i in range(n):
                x1, y1, x2, y2 = r[2 * i], r[2 * i + 1], r[2 * ((i + 1) % n)], r[2 * ((i + 1) % n) + 1]
                if (y1 > lat) != (y2 > lat):
                    x = x1 + (lat - y1) * (x2 - x1) / (y2 - y1)
                    if 14 < x < 15:
                        xs.append(round(x, 4))
    print(f"  DE outline crosses lat {lat} at lon {xs}")
    labels = {c["iso2"]: c["label"] for c in countries}
    for code in ("BD", "FR", "SD", "UA", "PK", "NG"):
        lon, lat = labels[code]
        print(f"  label {code}: lon={lon} lat={lat} -> {','.join(countries_at(lon, lat, countries))}")
    if failed:
        sys.exit(f"{failed} self-check(s) failed")


if __name__ == "__main__":
    main()
