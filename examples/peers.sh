#!/bin/sh
# neardup against a Go peer on the same corpus, in one run, on one core:
# the peer (peers/cmd/peer-minhash-lsh: dgryski/go-minhash and
# ekzhu/minhash-lsh, 128 values, an LSH index at Jaccard 0.8) to its
# candidate pairs, unverified, and neardup's fused pipeline to verified
# pairs,
#
#   shingle --unit word -k 5 --sketch minhash --band 0.8 --pairs --offsets F |
#       verify --documents --offsets F
#
# both on word 5-shingles of the same words (the peer uses neardup's
# tokenizer and hashes the shingles with its own MinHash), and the same
# pipeline with OPH signatures (--sketch oph, examples/dedup.sh's). Each
# is timed ROUNDS times (3), in turn so that all see the machine in the
# same state, and the fastest of each is shown (noise only adds), with the
# ratio of the peer's wall time to neardup's. Then the pairs: the peer's
# candidates against neardup's verified pairs (recall and precision against
# neardup's set: verify's similarities are exact, but a pair neardup's
# LSH misses is in neither), and, to count those too, the peer's candidates
# verified exactly by verify: the pairs at Jaccard >= 0.8 that either
# finds, and the share of them each one finds.
#
#   make peers                        # examples/corpus-multilingual.sh N, N=4000 a language
#   N=300 ROUNDS=1 examples/peers.sh
#   examples/peers.sh speed           # make speed's corpus (N=20000, with the module cache)
#   examples/peers.sh corpus.tsv      # a TSV corpus of your own, id TAB text
#
# The ids are the corpus's own (no --number-from), so that the two sides'
# pairs compare as they are. The peer's versions are those of peers/go.mod;
# its output header and -h state them. Run it on a quiet machine.
set -eu
corpus=${1:-}
case $corpus in '' | speed | /*) ;; *) corpus=$PWD/$corpus ;; esac
cd "$(dirname "$0")/.."
make -s build
ROUNDS=${ROUNDS:-3}
TMP=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && TMP=/dev/shm
tmp=$(mktemp -d "$TMP/neardup-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd peers && go build -o "$tmp/peer-minhash-lsh" ./cmd/peer-minhash-lsh)

case $corpus in
'')
	C=$tmp/corpus.tsv
	sh examples/corpus-multilingual.sh "${N:-4000}" > "$C" 2> "$tmp/corpus.err"
	what="examples/corpus-multilingual.sh ${N:-4000}"
	;;
speed)
	C=$tmp/corpus.tsv
	LANGS="en de fr ru ja zh go mod" sh examples/corpus-multilingual.sh "${N:-20000}" > "$C" 2> "$tmp/corpus.err"
	what="make speed's, examples/corpus-multilingual.sh ${N:-20000} with the module cache"
	;;
*)
	C=$corpus
	[ -r "$C" ] || { echo "$0: $1: no such file" >&2; exit 2; }
	what=$1
	;;
esac
[ -s "$tmp/corpus.err" ] && what="$what: $(sed 's/^corpus-multilingual: //; s/ documents.*//' "$tmp/corpus.err" | paste -sd, | sed 's/,/, /g')"
echo "corpus: $(wc -l < "$C") documents, $(awk -v b="$(wc -c < "$C")" 'BEGIN { printf "%.1f MB", b / 1e6 }') of TSV ($what)"

one="not pinned: no taskset"
pin=
if command -v taskset > /dev/null; then
	cpu=$(($(nproc) > 1 ? 1 : 0))
	pin="taskset -c $cpu"
	one=$pin
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); one core ($one), neardup -j 1"

# The commands read the corpus and write their pairs through the
# environment, so that no path is split or quoted.
export C B=bin P="$tmp/peer-minhash-lsh" OUT="$tmp"
peer='"$P" -k 5 -n 128 -threshold 0.8 -o "$OUT/peer.tsv" "$C"'
# shingle pairs its band records itself (--pairs: shingle | pairs in one
# process); --offsets writes where each document's line is, and verify
# reads only those of the documents in some pair from there.
neardup='"$B/shingle" -j 1 --unit word -k 5 --sketch minhash --band 0.8 --pairs --offsets "$OUT/off.tsv" "$C" | "$B/verify" -j 1 --documents "$C" --offsets "$OUT/off.tsv" -o "$OUT/neardup.tsv"'
oph='"$B/shingle" -j 1 --unit word -k 5 --sketch oph --band 0.8 --pairs --offsets "$OUT/off.tsv" "$C" | "$B/verify" -j 1 --documents "$C" --offsets "$OUT/off.tsv" -o "$OUT/oph.tsv"'

