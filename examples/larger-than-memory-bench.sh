#!/bin/sh
# Larger than memory, measured. A synthetic corpus whose shingle file is
# several times a memory limit goes through examples/larger-than-memory.sh
# with every process under that limit, and through the in-memory pipeline
# without it; both give the same records and header lines. Prints the sizes,
# the times and the peak resident memory of the largest process of each run,
# then shows that the limit bites: verify holding the shingle sets in memory
# fails under it.
#
#   make larger-than-memory
#   DOCS=800000 LIMIT=256 examples/larger-than-memory-bench.sh
#
# The limit is hard: RLIMIT_DATA (ulimit -d, in MiB: LIMIT, default 256),
# which since Linux 4.7 counts the private writable memory a process maps.
# A Go process maps about 75 MiB of it at start (the heap's arena index,
# reserved and never touched), so GOMEMLIMIT, the runtime's own target, is
# set 128 MiB under it; GNU sort and pairs get LIMIT/4 (sort -S, pairs
# --memory). ulimit -v can't express such a limit: the Go runtime reserves
# about 700 MiB of address space at start. Files go to TMPDIR (several times
# the shingle file).
set -eu
cd "$(dirname "$0")/.."
[ -x bin/shingle ] || make -s build
PATH=$PWD/bin:$PATH
DOCS=${DOCS:-400000}
LIMIT=${LIMIT:-256}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

go run ./internal/tools/gencorpus -n "$DOCS" -seed 1 -max-words 400 -plant 0.4 > "$tmp/corpus.tsv"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

# timed NAME CMD: run CMD under sh, print wall time and the peak resident
# memory of its largest process (wait4 counts the descendants).
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" sh -c "$*" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
	awk -v name="$name" '{ printf "%-34s %7.1f s %7.0f MiB peak (largest process)\n", name, $1, $2 / 1024 }' "$tmp/time"
}

timed "in memory, no limit" "
	shingle --unit word -k 5 -o $tmp/shingles.tsv $tmp/corpus.tsv &&
	sketch $tmp/shingles.tsv | band --threshold 0.8 | pairs > $tmp/pairs.tsv &&
	verify --shingles $tmp/shingles.tsv --threshold 0.8 -o $tmp/verified.tsv $tmp/pairs.tsv &&
	cluster -o $tmp/clusters.tsv $tmp/verified.tsv"
echo "corpus: $DOCS documents, $(($(wc -c < "$tmp/corpus.tsv") >> 20)) MiB; shingle records $(($(wc -c < "$tmp/shingles.tsv") >> 20)) MiB;" \
	"$(grep -vc '^#' "$tmp/pairs.tsv") candidate pairs, $(grep -vc '^#' "$tmp/verified.tsv") verified"
echo "limit: RLIMIT_DATA $LIMIT MiB per process, GOMEMLIMIT=$((LIMIT - 128))MiB, sort -S and pairs --memory $((LIMIT / 4))M"

(
	ulimit -d $((LIMIT * 1024))
	export GOMEMLIMIT=$((LIMIT - 128))MiB SORTMEM=$((LIMIT / 4))M TMPDIR="$tmp"
	timed "bounded, under the limit" "sh examples/larger-than-memory.sh $tmp/corpus.tsv $tmp/out"
)

same=yes
for f in pairs verified clusters; do
	grep '^#neardup' "$tmp/$f.tsv" > "$tmp/want.h"
	grep '^#neardup' "$tmp/out/$f.tsv" > "$tmp/got.h"
	grep -v '^#neardup' "$tmp/$f.tsv" | sort -S 1G > "$tmp/want.r"
	grep -v '^#neardup' "$tmp/out/$f.tsv" | sort -S 1G > "$tmp/got.r"
	cmp -s "$tmp/want.h" "$tmp/got.h" && cmp -s "$tmp/want.r" "$tmp/got.r" || { same=no; echo "$f differ"; }
done
echo "same header lines and records (pairs, verified pairs, clusters): $same"

(
	ulimit -d $((LIMIT * 1024))
	export GOMEMLIMIT=$((LIMIT - 128))MiB
	if verify --shingles "$tmp/shingles.tsv" -o /dev/null "$tmp/pairs.tsv" 2> "$tmp/stderr"; then
		echo "in-memory verify under the limit: completed (the limit is not tight: raise DOCS)"
	else
		echo "in-memory verify under the limit: fails ($(grep -m1 . "$tmp/stderr"))"
	fi
)
[ "$same" = yes ]
