#!/bin/sh
# Memory on degenerate input, measured against what the man pages state
# (issue 16). Each case runs one stage once under /usr/bin/time and prints
# its peak resident memory beside the bound its man page states for that
# input, and the ratio; a case more than MAX_RATIO (1.3) times its bound is
# marked OVER and the script exits 1. Run it on a quiet machine: memory, not time, is
# measured, but other processes squeezing the page cache change nothing
# while swapping would.
#
#   make degenerate-bench
#   N=1000000 SHARED=3000 QUERIES=1000 BUCKET=3000 HUGE_MB=50 JOBS=2 examples/degenerate-bench.sh
#
# The inputs:
#   one-word   N documents of one word each (5,000 distinct words): the
#              shingle records are tiny and the sketches a hundred times
#              their size (shingle, sketch, docfreq, cluster; spans
#              --tokens 1: every word a repeated window)
#   one hash   the same N documents, counted by docfreq --memory 16M:
#              every hash in thousands of documents
#   huge doc   one document of HUGE_MB MB of words (shingle, spans)
#   bucket     one band key shared by BUCKET ids, four times (pairs --sorted)
#   shared fp  SHARED documents with one SimHash fingerprint, and QUERIES
#              queries that find them all (index query)
#
# BIN is where the stages are (bin, built if need be; empty: the PATH);
# MAX_RATIO (1.3) is the ratio past which a case is OVER.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN-bin}
if [ -n "$BIN" ]; then
	[ -x "$BIN/shingle" ] || make -s build
	PATH=$PWD/$BIN:$PATH
fi
MAX_RATIO=${MAX_RATIO:-1.3}
N=${N:-1000000}
SHARED=${SHARED:-3000}
QUERIES=${QUERIES:-1000}
BUCKET=${BUCKET:-3000}
HUGE_MB=${HUGE_MB:-50}
JOBS=${JOBS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-degenerate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
echo "machine: $(nproc) cores; -j $JOBS; N=$N SHARED=$SHARED QUERIES=$QUERIES BUCKET=$BUCKET HUGE_MB=$HUGE_MB"
printf '%-34s %10s %10s %6s\n' case "peak MiB" "bound MiB" ratio
over=0

# measure NAME BOUND_MIB CMD: run CMD under sh (its output is the command's
# business) and print the peak resident memory of its largest process
# against BOUND_MIB.
measure() {
	name=$1
	bound=$2
	shift 2
	/usr/bin/time -f '%M' -o "$tmp/time" sh -c "$*" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
	peak=$(awk '{ printf "%.1f", $1 / 1024 }' "$tmp/time")
	verdict=$(awk -v p="$peak" -v b="$bound" -v m="$MAX_RATIO" 'BEGIN { r = p / b; printf "%6.2f%s", r, (r > m ? "  OVER" : "") }')
	printf '%-34s %10s %10s %s\n' "$name" "$peak" "$bound" "$verdict"
	case $verdict in *OVER) over=1 ;; esac
}

# mib EXPR: an awk expression, in MiB, rounded up.
mib() { awk "BEGIN { x = $1; printf \"%d\", (x == int(x)) ? x : int(x) + 1 }"; }

awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "d%09d\tword%d\n", i, i % 5000 }' > "$tmp/oneword.tsv"
awk -v mb="$HUGE_MB" 'BEGIN { srand(1); printf "huge\t"; n = mb * 1000000 / 8; for (i = 0; i < n; i++) printf "w%05d ", int(rand() * 50000); print "" }' > "$tmp/huge.tsv"

