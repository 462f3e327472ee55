#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each, JOBS targets at a time, and prints one line of
# libFuzzer's final statistics per target (executions, peak RSS, slowest input).
#
#   fuzz/run_all.sh SECONDS [JOBS] [cargo fuzz run options...]
#   fuzz/run_all.sh 600 2 -s none -a           # stable, debug assertions on
#   # nightly: AddressSanitizer (the default), built and logged apart
#   RUSTUP_TOOLCHAIN=nightly FUZZ_TARGET_DIR=fuzz/target-asan FUZZ_LOGS=fuzz/logs-asan \
#       fuzz/run_all.sh 600 2 -a
#
# Targets run over fuzz/corpus/<target> (make it with `cargo run --release --example
# fuzz_seeds`), which libFuzzer grows; findings land in fuzz/artifacts/<target>/; logs in
# $FUZZ_LOGS/<target>.log (default fuzz/logs: give a sanitizer run its own directory when
# another run is going, or the two write the same log). A line per target and run is added to
# fuzz/history.tsv (committed: date, target, executions, seconds, peak RSS in MB, slowest input
# in s, options), so that executions add up across runs and sessions (`fuzz/history.sh` sums
# them).
# Set TARGETS to run a subset, RUNS to stop each target after that many executions:
#   TARGETS="map_strict delta" RUNS=1000000 fuzz/run_all.sh 600
set -eu
cd "$(dirname "$0")/.."
# One rayon thread: map loading and writing inflate and deflate in parallel, and a second
# thread per fuzzer only contends with the other fuzzer on a small machine.
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
seconds=${1:?usage: fuzz/run_all.sh SECONDS [JOBS] [cargo fuzz run options...]}
jobs=${2:-2}
shift
[ $# -gt 0 ] && shift
targets=${TARGETS:-$(cargo fuzz list)}
logs=${FUZZ_LOGS:-fuzz/logs}
mkdir -p "$logs"

# Build once, then run the binaries themselves: editing the sources during a long run does not
# rebuild under the running targets. cargo fuzz run's own options (-s, -a, ...) go to the build.
# FUZZ_TARGET_DIR keeps builds with other options apart (default fuzz/target).
options="$*"
dir=${FUZZ_TARGET_DIR:-fuzz/target}
cargo fuzz build --target-dir "$dir" "$@"
bin=$dir/$(rustc -vV | sed -n 's/^host: //p')/release

run_one() {
    target=$1
    log="$logs/$target.log"
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    # libFuzzer: inputs up to 64 KiB, a hang is an input over 10 s, a single allocation over
    # 512 MiB or a resident size over 2 GiB is a finding.
    "$bin/$target" "fuzz/corpus/$target" -artifact_prefix="fuzz/artifacts/$target/" \
        -max_len=65536 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
        -max_total_time="$seconds" -runs="${RUNS:--1}" -print_final_stats=1 -report_slow_units=1 \
        >"$log" 2>&1 || echo "$target: FINDING, see $log"
    # Recorded as soon as the target stops, so that a run cut short loses only what is running.
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
    corpus=$(ls "fuzz/corpus/$target" | wc -l)
    echo "$target: ${execs:-?} execs, peak RSS ${rss:-?} MB, slowest input ${slowest:-?} s, corpus $corpus"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "${execs:-0}" \
        "${took:-?}" "${rss:-?}" "${slowest:-?}" "$options" >>fuzz/history.tsv
}

running=0
for target in $targets; do
    run_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n 2>/dev/null || wait
        running=$((running - 1))
    fi
done
wait

