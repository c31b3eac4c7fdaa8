#!/bin/sh
# Times every stage alone and the whole pipeline on real text: every file of
# the Go source tree plus the Debian copyright files when the machine has
# them (the corpus the peers in the speed issue were measured on), word
# 5-shingles, n = 128, threshold 0.8. For each run: wall and CPU seconds,
# MB/s and documents/s of corpus text, peak memory; with one worker (-j1,
# per-core speed) and with all cores. Each is run RUNS times (3) and the
# fastest run is shown: shared machines are noisy, and noise only adds.
#
#   make bench            # or: JOBS="1 2 4" RUNS=5 examples/bench.sh
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
[ -x "$BIN/shingle" ] || make -s build
JOBS=${JOBS:-"1 $(nproc)"}
RUNS=${RUNS:-3}
SRC=${SRC:-$(go env GOROOT)/src}
TMP=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && TMP=/dev/shm
tmp=$(mktemp -d "$TMP/neardup-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

find "$SRC" -type f | LC_ALL=C sort > "$tmp/files"
ls /usr/share/doc/*/copyright 2>/dev/null >> "$tmp/files" || true
docs=$(wc -l < "$tmp/files")
bytes=$(tr '\n' '\0' < "$tmp/files" | xargs -0 cat | wc -c)
echo "corpus: $docs documents, $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') ($SRC + /usr/share/doc/*/copyright)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo

DOCS="--documents $SRC --documents /usr/share/doc"

# run NAME CMD...: time a command RUNS times (stdout to /dev/null unless
# redirected inside CMD) and print one line for the fastest run.
run() {
	name=$1
	shift
	: > "$tmp/times"
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" sh -c "$*" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
		cat "$tmp/time" >> "$tmp/times"
		i=$((i + 1))
	done
	sort -n "$tmp/times" | head -1 | awk -v name="$name" -v bytes="$bytes" -v docs="$docs" '{
		wall = $1; cpu = $2 + $3; if (wall <= 0) wall = 0.001
		printf "%-28s %7.2f s wall %7.2f s cpu %8.1f MB/s %9.0f docs/s %7.0f MiB peak\n", name, wall, cpu, bytes / 1e6 / wall, docs / wall, $4 / 1024
	}'
}

B=$BIN
for j in $JOBS; do
	echo "-j$j"
	run "shingle" "$B/shingle -j$j --unit word -k 5 --files < $tmp/files > $tmp/shingles.tsv"
	run "sketch (minhash)" "$B/sketch -j$j $tmp/shingles.tsv > $tmp/sketches.tsv"
	run "sketch (oph)" "$B/sketch -j$j --method oph $tmp/shingles.tsv > /dev/null"
	run "band" "$B/band -j$j --threshold 0.8 $tmp/sketches.tsv > $tmp/keys.tsv"
	run "pairs" "$B/pairs $tmp/keys.tsv > $tmp/candidates.tsv"
	run "verify" "$B/verify -j$j --shingles $tmp/shingles.tsv $tmp/candidates.tsv > $tmp/verified.tsv"
	run "shingle | sketch" "$B/shingle -j$j --unit word -k 5 --files < $tmp/files | $B/sketch -j$j > /dev/null"
	run "pipeline, shingle file" "$B/shingle -j$j --unit word -k 5 --files < $tmp/files > $tmp/s.tsv &&
		$B/sketch -j$j $tmp/s.tsv | $B/band -j$j --threshold 0.8 | $B/pairs | $B/verify -j$j --shingles $tmp/s.tsv > $tmp/v.tsv"
	run "pipeline, one pipe" "$B/shingle -j$j --unit word -k 5 --files < $tmp/files | $B/sketch -j$j | $B/band -j$j --threshold 0.8 |
		$B/pairs | $B/verify -j$j --files $DOCS > $tmp/v2.tsv"
	echo
done
cmp -s "$tmp/v.tsv" "$tmp/v2.tsv" || { echo "the two pipelines differ" >&2; exit 1; }
echo "documents: $docs; candidate pairs: $(grep -vc '^#' "$tmp/candidates.tsv"); verified pairs (J >= 0.8): $(grep -vc '^#' "$tmp/verified.tsv")"
