#!/usr/bin/env bash
# Generates the seed corpora of the fuzz harnesses (fuzz/*.cpp) from the
# project's own inputs, so no seed needs to be committed:
#   lua_source       fixtures/*.lua, small files of the benchmark corpus
#                    (bench/corpus/, when bench/corpus.sh has built it), and
#                    their bytecode dumps (lint reads an ESC-led file as a dump)
#   bytecode_reader  those dumps, compiled by the real luajit (`luajit -bg`)
#   project          fixtures/projects/*/, each folder's files joined with
#                    `--- NAME` lines, and each fixtures/*.lua alone
#   reports          the lint, run and verify JSON ljcheck writes per fixture,
#                    and one sampled run whose JSON carries stacks
#   registry_data    registry/profiles, registry/catalog, registry/overlays
#   config           fuzz/seeds/config, the ```toml blocks of docs/ and
#                    README.md, and the .ljcheck.toml files the integration
#                    tests write
#   lsp              the sessions of fuzz/seeds/lsp (one JSON body a line,
#                    framed here), framing edge cases, and the client input
#                    of tests/lsp/lsp.test.mjs, recorded from a real
#                    vscode-jsonrpc client when node and the client are there
# Usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY
# OUT_DIR is emptied first. A fixture that does not compile or run still
# gives what it can; nothing here fails on one input.
set -euo pipefail
export LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY}
ljcheck=${2:?usage: fuzz/make_seeds.sh OUT_DIR LJCHECK_BINARY}
[[ -x $ljcheck ]] || { echo "make_seeds: $ljcheck: not an executable ljcheck" >&2; exit 2; }
# Absolute: the recorded LSP tests start the server from other folders.
ljcheck=$(realpath "$ljcheck")
mkdir -p "$out" && out=$(realpath "$out")
command -v luajit >/dev/null || { echo "make_seeds: luajit not found (scripts/setup.sh installs it)" >&2; exit 2; }

# Benchmark-corpus files above this size slow every mutation without adding coverage.
max_bench_bytes=8192
max_bench_files=200

rm -rf "$out"
mkdir -p "$out"/{lua_source,bytecode_reader,reports,registry_data,config,lsp,project}

sources=("$root"/fixtures/*.lua)
if [[ -f $root/bench/corpus/files.txt ]]; then
  taken=0
  while IFS= read -r rel && ((taken < max_bench_files)); do
    file=$root/bench/corpus/$rel
    if [[ -f $file && $(stat -c %s "$file") -le $max_bench_bytes ]]; then
      sources+=("$file")
      taken=$((taken + 1))
    fi
  done < "$root/bench/corpus/files.txt"
fi

n=0
for file in "${sources[@]}"; do
  n=$((n + 1))
  name=$(printf '%04d-%s' "$n" "$(basename "$file" .lua)")
  cp "$file" "$out/lua_source/$name.lua"
  if luajit -bg "$file" "$out/bytecode_reader/$name.raw" 2>/dev/null; then
    cp "$out/bytecode_reader/$name.raw" "$out/lua_source/$name.raw"
  fi
done

# Projects: each folder of fixtures/projects as one input, main.lua first and
# the other files after `--- NAME` lines (fuzz/fuzz_project.cpp), then each
# fixture as a project of one file.
for dir in "$root"/fixtures/projects/*/; do
  name=$(basename "$dir")
  {
    [[ -f $dir/main.lua ]] && cat "$dir/main.lua"
    for file in "$dir"*.lua; do
      [[ $(basename "$file") == main.lua ]] && continue
      printf '\n--- %s\n' "$(basename "$file")"
      cat "$file"
    done
  } >"$out/project/$name.lua"
done
cp "$root"/fixtures/*.lua "$out/project/"

# Reports: one lint, run and verify report per fixture, as the tool writes them.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for fixture in "$root"/fixtures/*.lua; do
  name=$(basename "$fixture" .lua)
  lint=$out/reports/$name.lint.json run=$out/reports/$name.run.json
  (cd "$root" && timeout 20 "$ljcheck" lint --format json --confidence possible "fixtures/$name.lua" >"$lint" 2>/dev/null) || true
  (cd "$work" && timeout 20 "$ljcheck" run --json "$run" --root "$root" -- "$fixture" >/dev/null 2>&1) || true
  [[ -s $lint ]] || rm -f "$lint"
  [[ -s $run ]] || rm -f "$run"
  if [[ -f $lint && -f $run ]]; then
    timeout 20 "$ljcheck" verify --static "$lint" --runtime "$run" --format json \
      >"$out/reports/$name.verify.json" 2>/dev/null || true
    [[ -s $out/reports/$name.verify.json ]] || rm -f "$out/reports/$name.verify.json"
  fi
done

# A sampled run long enough to have stacks by VM state ("samples.stacks").
(cd "$work" && cp "$root/tests/browser/workload.lua" app.lua &&
  timeout 20 "$ljcheck" run --quiet --interval 1 --json "$out/reports/sampled.run.json" -- app.lua >/dev/null 2>&1) || true
[[ -s $out/reports/sampled.run.json ]] || rm -f "$out/reports/sampled.run.json"

for file in "$root"/registry/profiles/*.json "$root"/registry/catalog/*.json "$root"/registry/overlays/*.json; do
  cp "$file" "$out/registry_data/$(basename "$(dirname "$file")")-$(basename "$file")"
done

# .ljcheck.toml: committed seeds, the documented examples, the tests' files.
cp "$root"/fuzz/seeds/config/*.toml "$out/config/"
awk -v dir="$out/config" '/^```toml/ { n++; file = dir "/doc-" n ".toml"; on = 1; next }
  /^```/ { on = 0 } on { print > file }' "$root"/docs/*.md "$root/README.md"
OUT=$out/config perl -0777 -ne '
  sub unescape { my $s = shift; $s =~ s/\\(["\\n])/$1 eq "n" ? "\n" : $1/ge; return $s }
  my @found;
  push @found, $1 while /\.toml",\s*R"\((.*?)\)"/sg;
  push @found, unescape($1) while /writeFile\([^,]*\.toml",\s*"((?:[^"\\]|\\.)*)"/g;
  push @found, unescape($1) while /\brun\("((?:[^"\\]|\\.)*)"\)/g;
  for my $text (@found) {
    $n++;
    open(my $fh, ">", "$ENV{OUT}/test-$n-" . ($ARGV =~ s{.*/}{}r) . ".toml") or die;
    print $fh $text;
  }
  $n = 0;' "$root"/tests/integration/test_cli_*.cpp

