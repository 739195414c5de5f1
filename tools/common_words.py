"""Writes data/reference/common-words.txt: the company-monitoring ambiguity guard's list of frequent
English words (SUPPLEMENT 4.8). A one-word company name of six or more characters on this list
("Summit", "Pioneer") is not distinctive, so it needs a second signal before an item counts as news
about the company.

Source: wordfreq (PyPI, pinned in tools/requirements-words.txt), its English list in frequency
order; the first TOP entries, keeping only plain ASCII letters. Run with `make common-words`."""

import pathlib
import sys

from wordfreq import top_n_list

TOP = 10_000
OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "reference" / "common-words.txt"


def main() -> int:
    words = sorted({w for w in top_n_list("en", TOP) if w.isascii() and w.isalpha()})
    if len(words) < 5_000:
        print(f"only {len(words)} words; the guard needs at least 5,000", file=sys.stderr)
        return 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(words)} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
