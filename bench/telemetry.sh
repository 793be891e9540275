#!/usr/bin/env bash
# What telemetry costs a tools/call: mcpkit's BenchmarkCall (one call in
# process, through go-sdk's in-memory transport, to a loopback backend)
#
#   otel=off at BASELINE   the code before telemetry existed
#   otel=off here          telemetry compiled in, no OTEL_* set (Config.Telemetry nil)
#   otel=on  here          the SDK recording every span and metric, exporter dropping them
#
# and the first two again with the garbage collector off (GOGC=off: the
# code path alone; with the collector on, its idle-time mark workers take
# CPU by the machine's other load and move the figures by several percent),
#
# run in turn, ROUNDS times (A B C A B C …, so that a drift of the machine's
# speed hits each alike), each round CALLS calls. Prints the median ns/op
# of each and, as a Markdown table, the ratios off÷baseline and on÷off:
# the median of the rounds' ratios (each round's pair ran back to back, so
# a load that comes and goes moves both sides of a ratio alike).
#
#   bash bench/telemetry.sh [BASELINE] [ROUNDS] [CALLS]
#
# BASELINE defaults to the commit just before telemetry (this
# call_bench_test.go is copied there, so both sides run the same
# benchmark). `make bench` runs it after the comparison with the
# alternative.
set -euo pipefail

baseline="${1:-c452c68}"
rounds="${2:-15}"
calls="${3:-3000}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/.tools/bench-telemetry"
rm -rf "$work"
mkdir -p "$work"
trap 'git -C "$root" worktree remove --force "$work/baseline" >/dev/null 2>&1 || true' EXIT

git -C "$root" worktree add --detach "$work/baseline" "$baseline" >/dev/null 2>&1
# The same benchmark code on both sides: only mcpkit differs.
cp "$root/mcpkit/call_bench_test.go" "$work/baseline/mcpkit/call_bench_test.go"
(cd "$work/baseline" && go test -c -o "$work/base.test" ./mcpkit)
(cd "$root" && go test -c -o "$work/head.test" ./mcpkit)

# run BINARY VARIANT NAME: appends the run's wall ns/op to $work/NAME and
# its CPU ns/op (the whole process's user + system time over the calls) to
# $work/NAME.cpu. CPU time moves far less than wall time when other work
# shares the machine.
run() {
  env ${GC:+GOGC=$GC} "$1" -test.run '^$' -test.bench "^BenchmarkCall/otel=$2\$" -test.benchtime "${calls}x" -test.count 1 |
    awk -v wall="$work/$3" -v cpu="$work/$3.cpu" '/^BenchmarkCall/ {print $3 >>wall; print $5 >>cpu}'
}

for i in $(seq "$rounds"); do
  run "$work/base.test" off base-off
  run "$work/head.test" off head-off
  run "$work/head.test" on head-on
  GC=off run "$work/base.test" off base-off-nogc
  GC=off run "$work/head.test" off head-off-nogc
done

median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
us() { awk -v v="$1" 'BEGIN{printf "%.1f", v/1000}'; }
ratio() { paste "$1" "$2" | awk '{print $1/$2}' >"$work/ratio"; median "$work/ratio"; }
spread() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.0f–%.0f", v[1]/1000, v[NR]/1000}'; }
row() { # label file [ratio label, other file]
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$(us "$(median "$work/$2")")" "$(spread "$work/$2")" \
    "$(us "$(median "$work/$2.cpu")")" "$(spread "$work/$2.cpu")" \
    "${3:+$3 $(printf %.3f "$(ratio "$work/$2" "$work/$4")") wall, $(printf %.3f "$(ratio "$work/$2.cpu" "$work/$4.cpu")") CPU}"
}

echo "| tools/call in process (mcpkit BenchmarkCall, $rounds rounds of $calls calls) | wall µs/call, median | range | CPU µs/call, median | range | ratio (median of the rounds' ratios) |"
echo "|---|---|---|---|---|---|"
row "before telemetry ($baseline)" base-off
row "telemetry off (no OTEL_* set)" head-off "off ÷ before:" base-off
row "telemetry on (SDK recording, export dropped)" head-on "on ÷ off:" head-off
row "before telemetry, GOGC=off" base-off-nogc
row "telemetry off, GOGC=off" head-off-nogc "off ÷ before:" base-off-nogc
