#!/usr/bin/env bash
# Accuracy on third-party programs: ljcheck's predictions checked against what
# the collector observes while programs and test suites nobody on this project
# wrote run. See bench/thirdparty/README.md. Not part of the pass/fail tests.
#
# 1. Fetch (idempotent): each program's source from Debian 12, pinned to the
#    version bookworm ships, into bench/thirdparty/src/<name>/ (git-ignored):
#    the upstream tarball of a source package (`apt-get source --download-only`,
#    checked against the SHA-256 in its .dsc, unpacked without Debian's patches)
#    and, where the program needs them, binary packages (`apt-get download` +
#    `dpkg -x`; nothing is installed). apt runs with a private source list and
#    private package lists under src/.apt (the system's Debian sources as deb and
#    deb-src), so the system's apt configuration is not touched. A program is
#    fetched again only when its pinned versions change (src/<name>/.fetched).
# 2. For each program, with the binary given by --ljcheck:
#      ljcheck lint --format json --fail-on none --root DIR FILES...      lint.json
#      ... the same with --confidence possible                          lint-possible.json
#      ljcheck run --include-benign --json rN.json --root DIR -- ENTRY ARGS...
#                                                         N = 1..--runs (default 3)
#      ljcheck verify --static lint.json --runtime r1.json ... --format json
#                     --include-benign                                  verify.json
#      ... the same over lint-possible.json                             verify-possible.json
#    in the working directory the program's tests expect. Runs differ (hot
#    counters are hashed by address), so observations of all runs are joined.
# 3. bench/thirdparty/score.py prints the Markdown tables and writes them to
#    bench/results/thirdparty.md. Raw reports and each run's output are in
#    bench/results/thirdparty/<name>/.
#
# usage: bench/thirdparty/run.sh [options]
#   --ljcheck PATH     ljcheck binary (default build/bin/ljcheck)
#   --only NAME[,NAME] only these programs (names below)
#   --runs N           runs per program (default 3)
#   --fetch-only       fetch the sources and stop
#   --score-only       score the reports already in bench/results/thirdparty/
#   --relint           lint again with --ljcheck and verify against the runs
#                      already in bench/results/thirdparty/: a paired
#                      comparison of two lint builds on the same observations
#   --list             print the programs and their pinned Debian versions
#   -h, --help         this text
# Exit status: 0 when every step ran (missed targets and failing tests of the
# programs do not fail the run), 1 when a fetch or a tool failed, 2 on usage.
#
# ljsyscall's test suite is run as user nobody when this script runs as root:
# as root it would unshare namespaces, mount file systems and create network
# interfaces. Its folder is handed to nobody for that (its tests write there).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$here/src
drivers=$here/drivers
results=$root/bench/results/thirdparty

bench_name=thirdparty
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# ---------------------------------------------------------------------------
# The programs. Each spec_<name> sets:
#   fetch   "src SOURCE-PACKAGE VERSION" / "deb BINARY-PACKAGE VERSION", all
#           unpacked into src/<name>/ in this order
#   what    one line for the report
#   cwd     working directory, relative to src/<name>/
#   entry   the script ljcheck runs, relative to cwd; @X is drivers/X (ours)
#   args    its arguments (quoted globs are expanded in cwd)
#   lint    files and folders linted, relative to src/<name>/ (the project root;
#           quoted globs are expanded there)
#   lpath   LUA_PATH (@ stands for src/<name>, % for drivers/, ^ for src/.busted);
#           cpath LUA_CPATH; both end in ;; (the default path, where the
#           collector finds jit.vmdef)
#   nobody  1: run as user nobody when root
#   prepare a shell command run in src/<name>/ before the runs (e.g. unpack an input)
#   busted  1: a suite of busted specs, run by drivers/busted.lua with busted and
#           the modules it needs (busted_fetch, below) from src/.busted, outside
#           the program's folder: what is observed there is not scored
programs=(luaunit lua-uri ljsyscall messagepack luajson lpeg lua51 luacheck dkjson markdown
          moses argparse inspect binaryheap mediator say fifo)

reset_spec() { fetch=() what='' cwd=. entry='' args=() lint=() lpath=';;' cpath=';;' nobody=0 prepare='' busted=0; }

