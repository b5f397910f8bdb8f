#!/usr/bin/env python3
"""Which lint evidence goes with observed sites of one reason (issue 8).

For every prediction of a reason (default RETURN:error) in the kept reports of
bench/thirdparty/run.sh (verify-possible.json and lint-possible.json of each
program under bench/results/thirdparty/), groups verify's statuses (confirmed,
latent, unexercised, masked) by the evidence lint names in its reasoning: the
heat clause (the function escapes; a loop whose trip count the bytecode does
not show; called from code that runs hot; a once-only branch; under a pcall of
the file; other), and whether the call passes a level (`error(msg, 2)`: an
argument checker). Run `bench/thirdparty/run.sh --relint` first. Prints
Markdown. Not part of the pass/fail tests.

usage: evidence.py [--results DIR] [--reason ID]
"""
import argparse
import json
import os
import re
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STATUSES = ("confirmed", "latent", "unexercised", "masked")


def heat_of(reasoning):
    if "under a pcall" in reasoning:
        return "runs under a pcall of its file"
    if "escapes" in reasoning:
        return "its function escapes"
    if "once per key" in reasoning or "initializes a value once" in reasoning:
        return "a once-only branch"
    if re.search(r"it runs in the loop at line \d+, whose trip count", reasoning):
        return "a loop of unknown trip count"
    if "runs hot" in reasoning or re.search(r"which runs \d+ times", reasoning):
        return "called from code that runs hot"
    return "other"


def source_line(root, path, line):
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "thirdparty"))
    ap.add_argument("--reason", default="RETURN:error")
    args = ap.parse_args()
    rows = defaultdict(Counter)
    for name in sorted(os.listdir(args.results)):
        verify = os.path.join(args.results, name, "verify-possible.json")
        lint = os.path.join(args.results, name, "lint-possible.json")
        if not (os.path.isfile(verify) and os.path.isfile(lint)):
            continue
        with open(verify, encoding="utf-8") as f:
            v = json.load(f)
        with open(lint, encoding="utf-8") as f:
            predictions = {(p["path"], p["line"], p["reasonId"]): p for p in json.load(f)["predictions"]}
        for site in v["sites"]:
            if site["reasonId"] != args.reason or site["status"] not in STATUSES:
                continue
            p = predictions.get((site["path"], site["line"], site["reasonId"]), {})
            heat = heat_of(p.get("reasoning", ""))
            text = source_line(v.get("root", ""), site["path"], site["line"])
            level = bool(re.search(r"\berror\s*\(.*,[^,()]*(\([^()]*\)[^,()]*)*\)\s*(end)?\s*$", text))
            for key in ("all", heat, "passes a level" if level else "passes no level"):
                rows[key][site["status"]] += 1
    print(f"| {args.reason}: evidence | predicted | confirmed | latent | unexercised | masked "
          "| confirmed among exercised | confirmed among predicted |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for key in sorted(rows, key=lambda k: (k != "all", -sum(rows[k].values()))):
        c = rows[key]
        total = sum(c.values())
        exercised = c["confirmed"] + c["latent"]
        share = f"{c['confirmed'] / exercised:.3f}" if exercised else "—"
        print(f"| {key} | {total} | {c['confirmed']} | {c['latent']} | {c['unexercised']} | {c['masked']} "
              f"| {share} | {c['confirmed'] / total:.3f} |")


if __name__ == "__main__":
    main()
