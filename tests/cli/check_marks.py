#!/usr/bin/env python3
"""The cache marks on the memory latency figure, as the run recorded them.

usage: check_marks.py REPORT.html RESULT.json

What the figure must mark is derived from the document alone, never from
what the host is assumed to have (issue 41: a 480 MiB L3 is larger than any
size a quick sweep measures, so that figure rightly marks L1d and L2 only):
the levels of the suite's "marks_sizes" note (KiB), in order, whose size is
inside the swept sizes' range, eight at most; none when the note is absent
(no source knew the caches). Prints what it found, for the TAP log.
"""
import json
import re
import sys


def expected(doc):
    suite = next(s for s in doc["suites"] if s["name"] == "mem")
    lat = next(t for t in suite["tests"] if t["name"] == "latency")
    sizes = [c["params"]["sizes"] for c in lat["cases"]]
    lo, hi = min(sizes), max(sizes)
    want = []
    for item in filter(None, suite["notes"].get("marks_sizes", "").split(",")):
        name, _, v = item.partition("=")
        if v and 0 < float(v) and lo <= float(v) <= hi:
            want.append(name)
    return want[:8], (lo, hi)


def main():
    html, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
    fig = next(f for f in html.split("<figure>") if "mem.latency ns_per_load vs sizes" in f)
    assert "(log scale)" in fig, "no log axis"
    got = re.findall(r'stroke-dasharray="4 3"/><text[^>]*>([^<]*)<', fig)
    want, rng = expected(doc)
    assert got == want, f"marks {got}, the run's notes and sizes {rng} KiB say {want}"
    print(f"marks {got} for sizes {rng[0]}..{rng[1]} KiB")


if __name__ == "__main__":
    main()