# Debian 12's busted 2.1.1 and what it requires (binary packages).
busted_fetch=("deb lua-busted 2.1.1-1" "deb lua-luassert 1.9.0-1" "deb lua-say 1.4.1-2" "deb lua-cliargs 3.0-2-5"
              "deb lua-term 0.07-1+b1" "deb lua-system 0.2.1-6" "deb lua-mediator 1.1.2-0-8"
              "deb lua-penlight 1.13.1-3" "deb lua-filesystem 1.8.0-3" "deb lua-dkjson 2.6-2")
busted_lpath='^/usr/share/lua/5.1/?.lua;^/usr/share/lua/5.1/?/init.lua;;'
busted_cpath='^/usr/lib/*/lua/5.1/?.so;;'

# A busted suite: the program's modules in the working directory or src/,
# its specs in spec/, busted from src/.busted.
busted_spec() {
  busted=1
  entry=@busted.lua
  args=(--no-coverage -o TAP spec)
  lpath="./?.lua;./src/?.lua;./src/?/init.lua;$busted_lpath"
  cpath=$busted_cpath
}

spec_luaunit() {
  fetch=("src lua-unit 3.4-2")
  what="LuaUnit's own unit tests (run_unit_tests.lua: 206 tests)"
  entry=run_unit_tests.lua
  lint=(luaunit.lua run_unit_tests.lua test/test_luaunit.lua)
}

spec_lua-uri() {
  fetch=("src lua-uri 0.1+20130926+git14fa255d-2")
  what="lua-uri's test suite (lunit, 16 test files), as its Makefile runs it"
  entry=@lunit_main.lua
  args=('test/*.lua')
  lint=(uri.lua uri lunit.lua uri-test.lua test)
  lpath='./?.lua;;'
}

spec_ljsyscall() {
  fetch=("src lua-ljsyscall 0.12-1.1")
  what="ljsyscall's test suite (test/test.lua: ~270 Linux system-call tests through the FFI), as nobody"
  entry=test/test.lua
  lint=(syscall.lua 'syscall/*.lua' 'syscall/linux/*.lua' syscall/linux/x64 syscall/shared
        test/test.lua test/linux.lua include/luaunit include/strict)
  nobody=1
}

spec_messagepack() {
  fetch=("src lua-messagepack 0.5.2-1")
  what="lua-MessagePack's test files (TAP, through our Test.More stand-in), minus fuzzing, bc and Coat"
  entry=@each.lua
  args=(test/00-require.lua test/01-spectest.lua test/02-except.lua test/03-edge.lua test/04-cover.lua
        test/12-metatable.lua test/14-function.lua test/15-ffi-cdata.lua test/21-multiples.lua
        test/22-closure.lua test/31-custom-unpack.lua test/issue6.lua)
  lint=(src/MessagePack.lua test/00-require.lua test/01-spectest.lua test/02-except.lua test/03-edge.lua
        test/04-cover.lua test/12-metatable.lua test/14-function.lua test/15-ffi-cdata.lua
        test/21-multiples.lua test/22-closure.lua test/31-custom-unpack.lua test/issue6.lua)
  lpath='@/src/?.lua;%/?.lua;;'
}

spec_luajson() {
  fetch=("src lua-json 1.3.4-2" "deb lua-lpeg 1.0.2-2")
  what="luajson's regression test and timing trials (tests/), on LPeg from Debian's lua-lpeg"
  cwd=tests
  entry=@each.lua
  args=(regressionTest.lua test.lua timetrials.lua)
  lint=(lua tests/regressionTest.lua tests/test.lua tests/timetrials.lua)
  lpath='@/lua/?.lua;./?.lua;;'
  cpath='@/usr/lib/*/lua/5.1/?.so;;'
}

spec_lpeg() {
  fetch=("src lua-lpeg 1.0.2-2" "deb lua-lpeg 1.0.2-2")
  what="LPeg's test.lua (the C library from Debian's lua-lpeg, re.lua from the source)"
  entry=test.lua
  lint=(test.lua re.lua)
  lpath='./?.lua;;'
  cpath='@/usr/lib/*/lua/5.1/?.so;;'
}

