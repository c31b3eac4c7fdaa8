#!/bin/sh
# The fingerprint index on random 64-bit fingerprints, k = 3: build time and
# bytes per fingerprint for 1 and 10 million, online latency (median, p99)
# with planted neighbours, batch throughput of 1 million queries, and a
# brute-force popcount scan in the same run; every timed answer set of the
# scan's sample is checked against it. One thread, then batch on every core.
#
#   examples/index-bench.sh            # DIR=/fast/disk examples/index-bench.sh
set -eu
cd "$(dirname "$0")/.."
DIR=${DIR:-${TMPDIR:-/tmp}}
go build -o "$DIR/indexbench" ./internal/tools/indexbench
for n in 1000000 10000000; do
	echo "== $n fingerprints, one thread"
	"$DIR/indexbench" -n "$n" -queries 100000 -batch 1000000 -j 1 -dir "$DIR" -keep
	echo "== $n fingerprints, batch on $(getconf _NPROCESSORS_ONLN) cores"
	"$DIR/indexbench" -n "$n" -queries 100000 -batch 1000000 -j 0 -dir "$DIR" -reuse |
		grep -E '^(online|batch)'
	rm -f "$DIR/indexbench-$n.idx"
done