# LSP: each committed session framed as a client sends it (Content-Length
# counts bytes: LC_ALL=C above).
frame_session() {
  local line
  while IFS= read -r line; do printf 'Content-Length: %d\r\n\r\n%s' "${#line}" "$line"; done <"$1"
}
for session in "$root"/fuzz/seeds/lsp/*.jsonl; do
  frame_session "$session" >"$out/lsp/$(basename "$session" .jsonl).txt"
done
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
framed_init=$(printf 'Content-Length: %d\r\n\r\n%s' "${#init}" "$init")
printf 'Content-Length: -5\r\n\r\n%s' "$framed_init" >"$out/lsp/framing-negative.txt"
printf 'Content-Length: 99999999999999999999\r\n\r\n%s' "$framed_init" >"$out/lsp/framing-huge.txt"
printf 'Content-Length: 67108865\r\n\r\n{}%s' "$framed_init" >"$out/lsp/framing-over-limit.txt"
printf 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}\n%s' "$framed_init" >"$out/lsp/framing-no-length.txt"
printf '%s\nContent-Length: 10\r\n\r\n{"jsonrpc"' "$framed_init" >"$out/lsp/framing-cut-off.txt"
printf 'Content-Length: 12\r\n\r\n{not json!!}%s' "$framed_init" >"$out/lsp/framing-bad-json.txt"

# The node client test's own sessions: ljcheck lsp behind a wrapper that
# keeps a copy of its stdin.
client=$root/third_party/lsp-client/node_modules/vscode-jsonrpc
if command -v node >/dev/null && [[ -d $client ]]; then
  wrapper=$work/ljcheck-recorded
  cat >"$wrapper" <<WRAPPER
#!/usr/bin/env bash
exec "$ljcheck" "\$@" < <(tee "$out/lsp/recorded-\$\$.txt")
WRAPPER
  chmod +x "$wrapper"
  (cd "$root" && LJCHECK_EXE=$wrapper timeout 120 node --test tests/lsp/lsp.test.mjs >"$work/node.log" 2>&1) ||
    { echo "make_seeds: the recorded LSP client test failed; its sessions are kept as they are:" && grep -E "^not ok|error" "$work/node.log" | head -n 5; } >&2
fi

for dir in "$out"/*/; do
  printf 'make_seeds: %-16s %4d seeds\n' "$(basename "$dir")" "$(find "$dir" -type f | wc -l)"
done
