#!/bin/sh
# Does the default pipeline find every pair it should? On real documents,
# the pairs at Jaccard >= T of the exact join (band --containment T over
# the corpus's docfreq: a pair at Jaccard J holds each document at
# containment >= J, so every one becomes a candidate, complete by
# construction; verify scores them all) against
#   - shingle | sketch | band --threshold T | pairs | verify, as typed;
#   - the same with the old cap, pairs --max-bucket 32 (or CAPPED's flags);
# with recall and precision of each on pairs, the largest bucket, and the
# documents keep --pairs drops by each against the truth's.
#
#   examples/pairs-recall.sh [CORPUS]    # default: corpus-multilingual.sh, below
#   SHINGLE="--normalize width,punct" examples/pairs-recall.sh    # dedup's shingles
#   T=0.9 SHINGLE="--unit word -k 5" examples/pairs-recall.sh corpus.jsonl
#
# CORPUS is anything shingle reads. The exact join is the slow part.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
T=${T:-0.8}
SHINGLE=${SHINGLE:---unit word -k 5}
CAPPED=${CAPPED:---max-bucket 32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
if [ $# -gt 0 ]; then
	corpus=$1
else
	# 4,000 documents a language, and all the Chinese fortunes, Go
	# source and Go modules (several versions) there are: the dense part.
	corpus=$tmp/corpus.tsv
	{
		LANGS="en de fr ru ja zh go mod" examples/corpus-multilingual.sh 4000
		LANGS="zh go mod" examples/corpus-multilingual.sh 30000
	} | awk -F '\t' '!seen[$1]++' > "$corpus"
fi

# shellcheck disable=SC2086 # the flags are words
"$BIN/shingle" --number-from 0 $SHINGLE -o "$tmp/s.tsv" "$corpus"
"$BIN/sketch" "$tmp/s.tsv" | "$BIN/band" --threshold "$T" > "$tmp/keys.tsv"
"$BIN/pairs" "$tmp/keys.tsv" | "$BIN/verify" --shingles "$tmp/s.tsv" --threshold "$T" > "$tmp/default.tsv"
# shellcheck disable=SC2086
"$BIN/pairs" $CAPPED "$tmp/keys.tsv" 2> "$tmp/capped.err" |
	"$BIN/verify" --shingles "$tmp/s.tsv" --threshold "$T" > "$tmp/capped.tsv"
"$BIN/docfreq" "$tmp/s.tsv" > "$tmp/df.tsv"
"$BIN/band" --containment "$T" --df "$tmp/df.tsv" "$tmp/s.tsv" | "$BIN/pairs" |
	"$BIN/verify" --shingles "$tmp/s.tsv" --containment --threshold "$T" > "$tmp/contained.tsv"
# The truth as verified pairs: the default run's headers, then the pairs at
# Jaccard >= T with their Jaccard, as keep --pairs reads them.
{
	grep '^#' "$tmp/default.tsv"
	grep -v '^#' "$tmp/contained.tsv" | awk -F '\t' -v OFS='\t' -v t="$T" '$3 >= t { print $1, $2, $3 }'
} > "$tmp/truth.tsv"

pairs_of() { grep -v '^#' "$1" | cut -f1,2 | LC_ALL=C sort; }
dropped() { "$BIN/keep" --pairs "$1" --report /dev/stdout -o /dev/null "$corpus" | cut -f1 | LC_ALL=C sort; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.5f", b ? a / b : 1 }'; }
pairs_of "$tmp/truth.tsv" > "$tmp/truth.pairs"
dropped "$tmp/truth.tsv" > "$tmp/truth.dropped"
truth=$(wc -l < "$tmp/truth.pairs")
tdrop=$(wc -l < "$tmp/truth.dropped")
largest=$(cut -f1 "$tmp/keys.tsv" | grep -v '^#' | LC_ALL=C sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
echo "documents:            $(grep -vc '^#' "$tmp/s.tsv") (shingle $SHINGLE; the largest bucket at band --threshold $T: $largest ids)"
echo "pairs at Jaccard >= $T (exact join): $truth; documents keep --pairs drops by them: $tdrop"
for run in default capped; do
	pairs_of "$tmp/$run.tsv" > "$tmp/$run.pairs"
	dropped "$tmp/$run.tsv" > "$tmp/$run.dropped"
	found=$(wc -l < "$tmp/$run.pairs")
	both=$(LC_ALL=C comm -12 "$tmp/truth.pairs" "$tmp/$run.pairs" | wc -l)
	rdrop=$(wc -l < "$tmp/$run.dropped")
	bdrop=$(LC_ALL=C comm -12 "$tmp/truth.dropped" "$tmp/$run.dropped" | wc -l)
	name="pairs"
	[ "$run" = default ] || name="pairs $CAPPED"
	echo "$name: $found pairs, recall $(ratio "$both" "$truth"), precision $(ratio "$both" "$found"); dropped $rdrop, recall $(ratio "$bdrop" "$tdrop"), precision $(ratio "$bdrop" "$rdrop")"
done
grep '^pairs: ' "$tmp/capped.err" | sed 's/^/  capped: /' || true
