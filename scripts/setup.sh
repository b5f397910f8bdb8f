#!/usr/bin/env bash
# Idempotent set-up for ljcheck on Debian 12: apt packages, the tree-sitter Lua
# grammar (npm, pinned by version and checksum), the Debian sources of LuaJIT and
# of OpenResty's fork luajit2 (read by the registry extractor and its tests), and
# a luajit2 VM built from that source into third_party/luajit2 (the fixtures run
# under it; the package cannot be installed beside Debian's luajit), and the SARIF
# multitool (npm, pinned) that validates `lint --format sarif`, and the browser
# test tools (Debian chromium; npm puppeteer-core, speedscope, ajv). Safe to run
# again: each step is skipped when its result is already in place. Nothing
# fetched or built is committed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
third="$root/third_party"
say() { printf 'setup: %s\n' "$*"; }

packages=(
  build-essential cmake ninja-build pkg-config git
  libluajit-5.1-dev luajit
  libtree-sitter-dev libclang-14-dev clang-14 libclang-rt-14-dev
  catch2 nlohmann-json3-dev libcli11-dev libfmt-dev libtoml11-dev
  dpkg-dev lua-check
  libxml2-utils  # xmllint: the JUnit output's test checks that it is well-formed XML
  neovim  # the language server's headless editor test (tests/lsp/neovim_test.lua)
  chromium  # headless, for the browser tests of the HTML report and speedscope (tests/browser/)
)

install_packages() {
  if dpkg -s "${packages[@]}" >/dev/null 2>&1; then
    say "apt packages present"
    return
  fi
  say "installing apt packages"
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  # npm comes with the machine's Node.js; install Debian's only when it is missing.
  command -v npm >/dev/null || "${sudo[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
}

