#!/bin/sh
# Embedding dedup against brute force: N clustered vectors of DIM
# dimensions (internal/tools/vecbench: groups of 1 to 8 around random
# centres, cosines within a group from about 0.75 to 0.999), and for each
# target cosine C in COSINES the Hamming pipeline
#
#   sketch --method hyperplane --bits BITS --cosine C | band --hamming K | pairs | verify --cosine
#
# with K the radius sketch suggests for C, and for each C in BANDED the
# banded pipeline
#
#   sketch --method hyperplane --bits LBITS | band --cosine C | pairs | verify --cosine
#
# and for each distance R in DISTANCES the Euclidean pipeline
#
#   sketch --method pstable --width 4R -n 256 | band --distance R | pairs | verify --euclidean
#
# On the first NB vectors, its verified pairs against every pair at cosine
# >= C (or within R) by brute force (recall and precision); on all N, its CPU time,
# vectors a CPU-second and peak memory per vector, beside the brute-force
# scan's rate (measured on the NB, its time for N projected: N²/2 pairs).
#
#   examples/vectors-bench.sh                       # N=100000 NB=20000 DIM=256
#
# Cosine 0.8 is not in the default COSINES: its radius (21 of 64 bits)
# makes band --hamming build tables past 15 GB on 20,000 vectors; the
# banded pipeline's keys are b a vector whatever C is.
#   N=20000 NB=5000 COSINES="0.9" BANDED="0.8" examples/vectors-bench.sh
set -eu
cd "$(dirname "$0")/.."
make -s build
PATH=$PWD/bin:$PATH
N=${N:-100000}
NB=${NB:-20000}
DIM=${DIM:-256}
BITS=${BITS:-64}
COSINES=${COSINES:-0.95 0.9}
LBITS=${LBITS:-1024}
BANDED=${BANDED:-0.95 0.9 0.8}
DISTANCES=${DISTANCES:-2 4}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-vectors.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/vecbench" ./internal/tools/vecbench
"$tmp/vecbench" gen -n "$N" -dim "$DIM" -seed 1 > "$tmp/all.jsonl"
head -n "$NB" "$tmp/all.jsonl" > "$tmp/sub.jsonl"
echo "vectors: $N of $DIM dimensions ($(wc -c < "$tmp/all.jsonl" | awk '{ printf "%.0f MB", $1 / 1e6 }') of JSON Lines), $BITS-bit fingerprints for band --hamming, $LBITS for band --cosine; recall on the first $NB ($(nproc) cores)"

# pipeline FILE C BITS BAND-ARGS...: the verified pairs of FILE at cosine
# C, of BITS-bit fingerprints banded by band BAND-ARGS (with BITS "pstable",
# within distance C, of p-stable hashes of width 4C), timed into
# $tmp/time (wall, CPU, the largest peak of its stages).
pipeline() {
	file=$1 c=$2 bits=$3
	shift 3
	if [ "$bits" = pstable ]; then
		sk="sketch --method pstable --width $(awk -v r="$c" 'BEGIN { print 4 * r }') -n 256" how=--euclidean
	else
		sk="sketch --method hyperplane --bits $bits" how=--cosine
	fi
	: > "$tmp/stages"
	# shellcheck disable=SC2086 # the words of the stage
	/usr/bin/time -a -o "$tmp/stages" -f "%e %U %S %M" $sk "$file" > "$tmp/fp.tsv"
	/usr/bin/time -a -o "$tmp/stages" -f "%e %U %S %M" band "$@" "$tmp/fp.tsv" > "$tmp/keys.tsv" 2> /dev/null
	/usr/bin/time -a -o "$tmp/stages" -f "%e %U %S %M" pairs -o "$tmp/cand.tsv" "$tmp/keys.tsv" 2> /dev/null
	/usr/bin/time -a -o "$tmp/stages" -f "%e %U %S %M" verify "$how" --documents "$file" --threshold "$c" -o "$tmp/ver.tsv" "$tmp/cand.tsv"
	awk '{ w += $1; c += $2 + $3; if ($4 > m) m = $4 } END { print w, c, m }' "$tmp/stages" > "$tmp/time"
}

# measure LABEL C BITS BAND-ARGS...: the pipeline at cosine C on the
# subset against brute force, then on all N.
measure() {
	label=$1 c=$2 bits=$3
	shift 3
	pipeline "$tmp/sub.jsonl" "$c" "$bits" "$@"
	target="-threshold $c"
	[ "$bits" != pstable ] || target="-distance $c"
	# shellcheck disable=SC2086
	"$tmp/vecbench" brute $target "$tmp/sub.jsonl" 2> "$tmp/brute.err" | cut -f1,2 | LC_ALL=C sort > "$tmp/truth"
	grep -v '^#' "$tmp/ver.tsv" | cut -f1,2 | LC_ALL=C sort > "$tmp/got"
	cand=$(grep -vc '^#' "$tmp/cand.tsv" || true)
	truth=$(wc -l < "$tmp/truth")
	got=$(wc -l < "$tmp/got")
	both=$(LC_ALL=C comm -12 "$tmp/truth" "$tmp/got" | wc -l)
	rate=$(sed -n 's/.*: \([0-9.e+]*\) pairs a CPU-second/\1/p' "$tmp/brute.err")
	pipeline "$tmp/all.jsonl" "$c" "$bits" "$@"
	read -r wall cpu peak < "$tmp/time"
	awk -v label="$label" -v truth="$truth" -v got="$got" -v both="$both" -v cand="$cand" -v n="$N" -v wall="$wall" -v cpu="$cpu" -v peak="$peak" -v rate="$rate" 'BEGIN {
		printf "%s: on %s: %d candidates, %d verified, %d by brute force: recall %.4f, precision %.4f\n", label, "the subset", cand, got, truth, truth ? both / truth : 1, got ? both / got : 1
		printf "  all %d: %.1f s wall, %.1f s CPU, %.0f vectors a CPU-second, largest stage %.0f MiB (%.0f bytes a vector); brute force %.3g pairs a CPU-second: %.0f CPU-s for all\n", n, wall, cpu, (cpu > 0 ? n / cpu : 0), peak / 1024, peak * 1024 / n, rate, n * (n - 1) / 2 / rate
	}'
}
for c in $COSINES; do
	sketch --method hyperplane --bits "$BITS" --cosine "$c" "$tmp/sub.jsonl" 2> "$tmp/sk.err" > /dev/null
	k=$(sed -n 's/.*band --hamming \([0-9]*\).*/\1/p' "$tmp/sk.err")
	measure "cosine $c (band --hamming $k of $BITS bits)" "$c" "$BITS" --hamming "$k"
done
for c in $BANDED; do
	measure "cosine $c (band --cosine $c of $LBITS bits)" "$c" "$LBITS" --cosine "$c"
done
for r in $DISTANCES; do
	measure "distance $r (band --distance $r of 256 p-stable hashes of width $(awk -v r="$r" 'BEGIN { print 4 * r }'))" "$r" pstable --distance "$r"
done
