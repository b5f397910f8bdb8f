#!/usr/bin/env bash
# The browser tests (ctest "browser.*"): lint and run tests/browser/workload.lua,
# write the HTML report, check it in headless Debian chromium (report_page.mjs)
# and load the sampler's outputs and the timeline into speedscope (speedscope_load.mjs).
# Skipped (exit 77) when chromium or the pinned npm packages of
# scripts/setup.sh are missing. The screenshot is kept at <build>/report-screenshot.png.
# usage: run.sh <ljcheck> <build dir> report|speedscope|timeline
set -euo pipefail
ljcheck=$1 build=$2 what=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
modules="$here/../../third_party/browser-test/node_modules"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium || ! -d $modules/puppeteer-core || ! -d $modules/speedscope ]]; then
  echo "browser tests skipped: run scripts/setup.sh (chromium, puppeteer-core, speedscope, ajv)"
  exit 77
fi
work="$build/browser-tests/$what"
rm -rf "$work"; mkdir -p "$work"
cp "$here/workload.lua" "$work/app.lua"
cd "$work"
"$ljcheck" lint --format json app.lua > lint.json || [[ $? -eq 1 ]]
"$ljcheck" run --quiet --json run.json --sample stacks.txt --speedscope prof.json --interval 1 -- app.lua
case $what in
  report)
    # No --stacks: the flame graph comes from the runtime JSON's own stacks.
    "$ljcheck" report --static lint.json --runtime run.json --out report.html
    rows=$("$ljcheck" verify --static lint.json --runtime run.json --format json |
           node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).sites.length))')
    timeout 120 node "$here/report_page.mjs" "$modules" report.html "$build/report-screenshot.png" "$rows" ;;
  speedscope)
    timeout 120 node "$here/speedscope_load.mjs" "$modules" stacks.txt prof.json ;;
  timeline)
    "$ljcheck" run --quiet --interval 1 --timeline timeline.json -- app.lua
    node "$here/timeline_check.mjs" timeline.json
    timeout 120 node "$here/speedscope_load.mjs" "$modules" timeline.json ;;
  *) echo "run.sh: unknown test '$what'" >&2; exit 2 ;;
esac
