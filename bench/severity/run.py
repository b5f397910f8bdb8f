#!/usr/bin/env python3
"""Lint's `error` (blacklist) claims against the VM, shape by shape.

Each program in bench/severity/shapes/ (a .lua file, or a folder of modules
run through its main.lua) puts one blocker (a closure) on the
line marked `-- site`, in one of the loop shapes that decide whether a trace
start gets blacklisted: on every turn, behind a branch, after an inner loop,
in a callee, in a loop that can be left early, and so on. For each shape the
runner takes lint's severity and confidence at that line and counts, over
--runs runs of `ljcheck run`, how often a trace start whose aborts include
the site was blacklisted. The programs are this project's own, written to isolate one
shape each; they are not a sample of real code (bench/thirdparty/ is).

usage: bench/severity/run.py [--ljcheck PATH] [--runs N] [--out FILE]
Prints a Markdown table and writes it to bench/results/severity.md (or --out).
Exit status 1 when a tool failed or a program did not run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def lua_files(shape):
    """A shape is one program, or a folder of modules run through its main.lua."""
    if os.path.isdir(shape):
        return [os.path.join(shape, n) for n in sorted(os.listdir(shape)) if n.endswith(".lua")]
    return [shape]


def site_of(shape):
    """The file and line marked `-- site`."""
    for path in lua_files(shape):
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if "-- site" in text:
                    return path, number
    raise SystemExit(f"severity: {shape}: no line marked '-- site'")


def entry_of(shape):
    return os.path.join(shape, "main.lua") if os.path.isdir(shape) else shape


def describe(shape):
    with open(entry_of(shape), encoding="utf-8") as f:
        first = f.readline().strip()
    return first[3:] if first.startswith("-- ") else first


def lint(ljcheck, shape, path, line):
    # Paths as lint reports them: relative to the working directory (--root .).
    out = subprocess.run([ljcheck, "lint", "--format", "json", "--fail-on", "none", shape],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"severity: lint of {shape} failed: {out.stderr.strip()}")
    for p in json.loads(out.stdout)["predictions"]:
        if os.path.abspath(p["path"]) != os.path.abspath(path):
            continue
        if p["line"] == line and p["reasonClass"] == "blocker" and not p.get("maskedBy"):
            return p["severity"], p["confidence"]
    return "none", "none"


def run(ljcheck, shape, path, line, report):
    out = subprocess.run([ljcheck, "run", "--json", report, "--", entry_of(shape)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"severity: ljcheck run of {shape} failed: {out.stderr.strip()}")
    with open(report, encoding="utf-8") as f:
        sites = json.load(f)["sites"]
    at = [s for s in sites if s["line"] == line and s["reasonClass"] == "blocker"
          and os.path.abspath(s["path"]) == os.path.abspath(path)]
    # Blacklisted: a trace start whose aborts include this site. The
    # collector marks the abort that blacklisted it, which can be another
    # one (a BLACKL at an inner loop blacklisted first).
    blacklisted = {s["start"] for s in sites if s["severity"] == "blacklist"}
    return any(s["start"] in blacklisted for s in at), sum(s["count"] for s in at)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ljcheck", default=os.path.join(ROOT, "build", "bin", "ljcheck"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "severity.md"))
    args = parser.parse_args()
    if not os.access(args.ljcheck, os.X_OK):
        print(f"severity: error: no ljcheck at {args.ljcheck} (build the project first)", file=sys.stderr)
        return 2
    if args.runs < 1:
        print("severity: error: --runs needs a positive integer", file=sys.stderr)
        return 2
    shapes_dir = os.path.join(HERE, "shapes")
    rows, tally = [], {"error": [0, 0], "warn": [0, 0], "info": [0, 0], "none": [0, 0]}
    with tempfile.TemporaryDirectory(prefix="ljcheck-severity-") as scratch:
        for name in sorted(os.listdir(shapes_dir)):
            shape = os.path.join(shapes_dir, name)
            if not name.endswith(".lua") and not os.path.isdir(shape):
                continue
            path, line = site_of(shape)
            severity, confidence = lint(args.ljcheck, shape, path, line)
            blacklisted, aborts = 0, []
            for k in range(args.runs):
                hit, count = run(args.ljcheck, shape, path, line, os.path.join(scratch, f"{name}.{k}.json"))
                blacklisted += hit
                aborts.append(count)
            shown = "error" if severity == "blacklist" else severity
            tally[shown][0] += 1
            tally[shown][1] += blacklisted == args.runs
            aborts.sort()
            rows.append(f"| `{name}` | {describe(shape)} | {shown} | {confidence} | {blacklisted} of {args.runs} "
                        f"| {aborts[len(aborts) // 2]} |")
    version = subprocess.run([args.ljcheck, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [f"`{version}`, {args.runs} runs per shape (`ljcheck run`, Debian's LuaJIT).", "",
             "| shape | what | lint | confidence | runs that blacklist its trace start | aborts there (median) |",
             "|---|---|---|---|--:|--:|", *rows, "",
             "| lint says | shapes | blacklisted in every run |", "|---|--:|--:|"]
    for key in ("error", "warn", "info", "none"):
        if tally[key][0]:
            lines.append(f"| {key} | {tally[key][0]} | {tally[key][1]} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("# Lint's error claims against the VM, by loop shape\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