# run NAME CMD: time CMD on one core, adding "wall cpu maxrss" to NAME.times.
run() {
	# shellcheck disable=SC2086 # $pin is words
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" $pin sh -c "$2" 2> "$tmp/$1.err" || {
		echo "$0: $1 failed:" >&2
		cat "$tmp/$1.err" >&2
		exit 1
	}
	cat "$tmp/time" >> "$tmp/$1.times"
}
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	run peer "$peer"
	run neardup "$neardup"
	run oph "$oph"
	i=$((i + 1))
done
best() { sort -n "$tmp/$1.times" | head -1; }
versions=$(head -1 "$tmp/peer.tsv" | tr ' ' '\n' | grep '@' | sed 's|^github.com/||' | paste -sd' ')
lsh=$(head -1 "$tmp/peer.tsv" | sed 's/.* bands=\([0-9]*\) rows=\([0-9]*\).*/\1 bands of \2 values/')
echo "the fastest of $ROUNDS rounds, the three in turn:"
{
	echo "peer $(best peer) $versions: 128 values, LSH at 0.8 ($lsh), to candidate pairs"
	echo "neardup $(best neardup) shingle --sketch minhash --band 0.8 --pairs --offsets | verify --offsets, to verified pairs"
	echo "oph $(best oph) the same with --sketch oph (dedup.sh's signatures), $(grep -vc '^#' "$tmp/oph.tsv") verified pairs"
} | awk '{
	wall[NR] = $2; cpu = $3 + $4; rss = $5; name = $1; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, "")
	printf "  %-8s %7.2f s wall %7.2f s cpu %6.0f MiB  %s\n", name, wall[NR], cpu, rss / 1024, $0
} END { for (i = 2; i <= 3; i++) if (wall[i] <= 0) wall[i] = 0.01; printf "  peer / neardup: %.1f× (MinHash), %.1f× (OPH)\n", wall[1] / wall[2], wall[1] / wall[3] }'

# The pairs, sorted bytewise (as comm wants them): the peer's candidates,
# neardup's verified pairs, and the peer's candidates that verify finds at
# 0.8 or more (under the headers of neardup's pairs, which say how the
# documents are shingled).
export LC_ALL=C
grep -v '^#' "$tmp/peer.tsv" | sort > "$tmp/p"
grep -v '^#' "$tmp/neardup.tsv" | cut -f1,2 | sort > "$tmp/vn"
{
	grep '^#neardup ' "$tmp/neardup.tsv" | grep -v '^#neardup stage=verify '
	cat "$tmp/p"
} > "$tmp/peer-pairs.tsv"
bin/verify --documents "$C" -o "$tmp/peer-verified.tsv" "$tmp/peer-pairs.tsv" 2> "$tmp/verify.err" || {
	echo "$0: verify of the peer's candidates failed:" >&2
	cat "$tmp/verify.err" >&2
	exit 1
}
grep -v '^#' "$tmp/peer-verified.tsv" | cut -f1,2 | sort > "$tmp/vp"
sort -u "$tmp/vn" "$tmp/vp" > "$tmp/either"
p=$(wc -l < "$tmp/p")
vn=$(wc -l < "$tmp/vn")
vp=$(wc -l < "$tmp/vp")
either=$(wc -l < "$tmp/either")
both=$(comm -12 "$tmp/p" "$tmp/vn" | wc -l)
awk -v p="$p" -v vn="$vn" -v vp="$vp" -v either="$either" -v both="$both" '
function share(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
BEGIN {
	printf "pairs: the peer %d candidates, neardup %d verified at Jaccard >= 0.8\n", p, vn
	printf "  the peer against neardup'"'"'s verified pairs: recall %s, precision %s (%d in both)\n", share(both, vn), share(both, p), both
	printf "  the pairs at Jaccard >= 0.8 that either finds: %d; the peer finds %s of them (precision %s: %d of its candidates are), neardup %s\n", either, share(vp, either), share(vp, p), vp, share(vn, either)
}'
