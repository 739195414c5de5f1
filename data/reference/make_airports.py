"""Regenerates airports.csv: the 115 airports of SUPPLEMENT 2.1.0 (IATA code, country and region as
the spec lists them), with ICAO code, name, city, coordinates and IANA time zone taken from the
`airportsdata` package (MIT licence, https://github.com/mborsetti/airportsdata).

usage: pip install airportsdata==20260905 && python make_airports.py > airports.csv
"""

import csv
import sys
from zoneinfo import ZoneInfo

import airportsdata

# SUPPLEMENT 2.1.0, region by region, in the spec's order.
REGIONS = {
    "AMERICAS": "JFK US, LAX US, ORD US, ATL US, DFW US, DEN US, SFO US, SEA US, MIA US, BOS US, EWR US, IAH US, PHX US, LAS US, YYZ CA, YVR CA, MEX MX, GRU BR, EZE AR, BOG CO, SCL CL, LIM PE",
    "EUROPE": "LHR GB, CDG FR, FRA DE, AMS NL, MAD ES, FCO IT, MUC DE, BCN ES, LGW GB, ZRH CH, VIE AT, CPH DK, DUB IE, IST TR, LIS PT, ATH GR, WAW PL, SVO RU, ARN SE, OSL NO, HEL FI",
    "APAC": "HND JP, NRT JP, PEK CN, PVG CN, CAN CN, SZX CN, CTU CN, KMG CN, URC CN, HKG HK, SIN SG, ICN KR, BKK TH, SYD AU, MEL AU, DEL IN, BOM IN, KUL MY, CGK ID, MNL PH, TPE TW, AKL NZ, KHI PK, ISB PK, LHE PK",
    "MENA": "DXB AE, DOH QA, AUH AE, RUH SA, JED SA, CAI EG, TLV IL, AMM JO, BAH BH, KWI KW, MCT OM, CMN MA, ALG DZ, TUN TN, IKA IR, THR IR, MHD IR, SYZ IR, IFN IR, BGW IQ, BSR IQ, EBL IQ, NJF IQ, BEY LB, DAM SY, ALP SY, SAH YE, ADE YE, SHJ AE, DWC AE, DMM SA, MED SA, SAW TR, ESB TR, ADB TR, AYT TR",
    "AFRICA": "JNB ZA, CPT ZA, NBO KE, LOS NG, ADD ET, ACC GH, DAR TZ, MRU MU, TIP LY, BEN LY, KRT SD",
}


def main():
    db = airportsdata.load("IATA")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["iata", "icao", "name", "city", "country", "lat", "lon", "region", "timezone"])
    for region, listing in REGIONS.items():
        for entry in listing.split(", "):
            iata, country = entry.split()
            a = db[iata]
            if a["country"] != country:
                sys.exit(f"{iata}: the package says {a['country']}, the spec {country}")
            ZoneInfo(a["tz"])  # a valid IANA name
            out.writerow([iata, a["icao"], a["name"], a["city"], country, f"{a['lat']:.4f}", f"{a['lon']:.4f}", region, a["tz"]])


if __name__ == "__main__":
    main()
