#!/bin/sh
# The fingerprint index on random 64-bit fingerprints, k = 3: build time and
# bytes per fingerprint for 1 and 10 million, online latency (median, p99)
# with planted neighbours, batch throughput of 1 million queries, and a
# brute-force popcount scan in the same run; every timed answer set of the
# scan's sample is checked against it; what of the index is resident. One
# thread, measured RUNS times (the spread, on a shared machine), then batch
# on every core; then 10 million with 5 blocks (10 tables) instead of the
# default 4.
#
#   examples/index-bench.sh            # DIR=/fast/disk RUNS=5 examples/index-bench.sh
set -eu
cd "$(dirname "$0")/.."
DIR=${DIR:-${TMPDIR:-/tmp}}
RUNS=${RUNS:-3}
go build -o "$DIR/indexbench" ./internal/tools/indexbench
for n in 1000000 10000000; do
	echo "== $n fingerprints, one thread"
	"$DIR/indexbench" -n "$n" -queries 100000 -batch 1000000 -j 1 -runs "$RUNS" -dir "$DIR" -keep
	echo "== $n fingerprints, batch on $(getconf _NPROCESSORS_ONLN) cores"
	"$DIR/indexbench" -n "$n" -queries 100000 -batch 1000000 -j 0 -dir "$DIR" -reuse |
		grep -E '^(online|batch)'
	rm -f "$DIR/indexbench-$n.idx"
done
echo "== 10000000 fingerprints, --blocks 5, one thread"
"$DIR/indexbench" -n 10000000 -blocks 5 -queries 100000 -batch 1000000 -j 1 -runs "$RUNS" -dir "$DIR" |
	grep -E '^(build|all|file|memory|online|batch|resident|[0-9]+ runs)'