spec_lua51() {
  fetch=("src lua5.1 5.1.5-9")
  what="Lua 5.1.5's test/ programs (life, sieve, sort, bisect, fib, …), one after the other"
  cwd=test
  entry=@lua51.lua
  args=(bisect.lua cf.lua factorial.lua fib.lua fibfor.lua life.lua printf.lua sieve.lua sort.lua
        table.lua trace-globals.lua)
  lint=(test/bisect.lua test/cf.lua test/factorial.lua test/fib.lua test/fibfor.lua test/life.lua
        test/printf.lua test/sieve.lua test/sort.lua test/table.lua test/trace-globals.lua)
}

spec_luacheck() {
  fetch=("deb lua-check 1.1.0-1" "deb lua-argparse 0.7.1-2" "deb lua-filesystem 1.8.0-3")
  what="luacheck 1.1.0 (Debian's lua-check, binary package) linting its own sources and argparse"
  entry=usr/bin/luacheck
  args=(--no-cache --no-config --formatter plain --codes usr/share/lua/5.1/luacheck usr/share/lua/5.1/argparse.lua)
  lint=(usr/share/lua/5.1/luacheck usr/share/lua/5.1/argparse.lua)
  lpath='@/usr/share/lua/5.1/?.lua;@/usr/share/lua/5.1/?/init.lua;;'
  cpath='@/usr/lib/*/lua/5.1/?.so;;'
}

spec_dkjson() {
  fetch=("deb lua-dkjson 2.6-2" "deb lua-lpeg 1.0.2-2")
  what="dkjson 2.6's own examples: speedtest.lua (100,000 decodes and encodes, without and with LPeg), then jsontest.lua"
  cwd=usr/share/doc/lua-dkjson/examples
  entry=@each.lua
  args=(speedtest.lua dkjson -- speedtest.lua dkjson-lpeg -- jsontest.lua)
  lint=(usr/share/lua/5.1/dkjson.lua usr/share/doc/lua-dkjson/examples/speedtest.lua
        usr/share/doc/lua-dkjson/examples/jsontest.lua)
  lpath='@/usr/share/lua/5.1/?.lua;;'
  cpath='@/usr/lib/*/lua/5.1/?.so;;'
}

spec_markdown() {
  fetch=("deb lua-markdown 0.32-6")
  what="markdown.lua 0.32 (Debian's lua-markdown) converting its own manual to HTML, as its command line does"
  entry=usr/share/lua/5.1/markdown.lua
  args=(usr/share/doc/lua-markdown/MANUAL)
  lint=(usr/share/lua/5.1/markdown.lua)
  prepare='gzip -dkf usr/share/doc/lua-markdown/MANUAL.gz'
}

spec_moses() {
  fetch=("src lua-moses 2.1.0-1")
  what="Moses 2.1.0's specs (busted): a functional library for tables, arrays and functions"
  busted_spec
  lint=(moses.lua spec)
}

spec_argparse() {
  fetch=("src lua-argparse 0.7.1-2")
  what="argparse 0.7.1's specs (busted): a command-line parser"
  busted_spec
  lint=(src/argparse.lua 'spec/*.lua')
}

spec_inspect() {
  fetch=("src lua-inspect 3.1.1-2")
  what="inspect.lua 3.1.1's specs (busted): human-readable representations of tables"
  busted_spec
  lint=(inspect.lua spec)
}

spec_binaryheap() {
  fetch=("src lua-binaryheap 0.4-2")
  what="binaryheap.lua 0.4's specs (busted), among them Dijkstra's algorithm over the heap"
  busted_spec
  lint=(src/binaryheap.lua spec)
}

spec_mediator() {
  fetch=("src lua-mediator 1.1.2-0-8")
  what="mediator_lua 1.1.2's specs (busted): publish/subscribe channels"
  busted_spec
  lint=(src/mediator.lua spec)
}

spec_say() {
  fetch=("src lua-say 1.4.1-2")
  what="say 1.4.1's specs (busted): string lookup and formatting by key"
  busted_spec
  lint=(src/say/init.lua spec)
}

spec_fifo() {
  fetch=("src lua-fifo 0.2-3.1")
  what="fifo.lua 0.2's specs (busted): a FIFO queue"
  busted_spec
  lint=(fifo.lua spec)
}

