# Shared by scripts/fuzz.sh and scripts/fuzz_campaign.sh: the harness list,
# each harness's dictionary, libFuzzer's options, and the configuration of a
# fuzz build tree. Sourced, not run; expects $root.

fuzz_harnesses=(bytecode_reader lua_source reports registry_data config lsp project)

# The dictionary each harness mutates with; a list is joined in that order.
declare -A fuzz_dictionary=(
  [bytecode_reader]=bytecode.dict [lua_source]=lua.dict
  [reports]=json.dict [registry_data]=json.dict
  [config]=toml.dict [lsp]=lsp.dict [project]="lua.dict project.dict")

# fuzz_dictionary_file HARNESS DIR: the path of the harness's dictionary, one
# file of fuzz/dict/ or, for a list, the files joined into DIR.
fuzz_dictionary_file() {
  local parts=(${fuzz_dictionary[$1]}) part
  if ((${#parts[@]} == 1)); then
    printf '%s' "$root/fuzz/dict/${parts[0]}"
    return
  fi
  mkdir -p "$2"
  for part in "${parts[@]}"; do cat "$root/fuzz/dict/$part"; done >"$2/$1.dict"
  printf '%s' "$2/$1.dict"
}

# -entropic=0: libFuzzer 14's entropic schedule spent over half of each run in
# InputCorpus::UpdateFeatureFrequency here (perf); plain scheduling ran 8x the
# inputs per second and reached more coverage in the same time (docs/fuzzing.md).
fuzz_options=(-timeout=20 -rss_limit_mb=2048 -max_len=65536 -entropic=0
              -error_exitcode=86 -timeout_exitcode=86 -print_final_stats=1)

# Sanitizer reports end a run with libFuzzer's crash handling; leaks are checked.
export ASAN_OPTIONS=detect_leaks=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86

fuzz_known_harness() {  # NAME -> status
  [[ -f $root/fuzz/fuzz_$1.cpp ]]
}

# configure_fuzz_tree DIR SANITIZERS(ON|OFF) OPT: clang-14 with libFuzzer's
# coverage; ON adds ASan and UBSan. OPT is the optimisation level (-O1 for the
# sanitized tree, as the sanitizer trees of scripts/test.sh; -O2 for speed).
configure_fuzz_tree() {
  command -v clang++-14 >/dev/null || { printf 'fuzz: error: clang++-14 not found (scripts/setup.sh installs clang-14)\n' >&2; exit 2; }
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$3 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$3 -g1 -DNDEBUG" \
    -DLJCHECK_FUZZ=ON -DLJCHECK_FUZZ_SANITIZERS="$2" -DLJCHECK_TESTS=OFF "${launcher[@]}" >/dev/null
}

# fuzz_stat LOG NAME: one of libFuzzer's final stats (number_of_executed_units,
# average_exec_per_sec, peak_rss_mb), 0 when absent.
fuzz_stat() {
  local v
  v=$(sed -n "s/^stat::$2: *//p" "$1" | tail -n 1)
  printf '%s' "${v:-0}"
}

# fuzz_print_reproducers HARNESS PREFIX: each artifact a run left, with how to
# run it and its first bytes.
fuzz_print_reproducers() {
  local artifact
  for artifact in "$2"*; do
    [[ -f $artifact ]] || continue
    printf 'fuzz: reproducer: %s (%s bytes); run: <fuzz build>/fuzz/fuzz_%s %s\n' \
      "$artifact" "$(stat -c %s "$artifact")" "$1" "$artifact"
    head -c 320 "$artifact" | od -A d -c
  done
}