grammar_version=0.2.0
grammar_sha256=74011c583312b200d9ba68517023ba5e8203342d089b5a4bbfc8bd94c2dbd02e
fetch_grammar() {
  local dest="$third/tree-sitter-lua"
  if [[ -f $dest/src/parser.c && -f $dest/.version && $(cat "$dest/.version") == "$grammar_version" ]]; then
    say "tree-sitter grammar $grammar_version present"
    return
  fi
  say "fetching tree-sitter Lua grammar $grammar_version"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@tree-sitter-grammars/tree-sitter-lua@$grammar_version" >/dev/null)
  echo "$grammar_sha256  $tmp/tree-sitter-grammars-tree-sitter-lua-$grammar_version.tgz" | sha256sum -c --quiet
  rm -rf "$dest"; mkdir -p "$dest"
  tar xzf "$tmp"/*.tgz -C "$dest" --strip-components=1 package/src package/LICENSE.md
  echo "$grammar_version" > "$dest/.version"
  rm -rf "$tmp"
}

# Fetches a Debian source package into third_party/<dir> through a private
# deb-src list, leaving the system's apt configuration untouched.
fetch_debian_source() {
  local pkg=$1 dir=$2
  local dest="$third/$dir"
  if [[ -f $dest/src/lj_traceerr.h ]]; then
    say "$pkg source present"
    return
  fi
  say "fetching Debian source of $pkg"
  local work; work=$(mktemp -d)
  mkdir -p "$work/parts" "$work/lists/partial" "$work/dl"
  local PARTS
  eval "$(apt-config shell PARTS Dir::Etc::sourceparts/d)"
  if [[ -f $PARTS/debian.sources ]]; then
    sed 's/^Types: deb$/Types: deb-src/' "$PARTS/debian.sources" > "$work/parts/src.sources"
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "$work/parts/src.list"
  fi
  local apt=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts"
             -o Dir::State::Lists="$work/lists" -o Debug::NoLocking=1)
  apt-get "${apt[@]}" update -qq 2>/dev/null
  (cd "$work/dl" && apt-get "${apt[@]}" source --download-only -qq "$pkg" >/dev/null 2>&1)
  rm -rf "$dest"
  dpkg-source --no-check -x "$work"/dl/"${pkg}"_*.dsc "$dest" >/dev/null 2>&1
  rm -f "$third"/"${pkg}"_*
  rm -rf "$work"
}

# Builds OpenResty's luajit2 from third_party/luajit2-src the way its Debian
# package does (debian/rules: `make amalg`, default flags, so GC64 on x86_64)
# into third_party/luajit2, in a scratch copy so that the source tree stays as
# Debian ships it. The prefix is compiled into the binary (LUA_ROOT), which is
# how bin/luajit finds its jit/*.lua from any directory. Skipped when the built
# VM runs and was built from the same source version.
build_luajit2() {
  local src="$third/luajit2-src" dest="$third/luajit2"
  local version; version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
  if [[ -x $dest/bin/luajit && -f $dest/.version && $(cat "$dest/.version") == "$version" ]] &&
     "$dest/bin/luajit" -e 'require("jit.v"); require("table.isempty")' >/dev/null 2>&1; then
    say "luajit2 $version VM present"
    return
  fi
  say "building luajit2 $version into third_party/luajit2"
  local work; work=$(mktemp -d)
  cp -a "$src" "$work/src"
  rm -rf "$dest"
  if ! { make -C "$work/src" -j2 amalg PREFIX="$dest" &&
         make -C "$work/src" install PREFIX="$dest"; } >"$work/build.log" 2>&1; then
    tail -n 30 "$work/build.log" >&2
    rm -rf "$work"
    say "luajit2 build failed" >&2
    return 1
  fi
  echo "$version" > "$dest/.version"
  rm -rf "$work"
}

# The Microsoft SARIF multitool, which validates `lint --format sarif` in the
# tests (tests/integration/test_cli_sarif.cpp). Both packages are pinned: the
# wrapper names its platform binary only as ^5.7.0. The tests call the Linux
# binary directly (the wrapper passes its arguments through a shell, which
# splits "Sarif;Gh").
sarif_multitool_version=5.7.0
fetch_sarif_multitool() {
  local dest="$third/sarif-multitool"
  local binary="$dest/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  if [[ -x $binary && -f $dest/.version && $(cat "$dest/.version") == "$sarif_multitool_version" ]]; then
    say "SARIF multitool $sarif_multitool_version present"
    return
  fi
  say "installing SARIF multitool $sarif_multitool_version"
  rm -rf "$dest"; mkdir -p "$dest"
  npm install --silent --no-audit --no-fund --save-exact --prefix "$dest" \
    "@microsoft/sarif-multitool@$sarif_multitool_version" \
    "@microsoft/sarif-multitool-linux@$sarif_multitool_version" >/dev/null
  [[ -x $binary ]] || { say "SARIF multitool binary missing after install: $binary" >&2; return 1; }
  echo "$sarif_multitool_version" > "$dest/.version"
}

# The language server's test client (tests/lsp/lsp.test.mjs), pinned.
vscode_jsonrpc_version=8.2.1
fetch_lsp_client() {
  local dest="$third/lsp-client"
  if [[ -f $dest/node_modules/vscode-jsonrpc/package.json && -f $dest/.version &&
        $(cat "$dest/.version") == "$vscode_jsonrpc_version" ]]; then
    say "vscode-jsonrpc $vscode_jsonrpc_version present"
    return
  fi
  say "installing vscode-jsonrpc $vscode_jsonrpc_version"
  rm -rf "$dest"; mkdir -p "$dest"
  npm install --silent --no-audit --no-fund --save-exact --prefix "$dest" \
    "vscode-jsonrpc@$vscode_jsonrpc_version" >/dev/null
  echo "$vscode_jsonrpc_version" > "$dest/.version"
}

# The browser tests' tools (tests/browser/), npm, pinned: puppeteer-core drives
# Debian's /usr/bin/chromium (it downloads no browser), speedscope is loaded
# from node_modules over file://, ajv validates against speedscope's schema.
# puppeteer-core 24 is the last line that runs on Node 20.
browser_test_packages=(puppeteer-core@24.43.1 speedscope@1.25.0 ajv@8.20.0)
fetch_browser_test_tools() {
  local dest="$third/browser-test"
  local want="${browser_test_packages[*]}"
  if [[ -d $dest/node_modules/puppeteer-core && -f $dest/.version && $(cat "$dest/.version") == "$want" ]]; then
    say "browser test tools present ($want)"
    return
  fi
  say "installing browser test tools ($want)"
  rm -rf "$dest"; mkdir -p "$dest"
  PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund --save-exact --prefix "$dest" \
    "${browser_test_packages[@]}" >/dev/null
  echo "$want" > "$dest/.version"
}

mkdir -p "$third"
install_packages
fetch_grammar
fetch_debian_source luajit luajit-src
fetch_debian_source luajit2 luajit2-src
build_luajit2
fetch_sarif_multitool
fetch_lsp_client
fetch_browser_test_tools
say "done"
