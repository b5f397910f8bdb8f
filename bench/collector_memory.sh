#!/usr/bin/env bash
# bench/collector_memory.sh: the trace collector's memory against the number
# of aborts it counted. Loads one chunk again and again in Debian's luajit
# with require('ljcheck') (each load aborts afresh at the same lines), then
# reads the report's collector.memoryBytes and the process's peak RSS (VmHWM).
# A second series loads distinct chunks (new sites each) under a site limit.
#
# Usage: bench/collector_memory.sh [--build DIR] [--loads N,N,...]
#   --build DIR  the build whose lib/ljcheck.so is measured (default: build)
#   --loads      chunk loads per point (default: 1000,10000,50000)
set -euo pipefail
bench_name=collector_memory
source "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
loads=1000,10000,50000
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(path_arg "$1" "${2:-}"); shift 2 ;;
    --loads) loads=${2:-}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1" 2 ;;
  esac
done
[[ -f $build/lib/ljcheck.so ]] || die "no $build/lib/ljcheck.so: build the ljcheck_module target first" 3

# $1: loads, $2: "same" (one chunk name) or "distinct" (a new name per load), $3: maxSites.
measure() {
  LUA_CPATH="$build/lib/?.so" luajit - "$1" "$2" "$3" <<'LUA'
local loads, mode, maxSites = tonumber(arg[1]), arg[2], tonumber(arg[3])
local ljcheck = require('ljcheck')
local body = 'local n = 0 for i = 1, 60 do local f = function() return i end n = n + f() end return n'
local session = ljcheck.trace({ includeBenign = true, maxSites = maxSites })
for k = 1, loads do
  assert(loadstring(body, mode == 'same' and '=chunk' or ('=chunk' .. k)))()
end
local r = session:stop()
local hwm
for line in io.lines('/proc/self/status') do hwm = hwm or tonumber(line:match('^VmHWM:%s*(%d+)')) end
print(('%d\t%s\t%d\t%d\t%d\t%d\t%s\t%d'):format(loads, mode, maxSites, r.totalAborts, #r.sites,
  r.collector.memoryBytes, tostring(r.collector.limitReached), hwm))
LUA
}

printf 'loads\tchunks\tmaxSites\ttotalAborts\tsites\tmemoryBytes\tlimitReached\tpeakRssKb\n'
IFS=, read -ra points <<< "$loads"
for n in "${points[@]}"; do measure "$n" same 10000; done
for n in "${points[@]}"; do measure "$n" distinct 1000; done
