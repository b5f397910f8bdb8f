#!/usr/bin/env python3
"""Scores ljcheck on third-party programs (bench/thirdparty/run.sh).

Reads, for each program, the verification JSON that `ljcheck verify` wrote
(bench/results/thirdparty/<name>/verify.json over the default lint, and
verify-possible.json over `lint --confidence possible`) and prints Markdown:
per program and pooled, per reason family, predicted / confirmed / missed /
latent / unexercised / masked with precision and recall; the calibration table
by confidence (verify's byConfidence); the confirmation rate of predictions of
severity `blacklist`; the targets of issue 8. The statuses are verify's own:
nothing is joined here. Which codes are benign (stop-class) comes from the
reason catalog (registry/catalog/reasons.json).

Sites are scored only in the program's own files (paths inside its root):
observations in our drivers (bench/thirdparty/drivers/, absolute paths) are
counted apart.

usage: score.py [--results DIR] [--out FILE] [--catalog FILE] [NAME...]
"""
import argparse
import json
import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

FAMILIES = ("blockers", "splits", "structural")
STATIC = ("blockers", "splits")
STRUCTURAL_CODES = {"LINNER", "DOWNREC", "CUNROLL", "NYIRETL"}
BLOCKER_CODES = {"NYIBC", "NYICALL", "NYICONV"}
FFI_REQUIRE = re.compile(r"""require\s*\(?\s*["']ffi["']""")
PREDICTED = ("confirmed", "latent", "unexercised")

# issue 8
TARGET_P, TARGET_R = 0.90, 0.95
TARGET_CERTAIN, TARGET_BLACKLIST = 0.85, 0.80


def code_of(reason_id):
    return reason_id.split(":", 1)[0]


def benign_codes(catalog):
    with open(catalog, encoding="utf-8") as f:
        return {r["code"] for r in json.load(f)["reasons"] if r.get("benign")}


def ratio(num, den):
    return None if den == 0 else num / den


def fmt(r):
    return "—" if r is None else f"{r:.3f}"


def met(ok, value=0):
    if value is None:
        return "not measurable (n = 0)"
    return "met" if ok else "**not met**"


class Program:
    def __init__(self, results, name, benign):
        self.name = name
        self.dir = os.path.join(results, name)
        with open(os.path.join(self.dir, "verify.json"), encoding="utf-8") as f:
            self.verify = json.load(f)
        possible = os.path.join(self.dir, "verify-possible.json")
        self.verify_possible = None
        if os.path.exists(possible):
            with open(possible, encoding="utf-8") as f:
                self.verify_possible = json.load(f)
        self.root = self.verify["root"]
        self.benign = benign
        self._files = {}
        self._possible = None
        self.lint_paths = []
        lp = os.path.join(self.dir, "lint-paths.txt")
        if os.path.exists(lp):
            with open(lp, encoding="utf-8") as f:
                self.lint_paths = [l.rstrip("\n") for l in f if l.strip()]

    def lines_of(self, path):
        if path not in self._files:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                    self._files[path] = f.read().split("\n")
            except OSError:
                self._files[path] = []
        return self._files[path]

    def source(self, path, line):
        lines = self.lines_of(path)
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    def is_ffi_file(self, path):
        return any(FFI_REQUIRE.search(l) for l in self.lines_of(path))

    def own(self, site):
        p = site["path"]
        return bool(p) and not p.startswith("/") and not p.startswith("..") and p[0] not in "=["

    def family(self, site):
        code = code_of(site["reasonId"])
        if code in BLOCKER_CODES or code.startswith("NYIFFU"):
            return "blockers"
        if code == "BADTYPE":
            return "blockers" if self.is_ffi_file(site["path"]) else "other"
        if code in ("STITCH", "RETURN"):
            return "splits"
        if code in STRUCTURAL_CODES:
            return "structural"
        if code in self.benign:
            return None  # LLEAVE, LUNROLL, BLACKL, RETRY, …: trace formation at work
        return "other"

    def sites(self):
        for s in self.verify["sites"]:
            if s["status"] == "loaded-chunk":
                continue
            if not self.own(s):
                continue
            fam = self.family(s)
            if fam:
                yield fam, s

    def possible_status(self, site):
        """The status verify gave the same (location, reasonId) over lint --confidence possible."""
        if self._possible is None:
            self._possible = {}
            for x in (self.verify_possible or {}).get("sites", []):
                self._possible[(x["location"], x["reasonId"])] = x["status"]
        return self._possible.get((site["location"], site["reasonId"]))

    def observed_per_run(self):
        """Distinct sites each runtime report observed in the program's own files (benign ones included)."""
        out = []
        i = 1
        while os.path.exists(os.path.join(self.dir, f"r{i}.json")):
            with open(os.path.join(self.dir, f"r{i}.json"), encoding="utf-8") as f:
                doc = json.load(f)
            out.append(len({(x["location"], x["reasonId"]) for x in doc.get("sites", []) if self.own(x)}))
            i += 1
        return out

    def observed_blacklisting(self):
        """(location, reasonId) of the own sites some run observed with severity blacklist."""
        out = set()
        i = 1
        while os.path.exists(os.path.join(self.dir, f"r{i}.json")):
            with open(os.path.join(self.dir, f"r{i}.json"), encoding="utf-8") as f:
                doc = json.load(f)
            out |= {(x["location"], x["reasonId"]) for x in doc.get("sites", [])
                    if self.own(x) and x.get("severity") == "blacklist"}
            i += 1
        return out

    def driver_sites(self):
        return [s for s in self.verify["sites"] if not self.own(s) and s["status"] != "loaded-chunk"]

    def unlinted(self):
        """(observations, files) verify left out: in files the lint report did not analyze."""
        for w in self.verify.get("warnings", []):
            m = re.match(r"(\d+) observations in (\d+) files the lint report did not analyze", w)
            if m:
                return int(m.group(1)), int(m.group(2))
        return 0, 0

    def linted_lines(self):
        total = 0
        for p in self.lint_paths:
            full = os.path.join(self.root, p)
            paths = []
            if os.path.isdir(full):
                for d, _, files in os.walk(full):
                    paths += [os.path.join(d, f) for f in files if f.endswith(".lua")]
            elif os.path.exists(full):
                paths = [full]
            for q in paths:
                with open(q, "rb") as f:
                    data = f.read()
                total += data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        return total