# ---------------------------------------------------------------------------
ljcheck=build/bin/ljcheck only='' runs=3 mode=all
while (( $# )); do
  case $1 in
    --ljcheck) (( $# >= 2 )) || die "--ljcheck needs a path" 2; ljcheck=$2; shift ;;
    --only) (( $# >= 2 )) || die "--only needs names" 2; only=$2; shift ;;
    --runs) (( $# >= 2 )) && [[ $2 =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive number" 2; runs=$2; shift ;;
    --fetch-only) mode=fetch ;;
    --score-only) mode=score ;;
    --relint) mode=relint ;;
    --list) mode=list ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" 2 ;;
  esac
  shift
done
[[ $ljcheck = /* ]] || ljcheck=$PWD/$ljcheck

selected=("${programs[@]}")
if [[ -n $only ]]; then
  IFS=, read -r -a selected <<< "$only"
  for p in "${selected[@]}"; do
    declare -F "spec_$p" >/dev/null || die "unknown program '$p' (one of: ${programs[*]})" 2
  done
fi

if [[ $mode == list ]]; then
  for p in "${selected[@]}"; do
    reset_spec; "spec_$p"
    printf '%-12s %s\n' "$p" "$(IFS=';'; echo "${fetch[*]}")"
  done
  exit 0
fi

score() {
  command -v python3 >/dev/null || die "python3 not found"
  python3 "$here/score.py" --results "$results" --out "$root/bench/results/thirdparty.md" "${selected[@]}"
}
if [[ $mode == score ]]; then score; exit 0; fi

# ---------------------------------------------------------------------------
# Fetching

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
apt=()

apt_setup() {
  (( ${#apt[@]} )) && return
  for tool in apt-get apt-config dpkg sha256sum tar; do
    command -v "$tool" >/dev/null || die "'$tool' not found (this needs Debian 12)"
  done
  local dir=$src/.apt PARTS=''
  mkdir -p "$dir/parts" "$dir/lists/partial"
  eval "$(apt-config shell PARTS Dir::Etc::sourceparts/d)"
  if [[ -f $PARTS/debian.sources ]]; then
    sed 's/^Types: deb$/Types: deb deb-src/' "$PARTS/debian.sources" > "$dir/parts/debian.sources"
  else
    { grep -h '^deb ' /etc/apt/sources.list
      grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /'; } > "$dir/parts/debian.list"
  fi
  # Private lists, no shared package caches, no lock: nothing of the system's apt state changes.
  apt=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$dir/parts"
       -o Dir::State::Lists="$dir/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
       -o Debug::NoLocking=1)
  [[ $(id -u) -eq 0 ]] && apt+=(-o APT::Sandbox::User=root)
  say "updating the private package lists (src/.apt)"
  apt-get "${apt[@]}" update -qq >"$tmp/apt-update.log" 2>&1 || { cat "$tmp/apt-update.log" >&2; die "apt-get update failed"; }
}

# The upstream tarball of a source package, unpacked into $3 (top folder stripped).
# Only the tarball is needed; the Debian packaging tarball may fail to download.
fetch_src() {
  local pkg=$1 version=$2 dest=$3 work=$tmp/src-$1
  mkdir -p "$work"
  (cd "$work" && apt-get "${apt[@]}" source --download-only -qq "$pkg=$version") >"$work.log" 2>&1 || true
  local dsc=$work/${pkg}_${version#*:}.dsc
  [[ -f $dsc ]] || { cat "$work.log" >&2; die "$pkg $version: no .dsc (is it still in Debian 12?)"; }
  local sum name
  read -r sum _ name < <(awk '/^Checksums-Sha256:/ { f = 1; next } /^[^ ]/ { f = 0 }
                              f && $3 ~ /\.orig\.tar\./ { print; exit }' "$dsc") || true
  if [[ -z ${name:-} ]]; then  # a native package: its one tarball
    read -r sum _ name < <(awk '/^Checksums-Sha256:/ { f = 1; next } /^[^ ]/ { f = 0 }
                                f && $3 ~ /\.tar\./ { print; exit }' "$dsc") || true
  fi
  [[ -n ${name:-} && -f $work/$name ]] || { cat "$work.log" >&2; die "$pkg $version: the upstream tarball could not be downloaded"; }
  echo "$sum  $work/$name" | sha256sum -c --quiet - >/dev/null || die "$pkg $version: $name does not match its .dsc"
  mkdir -p "$dest"
  tar -xf "$work/$name" -C "$dest" --strip-components=1 --no-same-owner
}

# A binary package, unpacked (dpkg -x, not installed) into $3.
fetch_deb() {
  local pkg=$1 version=$2 dest=$3 work=$tmp/deb-$1
  mkdir -p "$work"
  (cd "$work" && apt-get "${apt[@]}" download -qq "$pkg=$version") >"$work.log" 2>&1 \
    || { cat "$work.log" >&2; die "$pkg $version: download failed"; }
  local deb; deb=$(ls "$work"/"${pkg}"_*.deb)
  dpkg -x "$deb" "$dest"
}

# Fetches the items ("src PKG VERSION" / "deb PKG VERSION") into $2, again
# only when they changed.
fetch_into() {
  local name=$1 dest=$2; shift 2
  local want; want=$(printf '%s\n' "$@")
  if [[ -f $dest/.fetched && $(cat "$dest/.fetched") == "$want" ]]; then return; fi
  apt_setup
  say "fetching $name: $(IFS=';'; echo "$*")"
  rm -rf "$dest" "$dest.partial"
  local item kind pkg version
  for item in "$@"; do
    read -r kind pkg version <<< "$item"
    case $kind in
      src) fetch_src "$pkg" "$version" "$dest.partial" ;;
      deb) fetch_deb "$pkg" "$version" "$dest.partial" ;;
    esac
  done
  printf '%s\n' "$want" > "$dest.partial/.fetched"
  mv "$dest.partial" "$dest"
}

fetch_program() {
  reset_spec; "spec_$1"
  fetch_into "$1" "$src/$1" "${fetch[@]}"
  (( busted )) && fetch_into busted "$src/.busted" "${busted_fetch[@]}"
  return 0
}

mkdir -p "$src"
for p in "${selected[@]}"; do fetch_program "$p"; done
[[ $mode == fetch ]] && { say "sources in $src"; exit 0; }

# ---------------------------------------------------------------------------
# Linting, running, joining

[[ -x $ljcheck ]] || die "ljcheck not found at $ljcheck (build it first, or pass --ljcheck)"
mkdir -p "$results"
"$ljcheck" --version > "$results/ljcheck-version.txt" 2>&1 || true

expand() {  # a LUA_PATH: @ -> program folder, % -> drivers folder, ^ -> busted, * in a folder name globbed
  local s=${1//@/$2} part dir hits=() out=()
  s=${s//%/$drivers}
  s=${s//^/$src/.busted}
  IFS=';' read -r -a parts <<< "$s"
  for part in "${parts[@]}"; do
    [[ -n $part ]] || continue
    if [[ $part == *'*'* ]]; then
      dir=${part%/*}
      mapfile -t hits < <(compgen -G "$dir" || true)
      (( ${#hits[@]} )) || hits=("$dir")
      for dir in "${hits[@]}"; do out+=("$dir/${part##*/}"); done
    else
      out+=("$part")
    fi
  done
  (IFS=';'; printf '%s' "${out[*]}")
  [[ $1 == *';;' ]] && printf ';;'
  return 0
}

failed=0
run_program() {
  local name=$1 dir=$src/$1 out=$results/$1
  # The physical path: ljcheck makes file paths absolute from the physical
  # working directory, so a root reached through a symlink would not hold them.
  [[ -d $dir ]] && dir=$(cd "$dir" && pwd -P)
  reset_spec; "spec_$name"
  if [[ $mode == relint ]]; then
    [[ -s $out/r1.json ]] || { say "$name: no runtime reports to re-lint against (run without --relint first)"; failed=1; return; }
  else
    rm -rf "$out"; mkdir -p "$out"
  fi
  local lint_files=() f
  mapfile -t lint_files < <(cd "$dir" && for f in "${lint[@]}"; do h=$(compgen -G "$f" | sort); echo "${h:-$f}"; done)
  printf '%s\n' "${lint_files[@]}" > "$out/lint-paths.txt"
  # Lint sees the search paths the program runs with: C modules (lpeg, lfs)
  # are found where the program finds them.
  local env_path env_cpath
  env_path=$(expand "$lpath" "$dir") env_cpath=$(expand "$cpath" "$dir")
  local rc=0
  (cd "$dir" && LUA_PATH="$env_path" LUA_CPATH="$env_cpath" "$ljcheck" lint --format json --fail-on none --root "$dir" "${lint_files[@]}") \
    > "$out/lint.json" 2> "$out/lint.err" || rc=$?
  (( rc == 0 || rc == 3 )) || { say "$name: lint failed (exit $rc)"; cat "$out/lint.err" >&2; failed=1; return; }
  (( rc == 3 )) && say "$name: some files could not be compiled (lint exit 3, see $out/lint.err)"
  rc=0
  (cd "$dir" && LUA_PATH="$env_path" LUA_CPATH="$env_cpath" "$ljcheck" lint --format json --fail-on none --confidence possible --root "$dir" "${lint_files[@]}") \
    > "$out/lint-possible.json" 2>> "$out/lint.err" || rc=$?
  (( rc == 0 || rc == 3 )) || { say "$name: lint --confidence possible failed (exit $rc)"; failed=1; return; }

  if [[ -n $prepare ]]; then
    (cd "$dir" && eval "$prepare") || { say "$name: '$prepare' failed"; failed=1; return; }
  fi
  local entry_path=$entry
  [[ $entry == @* ]] && entry_path=$drivers/${entry#@}
  local run_args=() a
  for a in "${args[@]}"; do
    if [[ $a == *'*'* ]]; then mapfile -t -O "${#run_args[@]}" run_args < <(cd "$dir/$cwd" && compgen -G "$a" | sort)
    else run_args+=("$a"); fi
  done
  local as=() json_dir=$out
  if (( nobody )) && [[ $(id -u) -eq 0 ]]; then
    command -v setpriv >/dev/null || die "setpriv not found (util-linux)"
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    chown -R 65534:65534 "$dir"
    json_dir=$(mktemp -d); chmod 0777 "$json_dir"
  fi
  local i start end status runtimes=() count=$runs
  if [[ $mode == relint ]]; then  # the runs of the last full run, joined with the new lint
    for (( i = 1; i <= runs; i++ )); do
      [[ -s $out/r$i.json ]] && runtimes+=(--runtime "$out/r$i.json")
    done
    count=0 status=kept
  fi
  for (( i = 1; i <= count; i++ )); do
    start=$EPOCHREALTIME
    status=0
    (cd "$dir/$cwd" && env -u LUA_INIT LUA_PATH="$env_path" LUA_CPATH="$env_cpath" \
       "${as[@]}" "$ljcheck" run --include-benign --json "$json_dir/r$i.json" --root "$dir" \
       -- "$entry_path" "${run_args[@]}") > "$out/run$i.log" 2>&1 < /dev/null || status=$?
    end=$EPOCHREALTIME
    [[ $json_dir == "$out" ]] || cp "$json_dir/r$i.json" "$out/r$i.json" 2>/dev/null || true
    awk -v n="$name" -v i="$i" -v s="$status" -v a="$start" -v b="$end" \
      'BEGIN { printf "%s\t%d\t%d\t%.2f\n", n, i, s, b - a }' >> "$results/runs.tsv"
    [[ -s $out/r$i.json ]] || { say "$name: run $i wrote no report (exit $status, see $out/run$i.log)"; failed=1; return; }
    runtimes+=(--runtime "$out/r$i.json")
  done
  [[ $json_dir == "$out" ]] || rm -rf "$json_dir"
  for variant in "" -possible; do
    rc=0
    "$ljcheck" verify --static "$out/lint$variant.json" "${runtimes[@]}" --format json --include-benign \
      > "$out/verify$variant.json" 2> "$out/verify$variant.err" || rc=$?
    (( rc == 0 )) || { say "$name: verify failed (exit $rc)"; cat "$out/verify$variant.err" >&2; failed=1; return; }
  done
  say "$name: done ($(( ${#runtimes[@]} / 2 )) runs, last exit $status)"
}

if [[ $mode == relint ]]; then
  for p in "${selected[@]}"; do
    say "$p: lint again, verify against the kept runs"
    run_program "$p"
  done
  score
  exit "$failed"
fi
rm -f "$results/runs.tsv"
printf 'program\tpackages\twhat\tentry\tcwd\n' > "$results/programs.tsv"
for p in "${selected[@]}"; do
  reset_spec; "spec_$p"
  printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$(IFS=';'; echo "${fetch[*]}")" "$what" \
    "$entry ${args[*]}" "$cwd" >> "$results/programs.tsv"
  say "$p: lint, $runs runs, verify"
  run_program "$p"
done
score
exit "$failed"
