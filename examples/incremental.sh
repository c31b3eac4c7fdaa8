#!/bin/sh
# Incremental deduplication: documents come in batches (a crawler's day, a
# training corpus's update), and each batch is checked against everything
# seen before without the old documents' keys or pairs being computed again.
# Each batch's kept documents are written, byte for byte, to
# STATE/kept/<the batch's file name>: those with no verified near-duplicate
# among the documents that came before them, in this batch or an earlier
# one. Together they are exactly what examples/dedup.sh keeps of all the
# batches in one go (e2e/testdata/script/example_dedup.txtar checks it).
#
#   examples/incremental.sh [-t THRESHOLD] [-m METHOD] [SHINGLE-FLAGS...] STATE BATCH [BATCH...]
#
# The flags are those of examples/dedup.sh: give both the same to get the
# same documents.
#
# STATE is a directory kept from one run to the next:
#
#   kept/          each batch's kept documents, and kept/NAME.report the
#                  dropped ones with the document they were dropped for
#   keys.idx/      the band index of every document so far (bandindex)
#   batches/       a copy of every batch (NNNNNN-NAME): the documents
#                  verify reads for the older side of a pair
#   batches.list   the batches verify reads, in order: the copies, or with
#                  --files (a document's id is its path) the batches' own
#                  paths, which must then stay where they are
#   verified.tsv   the verified near-duplicate pairs found so far
#   next           the arrival number of the next document
#
# Ids are arrival numbers across all batches (shingle --number-from), so
# that a batch is paired with the earliest documents of a large bucket, as a
# one-shot run is. For each batch, in order: its band keys (shingle
# --sketch, no shingle file); pairs --against the index gives the pairs
# among the new documents and between new and old (never two old ones: they
# were found when those came); verify scores them from the documents of all
# the batches (--documents, numbered from 0); keep --pairs writes the
# batch's kept documents; then the batch's keys are added to the index as a
# new run. Runs pile up, one per batch: merge them now and then (here, when
# there are more than 8). Give every batch the same flags: the headers are
# checked against the index's.
#
# The state holds the batches as they were given (compressed ones, such as
# .jsonl.zst, stay compressed), the index (about 200 bytes a document) and
# the pairs: no shingle file, which for char shingles is some 12 times the
# text. Each batch reads the earlier ones once, in verify.
set -eu
threshold=0.8
method=oph
flags=    # shingle's
stopwords=
docflags= # how the documents are read: shingle's and keep's
while [ $# -gt 0 ]; do
	case $1 in
	-t) threshold=$2; shift 2 ;;
	-m) method=$2; shift 2 ;;
	-k|--unit|--hash|--seed|--normalize|-j|--jobs) flags="$flags $1 $2"; shift 2 ;;
	--stopwords) stopwords=$2; shift 2 ;;
	--format|--id-field|--text-field|--text) docflags="$docflags $1 $2"; shift 2 ;;
	--files|--lines|--main) docflags="$docflags $1"; shift ;;
	--) shift; break ;;
	-*) echo "$0: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "usage: $0 [-t THRESHOLD] [-m METHOD] [SHINGLE-FLAGS...] STATE BATCH [BATCH...]" >&2
	exit 2
fi
state=$1
shift
mkdir -p "$state/kept"
export LC_ALL=C
tab=$(printf '\t')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-incremental.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# verify_batches BATCH: verify the pairs from the documents of the stored
# batches and BATCH.
verify_batches() {
	if [ -f "$state/batches.list" ]; then
		while IFS= read -r f; do
			set -- "$@" --documents "$f"
		done < "$state/batches.list"
	fi
	set -- "$@" --documents "$1"
	shift
	# shellcheck disable=SC2086 # the flags are words
	verify $all $docflags ${stopwords:+--stopwords "$stopwords"} "$@" -o "$tmp/verified.tsv" "$tmp/pairs.tsv"
}

for batch in "$@"; do
	name=$(basename "$batch")
	from=$(cat "$state/next" 2>/dev/null || echo 0)
	number="--number-from $from"
	all="--number-from 0"
	case " $docflags " in *" --files "*|*" --format files "*) number= all= ;; esac # ids are paths
	# shellcheck disable=SC2086 # the flags are words
	shingle $number $flags $docflags ${stopwords:+--stopwords "$stopwords"} --sketch "$method" -o "$tmp/sketches.tsv" "$batch"
	band --threshold "$threshold" "$tmp/sketches.tsv" > "$tmp/keys.tsv"
	if [ -d "$state/keys.idx" ]; then
		pairs --against "$state/keys.idx" -o "$tmp/pairs.tsv" "$tmp/keys.tsv"
	else
		pairs -o "$tmp/pairs.tsv" "$tmp/keys.tsv"
	fi
	# verify reads the stored batches and this one, in order, so that
	# their arrival numbers are those shingle gave.
	verify_batches "$batch"
	# The batch's documents are numbered from $from, as shingle numbered
	# them; a pair with a smaller number is with an older batch's document.
	# shellcheck disable=SC2086
	keep --pairs "$tmp/verified.tsv" $number $docflags \
		--report "$tmp/report.tsv" -o "$state/kept/$name" "$batch"
	# A chain that leaves the batch ends, for keep, at the older document it
	# left for; the older batches' reports say where that one's chain ends.
	find "$state/kept" -name '*.report' -exec cat {} + > "$tmp/old-reports.tsv"
	awk -F "$tab" -v OFS="$tab" -v batch="$tmp/report.tsv" '
		FILENAME != batch { kept[$1] = $2; next }
		$2 in kept { $2 = kept[$2] }
		{ print }' "$tmp/old-reports.tsv" "$tmp/report.tsv" > "$tmp/report-resolved.tsv"
	mv "$tmp/report-resolved.tsv" "$state/kept/$name.report"

	# Fold the batch in: its pairs, a new run of the index, a copy of it
	# (after the others), the next arrival number (one past the batch's
	# last id).
	cat "$tmp/verified.tsv" >> "$state/verified.tsv"
	# With --files a document's id is its path: the batch is read where it
	# is, and must stay there.
	if [ -n "$all" ]; then
		mkdir -p "$state/batches"
		stored=$state/batches/$(printf '%06d' "$(grep -c '' "$state/batches.list" 2> /dev/null || echo 0)")-$name
		cp "$batch" "$stored.tmp" && mv "$stored.tmp" "$stored"
	else
		stored=$batch
	fi
	printf '%s\n' "$stored" >> "$state/batches.list"
	if [ -d "$state/keys.idx" ]; then
		bandindex add "$state/keys.idx" "$tmp/keys.tsv"
	else
		bandindex build -o "$state/keys.idx" "$tmp/keys.tsv"
	fi
	grep -v '^#' "$tmp/sketches.tsv" | tail -n 1 | cut -f1 |
		awk -v from="$from" '{ from = $1 + 1 } END { print from }' > "$state/next"
	runs=$(bandindex stats "$state/keys.idx" | sed -n 's/^runs: *\([0-9]*\),.*/\1/p')
	if [ "$runs" -gt 8 ]; then
		bandindex merge "$state/keys.idx"
	fi
	docs=$(grep -vc '^#' "$tmp/sketches.tsv" || true)
	echo "$batch: $(grep -vc '^#' "$tmp/pairs.tsv") candidate pairs, $(grep -vc '^#' "$state/verified.tsv") verified so far, $runs run(s); kept $(grep -c '' "$state/kept/$name" || true) of $docs documents"
done
