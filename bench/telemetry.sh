#!/usr/bin/env bash
# What telemetry costs a tools/call: mcpkit's BenchmarkCall (one call in
# process, through go-sdk's in-memory transport, to a loopback backend)
#
#   otel=off at BASELINE   the code before telemetry existed
#   otel=off here          telemetry compiled in, no OTEL_* set (Config.Telemetry nil)
#   otel=on  here          the SDK recording every span and metric, exporter dropping them
#
# run in turn, ROUNDS times (A B C A B C …, so that a drift of the machine's
# speed hits each alike), each round CALLS calls. Prints the median ns/op
# of each and, as a Markdown table, the ratios off÷baseline and on÷off:
# the median of the rounds' ratios (each round's pair ran back to back, so
# a load that comes and goes moves both sides of a ratio alike).
#
#   bash bench/telemetry.sh [BASELINE] [ROUNDS] [CALLS]
#
# BASELINE defaults to the commit that added BenchmarkCall, just before
# telemetry. `make bench` runs it after the comparison with the alternative.
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
(cd "$work/baseline" && go test -c -o "$work/base.test" ./mcpkit)
(cd "$root" && go test -c -o "$work/head.test" ./mcpkit)

run() { # binary variant → ns/op
  "$1" -test.run '^$' -test.bench "^BenchmarkCall/otel=$2\$" -test.benchtime "${calls}x" -test.count 1 |
    awk '/^BenchmarkCall/ {print $3}'
}

for i in $(seq "$rounds"); do
  run "$work/base.test" off >>"$work/base-off"
  run "$work/head.test" off >>"$work/head-off"
  run "$work/head.test" on >>"$work/head-on"
done

median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
base=$(median "$work/base-off")
off=$(median "$work/head-off")
on=$(median "$work/head-on")
spread() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.0f–%.0f", v[1]/1000, v[NR]/1000}'; }

ratio() { paste "$1" "$2" | awk '{print $1/$2}' >"$work/ratio"; median "$work/ratio"; }
offRatio=$(ratio "$work/head-off" "$work/base-off")
onRatio=$(ratio "$work/head-on" "$work/head-off")

cat <<EOF
| tools/call in process (mcpkit BenchmarkCall, $rounds rounds of $calls calls) | µs/call, median | range | ratio, median of the rounds' |
|---|---|---|---|
| before telemetry ($baseline) | $(awk -v v="$base" 'BEGIN{printf "%.1f", v/1000}') | $(spread "$work/base-off") | — |
| telemetry off (no OTEL_* set) | $(awk -v v="$off" 'BEGIN{printf "%.1f", v/1000}') | $(spread "$work/head-off") | off ÷ before: $(printf %.3f "$offRatio") |
| telemetry on (SDK recording, export dropped) | $(awk -v v="$on" 'BEGIN{printf "%.1f", v/1000}') | $(spread "$work/head-on") | on ÷ off: $(printf %.3f "$onRatio") |
EOF
