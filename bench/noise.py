#!/usr/bin/env python3
"""Noise figure of `ljcheck lint` on the lint-throughput corpus.

How much lint says about real code nobody here wrote: predictions per 10,000
lines of bench/corpus (bench/corpus.sh), at each severity (blacklist, warn,
info), with masked predictions (`maskedBy`: an earlier certain abort hides
them; lint prints them as notes) counted apart. Runs, from the repository root,

    ljcheck lint --format json --fail-on none -j 2 bench/corpus

at lint's default confidence (`likely` and up), or reads a lint JSON written
that way (--lint-json). Lines are counted as an editor counts them (blank lines
and comments included) over the files of bench/corpus/files.txt. Prints
Markdown. Not part of the pass/fail tests.

usage: bench/noise.py [--ljcheck PATH] [--lint-json FILE] [--confidence LEVEL] [-j N]
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEVERITIES = ("blacklist", "warn", "info")


def count_lines(corpus):
    with open(os.path.join(corpus, "files.txt"), encoding="utf-8") as f:
        files = [l.rstrip("\n") for l in f if l.strip()]
    total = 0
    for p in files:
        with open(os.path.join(corpus, p), "rb") as f:
            data = f.read()
        total += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    return len(files), total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ljcheck", default=os.path.join(REPO, "build", "bin", "ljcheck"))
    ap.add_argument("--lint-json", help="read this lint JSON instead of running lint")
    ap.add_argument("--confidence", help="passed to lint as --confidence (default: lint's own, likely)")
    ap.add_argument("-j", default="2", help="lint's -j (default 2)")
    ap.add_argument("--save", help="also write the lint JSON here")
    a = ap.parse_args()

    corpus = os.path.join(REPO, "bench", "corpus")
    if not os.path.exists(os.path.join(corpus, "files.txt")):
        sys.exit("noise: bench/corpus/files.txt not found (run bench/corpus.sh first)")
    nfiles, nlines = count_lines(corpus)

    command = "(read from " + (a.lint_json or "") + ")"
    if a.lint_json:
        with open(a.lint_json, encoding="utf-8") as f:
            doc = json.load(f)
    else:
        cmd = [a.ljcheck, "lint", "--format", "json", "--fail-on", "none", "-j", a.j]
        if a.confidence:
            cmd += ["--confidence", a.confidence]
        cmd.append("bench/corpus")
        command = " ".join(["ljcheck"] + cmd[1:])
        p = subprocess.run(cmd, cwd=REPO, capture_output=True)
        if p.returncode not in (0, 1, 3):
            sys.exit(f"noise: lint failed (exit {p.returncode}): {p.stderr.decode(errors='replace')[:2000]}")
        if a.save:
            with open(a.save, "wb") as f:
                f.write(p.stdout)
        doc = json.loads(p.stdout)

    preds = doc["predictions"]
    shown, masked = Counter(), Counter()
    by_conf = Counter()
    for x in preds:
        (masked if "maskedBy" in x else shown)[x["severity"]] += 1
        if "maskedBy" not in x:
            by_conf[(x["severity"], x.get("confidence", ""))] += 1

    per10k = lambda n: n * 10000 / nlines
    out = ["# Noise figure: lint predictions per 10,000 lines of bench/corpus", "",
           f"`{command}`: {nfiles:,} files in files.txt, {nlines:,} lines "
           f"({doc.get('files', '?')} files analysed, {len(doc.get('errors', []))} not compiled); "
           f"recorder profile {doc['traceProfile'].get('name', '')}.", "",
           "| severity | predictions | per 10k lines | masked | masked per 10k lines |",
           "|---|--:|--:|--:|--:|"]
    for s in SEVERITIES + tuple(sorted((set(shown) | set(masked)) - set(SEVERITIES))):
        if s in SEVERITIES or shown[s] or masked[s]:
            out.append(f"| {s} | {shown[s]:,} | {per10k(shown[s]):.1f} | {masked[s]:,} | {per10k(masked[s]):.1f} |")
    ts, tm = sum(shown.values()), sum(masked.values())
    out.append(f"| all | {ts:,} | {per10k(ts):.1f} | {tm:,} | {per10k(tm):.1f} |")
    out += ["", "Unmasked predictions by severity and confidence (per 10k lines):", "",
            "| severity | " + " | ".join(("certain", "likely", "possible")) + " |", "|---|--:|--:|--:|"]
    for s in SEVERITIES:
        out.append(f"| {s} | " + " | ".join(f"{per10k(by_conf[(s, c)]):.1f}"
                                             for c in ("certain", "likely", "possible")) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
