#!/bin/sh
# What copies cost: examples/dedup.sh on a synthetic corpus of N documents,
# and on the same corpus with a group of COPIES identical documents and a
# group of VARIANTS documents that differ from each other in one word mixed
# in; for each, wall and CPU time, the cost per document, the documents
# kept, and the ratio of the two costs per document. Copies must cost what
# they are, not their square (pairs --max-bucket): the ratio stays near 1.
#
#   examples/copies-bench.sh                    # N=1000000 COPIES=100000 VARIANTS=20000
#   N=100000 COPIES=10000 VARIANTS=2000 examples/copies-bench.sh
set -eu
cd "$(dirname "$0")/.."
make -s build
PATH=$PWD/bin:$PATH
N=${N:-1000000}
COPIES=${COPIES:-100000}
VARIANTS=${VARIANTS:-20000}
DIR=${DIR:-${TMPDIR:-/tmp}}
tmp=$(mktemp -d "$DIR/neardup-copies.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gencorpus" ./internal/tools/gencorpus

# Crawl-like lengths: 50 to 1,000 words (about 2 KB on average).
"$tmp/gencorpus" -n "$N" -seed 1 -min-words 50 -max-words 1000 -plant 0.3 > "$tmp/base.tsv"
# The copies are of the base's 10th document, the variants of its 20th, each
# with its k-th word replaced by a word of its own; both groups are spread
# evenly through the corpus, as a crawl meets them.
awk -F '\t' -v OFS='\t' -v copies="$COPIES" -v variants="$VARIANTS" '
	NR == 10 { copy = $2 }
	NR == 20 { variant = $2; exit }
	END {
		split(variant, w, " ")
		for (i = 0; i < copies; i++) print "copy-" i, copy
		for (i = 0; i < variants; i++) {
			k = 1 + i % length(w)
			line = ""
			for (j = 1; j <= length(w); j++) line = line (j > 1 ? " " : "") (j == k ? "variant" i : w[j])
			print "variant-" i, line
		}
	}' "$tmp/base.tsv" > "$tmp/extra.tsv"
# One extra document after every N/(COPIES+VARIANTS) of the base.
awk -v step="$(awk -v n="$N" -v e=$((COPIES + VARIANTS)) 'BEGIN { print n / e }')" -v f="$tmp/extra.tsv" '
	{ print; while (!done && (j + 1) * step <= NR) { if ((getline l < f) > 0) { print l; j++ } else done = 1 } }
	END { while ((getline l < f) > 0) print l }' "$tmp/base.tsv" > "$tmp/with.tsv"

run() { # run NAME FILE
	docs=$(wc -l < "$2")
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" sh examples/dedup.sh "$2" > "$tmp/kept" 2> "$tmp/stderr" ||
		{ cat "$tmp/stderr"; exit 1; }
	kept=$(wc -l < "$tmp/kept")
	awk -v name="$1" -v docs="$docs" -v kept="$kept" '{
		printf "%-30s %9d docs %8.1f s wall %8.1f s cpu %6.1f µs/doc (cpu) %9d kept\n", name, docs, $1, $2 + $3, 1e6 * ($2 + $3) / docs, kept
		print 1e6 * ($2 + $3) / docs > "'"$tmp"'/cost-" name
	}' "$tmp/time"
	grep '^pairs: ' "$tmp/stderr" || true
}
echo "corpus: $N documents; with $COPIES copies and $VARIANTS one-word variants mixed in ($(nproc) cores)"
run without "$tmp/base.tsv"
run with "$tmp/with.tsv"
awk 'NR == FNR { a = $1; next } { printf "cost per document, with/without: %.2f\n", $1 / a }' "$tmp/cost-without" "$tmp/cost-with"
