#!/bin/sh
# How SimHash near-duplicates relate to Jaccard near-duplicates on real
# documents (every file of a source tree one document), so that you can
# choose between the methods: the pairs whose SimHash fingerprints differ in
# at most k bits, against the pairs whose word 5-shingle sets have Jaccard
# similarity at least 0.8; precision and recall of the first against the
# second, for k = 1..6. Fingerprints of three kinds: words with counts
# weighed tf and idf (the usual input), and word 5-shingles with counts
# weighed tf (the features the Jaccard pairs are made of).
#
#   make build && examples/simhash-vs-jaccard.sh
#   SRC=/some/tree THRESHOLD=0.9 KS="2 3" examples/simhash-vs-jaccard.sh
#
# The Jaccard pairs come from MinHash candidates banded for threshold 0.5
# (the banding is printed; a pair at 0.8 is missed with probability
# (1-0.8^r)^b, below 1e-9), each verified exactly. The SimHash pairs are exact: every table scheme
# finds every pair within k bits.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
SRC=${SRC:-$(go env GOROOT)/src}
THRESHOLD=${THRESHOLD:-0.8}
KS=${KS:-1 2 3 4 5 6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

records() { grep -v '^#neardup' "$1" || true; }

"$BIN/shingle" --unit word -k 5 --counts --files --skip-bad "$SRC" > "$tmp/s5.tsv" 2> /dev/null
"$BIN/sketch" -n 256 "$tmp/s5.tsv" |
	"$BIN/band" --threshold 0.5 -v 2> "$tmp/band.txt" |
	"$BIN/pairs" |
	"$BIN/verify" --shingles "$tmp/s5.tsv" --threshold "$THRESHOLD" > "$tmp/jaccard.tsv"
records "$tmp/jaccard.tsv" | cut -f1,2 | sort > "$tmp/jaccard.txt"
jaccard=$(wc -l < "$tmp/jaccard.txt")

"$BIN/shingle" --unit word -k 1 --counts --files --skip-bad "$SRC" > "$tmp/s1.tsv" 2> /dev/null
"$BIN/docfreq" "$tmp/s1.tsv" > "$tmp/df.tsv"
docs=$(records "$tmp/s1.tsv" | wc -l)

echo "corpus: $SRC, $docs documents"
echo "Jaccard pairs: $jaccard pairs of word 5-shingle sets with Jaccard >= $THRESHOLD"
sed -n 's/^band: /MinHash candidates: /p' "$tmp/band.txt" | head -1
echo
printf '%-16s %2s %14s %10s %10s %8s\n' fingerprints k simhash-pairs both precision recall
for kind in words-tf words-idf 5shingles-tf; do
	case $kind in
	words-tf) "$BIN/sketch" --method simhash "$tmp/s1.tsv" > "$tmp/fp.tsv" ;;
	words-idf) "$BIN/sketch" --method simhash --weight idf --df "$tmp/df.tsv" "$tmp/s1.tsv" > "$tmp/fp.tsv" ;;
	5shingles-tf) "$BIN/sketch" --method simhash "$tmp/s5.tsv" > "$tmp/fp.tsv" ;;
	esac
	for k in $KS; do
		"$BIN/band" --hamming "$k" "$tmp/fp.tsv" 2> /dev/null | "$BIN/pairs" > "$tmp/sim.tsv"
		records "$tmp/sim.tsv" | sort > "$tmp/sim.txt"
		sim=$(wc -l < "$tmp/sim.txt")
		both=$(comm -12 "$tmp/sim.txt" "$tmp/jaccard.txt" | wc -l)
		awk -v w="$kind" -v k="$k" -v s="$sim" -v b="$both" -v j="$jaccard" 'BEGIN {
			printf "%-16s %2d %14d %10d %10.3f %8.3f\n", w, k, s, b, (s ? b / s : 0), (j ? b / j : 0) }'
	done
done
