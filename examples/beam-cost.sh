#!/bin/sh
# The cost of neardup-beam's dedup job per document, measured on Prism in
# this process at a few corpus sizes, for the cost model of docs/beam.md:
# for each size, the bytes each grouping shuffles (what goes into it), the
# records and bytes each stage emits, the largest bucket of band keys and
# the largest cluster, and the run's wall and CPU time and peak memory.
#
#   examples/beam-cost.sh      # SIZES="10000 20000 40000" DIR=tmp dir
#
# The corpora are make scale's synthetic crawls (internal/tools/gencorpus
# -seed 1 -format jsonl -lengths crawl -min-words 20 -max-words 20000
# -plant 0.3: 30% of the documents planted copies of earlier ones). The
# job is neardup-beam -number-from 0 -write bands,pairs,clusters,kept,report
# with its defaults (MinHash, 128 values, threshold 0.8) and -metrics, whose
# byte counts are the runner's: each collection's element count times the
# mean encoded size of a sample of its elements. Writing the bands costs a
# grouping of its own, not in the table: they are written for the
# candidates before Distinct and the largest bucket.
set -eu
cd "$(dirname "$0")/.."
BIN=$(cd "${BIN:-bin}" && pwd)
SIZES=${SIZES:-"10000 20000 40000"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
DIR=${DIR:-$tmp}
[ -x "$BIN/neardup-beam" ] || { echo "beam-cost: no $BIN/neardup-beam: run make beam" >&2; exit 1; }
go build -o "$tmp/gencorpus" ./internal/tools/gencorpus

printf 'documents\ttext bytes\twall s\tCPU s\tpeak MB\n' > "$tmp/runs"
for n in $SIZES; do
	corpus=$DIR/beam-cost-$n.jsonl
	[ -s "$corpus" ] || "$tmp/gencorpus" -n "$n" -seed 1 -format jsonl -lengths crawl -min-words 20 -max-words 20000 -plant 0.3 -o "$corpus"
	rm -rf "$tmp/out"
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$BIN/neardup-beam" -number-from 0 -metrics "$tmp/metrics-$n.tsv" \
		-write bands,pairs,clusters,kept,report -output "$tmp/out/run" "$corpus" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	set -- $(cat "$tmp/time")
	printf '%d\t%d\t%s\t%s\t%d\n' "$n" "$(wc -c < "$corpus")" "$1" "$(echo "$2 $3" | awk '{ print $1 + $2 }')" $(($4 / 1024)) >> "$tmp/runs"
	# What each output holds (records, bytes; header lines left out), the
	# candidate pairs before they are made distinct (the pairs of each
	# bucket of band keys), the largest bucket and the largest cluster.
	for o in bands pairs clusters kept report; do
		grep -hv '^#neardup ' "$tmp"/out/run-$o-* | wc -lc | awk -v o="$o" '{ print o "\t" $1 "\t" $2 }'
	done > "$tmp/outputs-$n.tsv"
	grep -hv '^#' "$tmp"/out/run-bands-* | cut -f1 | LC_ALL=C sort | uniq -c |
		awk '{ p += $1 * ($1 - 1) / 2; if ($1 > m) m = $1 } END { print "raw candidates\t" p; print "largest bucket\t" m }' >> "$tmp/outputs-$n.tsv"
	grep -hv '^#' "$tmp"/out/run-clusters-* | cut -f1 | uniq -c |
		awk '{ if ($1 > m) m = $1 } END { print "largest cluster\t" m + 0 }' >> "$tmp/outputs-$n.tsv"
done
cat "$tmp/runs"
echo

# A row of the table from the metrics: NAME, sum or max, and an awk
# condition on the collection's name $1; per document, elements and bytes.
# A grouping's figure is the sum of its inputs (the collections named
# _inject); another collection's is the largest of those that match (one can
# show under a name of the runner's, .nNN, as well).
echo "per document:"
printf '%-34s' ""; for n in $SIZES; do printf '%22s' "$n docs"; done; echo
row() { # NAME sum|max AWK-CONDITION
	printf '%-34s' "$1"
	for n in $SIZES; do
		awk -F'\t' -v n="$n" -v how="$2" "$3"' { if (how == "sum") { e += $2; b += $3 } else if ($2 > e) { e = $2; b = $3 } }
			END { printf "%10.2f rec %7.0f B", e / n, b / n }' "$tmp/metrics-$n.tsv"
	done
	echo
}
# A row from the outputs written: NAME, the output, bytes a record (0: the
# bytes written).
out() { # NAME OUTPUT BYTES-A-RECORD
	printf '%-34s' "$1"
	for n in $SIZES; do
		awk -F'\t' -v n="$n" -v o="$2" -v r="$3" '$1 == o { printf "%10.2f rec %7.0f B", $2 / n, (r > 0 ? $2 * r : $3) / n }' "$tmp/outputs-$n.tsv"
	done
	echo
}
echo "shuffled (the inputs of each grouping):"
row "  band keys, GroupByKey" max '$1 ~ /^band[.\/]/'
out "  candidates, Distinct (28 B)" "raw candidates" 28
row "  verify: pair x first document" sum '$1 ~ /^verify\/CoGBK\/.*_inject/'
row "  verify: x second document" sum '$1 ~ /^verify\/CoGBK.1\/.*_inject/'
row "  components (all rounds)" sum '$1 ~ /^components\/.*_inject/'
row "  dedup: documents x rule" sum '$1 ~ /^dedup(\/CoGBK| rule\/).*_inject/'
row "  writing pairs, clusters" sum '$1 ~ /^write (pairs|clusters)\/.*_inject/'
row "  writing kept, report" sum '$1 ~ /^dedup\/write .*_inject/'
echo "emitted:"
row "  documents (id, text)" max '$1 ~ /^verify\/CoGBK\/.*_inject1/'
row "  shingle records (not written)" max '$1 ~ /^pipeline.splitLines.i0/'
out "  band keys" bands 0
row "  candidate pairs, distinct" max '$1 ~ /^verify\/CoGBK\/.*_inject0/'
out "  verified pairs" pairs 0
out "  clusters (id, member)" clusters 0
out "  kept documents" kept 0
out "  report" report 0
echo "largest per-key state:"
for what in "largest bucket" "largest cluster"; do
	printf '  %-32s' "$what (ids)"
	for n in $SIZES; do printf '%22s' "$(awk -F'\t' -v w="$what" '$1 == w { print $2 }' "$tmp/outputs-$n.tsv")"; done
	echo
done
printf '  %-32s' "largest grouped element (bytes)"
for n in $SIZES; do
	printf '%22s' "$(awk -F'\t' '$1 ~ /(_gbk|^pairs\/CoGBK)[.]i0$/ && $1 !~ /write / && $4 > m { m = $4 } END { print m + 0 }' "$tmp/metrics-$n.tsv")"
done
echo
