#!/bin/sh
# Incremental against recomputing, measured. A synthetic corpus is cut into
# old documents and a batch of new ones, ten times fewer (OLD, NEW); the old
# ones are indexed once (bandindex build, their shingle records kept). Then:
#
#   check       the batch alone: shingle, sketch, band; pairs --against the
#               index; verify those pairs with the shingles of old and new
#   recompute   everything from the start: shingle, sketch, band, pairs,
#               verify over old and new together
#
# and, after the check, folding the batch in (bandindex add, merge). The
# pairs of the old documents and the check's together are the recomputed
# ones (checked). Prints wall time and peak memory of each.
#
#   examples/incremental-bench.sh           # or: OLD=1000000 NEW=100000 examples/incremental-bench.sh
set -eu
cd "$(dirname "$0")/.."
[ -x bin/bandindex ] || make -s build
PATH=$PWD/bin:$PATH
OLD=${OLD:-200000}
NEW=${NEW:-20000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-incremental.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
tab=$(printf '\t')

go run ./internal/tools/gencorpus -n $((OLD + NEW)) -seed 1 -max-words 400 -plant 0.4 > "$tmp/corpus.tsv"
head -n "$OLD" "$tmp/corpus.tsv" > "$tmp/old.tsv"
tail -n +$((OLD + 1)) "$tmp/corpus.tsv" > "$tmp/new.tsv"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "corpus: $OLD old documents ($(($(wc -c < "$tmp/old.tsv") >> 20)) MiB), a batch of $NEW new ($(($(wc -c < "$tmp/new.tsv") >> 20)) MiB)"

# timed NAME CMD: run CMD under sh, print wall time and the peak resident
# memory of its largest process.
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" sh -c "$*" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
	awk -v name="$name" '{ printf "%-44s %7.2f s %6.0f MiB peak\n", name, $1, $2 / 1024 }' "$tmp/time"
}

B="-b 18 -r 6"
# The state the old documents leave: their index and sorted shingle records.
timed "index the old documents (once)" "
	shingle --unit word -k 5 $tmp/old.tsv | sort -t '$tab' -k1,1 -S 1G > $tmp/old-shingles.tsv &&
	sketch $tmp/old-shingles.tsv | band $B | tee $tmp/old-keys.tsv | bandindex build -o $tmp/keys.idx &&
	pairs $tmp/old-keys.tsv > $tmp/old-pairs.tsv"
echo

timed "check: shingle, sketch, band the batch" "
	shingle --unit word -k 5 $tmp/new.tsv | sort -t '$tab' -k1,1 -S 1G > $tmp/new-shingles.tsv &&
	sketch $tmp/new-shingles.tsv | band $B > $tmp/new-keys.tsv"
timed "check: pairs --against the index" "pairs --against $tmp/keys.idx $tmp/new-keys.tsv > $tmp/new-pairs.tsv"
timed "check: verify (shingles of old and new)" "
	sort -t '$tab' -k1,1 -m $tmp/old-shingles.tsv $tmp/new-shingles.tsv > $tmp/all-shingles.tsv &&
	verify --shingles $tmp/all-shingles.tsv $tmp/new-pairs.tsv > $tmp/new-verified.tsv"
timed "check: verify (documents of old and new)" "
	verify --documents $tmp/old.tsv --documents $tmp/new.tsv $tmp/new-pairs.tsv > $tmp/new-verified-docs.tsv"
timed "check, all of it" "
	shingle --unit word -k 5 $tmp/new.tsv | sort -t '$tab' -k1,1 -S 1G > $tmp/n.tsv &&
	sketch $tmp/n.tsv | band $B | pairs --against $tmp/keys.idx > $tmp/p.tsv &&
	sort -t '$tab' -k1,1 -m $tmp/old-shingles.tsv $tmp/n.tsv > $tmp/a.tsv &&
	verify --shingles $tmp/a.tsv $tmp/p.tsv > /dev/null"
timed "check to the candidate pairs" "
	shingle --unit word -k 5 $tmp/new.tsv | sketch | band $B | pairs --against $tmp/keys.idx > /dev/null"
echo
timed "recompute, all of it" "
	shingle --unit word -k 5 -o $tmp/r-shingles.tsv $tmp/corpus.tsv &&
	sketch $tmp/r-shingles.tsv | band $B | pairs > $tmp/r-pairs.tsv &&
	verify --shingles $tmp/r-shingles.tsv $tmp/r-pairs.tsv > $tmp/r-verified.tsv"
timed "recompute to the candidate pairs" "
	shingle --unit word -k 5 $tmp/corpus.tsv | sketch | band $B | pairs > /dev/null"
echo
timed "fold in: bandindex add" "bandindex add $tmp/keys.idx $tmp/new-keys.tsv"
timed "fold in: bandindex merge" "bandindex merge $tmp/keys.idx"

# The old pairs and the batch's are the pairs of everything.
grep -hv '^#' "$tmp/old-pairs.tsv" "$tmp/new-pairs.tsv" | sort -u -S 1G > "$tmp/union"
grep -v '^#' "$tmp/r-pairs.tsv" | sort -S 1G > "$tmp/all"
cmp -s "$tmp/union" "$tmp/all" && same=yes || same=no
echo
echo "candidate pairs: $(grep -vc '^#' "$tmp/old-pairs.tsv") among the old, $(grep -vc '^#' "$tmp/new-pairs.tsv") of the batch, $(wc -l < "$tmp/all") recomputed; old and batch together are the recomputed: $same"
cmp -s "$tmp/new-verified.tsv" "$tmp/new-verified-docs.tsv" && docs=yes || docs=no
echo "state kept for the old documents: their shingle records $(($(wc -c < "$tmp/old-shingles.tsv") >> 20)) MiB, their text $(($(wc -c < "$tmp/old.tsv") >> 20)) MiB (incremental.sh keeps the batches as given); verify from the documents gives the same pairs: $docs"
echo "verified pairs of the batch: $(grep -vc '^#' "$tmp/new-verified.tsv") (recomputed, all: $(grep -vc '^#' "$tmp/r-verified.tsv"))"
bandindex stats "$tmp/keys.idx" | grep -E '^(runs|memory):'
[ "$same" = yes ] && [ "$docs" = yes ]