class Tally:
    def __init__(self):
        self.n = defaultdict(int)

    def add(self, status):
        self.n[status] += 1

    def __iadd__(self, other):
        for k, v in other.n.items():
            self.n[k] += v
        return self

    @property
    def predicted(self):
        return sum(self.n[k] for k in PREDICTED)

    @property
    def precision(self):
        return ratio(self.n["confirmed"], self.n["confirmed"] + self.n["latent"])

    @property
    def recall(self):
        return ratio(self.n["confirmed"], self.n["confirmed"] + self.n["missed"])

    def row(self, label):
        n = self.n
        return (f"| {label} | {self.predicted} | {n['confirmed']} | {n['missed']} | {n['latent']} | "
                f"{n['unexercised']} | {n['masked']} | {fmt(self.precision)} | {fmt(self.recall)} |")


FAMILY_HEADER = ("| {} | predicted | confirmed | missed | latent | unexercised | masked | precision | recall |\n"
                 "|---|--:|--:|--:|--:|--:|--:|--:|--:|")


def family_tallies(prog):
    t = {f: Tally() for f in FAMILIES + ("other",)}
    for fam, s in prog.sites():
        t[fam].add(s["status"])
    return t


# Issue 8 names its static families "NYI bytecodes and splits around
# builtins". The blockers family here also holds the FFI aborts, and the
# splits family the splits around C-module functions (reasonId ...:C): each
# part is shown on its own as well.
PARTS = ("NYI bytecodes", "FFI aborts", "splits around builtins", "splits around C-module functions")


def part_of(fam, site):
    if fam == "blockers":
        return "NYI bytecodes" if code_of(site["reasonId"]) == "NYIBC" else "FFI aborts"
    if fam == "splits":
        return "splits around C-module functions" if site["reasonId"].endswith(":C") else "splits around builtins"
    return None


def part_tallies(prog):
    t = {name: Tally() for name in PARTS}
    for fam, s in prog.sites():
        part = part_of(fam, s)
        if part:
            t[part].add(s["status"])
    return t


def confidence_tallies(doc):
    out = {}
    for name, t in (doc or {}).get("byConfidence", {}).items():
        x = Tally()
        for k in ("confirmed", "latent", "unexercised", "masked"):
            x.n[k] = t.get(k, 0)
        out[name] = x
    return out


