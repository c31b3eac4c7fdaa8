#!/bin/sh
# Incremental deduplication: documents come in batches (a crawler's day, a
# training corpus's update), and each batch is checked against everything
# seen before without the old documents' keys or pairs being computed again.
#
#   examples/incremental.sh STATE BATCH.tsv [BATCH.tsv...]
#
# STATE is a directory kept from one run to the next:
#
#   keys.idx/      the band index of every document so far (bandindex)
#   shingles.tsv   their shingle records, sorted by id
#   verified.tsv   the verified near-duplicate pairs found so far
#
# For each batch, in order: its shingles, sketches and band keys; pairs
# --against the index gives the pairs among the new documents and between
# new and old (never two old ones: they were found when those came); verify
# scores them with the shingles of both; then the batch's keys are added to
# the index as a new run and its shingles merged into the sorted file. The
# pairs found over all the batches are the pairs of everything
# (e2e/testdata/script/example_incremental.txtar checks it). Runs pile up,
# one per batch: merge them now and then (here, when there are more than 8).
set -eu
state=$1
shift
mkdir -p "$state"
export LC_ALL=C
tab=$(printf '\t')
sortkey() { sort -t "$tab" -k1,1 -S 1G "$@"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-incremental.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for batch in "$@"; do
	shingle --unit word -k 5 "$batch" | sortkey > "$tmp/shingles.tsv"
	sketch "$tmp/shingles.tsv" | band -b 18 -r 6 > "$tmp/keys.tsv"
	if [ -d "$state/keys.idx" ]; then
		pairs --against "$state/keys.idx" "$tmp/keys.tsv" > "$tmp/pairs.tsv"
		sortkey -m "$state/shingles.tsv" "$tmp/shingles.tsv" > "$tmp/all.tsv"
	else
		pairs "$tmp/keys.tsv" > "$tmp/pairs.tsv"
		cp "$tmp/shingles.tsv" "$tmp/all.tsv"
	fi
	verify --shingles "$tmp/all.tsv" --threshold 0.8 "$tmp/pairs.tsv" >> "$state/verified.tsv"

	# Fold the batch in: a new run of the index, the shingles merged.
	if [ -d "$state/keys.idx" ]; then
		bandindex add "$state/keys.idx" "$tmp/keys.tsv"
	else
		bandindex build -o "$state/keys.idx" "$tmp/keys.tsv"
	fi
	mv "$tmp/all.tsv" "$state/shingles.tsv"
	runs=$(bandindex stats "$state/keys.idx" | sed -n 's/^runs: *\([0-9]*\),.*/\1/p')
	if [ "$runs" -gt 8 ]; then
		bandindex merge "$state/keys.idx"
	fi
	echo "$batch: $(grep -vc '^#' "$tmp/pairs.tsv") candidate pairs, $(grep -vc '^#' "$state/verified.tsv") verified so far, $runs run(s)"
done
