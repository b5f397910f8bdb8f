#!/usr/bin/env python3
"""Scores ljcheck's static predictions against runtime observations.

usage: score.py --root DIR --workloads REL [--ljcheck PATH] [--out FILE.md]
                --vm LABEL LINT.json RUNTIME_DIR [--vm ...]

For each VM: joins the lint JSON (predictions) with every runtime JSON in
RUNTIME_DIR (observed sites) through `ljcheck verify --format json`, the
join users get, and takes each site's status (confirmed, missed, latent)
from it. Beside each runtime JSON, its NAME.visited.tsv (the instructions
the recorder visited, written by host.lua; without it, the runtime JSON's
"visited" lines) tells latent predictions the recorder visited (false
positives) from those it never reached (not scored). Prints precision and
recall per reason family as Markdown. Which codes are benign comes from the
reason catalog (registry/catalog/reasons.json). Masked predictions and those
below --min-confidence are not scored. See bench/accuracy/README.md.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
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


def benign_codes(root):
    """Stop-class codes the collector reports only with includeBenign, as the
    catalog marks them; those not in the structural family are trace formation
    working as designed and are neither predicted nor scored."""
    with open(os.path.join(root, "registry", "catalog", "reasons.json"), encoding="utf-8") as f:
        return {r["code"] for r in json.load(f)["reasons"] if r.get("benign")}


def code_of(reason_id):
    return reason_id.split(":", 1)[0]


class Workspace:
    """The linted Lua files: their paths relative to the root and their lines."""

    def __init__(self, root, workloads):
        self.root = root
        self.benign = benign_codes(root)
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
        if code in self.benign:
            return None
        return "other"


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


CONFIDENCE_ORDER = {"possible": 0, "likely": 1, "certain": 2}


def read_predictions(lint_path, ws, min_confidence):
    """Predictions keyed by (path, line, reasonId), and how many were left out.

    Left out: masked predictions (`maskedBy`: an earlier certain abort stops
    every trace before it gets there, so the recorder never reaches the site)
    and predictions below `min_confidence` (lint leaves them out by default;
    a lint run with a lower --confidence still scores what the default prints).
    """
    doc = load_json(lint_path)
    preds, masked, unsure = {}, {}, 0
    floor = CONFIDENCE_ORDER[min_confidence]
    for p in doc.get("predictions", []):
        key = (p["path"], int(p["line"]), p["reasonId"])
        if key[0] not in ws.files:
            continue
        if CONFIDENCE_ORDER.get(p.get("confidence", min_confidence), floor) < floor:
            unsure += 1
            continue
        if p.get("maskedBy"):
            masked.setdefault(key, p)
            continue
        preds.setdefault(key, p)
    # One site may be masked on one path and reported unmasked on another.
    masked = {k: p for k, p in masked.items() if k not in preds}
    if doc.get("predictions") and not any("confidence" in p for p in doc["predictions"]):
        sys.stderr.write("score.py: %s has no confidence or maskedBy fields (an older ljcheck): "
                         "every prediction is scored\n" % lint_path)
    return preds, masked, unsure, doc, doc.get("errors", [])


CALL_OPS = {"CALL", "CALLM", "CALLT", "CALLMT"}
RETURN_OPS = {"RET", "RET0", "RET1", "RETM"}
# Iterator functions: their splits are reported at the ITERC that calls them.
ITERATOR_SUBJECTS = ("_aux", ":C", ":next")


class Coverage:
    """What the recorder visited: lines, and where the run recorded them
    (host.lua's NAME.visited.tsv), instructions.

    A prediction names one instruction: an FNEW, an UCLO, a VARG, a call.
    A line is shared by the FNEW of a closure and the closure's own final
    return, by a branch test and the call it guards, by a loop header's call
    and the loop body; that the recorder visited the line says nothing about
    the predicted instruction then. With instructions, a prediction counts as
    visited when the recorder visited one of the instructions on its line
    that can carry it: of its opcode (calls: the call whose callee was loaded
    under the callee's name, when the line has one), in its function when
    the lint names the function by line (<anonymous:N>, <main>). DOWNREC and
    NYIRETL are raised at returns (NYIRETL also at a vararg function's tail
    call); LINNER and CUNROLL land on a loop's first statement, the line after
    it or a header: any instruction of their line counts.
    """

    def __init__(self, index):
        self.index = index  # (path, line) -> [(linedefined, pc, opcode, hint)]
        self.lines = set()
        self.pcs = None  # {(path, linedefined, pc)}

    def add_instruction(self, path, linedefined, pc, line):
        if self.pcs is None:
            self.pcs = set()
        self.pcs.add((path, linedefined, pc))
        self.lines.add((path, line))

    @staticmethod
    def kinds(reason_id):
        """Opcodes that can carry a prediction of reason_id; None for any."""
        code = code_of(reason_id)
        if code == "NYIBC":
            return {reason_id.split(":", 1)[1]}
        if code in ("STITCH", "RETURN"):
            if reason_id.endswith(ITERATOR_SUBJECTS):
                return CALL_OPS | {"ITERC"}
            return CALL_OPS
        if code in ("NYIFFU", "NYICALL", "NYICONV", "BADTYPE"):
            return CALL_OPS
        if code == "DOWNREC":  # raised while recording the return into the recursion
            return RETURN_OPS
        if code == "NYIRETL":  # a return, or a tail call out of a vararg frame
            return RETURN_OPS | {"CALLT", "CALLMT"}
        return None

    @staticmethod
    def function_line(pred):
        name = pred.get("function", "")
        if name == "<main>":
            return 0
        if name.startswith("<anonymous:") and name.endswith(">") and name[11:-1].isdigit():
            return int(name[11:-1])
        return None

    def line_visited(self, key):
        return (key[0], key[1]) in self.lines

    def candidates(self, key, pred):
        kinds, fline = self.kinds(key[2]), self.function_line(pred)
        found = [(ld, pc, hint) for ld, pc, op, hint in self.index.get((key[0], key[1]), ())
                 if (kinds is None or op in kinds) and (fline is None or ld == fline)]
        callee = (pred.get("callee") or "").rsplit(".", 1)[-1]
        named = [c for c in found if callee and c[2] == callee]
        return named or found

    def visited(self, key, pred):
        if self.pcs is None or (key[0], key[1]) not in self.index:
            return self.line_visited(key)
        return any((key[0], ld, pc) in self.pcs for ld, pc, _ in self.candidates(key, pred))


def bytecode_index(luajit, root, files):
    """Every instruction of the workload files (bytecode_index.lua), or {}
    when luajit cannot run it (coverage is then judged by lines)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bytecode_index.lua")
    try:
        out = subprocess.run([luajit, script] + sorted(files), cwd=root, check=True,
                             stdout=subprocess.PIPE, universal_newlines=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("score.py: cannot index the workloads' bytecode (%s): coverage by lines\n" % e)
        return {}
    index = defaultdict(list)
    for row in out.splitlines():
        parts = row.split("\t")
        if len(parts) == 6 and parts[1].isdigit() and parts[2].isdigit() and parts[3].isdigit():
            index[(parts[0], int(parts[3]))].append((int(parts[1]), int(parts[2]), parts[4], parts[5]))
    return index


def read_runtime(run_dir, ws, index):
    """The runtime JSON files, each observed site's details (raw reason),
    coverage, and what was observed outside the workloads."""
    observed, coverage, outside, profiles, runs = {}, Coverage(index), defaultdict(int), set(), []
    coverage_missing = []
    for name in sorted(os.listdir(run_dir)):
        if not name.endswith(".json"):
            continue
        doc = load_json(os.path.join(run_dir, name))
        runs.append(os.path.join(run_dir, name))
        prof = doc.get("traceProfile", {})
        profiles.add((prof.get("name", "?"), prof.get("id", "?")))
        tsv = os.path.join(run_dir, name[:-5] + ".visited.tsv")
        if os.path.exists(tsv):
            with open(tsv, encoding="utf-8") as f:
                for row in f:
                    parts = row.rstrip("\n").split("\t")
                    if len(parts) == 5 and parts[1].isdigit() and parts[2].isdigit() and parts[3].isdigit():
                        coverage.add_instruction(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))
        elif "visited" in doc:
            for loc in doc["visited"]:
                path, _, line = loc.rpartition(":")
                if line.isdigit():
                    coverage.lines.add((path, int(line)))
        else:
            coverage_missing.append(name)
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
    return observed, coverage, outside, profiles, runs, coverage_missing


def verify_statuses(ljcheck, root, lint_doc, preds, run_files):
    """(path, line, reasonId) -> status, from `ljcheck verify --format json`
    over the scored predictions and every run."""
    scored = dict(lint_doc)
    scored["predictions"] = list(preds.values())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(scored, f)
        lint_path = f.name
    try:
        cmd = [ljcheck, "verify", "--static", lint_path, "--format", "json", "--include-benign",
               "--allow-profile-mismatch"]
        for run in run_files:
            cmd += ["--runtime", run]
        done = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
    finally:
        os.unlink(lint_path)
    if done.returncode != 0:
        sys.exit("score.py: ljcheck verify failed (%d): %s" % (done.returncode, done.stderr.strip()))
    for warning in json.loads(done.stdout).get("warnings", []):
        sys.stderr.write("score.py: ljcheck verify: %s\n" % warning)
    return {(s["path"], int(s["line"]), s["reasonId"]): s["status"] for s in json.loads(done.stdout)["sites"]}


def ratio(num, den):
    return None if den == 0 else num / den


def fmt_ratio(r):
    return "–" if r is None else "%.2f" % r


class Score:
    """Per family, from verify's statuses: predicted = confirmed + latent +
    unexercised, observed = confirmed + missed; the predictions not confirmed
    are split by instruction coverage into false positives and unvisited."""

    def __init__(self, ws, preds, observed, coverage, statuses):
        self.ws = ws
        self.preds, self.observed, self.coverage = preds, observed, coverage
        self.rows = {}
        self.details = {}
        fam_pred = defaultdict(set)
        fam_obs = defaultdict(set)
        for key, status in statuses.items():
            fam = ws.family(key[2], key[0]) if key[0] in ws.files else None
            if not fam:
                continue
            # Unexercised (verify's line coverage) and latent predictions are
            # both split again below by instruction coverage, which is finer.
            if status in ("confirmed", "latent", "unexercised"):
                fam_pred[fam].add(key)
            if status in ("confirmed", "missed"):
                fam_obs[fam].add(key)
        self.predicted_keys = set().union(*fam_pred.values()) if fam_pred else set()
        self.observed_keys = set().union(*fam_obs.values()) if fam_obs else set()
        for fam in ["overall"] + FAMILIES:
            if fam == "overall":
                p = set().union(*fam_pred.values()) if fam_pred else set()
                o = set().union(*fam_obs.values()) if fam_obs else set()
            else:
                p, o = fam_pred[fam], fam_obs[fam]
            confirmed = p & o
            # A prediction counts for precision when the recorder visited its
            # instruction (see Coverage), or when it was observed there (which
            # implies a visit). The line-level count is kept for comparison.
            on_visited = {k for k in p if k in confirmed or coverage.visited(k, preds.get(k, {}))}
            on_lines = {k for k in p if k in confirmed or coverage.line_visited(k)}
            unvisited = p - on_visited
            false_pos = on_visited - confirmed
            missed = o - confirmed
            self.rows[fam] = dict(
                predicted=len(p), on_visited=len(on_visited), unvisited=len(unvisited),
                observed=len(o), confirmed=len(confirmed), missed=len(missed),
                false_pos=len(false_pos),
                recall=ratio(len(confirmed), len(o)),
                precision=ratio(len(confirmed), len(on_visited)),
                precision_lines=ratio(len(confirmed), len(on_lines)))
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
        out = ["| family | predicted | visited | unvisited | observed | confirmed | missed "
               "| false pos. | recall | precision | P, line-level | target | met |",
               "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"]
        for fam in ["overall"] + FAMILIES:
            r = self.rows[fam]
            target, met = self.target_cell(fam)
            out.append("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |" % (
                FAMILY_TITLES[fam], r["predicted"], r["on_visited"], r["unvisited"], r["observed"],
                r["confirmed"], r["missed"], r["false_pos"], fmt_ratio(r["recall"]),
                fmt_ratio(r["precision"]), fmt_ratio(r["precision_lines"]), target, met))
        return "\n".join(out)

    def calibration(self):
        """The predictions that claim the most, as issue 8 sets them: of those
        lint gives severity `blacklist` and of those it gives confidence
        `certain`, how many the runtime confirmed among those the recorder
        visited (as for precision above), and how many of the confirmed were
        observed blacklisting their trace start."""
        out = ["| predictions | predicted | visited | confirmed | observed blacklisting "
               "| confirmed among visited | target | met |",
               "|---|--:|--:|--:|--:|--:|---|---|"]
        confirmed_all = self.details["overall"]["confirmed"]
        for title, pick, target in (
                ("severity `blacklist`", lambda p: p.get("severity") == "blacklist", 0.80),
                ("confidence `certain`", lambda p: p.get("confidence") == "certain", 0.85)):
            keys = {k for k in self.predicted_keys if pick(self.preds.get(k, {}))}
            confirmed = keys & confirmed_all
            visited = {k for k in keys if k in confirmed or self.coverage.visited(k, self.preds.get(k, {}))}
            blacklisting = {k for k in confirmed if self.observed.get(k, {}).get("severity") == "blacklist"}
            r = ratio(len(confirmed), len(visited))
            out.append("| %s | %d | %d | %d | %d | %s | ≥ %.2f | %s |" % (
                title, len(keys), len(visited), len(confirmed), len(blacklisting), fmt_ratio(r), target,
                "n/a" if r is None else "yes" if r >= target else "no"))
        return "\n".join(out)

    def per_workload(self):
        by = defaultdict(lambda: defaultdict(int))
        d = self.details["overall"]
        for key in self.predicted_keys:
            by[self.ws.workload(key[0])]["predicted"] += 1
        for key in self.observed_keys:
            by[self.ws.workload(key[0])]["observed"] += 1
        for what in ("missed", "false_pos", "unvisited", "confirmed"):
            for key in d[what]:
                by[self.ws.workload(key[0])][what] += 1
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
                s = self.observed.get(k, {})
                extra = "%s ×%s, %s" % (s.get("severity", ""), s.get("count", ""), s.get("rawReason", ""))
            else:
                p = self.preds.get(k, {})
                extra = "%s, %s" % (p.get("severity", ""), p.get("context", ""))
            out.append("- `%s` %s (%s) `%s`" % (loc, k[2], extra, src.replace("`", "'")))
        return out


def masked_listing(ws, masked, observed):
    """Masked predictions, the observed ones (the masking was wrong) first."""
    out = []
    for k in sorted(masked, key=lambda k: (k not in observed, k)):
        m = masked[k].get("maskedBy")
        by = "%s %s" % (m.get("location", m.get("line", "?")), m.get("reasonId", "")) if isinstance(m, dict) else m
        out.append("- `%s:%d` %s%s, masked by %s `%s`" % (
            k[0], k[1], k[2], " (**observed**)" if k in observed else "", by,
            ws.source(k[0], k[1]).replace("`", "'")))
    return out


def report_vm(label, lint_path, run_dir, ws, min_confidence, index, ljcheck):
    preds, masked, unsure, lint_doc, lint_errors = read_predictions(lint_path, ws, min_confidence)
    lint_profile = lint_doc.get("traceProfile", {})
    observed, coverage, outside, profiles, runs, no_cov = read_runtime(run_dir, ws, index)
    statuses = verify_statuses(ljcheck, ws.root, lint_doc, preds, runs)
    score = Score(ws, preds, observed, coverage, statuses)
    head = ["## %s" % label, ""]
    head.append("Runtime profile: %s; lint profile: %s; %d workload runs; %d visited lines%s." % (
        ", ".join("%s (`%s`)" % p for p in sorted(profiles)) or "?",
        "%s (`%s`)" % (lint_profile.get("name", "?"), lint_profile.get("id", "?")),
        len(runs), len(coverage.lines),
        "" if coverage.pcs is None else ", %d visited instructions" % len(coverage.pcs)))
    head.append("")
    head.append("Not scored: %d masked predictions (listed below), %d below confidence `%s`." % (
        len(masked), unsure, min_confidence))
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
    summary = head + ["", score.table(), "", score.calibration(), ""]
    details = ["### Per workload (overall)", "", score.per_workload(), ""]
    for fam in FAMILIES:
        for what, title in (("missed", "Missed (observed, not predicted)"),
                            ("false_pos", "False positives (predicted where the recorder visited, not observed)"),
                            ("unvisited", "Unvisited predictions (never recorded; not scored)"),
                            ("confirmed", "Confirmed")):
            lines = score.listing(fam, what)
            if lines:
                details += ["### %s — %s: %d" % (FAMILY_TITLES[fam], title, len(lines)), ""] + lines + [""]
    lines = masked_listing(ws, masked, observed)
    if lines:
        details += ["### Masked predictions (an earlier certain abort hides them; not scored): %d" % len(lines),
                    ""] + lines + [""]
    return "\n".join(summary), "\n".join(details), score


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--workloads", required=True, help="workload folder relative to the root")
    ap.add_argument("--vm", nargs=3, action="append", metavar=("LABEL", "LINT_JSON", "RUNTIME_DIR"),
                    required=True)
    ap.add_argument("--out", help="also write the full report (with site lists) here")
    ap.add_argument("--header", default="", help="text put above the tables")
    ap.add_argument("--luajit", default="luajit",
                    help="a luajit to list the workloads' bytecode with (default: luajit on PATH)")
    ap.add_argument("--ljcheck", default="build/bin/ljcheck",
                    help="the ljcheck whose verify joins the reports (default: build/bin/ljcheck under the root)")
    ap.add_argument("--min-confidence", default="likely", choices=sorted(CONFIDENCE_ORDER),
                    help="score predictions at or above this confidence (default: likely, lint's default)")
    args = ap.parse_args()
    ws = Workspace(os.path.abspath(args.root), args.workloads)
    if not ws.files:
        sys.exit("score.py: no .lua files under %s" % args.workloads)
    index = bytecode_index(args.luajit, ws.root, ws.files)
    ljcheck = args.ljcheck if os.path.isabs(args.ljcheck) else os.path.join(ws.root, args.ljcheck)
    summaries, fulls = [], []
    for label, lint_path, run_dir in args.vm:
        summary, details, _ = report_vm(label, lint_path, run_dir, ws, args.min_confidence, index, ljcheck)
        summaries.append(summary)
        fulls.append(summary + "\n" + details)
    header = args.header + "\n\n" if args.header else ""
    print(header + "\n".join(summaries))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(header + "\n".join(fulls))


if __name__ == "__main__":
    main()
