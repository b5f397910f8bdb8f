# Shared helpers of the benchmark scripts (bench/run.sh, bench/startup.sh,
# bench/accuracy/run.sh, bench/thirdparty/run.sh). Source it after setting
# `bench_name`, the prefix of every message.

say() { printf '%s: %s\n' "$bench_name" "$*" >&2; }
die() { printf '%s: error: %s\n' "$bench_name" "$1" >&2; exit "${2:-1}"; }
# The calling script's header comment, from its second line to the first line that is no comment.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[${#BASH_SOURCE[@]}-1]}"; }
uint_arg() {  # option value: a positive integer or a usage error
  [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer" 2
  printf '%s' "$2"
}
path_arg() {  # option value: a path, made absolute against the caller's directory
  [[ -n ${2:-} ]] || die "$1 needs a path" 2
  if [[ $2 = /* ]]; then printf '%s' "$2"; else printf '%s' "$PWD/$2"; fi
}
# use_module LUAJIT DIR: the LuaJIT and the built ljcheck.so a runtime benchmark
# loads, or a usage error; require("ljcheck") then finds the module.
use_module() {
  [[ -x $1 ]] || die "no LuaJIT at $1" 2
  [[ -f $2/ljcheck.so ]] || die "no ljcheck.so in $2 (build the project first)" 2
  export LUA_CPATH="$2/?.so"
}
# callgrind_count DIR COMMAND...: runs COMMAND in DIR under callgrind; prints the
# instructions it executed on the first line, then what it printed.
callgrind_count() {
  local dir=$1 out
  shift
  out=$(cd "$dir" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1) || die "$* failed: $out" 1
  sed -n 's/.*Collected : //p' <<<"$out"
  printf '%s\n' "$out"
}
calc() { awk "BEGIN { printf \"$1\", $2 }"; }   # calc FORMAT EXPR
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# percentile P VALUES...: the P-th percentile (0-100), linear between ranks.
percentile() { local p=$1; shift; printf '%s\n' "$@" | sort -g | awk -v p="$p" '{ a[NR] = $1 } END { r = 1 + (NR - 1) * p / 100; i = int(r); f = r - i; print (i < NR) ? a[i] + f * (a[i + 1] - a[i]) : a[NR] }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }

# The options bench/sampler_cost.sh and bench/sampler_callback.sh share; the
# caller sets the defaults (scale luajit module interval workloads stacks)
# first. Usage errors exit 2.
parse_sampler_options() {
  while [[ $# -gt 0 ]]; do
    case $1 in
      --scale) scale=${2:-}; [[ $scale =~ ^[0-9]*\.?[0-9]+$ ]] || die "--scale needs a positive number" 2; shift 2 ;;
      --luajit) luajit=$(path_arg "$1" "${2:-}"); shift 2 ;;
      --module) module=$(path_arg "$1" "${2:-}"); shift 2 ;;
      --interval) interval=$(uint_arg "$1" "${2:-}"); shift 2 ;;
      --workloads) workloads=${2:-}; [[ -n $workloads ]] || die "--workloads needs names" 2; shift 2 ;;
      --compiled-stacks)
        stacks=${2:-}
        [[ $stacks == exit || $stacks == function ]] || die "--compiled-stacks takes exit or function" 2
        shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) die "unknown option $1" 2 ;;
    esac
  done
}
