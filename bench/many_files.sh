#!/usr/bin/env bash
# A tree of many small files: wall time and peak RSS of `ljcheck lint` at
# -j 1 and -j 2 over 2,000, 10,000 and 20,000 files, beside the size of the
# report each run writes, so that memory growth per file can be compared
# with the report's own growth per file. See BENCHMARKS.md.
#
# The tree is generated outside git (default /tmp/ljcheck-many-files), 100
# files a folder, from five small templates (a loop with a closure, string
# and table library calls, an FFI-free clean module, varargs, a method
# call); the smaller sizes lint the first folders of the same tree.
#
# usage: bench/many_files.sh [options]
#   --reps N          repetitions of each (size, -j) cell, interleaved (default 3)
#   --ljcheck PATH    ljcheck binary (default build/bin/ljcheck, from the repo root)
#   --tree DIR        where the tree is generated (default /tmp/ljcheck-many-files)
#   --sizes "A B C"   file counts, multiples of 100 (default "2000 10000 20000")
#   --format F        lint output format (default json)
#   -h, --help        this text
# Exit status: 0 when every run ended with lint's 0 or 1, 1 otherwise, 2 on
# usage errors.
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench/.." && pwd)
bench_name=many_files
# shellcheck source=bench/lib.sh
. "$bench/lib.sh"

reps=3 ljcheck=$root/build/bin/ljcheck tree=/tmp/ljcheck-many-files sizes="2000 10000 20000" format=json
while (( $# )); do
  case $1 in
    --reps) reps=$(uint_arg "$1" "${2:-}"); shift ;;
    --ljcheck) ljcheck=$(path_arg "$1" "${2:-}"); shift ;;
    --tree) tree=$(path_arg "$1" "${2:-}"); shift ;;
    --sizes) [[ ${2:-} =~ ^[0-9\ ]+$ ]] || die "--sizes needs file counts" 2; sizes=$2; shift ;;
    --format) [[ -n ${2:-} ]] || die "--format needs a format" 2; format=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" 2 ;;
  esac
  shift
done
[[ -x $ljcheck ]] || die "$ljcheck: not an executable (build first: cmake --build build)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (GNU time; bench/corpus.sh installs Debian package 'time')"
for n in $sizes; do (( n % 100 == 0 && n > 0 )) || die "--sizes: $n is not a positive multiple of 100" 2; done
largest=$(maxof $sizes)

# ------------------------------------------------------------------ the tree
template() {  # template INDEX FILE-NUMBER
  case $(( $1 % 5 )) in
    0) printf 'local M = {}\nfunction M.run%d(n)\n  local out = {}\n  for i = 1, n do\n    out[i] = function() return i + %d end\n  end\n  return out\nend\nreturn M\n' "$2" "$2" ;;
    1) printf 'local M = {}\nfunction M.fmt%d(list)\n  local s = ""\n  for _, v in ipairs(list) do\n    s = s .. string.format("%%d,", v)\n    s = s:gsub(",$", ";")\n  end\n  return s\nend\nreturn M\n' "$2" ;;
    2) printf 'local M = {}\nfunction M.sum%d(t)\n  local total = 0\n  for i = 1, #t do total = total + t[i] * %d end\n  return total\nend\nreturn M\n' "$2" "$2" ;;
    3) printf 'local M = {}\nfunction M.pack%d(...)\n  local r = {}\n  for i = 1, select("#", ...) do\n    r[#r + 1] = { ... }\n    print(i)\n  end\n  return r\nend\nreturn M\n' "$2" ;;
    4) printf 'local M = {}\nfunction M.len%d(items)\n  local n = 0\n  for _, item in pairs(items) do\n    n = n + (item:len() or 0)\n    setmetatable({}, nil)\n  end\n  return n\nend\nreturn M\n' "$2" ;;
  esac
}
folders=$(( largest / 100 ))
if [[ ! -f $tree/.complete-$largest ]]; then
  say "generating $largest files under $tree"
  rm -rf "$tree"
  for (( d = 0; d < folders; d++ )); do
    dir=$tree/$(printf 'd%03d' "$d")
    mkdir -p "$dir"
    for (( f = 0; f < 100; f++ )); do
      n=$(( d * 100 + f ))
      template "$n" "$n" >"$dir/$(printf 'm%05d.lua' "$n")"
    done
  done
  touch "$tree/.complete-$largest"
fi

# ------------------------------------------------------------------ the runs
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A wall rss bytes
failed=0
for (( r = 1; r <= reps; r++ )); do
  for n in $sizes; do
    mapfile -t dirs < <(for (( d = 0; d < n / 100; d++ )); do printf '%s/d%03d\n' "$tree" "$d"; done)
    for j in 1 2; do
      status=0
      /usr/bin/time -f '%e %M' -o "$out/time" "$ljcheck" lint --no-config --format "$format" -j "$j" \
        --root "$tree" "${dirs[@]}" >"$out/report" 2>"$out/err" || status=$?
      if (( status > 1 )); then
        say "lint of $n files at -j $j exited $status: $(head -c 300 "$out/err")"
        failed=1
        continue
      fi
      read -r seconds kib < <(tail -n 1 "$out/time")
      wall[$n,$j]+="$seconds " rss[$n,$j]+="$kib "
      bytes[$n]=$(stat -c %s "$out/report")
      say "rep $r: $n files, -j $j: ${seconds} s, $(calc %.1f "$kib / 1024") MiB, report $(( bytes[$n] )) bytes"
    done
  done
done

# ------------------------------------------------------------------ the table
echo "| files | -j | wall s, median | peak RSS MiB, median | report bytes |"
echo "|---:|---:|---:|---:|---:|"
for n in $sizes; do
  for j in 1 2; do
    [[ -n ${wall[$n,$j]:-} ]] || continue
    # shellcheck disable=SC2086
    echo "| $n | $j | $(median ${wall[$n,$j]}) | $(calc %.1f "$(median ${rss[$n,$j]}) / 1024") | ${bytes[$n]} |"
  done
done
smallest=$(printf '%s\n' $sizes | sort -g | head -n 1)
if (( largest > smallest )); then
  echo
  echo "Growth per file from $smallest to $largest files (medians):"
  for j in 1 2; do
    [[ -n ${rss[$largest,$j]:-} && -n ${rss[$smallest,$j]:-} ]] || continue
    # shellcheck disable=SC2086
    grow=$(calc %.0f "($(median ${rss[$largest,$j]}) - $(median ${rss[$smallest,$j]})) * 1024 / ($largest - $smallest)")
    echo "- -j $j: peak RSS +$grow bytes a file"
  done
  echo "- report: +$(calc %.0f "(${bytes[$largest]} - ${bytes[$smallest]}) / ($largest - $smallest)") bytes a file"
fi
exit "$failed"