def blacklist_tally(prog):
    t = Tally()
    for _, s in prog.sites():
        if s["severity"] == "blacklist" and s["confidence"]:
            t.add(s["status"])
    return t


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]


def site_rows(progs, fam, status):
    rows = []
    for p in progs:
        for f, s in p.sites():
            if f == fam and s["status"] == status:
                rows.append((p, s))
    return rows


def listing(progs, fam, status, title):
    rows = site_rows(progs, fam, status)
    out = [f"### {title} ({len(rows)})", ""]
    if not rows:
        return out + ["none", ""]
    out += ["| program | location | reasonId | severity | confidence | at possible | observed | source |",
            "|---|---|---|---|---|---|--:|---|"]
    for p, s in rows:
        src = p.source(s["path"], s["line"]).replace("|", "\\|")
        if len(src) > 90:
            src = src[:87] + "..."
        pos = "predicted" if status == "missed" and p.possible_status(s) == "confirmed" else ""
        out.append(f"| {p.name} | {s['location']} | {s['reasonId']} | {s['severity']} | {s['confidence'] or '—'} | "
                   f"{pos} | {s['observedCount']} | `{src}` |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=os.path.join(REPO, "bench", "results", "thirdparty"))
    ap.add_argument("--out", help="also write the full report (tables and site lists) here")
    ap.add_argument("--catalog", default=os.path.join(REPO, "registry", "catalog", "reasons.json"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()

    benign = benign_codes(a.catalog)
    meta = {r[0]: r for r in read_tsv(os.path.join(a.results, "programs.tsv"))[1:]}
    runs = defaultdict(list)
    for r in read_tsv(os.path.join(a.results, "runs.tsv")):
        runs[r[0]].append((int(r[2]), float(r[3])))
    names = a.names or [n for n in meta]
    progs = []
    for n in names:
        if not os.path.exists(os.path.join(a.results, n, "verify.json")):
            print(f"score: no verify.json for {n}, skipped", file=sys.stderr)
            continue
        progs.append(Program(a.results, n, benign))
    if not progs:
        sys.exit("score: nothing to score")

    version = ""
    vf = os.path.join(a.results, "ljcheck-version.txt")
    if os.path.exists(vf):
        with open(vf, encoding="utf-8") as f:
            version = f.read().strip()
    out = [f"# ljcheck on third-party programs", "",
           f"`{version}`, recorder profile {progs[0].verify['traceProfile'].get('name', '')}; "
           f"{len(runs[progs[0].name]) or '?'} runs per program; statuses from `ljcheck verify`.", ""]

    # programs
    out += ["## Programs", "", "| program | Debian package(s) | what runs | files linted | lines | s/run | exit | "
            "sites observed per run |", "|---|---|---|--:|--:|--:|---|---|"]
    for p in progs:
        m = meta.get(p.name, [p.name, "", "", "", ""])
        pk = "; ".join(x.split(" ", 1)[1] for x in m[1].split(";") if x)
        rr = runs.get(p.name, [])
        secs = f"{sum(t for _, t in rr) / len(rr):.1f}" if rr else "—"
        exits = ",".join(str(e) for e, _ in rr) or "—"
        files = json.load(open(os.path.join(p.dir, "lint.json"), encoding="utf-8")).get("files", "")
        obs = "/".join(str(n) for n in p.observed_per_run()) or "—"
        out.append(f"| {p.name} | {pk} | {m[2]} | {files} | {p.linted_lines():,} | {secs} | {exits} | {obs} |")
    out.append("")

    # pooled families
    pooled = {f: Tally() for f in FAMILIES + ("other",)}
    per = {}
    for p in progs:
        per[p.name] = family_tallies(p)
        for f, t in per[p.name].items():
            pooled[f] += t
    out += ["## Pooled, per family", "", FAMILY_HEADER.format("family")]
    for f in FAMILIES + ("other",):
        out.append(pooled[f].row(f))
    static = Tally()
    for f in STATIC:
        static += pooled[f]
    out.append(static.row("blockers + splits"))
    at_possible = {f: 0 for f in FAMILIES}
    for p in progs:
        for f, x in p.sites():
            if f in at_possible and x["status"] == "missed" and p.possible_status(x) == "confirmed":
                at_possible[f] += 1
    out += ["", "Missed sites that `lint --confidence possible` predicts (below lint's default): " +
            ", ".join(f"{f} {at_possible[f]} of {pooled[f].n['missed']}" for f in FAMILIES) + "."]
    out += ["", "*Predicted* = confirmed + latent + unexercised (a masked prediction that was observed is confirmed). "
            "Precision = confirmed / (confirmed + latent): predictions on lines the recorder visited. "
            "Recall = confirmed / (confirmed + missed). *Unexercised* predictions (the recorder never visited "
            "the line) and *masked* ones are not judged. *Other* is everything outside the three families "
            "(NYITMIX, RECERR, BADTYPE outside FFI files, …); benign LLEAVE/LUNROLL/BLACKL/RETRY are left out.", ""]

    parts = {name: Tally() for name in PARTS}
    for p in progs:
        for name, t in part_tallies(p).items():
            parts[name] += t
    out += ["## The static families as issue 8 names them", "",
            "The issue's static families are NYI bytecodes and splits around builtins. The blockers family above "
            "also holds the FFI aborts (NYICALL, NYICONV, NYIFFU, BADTYPE in FFI files), and the splits family the "
            "splits around functions of C modules (`STITCH:C`, `RETURN:C`): each part on its own.", "",
            FAMILY_HEADER.format("part")]
    for name in PARTS:
        out.append(parts[name].row(name))
    out.append("")

    # per program
    out += ["## Per program", "", FAMILY_HEADER.format("program / family")]
    for p in progs:
        for f in FAMILIES:
            t = per[p.name][f]
            if t.predicted or t.n["missed"]:
                out.append(t.row(f"{p.name} / {f}"))
    out.append("")

    # calibration
    cal_default, cal_possible = defaultdict(Tally), defaultdict(Tally)
    for p in progs:
        for k, t in confidence_tallies(p.verify).items():
            cal_default[k] += t
        for k, t in confidence_tallies(p.verify_possible).items():
            cal_possible[k] += t
    cal = cal_possible or cal_default
    out += ["## Calibration by confidence (pooled, verify's byConfidence, lint --confidence possible)", "",
            "| confidence | predicted | confirmed | latent | unexercised | masked | confirmed among exercised |",
            "|---|--:|--:|--:|--:|--:|--:|"]
    for k in ("certain", "likely", "possible"):
        if k in cal:
            t = cal[k]
            out.append(f"| {k} | {t.predicted} | {t.n['confirmed']} | {t.n['latent']} | {t.n['unexercised']} | "
                       f"{t.n['masked']} | {fmt(t.precision)} |")
    same = all(cal_possible.get(k) is None or cal_default.get(k) is None or
               cal_possible[k].n == cal_default[k].n for k in ("certain", "likely"))
    if cal_possible and not same:
        out += ["", "(certain/likely rows differ between the default lint and `--confidence possible`: "
                f"default certain {dict(cal_default['certain'].n)}, likely {dict(cal_default['likely'].n)})"]
    out.append("")

    bl = Tally()
    for p in progs:
        bl += blacklist_tally(p)
    seen_bl = sum(len(p.observed_blacklisting()) for p in progs)
    out += ["## Predictions of severity `blacklist` (default lint, pooled)", "",
            f"{bl.predicted} predicted: {bl.n['confirmed']} confirmed, {bl.n['latent']} latent, "
            f"{bl.n['unexercised']} unexercised; confirmed among exercised **{fmt(bl.precision)}**. "
            f"Sites the runs observed blacklisting their trace start: {seen_bl}.", ""]
    # Lint's severity against the runs' blacklisting (verify's bySeverity,
    # default lint): an error never blacklisted, or a warning that was.
    sev = defaultdict(lambda: defaultdict(int))
    for p in progs:
        for name, t in ((p.verify or {}).get("bySeverity") or {}).items():
            for k in ("predicted", "observed", "blacklisted"):
                sev[name][k] += t.get(k, 0)
    if sev:
        out += ["## Lint severity against the runs' blacklisting (pooled, verify's bySeverity, default lint)", "",
                "| lint severity | predicted | observed | trace start blacklisted in a run |", "|---|--:|--:|--:|"]
        for name, shown in (("blacklist", "error"), ("warn", "warning"), ("info", "note"),
                            ("unpredicted", "not predicted")):
            if name in sev:
                t = sev[name]
                out.append(f"| {shown} | {t['predicted'] if name != 'unpredicted' else '–'} | {t['observed']} | "
                           f"{t['blacklisted']} |")
        out.append("")

    # targets
    cert = cal.get("certain", Tally())
    out += ["## Targets (issue 8)", "", "| target | value | n | |", "|---|--:|--:|---|"]
    for f in STATIC:
        t = pooled[f]
        judged_p = t.n["confirmed"] + t.n["latent"]
        judged_r = t.n["confirmed"] + t.n["missed"]
        out.append(f"| {f}: precision ≥ {TARGET_P:.2f} | {fmt(t.precision)} | {judged_p} | "
                   f"{met(t.precision is not None and t.precision >= TARGET_P, t.precision)} |")
        out.append(f"| {f}: recall ≥ {TARGET_R:.2f} | {fmt(t.recall)} | {judged_r} | "
                   f"{met(t.recall is not None and t.recall >= TARGET_R, t.recall)} |")
    for name in ("NYI bytecodes", "splits around builtins"):
        t = parts[name]
        out.append(f"| {name} (the issue's static family): precision ≥ {TARGET_P:.2f} | {fmt(t.precision)} | "
                   f"{t.n['confirmed'] + t.n['latent']} | "
                   f"{met(t.precision is not None and t.precision >= TARGET_P, t.precision)} |")
        out.append(f"| {name} (the issue's static family): recall ≥ {TARGET_R:.2f} | {fmt(t.recall)} | "
                   f"{t.n['confirmed'] + t.n['missed']} | "
                   f"{met(t.recall is not None and t.recall >= TARGET_R, t.recall)} |")
    out.append(f"| `certain` confirmed among exercised ≥ {TARGET_CERTAIN:.2f} | {fmt(cert.precision)} | "
               f"{cert.n['confirmed'] + cert.n['latent']} | "
               f"{met(cert.precision is not None and cert.precision >= TARGET_CERTAIN, cert.precision)} |")
    out.append(f"| `blacklist` confirmed among exercised ≥ {TARGET_BLACKLIST:.2f} | {fmt(bl.precision)} | "
               f"{bl.n['confirmed'] + bl.n['latent']} | "
               f"{met(bl.precision is not None and bl.precision >= TARGET_BLACKLIST, bl.precision)} |")
    t = pooled["structural"]
    out.append(f"| structural (issue 4, for reference): recall ≥ 0.5 at precision ≥ 0.5 | "
               f"P {fmt(t.precision)} / R {fmt(t.recall)} | {t.n['confirmed'] + t.n['latent'] + t.n['missed']} | "
               f"{met(t.precision is not None and t.recall is not None and t.precision >= 0.5 and t.recall >= 0.5)} |")
    drivers = sum(len(p.driver_sites()) for p in progs)
    left_obs = sum(p.unlinted()[0] for p in progs)
    left_files = sum(p.unlinted()[1] for p in progs)
    out += ["", f"Sites observed outside the programs' folders, in our drivers and in busted (not scored): {drivers}; "
                f"observations in files lint was not given (drivers, busted, Debian's modules), which verify leaves "
                f"out: {left_obs} in {left_files} files.", ""]
    # verify keeps lint's masking site (maskedBy); a masked site the runs observed is a masking error.
    masked = [s for p in progs for s in p.verify["sites"] if s.get("maskedBy")]
    wrong = [s for s in masked if s["status"] == "confirmed"]
    out += [f"Masked predictions (default lint): {len(masked)}; observed anyway (masking errors): {len(wrong)}.", ""]

    tables = "\n".join(out)
    print(tables)
    if a.out:
        full = out[:]
        full += ["## Sites", ""]
        for f in FAMILIES:
            full += listing(progs, f, "missed", f"{f}: missed")
            full += listing(progs, f, "latent", f"{f}: latent (refuted)")
        full += listing(progs, "other", "missed", "other: missed")
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w", encoding="utf-8") as f:
            f.write("\n".join(full) + "\n")
        print(f"full report with site lists: {os.path.relpath(a.out)}", file=sys.stderr)


if __name__ == "__main__":
    main()
