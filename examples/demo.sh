#!/bin/sh
# The main job on real data every machine has: find the near-duplicate files
# of the Go source tree (every file one document, word 5-shingles, Jaccard at
# least 0.8), then report what was found and how long it took.
#
#   make demo                 # or: SRC=/some/tree THRESHOLD=0.9 examples/demo.sh
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
SRC=${SRC:-$(go env GOROOT)/src}
THRESHOLD=${THRESHOLD:-0.8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
start=$(now)
# One pipeline; verify shingles the documents of the candidate pairs again
# from their files, so no shingle file is kept.
"$BIN/shingle" --unit word -k 5 --files --skip-bad --counters "$SRC" 2> "$tmp/shingle.err" |
	"$BIN/sketch" |
	"$BIN/band" --threshold "$THRESHOLD" |
	"$BIN/pairs" |
	tee "$tmp/candidates.tsv" |
	"$BIN/verify" --files --documents "$SRC" --threshold "$THRESHOLD" > "$tmp/verified.tsv"
end=$(now)
grep -v '^reporter:counter:' "$tmp/shingle.err" >&2 || true

count() { grep -vc '^#neardup' "$1" || true; }
bytes=$(du -sb "$SRC" | cut -f1)
echo
echo "corpus:           $SRC ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"
echo "documents:        $(sed -n 's/^reporter:counter:neardup,shingle records out,//p' "$tmp/shingle.err")"
echo "candidate pairs:  $(count "$tmp/candidates.tsv")"
echo "near-duplicates:  $(count "$tmp/verified.tsv") pairs with Jaccard >= $THRESHOLD (word 5-shingles)"
echo "time:             $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f s", e - s }')"
echo
echo "the ten most similar pairs:"
grep -v '^#neardup' "$tmp/verified.tsv" |
	LC_ALL=C sort -t "$(printf '\t')" -k3,3gr -k1,1 -k2,2 |
	head -n 10 |
	awk -F '\t' -v p="$SRC/" '{ gsub(p, "", $1); gsub(p, "", $2); printf "  %s  %s  %s\n", $3, $1, $2 }'
