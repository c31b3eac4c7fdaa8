#!/bin/sh
# How many planted near-duplicates does the pipeline find? gencorpus writes a
# synthetic corpus in which some documents are planted from others (exact
# copies, edited copies, documents inside larger ones) and says which; the
# pipeline runs as usual; every planted pair is also scored exactly, without
# LSH, and the two are compared.
#
#   examples/recall.sh                        # N=20000 THRESHOLD=0.8
#   N=100000 THRESHOLD=0.9 examples/recall.sh
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
N=${N:-20000}
THRESHOLD=${THRESHOLD:-0.8}
if command -v gencorpus > /dev/null 2>&1; then
	gencorpus=gencorpus
else
	gencorpus="go run ./internal/tools/gencorpus"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$gencorpus -n "$N" -seed 1 -truth "$tmp/truth.tsv" > "$tmp/corpus.tsv"
"$BIN/shingle" --unit word -k 5 -o "$tmp/shingles.tsv" "$tmp/corpus.tsv"
"$BIN/sketch" "$tmp/shingles.tsv" |
	"$BIN/band" --threshold "$THRESHOLD" |
	"$BIN/pairs" |
	"$BIN/verify" --shingles "$tmp/shingles.tsv" --threshold "$THRESHOLD" --no-header > "$tmp/found.tsv"

# The planted pairs that reach the threshold: verify scores any list of
# pairs. A source comes before its copy, so "source TAB copy" is in id order.
awk -F '\t' -v OFS='\t' '{ print $2, $1 }' "$tmp/truth.tsv" |
	"$BIN/verify" --shingles "$tmp/shingles.tsv" --threshold "$THRESHOLD" --no-header > "$tmp/planted.tsv"

cut -f1,2 "$tmp/planted.tsv" | LC_ALL=C sort > "$tmp/planted.pairs"
cut -f1,2 "$tmp/found.tsv" | LC_ALL=C sort > "$tmp/found.pairs"
planted=$(wc -l < "$tmp/planted.pairs")
found=$(LC_ALL=C comm -12 "$tmp/planted.pairs" "$tmp/found.pairs" | wc -l)
other=$(LC_ALL=C comm -13 "$tmp/planted.pairs" "$tmp/found.pairs" | wc -l)
echo
echo "documents:        $N ($(wc -l < "$tmp/truth.tsv") planted)"
echo "planted pairs:    $planted with Jaccard >= $THRESHOLD (word 5-shingles)"
echo "found:            $found, recall $(awk -v f="$found" -v p="$planted" 'BEGIN { printf "%.4f", p ? f / p : 1 }')"
echo "other pairs:      $other (copies of one source are near-duplicates of each other too)"