# shingle: a document at a time per worker and its shingles (16 bytes each
# with sorting), chunks in flight passed on at 1 MiB: stated 26 MiB with
# -j2 on one-word documents, and for one document of H MB its line (twice,
# while it is read), its shingles and its record (17 bytes a shingle).
measure "shingle, one-word documents" "$(mib "16 + 5 * $JOBS")" "shingle -j $JOBS $tmp/oneword.tsv > $tmp/oneword.sh"
measure "shingle, one huge document" "$(mib "20 + 5 * $JOBS + $HUGE_MB * (2 + 16 / 8 + 17 / 8)")" "shingle -j $JOBS --unit word -k 5 $tmp/huge.tsv > /dev/null"
# sketch: a record at a time per worker, output passed on at 1 MiB: 32 MiB
# with -j2 on one-word documents.
measure "sketch, one-word documents" "$(mib "22 + 5 * $JOBS")" "sketch -j $JOBS $tmp/oneword.sh > $tmp/oneword.sk"
measure "sketch simhash, one-word documents" "$(mib "22 + 5 * $JOBS")" "sketch -j $JOBS --method simhash $tmp/oneword.sh > /dev/null"
# docfreq: --memory plus 10 MiB plus 10 MiB per job.
measure "docfreq --memory 16M, one hash" "$(mib "16 + 10 + 10 * $JOBS")" "docfreq -j $JOBS --memory 16M $tmp/oneword.sh > /dev/null"
measure "docfreq --memory 64M, one hash" "$(mib "64 + 10 + 10 * $JOBS")" "docfreq -j $JOBS --memory 64M $tmp/oneword.sh > /dev/null"
# cluster leader and greedy: the peak their --stats line states.
for m in leader greedy; do
	cluster -j "$JOBS" --method $m --threshold 0.9 --stats "$tmp/oneword.sk" 2> "$tmp/stats" > /dev/null
	stated=$(sed -n 's/.*peak resident memory about \([0-9]*\) MiB.*/\1/p' "$tmp/stats")
	measure "cluster --method $m, one-word" "$stated" "cluster -j $JOBS --method $m --threshold 0.9 $tmp/oneword.sk > /dev/null"
done

# pairs --sorted: the largest bucket (an id and about 40 bytes), --memory
# and about 20 MiB.
{
	echo "#neardup stage=band scheme=minhash b=40 r=3 key=xxh64 threshold=0.5"
	awk -v m="$BUCKET" 'BEGIN { for (b = 0; b < 4; b++) for (i = 0; i < m; i++) printf "%04d0000000000000000\td%09d\n", b, i * 7 + b }'
} > "$tmp/bucket.tsv"
for mem in 8 32 128; do
	measure "pairs --sorted --memory ${mem}M, bucket" "$(mib "$mem + 20 + $BUCKET * 50 / 1048576")" "pairs --sorted --max-bucket 0 --memory ${mem}M $tmp/bucket.tsv > /dev/null"
done

# spans: its sort buffer (--memory), and besides it, as its man page says,
# for one huge document its line (read, and held while the workers key it)
# and the workers' output in pieces of 1 MiB; for one-word documents
# (--tokens 1: a window each, every one repeated) the ids of the documents
# (8 bytes and the id each, twice that while the table grows).
measure "spans --memory 64M, one huge document" "$(mib "64 + 30 + 3 * $HUGE_MB")" "spans -j $JOBS --memory 64M --temp-dir $tmp $tmp/huge.tsv > /dev/null"
measure "spans --tokens 1 --memory 64M, one-word" "$(mib "64 + 40 + 2 * $N * 18 / 1048576")" "spans -j $JOBS --tokens 1 --memory 64M --temp-dir $tmp $tmp/oneword.tsv > /dev/null"

# index query: answers leave at 1 MiB per job; one query's answers (about
# 40 bytes and the id each) are held while they are sorted; the index is
# mapped (its size counts when resident).
awk -v n="$SHARED" 'BEGIN { for (i = 0; i < n; i++) printf "s%09d\tthe very same page of text again\n", i }' > "$tmp/shared.tsv"
awk -v n="$QUERIES" 'BEGIN { for (i = 0; i < n; i++) printf "q%09d\tthe very same page of text again\n", i }' > "$tmp/queries.tsv"
shingle --unit word -k 1 --counts "$tmp/shared.tsv" | sketch --method simhash > "$tmp/shared.fp"
shingle --unit word -k 1 --counts "$tmp/queries.tsv" | sketch --method simhash > "$tmp/queries.fp"
index build -k 3 -o "$tmp/shared.idx" "$tmp/shared.fp"
size=$(wc -c < "$tmp/shared.idx")
measure "index query, one shared fingerprint" "$(mib "20 + 3 * $JOBS + $size / 1048576 + $SHARED * 60 / 1048576")" "index query -j $JOBS $tmp/shared.idx $tmp/queries.fp > /dev/null"
measure "index query | head -1" "$(mib "20 + 3 * $JOBS + $size / 1048576 + $SHARED * 60 / 1048576")" "index query -j $JOBS $tmp/shared.idx $tmp/queries.fp | head -1 > /dev/null"
exit $over
