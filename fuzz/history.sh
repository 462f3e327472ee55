#!/usr/bin/env bash
# Sums fuzz/history.tsv (written by fuzz/run_all.sh) per target: executions, hours, runs, and
# the highest peak RSS seen. Runs built with a sanitizer (no `-s none` among their options:
# AddressSanitizer, the default) are summed apart, as `TARGET+asan`: their resident size is
# mostly the sanitizer's.
#
#   fuzz/history.sh
set -eu
cd "$(dirname "$0")"
printf '%-14s %14s %8s %5s %12s\n' target executions hours runs "peak RSS MB"
awk -F'\t' '
    NR == 1 { next }
    {
        t = $2
        if ($7 !~ /-s none/) t = t "+asan"
        execs[t] += $3; secs[t] += $4; runs[t]++
        if ($5 + 0 > rss[t]) rss[t] = $5 + 0
    }
    END {
        for (t in execs)
            printf "%-14s %14d %8.2f %5d %12d\n", t, execs[t], secs[t] / 3600, runs[t], rss[t]
    }' history.tsv | sort
