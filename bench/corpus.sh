#!/usr/bin/env bash
# Builds the lint-throughput corpus: Lua code from Debian 12 binary packages that
# nobody on this project wrote, extracted with `apt-get download` + `dpkg -x` into
# bench/corpus/<package>/ (git-ignored). Nothing is installed or started, except the
# Debian package `time` (GNU time, used by run.sh for peak RSS) when it is missing.
#
# Keeps only regular *.lua files (symlinks and everything else are deleted), then
# deletes the files LuaJIT itself cannot compile and records them with the reason.
#
# Outputs in bench/corpus/:
#   files.txt      kept files, one per line, relative to bench/corpus/, sorted
#   dropped.tsv    package, path, category, LuaJIT's message
#   packages.tsv   package, version, files, lines, dropped
#
# Idempotent: a package is fetched again only when its candidate version changed
# (stamp in bench/corpus/.meta/). Package directories no longer listed are removed.
# Usage: bench/corpus.sh [--force]
set -euo pipefail
export LC_ALL=C

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
corpus=$bench/corpus
meta=$corpus/.meta
say() { printf 'corpus: %s\n' "$*"; }
die() { printf 'corpus: error: %s\n' "$*" >&2; exit 1; }

# Chosen for many lines of real-world Lua, most of it written for LuaJIT hosts
# (OpenResty, Neovim, rspamd, knot-resolver, luakit) — about 290k lines in bookworm.
packages=(
  lua-penlight lua-busted lua-luassert lua-ldoc
  lua-resty-core lua-resty-lrucache
  prosody rspamd neovim-runtime knot-resolver luakit awesome luarocks vis
)

force=0
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
  *) die "unknown option '$1' (try --help)" ;;
esac

for tool in apt-get apt-cache dpkg luajit awk find; do
  command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/setup.sh on Debian 12)"
done

sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)

if [[ ! -x /usr/bin/time ]]; then
  say "installing Debian package 'time' (GNU time, for peak RSS in run.sh)"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends time >/dev/null \
    || die "could not install package 'time'"
fi

# Root cannot hand the download directory to the _apt sandbox user; download as root.
apt_dl=(apt-get -qq)
[[ $(id -u) -eq 0 ]] && apt_dl+=(-o APT::Sandbox::User=root)

candidate() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}

# lines as an editor counts them: a last line without newline still counts
count_lines() {  # reads NUL-separated paths on stdin
  xargs -0 -r awk 'END { print NR }' | awk '{ s += $1 } END { print s + 0 }'
}

mkdir -p "$corpus" "$meta"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# drop directories of packages no longer in the list
for stamp in "$meta"/*.version; do
  [[ -e $stamp ]] || continue
  pkg=$(basename "$stamp" .version)
  keep=0
  for p in "${packages[@]}"; do [[ $p == "$pkg" ]] && keep=1; done
  if (( ! keep )); then
    say "removing $pkg (no longer in the package list)"
    rm -rf "${corpus:?}/$pkg" "$meta/$pkg".*
  fi
done

for pkg in "${packages[@]}"; do
  ver=$(candidate "$pkg")
  [[ -n $ver && $ver != "(none)" ]] \
    || die "package '$pkg' has no candidate version (is the package index current? try: apt-get update)"
  if (( ! force )) && [[ -d $corpus/$pkg && -f $meta/$pkg.version && $(<"$meta/$pkg.version") == "$ver" ]]; then
    say "$pkg $ver present"
    continue
  fi
  say "fetching $pkg $ver"
  rm -rf "${corpus:?}/$pkg" "$meta/$pkg".*
  mkdir -p "$tmp/$pkg"
  (cd "$tmp/$pkg" && "${apt_dl[@]}" download "$pkg=$ver") \
    || die "apt-get download $pkg=$ver failed (is the package index current? try: apt-get update)"
  deb=$(find "$tmp/$pkg" -maxdepth 1 -name '*.deb' | head -n 1)
  [[ -n $deb ]] || die "no .deb downloaded for $pkg"
  dpkg -x "$deb" "$corpus/$pkg"
  rm -rf "${tmp:?}/$pkg"
  # keep only regular *.lua files
  find "$corpus/$pkg" \( -type l -o \( -type f ! -name '*.lua' \) -o \( ! -type f ! -type d \) \) -delete
  find "$corpus/$pkg" -mindepth 1 -type d -empty -delete
  # drop what LuaJIT cannot compile
  (cd "$corpus" && find "$pkg" -type f -name '*.lua' | sort > "$tmp/list")
  (cd "$corpus" && luajit "$bench/check_compile.lua" "$tmp/list") > "$tmp/dropped" \
    || die "checking $pkg with luajit failed"
  while IFS=$'\t' read -r path _; do
    rm -f "${corpus:?}/$path"
  done < "$tmp/dropped"
  find "$corpus/$pkg" -mindepth 1 -type d -empty -delete
  awk -v p="$pkg" -F'\t' 'BEGIN { OFS = "\t" } { print p, $0 }' "$tmp/dropped" > "$meta/$pkg.dropped"
  echo "$ver" > "$meta/$pkg.version"   # written last: marks the package complete
done

# summary files, rebuilt from what is on disk
(cd "$corpus" && find "${packages[@]}" -type f -name '*.lua' | sort) > "$corpus/files.txt"
printf 'package\tpath\tcategory\tluajit_message\n' > "$corpus/dropped.tsv"
printf 'package\tversion\tfiles\tlines\tdropped\n' > "$corpus/packages.tsv"
total_files=0 total_lines=0 total_dropped=0
for pkg in "${packages[@]}"; do
  cat "$meta/$pkg.dropped" >> "$corpus/dropped.tsv"
  files=$(find "$corpus/$pkg" -type f -name '*.lua' | wc -l)
  lines=$(find "$corpus/$pkg" -type f -name '*.lua' -print0 | count_lines)
  dropped=$(wc -l < "$meta/$pkg.dropped")
  printf '%s\t%s\t%s\t%s\t%s\n' "$pkg" "$(<"$meta/$pkg.version")" "$files" "$lines" "$dropped" >> "$corpus/packages.tsv"
  total_files=$((total_files + files)) total_lines=$((total_lines + lines)) total_dropped=$((total_dropped + dropped))
done
printf 'TOTAL\t-\t%s\t%s\t%s\n' "$total_files" "$total_lines" "$total_dropped" >> "$corpus/packages.tsv"

column -t -s $'\t' "$corpus/packages.tsv" 2>/dev/null || cat "$corpus/packages.tsv"
if (( total_dropped > 0 )); then
  say "dropped $total_dropped file(s) LuaJIT cannot compile, by reason:"
  tail -n +2 "$corpus/dropped.tsv" | cut -f3 | sort | uniq -c | sed 's/^/  /'
  say "details: $corpus/dropped.tsv"
fi
say "total: $total_files files, $total_lines lines of Lua -> $corpus/files.txt"
