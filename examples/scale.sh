#!/bin/sh
# The pipeline on synthetic corpora of growing size, to show that its cost
# grows linearly with the number of documents: for each size, wall and CPU
# time, MB/s and documents/s, and peak memory of every stage, and the peak
# memory per document. The corpora have planted near-duplicates at fixed
# rates (internal/synth), about 5 KB per document by default.
#
#   examples/scale.sh                      # 125k 250k 500k 1M documents
#   SIZES="10000 20000" examples/scale.sh  # DIR=/big/disk for the files
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
[ -x "$BIN/shingle" ] || make -s build
SIZES=${SIZES:-"125000 250000 500000 1000000"}
DIR=${DIR:-${TMPDIR:-/tmp}}
GENFLAGS=${GENFLAGS:-"-seed 1 -min-words 100 -max-words 4000 -plant 0.3"}
tmp=$(mktemp -d "$DIR/neardup-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gencorpus" ./internal/tools/gencorpus
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
# One corpus of the largest size; smaller sizes are its first lines, so each
# size holds the smaller ones.
"$tmp/gencorpus" -n "$max" $GENFLAGS > "$tmp/corpus.tsv"

run() { # run NAME DOCS BYTES CMD: time CMD, print one line
	name=$1 docs=$2 bytes=$3
	shift 3
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" sh -c "$*" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
	awk -v name="$name" -v bytes="$bytes" -v docs="$docs" '{
		wall = $1; cpu = $2 + $3; if (wall <= 0) wall = 0.001
		printf "  %-8s %8.1f s wall %8.1f s cpu %8.1f MB/s %9.0f docs/s %7.0f MiB peak %6.0f B/doc\n",
			name, wall, cpu, bytes / 1e6 / wall, docs / wall, $4 / 1024, $4 * 1024 / docs
	}' "$tmp/time"
}

B=$BIN
for n in $SIZES; do
	head -n "$n" "$tmp/corpus.tsv" > "$tmp/c.tsv"
	bytes=$(wc -c < "$tmp/c.tsv")
	echo "$n documents, $(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }')"
	start=$(date +%s.%N)
	run shingle "$n" "$bytes" "$B/shingle --unit word -k 5 $tmp/c.tsv > $tmp/s.tsv"
	run sketch "$n" "$bytes" "$B/sketch $tmp/s.tsv > $tmp/k.tsv"
	run band "$n" "$bytes" "$B/band --threshold 0.8 $tmp/k.tsv > $tmp/b.tsv"
	run pairs "$n" "$bytes" "$B/pairs $tmp/b.tsv > $tmp/p.tsv"
	run verify "$n" "$bytes" "$B/verify --shingles $tmp/s.tsv $tmp/p.tsv > $tmp/v.tsv"
	run cluster "$n" "$bytes" "$B/cluster $tmp/v.tsv > $tmp/cl.tsv"
	end=$(date +%s.%N)
	echo "  total    $(awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { printf "%8.1f s wall, %.1f µs per document", e - s, (e - s) * 1e6 / n }');" \
		"candidate pairs $(grep -vc '^#' "$tmp/p.tsv"), verified $(grep -vc '^#' "$tmp/v.tsv")"
done
