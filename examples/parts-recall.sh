#!/bin/sh
# Paragraph near-duplicates against exact truth: how many pairs does the
# "Paragraphs" recipe (docs/jobs.md) find, and which parts does it drop?
#
# parts cuts a corpus of real documents into paragraphs, numbered in arrival
# order (shingle --number-from 1). The truth is every pair of parts at
# Jaccard >= T, from the exact join: a pair at Jaccard J holds each of its
# parts at containment >= J, so band --containment T over the parts'
# document frequencies makes it a candidate for certain (complete by
# construction), and verify scores every candidate. Against it:
#   - the MinHash pipeline with no cap on buckets (pairs --max-bucket 0):
#     its recall and precision on pairs;
#   - the recipe as typed (pairs' defaults: --max-bucket 512): the parts
#     keep --pairs --drop drops, against the parts the same rule drops from
#     the truth.
#
#   examples/parts-recall.sh [CORPUS]    # default: corpus-multilingual.sh 500
#   T=0.9 examples/parts-recall.sh corpus.jsonl
#
# CORPUS is anything parts reads (TSV, JSON Lines, gzip, zstd). The exact
# join is the slow part (minutes for some 50,000 paragraphs).
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
T=${T:-0.8}
MINBYTES=${MINBYTES:-40}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"

if [ $# -gt 0 ]; then
	corpus=$1
else
	corpus=$tmp/corpus.tsv
	examples/corpus-multilingual.sh 500 > "$corpus"
fi

"$BIN/parts" --min-bytes "$MINBYTES" "$corpus" > "$tmp/parts.tsv"
"$BIN/shingle" --number-from 1 "$tmp/parts.tsv" > "$tmp/s.tsv"
# The recipe, and the same with no cap.
"$BIN/sketch" "$tmp/s.tsv" | "$BIN/band" --threshold "$T" | "$BIN/pairs" |
	"$BIN/verify" --shingles "$tmp/s.tsv" > "$tmp/recipe.tsv"
"$BIN/sketch" "$tmp/s.tsv" | "$BIN/band" --threshold "$T" | "$BIN/pairs" --max-bucket 0 |
	"$BIN/verify" --shingles "$tmp/s.tsv" > "$tmp/uncapped.tsv"
# The exact join. verify --containment writes the Jaccard (6 decimals: a
# Jaccard below T prints below it unless its union holds more than a
# million shingles) of every pair where a containment reaches T.
"$BIN/docfreq" "$tmp/s.tsv" > "$tmp/df.tsv"
"$BIN/band" --containment "$T" --df "$tmp/df.tsv" "$tmp/s.tsv" | "$BIN/pairs" |
	"$BIN/verify" --shingles "$tmp/s.tsv" --containment --threshold "$T" > "$tmp/contained.tsv"
# The truth as verified pairs: the uncapped run's headers, then the pairs
# at Jaccard >= T with their Jaccard, as keep --pairs reads them.
{
	grep '^#' "$tmp/uncapped.tsv"
	grep -v '^#' "$tmp/contained.tsv" | awk -F '\t' -v OFS='\t' -v t="$T" '$3 >= t { print $1, $2, $3 }'
} > "$tmp/truth.tsv"

pairs_of() { grep -v '^#' "$1" | cut -f1,2 | LC_ALL=C sort; }
pairs_of "$tmp/truth.tsv" > "$tmp/truth.pairs"
pairs_of "$tmp/uncapped.tsv" > "$tmp/uncapped.pairs"
dropped() { "$BIN/keep" --pairs "$1" --drop "$tmp/parts.tsv" | grep -v '^#' | cut -f1 | LC_ALL=C sort; }
dropped "$tmp/truth.tsv" > "$tmp/truth.dropped"
dropped "$tmp/recipe.tsv" > "$tmp/recipe.dropped"

truth=$(wc -l < "$tmp/truth.pairs")
found=$(wc -l < "$tmp/uncapped.pairs")
both=$(LC_ALL=C comm -12 "$tmp/truth.pairs" "$tmp/uncapped.pairs" | wc -l)
tdrop=$(wc -l < "$tmp/truth.dropped")
rdrop=$(wc -l < "$tmp/recipe.dropped")
bdrop=$(LC_ALL=C comm -12 "$tmp/truth.dropped" "$tmp/recipe.dropped" | wc -l)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.5f", b ? a / b : 1 }'; }
echo "parts:                $(grep -vc '^#' "$tmp/parts.tsv") (parts --min-bytes $MINBYTES)"
echo "pairs at Jaccard >= $T (exact join): $truth"
echo "found, no cap:        $found: recall $(ratio "$both" "$truth"), precision $(ratio "$both" "$found")"
echo "parts dropped (keep --pairs --drop): truth $tdrop, recipe $rdrop, both $bdrop: recall $(ratio "$bdrop" "$tdrop"), precision $(ratio "$bdrop" "$rdrop")"
LC_ALL=C comm -23 "$tmp/truth.dropped" "$tmp/recipe.dropped" | sed 's/^/  not dropped by the recipe: /' | head -5
LC_ALL=C comm -13 "$tmp/truth.dropped" "$tmp/recipe.dropped" | sed 's/^/  dropped by the recipe only: /' | head -5
