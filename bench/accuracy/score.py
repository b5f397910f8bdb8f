#!/usr/bin/env python3
"""Scores ljcheck's static predictions against runtime observations.

usage: score.py --root DIR --workloads REL [--out FILE.md]
                --vm LABEL LINT.json RUNTIME_DIR [--vm ...]

For each VM: reads the lint JSON (predictions) and every runtime JSON in
RUNTIME_DIR (sites and "visited" lines, written with coverage on), joins them
on (path, line, reasonId) and prints precision and recall per reason family
as Markdown. See bench/accuracy/README.md for the method.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

FAMILIES = ["blockers", "splits", "structural", "other"]
FAMILY_TITLES = {
    "overall": "overall",
    "blockers": "blockers (NYIBC, NYIFFU, NYICALL, NYICONV, FFI BADTYPE)",
    "splits": "trace splits (STITCH, RETURN)",
    "structural": "structural (LINNER, DOWNREC, CUNROLL, NYIRETL)",
    "other": "other (NYITMIX, RECERR, CJITOFF, non-FFI BADTYPE, ...)",
}
# (min recall, min precision) from issue 4; None: no target.
TARGETS = {"blockers": (0.95, 0.90), "splits": (0.95, 0.90), "structural": (0.5, 0.5)}
BLOCKER_CODES = {"NYIBC", "NYIFFU", "NYICALL", "NYICONV", "BADTYPE"}
STRUCTURAL_CODES = {"LINNER", "DOWNREC", "CUNROLL", "NYIRETL"}
# Stop-class reasons the collector reports only with includeBenign; those not
# in the structural family are trace formation working as designed and are
# neither predicted nor scored.
BENIGN_CODES = {"LLEAVE", "LINNER", "LUNROLL", "CUNROLL", "DOWNREC", "BLACKL", "RETRY"}


def code_of(reason_id):
    return reason_id.split(":", 1)[0]


class Workspace:
    """The linted Lua files: their paths relative to the root and their lines."""

    def __init__(self, root, workloads):
        self.root = root
        self.files = {}
        base = os.path.join(root, workloads)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".lua"):
                    full = os.path.join(dirpath, name)
                    rel = os.path.relpath(full, root)
                    with open(full, encoding="utf-8", errors="replace") as f:
                        self.files[rel] = f.read().split("\n")
        # Files that load the FFI: a BADTYPE there counts as an FFI blocker.
        self.ffi_files = {p for p, lines in self.files.items()
                          if any('require("ffi")' in l or "require('ffi')" in l or "require 'ffi'" in l
                                 for l in lines)}

    def workload(self, path):
        parts = path.split("/")
        return parts[-2] if len(parts) >= 2 else path

    def source(self, path, line):
        lines = self.files.get(path)
        if not lines or line < 1 or line > len(lines):
            return ""
        text = lines[line - 1].strip()
        return text if len(text) <= 70 else text[:67] + "..."

    def family(self, reason_id, path):
        code = code_of(reason_id)
        if code in ("STITCH", "RETURN"):
            return "splits"
        if code == "BADTYPE":
            return "blockers" if path in self.ffi_files else "other"
        if code in BLOCKER_CODES:
            return "blockers"
        if code in STRUCTURAL_CODES:
            return "structural"
        if code in BENIGN_CODES:
            return None
        return "other"


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_predictions(lint_path, ws):
    doc = load_json(lint_path)
    preds = {}
    for p in doc.get("predictions", []):
        key = (p["path"], int(p["line"]), p["reasonId"])
        if key[0] in ws.files and key not in preds:
            preds[key] = p
    return preds, doc.get("traceProfile", {}), doc.get("errors", [])


def read_runtime(run_dir, ws):
    """Observed sites keyed like predictions, visited lines, and what was left out."""
    observed, visited, outside, profiles, runs = {}, set(), defaultdict(int), set(), []
    coverage_missing = []
    for name in sorted(os.listdir(run_dir)):
        if not name.endswith(".json"):
            continue
        doc = load_json(os.path.join(run_dir, name))
        runs.append(name[:-5])
        prof = doc.get("traceProfile", {})
        profiles.add((prof.get("name", "?"), prof.get("id", "?")))
        if "visited" not in doc:
            coverage_missing.append(name)
        for loc in doc.get("visited", []):
            path, _, line = loc.rpartition(":")
            if line.isdigit():
                visited.add((path, int(line)))
        for s in doc.get("sites", []):
            path, line, rid = s.get("path", ""), int(s.get("line", 0)), s["reasonId"]
            if path not in ws.files:
                outside[(s.get("location", "?"), rid)] += int(s.get("count", 1))
                continue
            key = (path, line, rid)
            if key in observed:
                observed[key]["count"] += int(s.get("count", 0))
                if s.get("severity") == "blacklist":
                    observed[key]["severity"] = "blacklist"
            else:
                observed[key] = dict(s)
    return observed, visited, outside, profiles, runs, coverage_missing


def ratio(num, den):
    return None if den == 0 else num / den


def fmt_ratio(r):
    return "–" if r is None else "%.2f" % r


class Score:
    def __init__(self, ws, preds, observed, visited):
        self.ws = ws
        self.preds, self.observed, self.visited = preds, observed, visited
        self.rows = {}
        self.details = {}
        fam_pred = defaultdict(set)
        fam_obs = defaultdict(set)
        for key in preds:
            fam = ws.family(key[2], key[0])
            if fam:
                fam_pred[fam].add(key)
        for key in observed:
            fam = ws.family(key[2], key[0])
            if fam:
                fam_obs[fam].add(key)
        for fam in ["overall"] + FAMILIES:
            if fam == "overall":
                p = set().union(*fam_pred.values()) if fam_pred else set()
                o = set().union(*fam_obs.values()) if fam_obs else set()
            else:
                p, o = fam_pred[fam], fam_obs[fam]
            confirmed = p & o
            # A prediction counts for precision when the recorder visited its
            # line, or when it was observed there (which implies a visit).
            on_visited = {k for k in p if (k[0], k[1]) in visited or k in confirmed}
            unvisited = p - on_visited
            false_pos = on_visited - confirmed
            missed = o - confirmed
            self.rows[fam] = dict(
                predicted=len(p), on_visited=len(on_visited), unvisited=len(unvisited),
                observed=len(o), confirmed=len(confirmed), missed=len(missed),
                false_pos=len(false_pos),
                recall=ratio(len(confirmed), len(o)),
                precision=ratio(len(confirmed), len(on_visited)))
            self.details[fam] = dict(missed=missed, false_pos=false_pos, unvisited=unvisited,
                                     confirmed=confirmed)

    def target_cell(self, fam):
        t = TARGETS.get(fam)
        if not t:
            return "", ""
        row = self.rows[fam]
        text = "R ≥ %.2f, P ≥ %.2f" % t
        if row["recall"] is None and row["precision"] is None:
            return text, "n/a"
        ok = (row["recall"] is not None and row["recall"] >= t[0]) and \
             (row["precision"] is not None and row["precision"] >= t[1])
        return text, "yes" if ok else "no"

    def table(self):
        out = ["| family | predicted | on visited lines | unvisited | observed | confirmed | missed "
               "| false pos. | recall | precision | target | met |",
               "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"]
        for fam in ["overall"] + FAMILIES:
            r = self.rows[fam]
            target, met = self.target_cell(fam)
            out.append("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |" % (
                FAMILY_TITLES[fam], r["predicted"], r["on_visited"], r["unvisited"], r["observed"],
                r["confirmed"], r["missed"], r["false_pos"], fmt_ratio(r["recall"]),
                fmt_ratio(r["precision"]), target, met))
        return "\n".join(out)

    def per_workload(self):
        by = defaultdict(lambda: defaultdict(int))
        d = self.details["overall"]
        for key in self.preds:
            if self.ws.family(key[2], key[0]):
                by[self.ws.workload(key[0])]["predicted"] += 1
        for key in self.observed:
            if self.ws.family(key[2], key[0]):
                by[self.ws.workload(key[0])]["observed"] += 1
        for what in ("missed", "false_pos", "unvisited"):
            for key in d[what]:
                by[self.ws.workload(key[0])][what] += 1
        for key in set(self.preds) & set(self.observed):
            if self.ws.family(key[2], key[0]):
                by[self.ws.workload(key[0])]["confirmed"] += 1
        names = sorted({self.ws.workload(p) for p in self.ws.files})
        out = ["| workload | predicted | unvisited | observed | confirmed | missed | false pos. |",
               "|---|--:|--:|--:|--:|--:|--:|"]
        for n in names:
            r = by[n]
            out.append("| %s | %d | %d | %d | %d | %d | %d |" % (
                n, r["predicted"], r["unvisited"], r["observed"], r["confirmed"], r["missed"],
                r["false_pos"]))
        return "\n".join(out)

    def listing(self, fam, what):
        keys = sorted(self.details[fam][what], key=lambda k: (k[0], k[1], k[2]))
        out = []
        for k in keys:
            loc = "%s:%d" % (k[0], k[1])
            src = self.ws.source(k[0], k[1])
            if what in ("missed", "confirmed"):
                s = self.observed[k]
                extra = "%s ×%s, %s" % (s.get("severity", ""), s.get("count", ""), s.get("rawReason", ""))
            else:
                p = self.preds[k]
                extra = "%s, %s" % (p.get("severity", ""), p.get("context", ""))
            out.append("- `%s` %s (%s) `%s`" % (loc, k[2], extra, src.replace("`", "'")))
        return out


def report_vm(label, lint_path, run_dir, ws):
    preds, lint_profile, lint_errors = read_predictions(lint_path, ws)
    observed, visited, outside, profiles, runs, no_cov = read_runtime(run_dir, ws)
    score = Score(ws, preds, observed, visited)
    head = ["## %s" % label, ""]
    head.append("Runtime profile: %s; lint profile: %s; %d workload runs; %d visited lines." % (
        ", ".join("%s (`%s`)" % p for p in sorted(profiles)) or "?",
        "%s (`%s`)" % (lint_profile.get("name", "?"), lint_profile.get("id", "?")),
        len(runs), len(visited)))
    if no_cov:
        head.append("")
        head.append("**Warning**: no `visited` lines in %s (coverage was off): precision is not "
                    "restricted to visited lines there." % ", ".join(no_cov))
    if lint_errors:
        head.append("")
        head.append("Lint errors: " + "; ".join("%s: %s" % (e.get("path"), e.get("message")) for e in lint_errors))
    if outside:
        head.append("")
        head.append("Observed outside the workload files (not scored): " + ", ".join(
            "`%s` %s ×%d" % (loc, rid, n) for (loc, rid), n in sorted(outside.items())))
    summary = head + ["", score.table(), ""]
    details = ["### Per workload (overall)", "", score.per_workload(), ""]
    for fam in FAMILIES:
        for what, title in (("missed", "Missed (observed, not predicted)"),
                            ("false_pos", "False positives (predicted on a visited line, not observed)"),
                            ("unvisited", "Unvisited predictions (line never recorded; not scored)"),
                            ("confirmed", "Confirmed")):
            lines = score.listing(fam, what)
            if lines:
                details += ["### %s — %s: %d" % (FAMILY_TITLES[fam], title, len(lines)), ""] + lines + [""]
    return "\n".join(summary), "\n".join(details), score


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--workloads", required=True, help="workload folder relative to the root")
    ap.add_argument("--vm", nargs=3, action="append", metavar=("LABEL", "LINT_JSON", "RUNTIME_DIR"),
                    required=True)
    ap.add_argument("--out", help="also write the full report (with site lists) here")
    ap.add_argument("--header", default="", help="text put above the tables")
    args = ap.parse_args()
    ws = Workspace(os.path.abspath(args.root), args.workloads)
    if not ws.files:
        sys.exit("score.py: no .lua files under %s" % args.workloads)
    summaries, fulls = [], []
    for label, lint_path, run_dir in args.vm:
        summary, details, _ = report_vm(label, lint_path, run_dir, ws)
        summaries.append(summary)
        fulls.append(summary + "\n" + details)
    header = args.header + "\n\n" if args.header else ""
    print(header + "\n".join(summaries))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(header + "\n".join(fulls))


if __name__ == "__main__":
    main()
