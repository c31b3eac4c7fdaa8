#!/bin/sh
# Speed on real text, against the floor of reading it once. The corpus is
# real documents in many languages (examples/corpus-multilingual.sh: man
# pages in English, German, French, Russian, Japanese and Chinese, Debian
# READMEs, Chinese fortunes, Go source, and the Go module cache's modules in
# several versions), as one TSV file. For each run: wall and CPU seconds,
# MB/s of text, MB/s per CPU-second, peak memory, and the wall time as a
# multiple of md5sum's on the same file; each run RUNS times (3), the
# fastest shown (noise only adds). Then each stage alone on one core, with
# its share of the pipeline's CPU time. Then containment against Jaccard
# from the same shingle file (band --containment 0.9, which counts the
# document frequencies itself, pairs, verify --containment; sketch, band,
# pairs, verify), both cores, and the ratio of their times.
#
#   make speed                      # N=20000 documents a language at most
#   N=2000 RUNS=1 SHINGLE="--unit char -k 5" examples/speed.sh
set -eu
cd "$(dirname "$0")/.."
make -s build
B=${BIN:-bin}
case $B in /*) binpath=$B ;; *) binpath=$PWD/$B ;; esac
RUNS=${RUNS:-3}
N=${N:-20000}
SHINGLE=${SHINGLE:-"--unit word -k 5"}
TMP=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && TMP=/dev/shm
tmp=$(mktemp -d "$TMP/neardup-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
one=
command -v taskset > /dev/null && one="taskset -c 0"

LANGS="en de fr ru ja zh go mod" sh examples/corpus-multilingual.sh "$N" > "$tmp/corpus.tsv" 2> "$tmp/corpus.err"
bytes=$(wc -c < "$tmp/corpus.tsv")
docs=$(wc -l < "$tmp/corpus.tsv")
echo "corpus: $docs documents, $(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') of TSV ($(sed 's/^corpus-multilingual: //; s/ documents.*//' "$tmp/corpus.err" | paste -sd, | sed 's/,/, /g'))"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); shingles: $SHINGLE"
echo

floor=
# run NAME CMD: time CMD RUNS times and print the fastest run.
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
	sort -n "$tmp/times" | head -1 > "$tmp/best"
	[ -n "$floor" ] || floor=$(cut -d' ' -f1 "$tmp/best")
	awk -v name="$name" -v bytes="$bytes" -v floor="$floor" '{
		wall = $1; cpu = $2 + $3; if (wall <= 0) wall = 0.001; if (cpu <= 0) cpu = 0.001
		printf "%-40s %6.2f s wall %6.2f s cpu %6.0f MB/s %6.0f MB/cpu-s %5.0f MiB %5.1f× md5sum\n", name, wall, cpu, bytes / 1e6 / wall, bytes / 1e6 / cpu, $4 / 1024, wall / floor
		sub(/^ +/, "", name); printf "%s\t%.3f\n", name, cpu > "'"$tmp/last"'"
	}' "$tmp/best"
}

C=$tmp/corpus.tsv
run "md5sum (the floor: one read)" "md5sum $C > /dev/null"
echo "both cores"
run "  shingle --sketch minhash" "$B/shingle $SHINGLE --sketch minhash $C > /dev/null"
run "  shingle | sketch" "$B/shingle $SHINGLE $C | $B/sketch > /dev/null"
run "  to verified pairs, no shingle file" "$B/shingle $SHINGLE --sketch minhash $C | $B/band --threshold 0.8 | $B/pairs | $B/verify --documents $C > $tmp/v1.tsv"
run "  to verified pairs, shingle file" "$B/shingle $SHINGLE -o $tmp/s.tsv $C && $B/sketch $tmp/s.tsv | $B/band --threshold 0.8 | $B/pairs | $B/verify --shingles $tmp/s.tsv > $tmp/v2.tsv"
run "  to verified pairs, shingle --band" "$B/shingle $SHINGLE --sketch minhash --band 0.8 $C | $B/pairs | $B/verify --documents $C > $tmp/v3.tsv"
run "  the same with OPH (dedup.sh's)" "$B/shingle $SHINGLE --sketch oph --band 0.8 $C | $B/pairs | $B/verify --documents $C > $tmp/v4.tsv"
run "  and verify reading by --offsets" "$B/shingle $SHINGLE --sketch oph --band 0.8 --offsets $tmp/off.tsv $C | $B/pairs | $B/verify --documents $C --offsets $tmp/off.tsv > $tmp/v5.tsv"
run "  and pairs in shingle (--pairs)" "$B/shingle $SHINGLE --sketch oph --band 0.8 --pairs --offsets $tmp/off.tsv $C | $B/verify --documents $C --offsets $tmp/off.tsv > $tmp/v6.tsv"
run "  the default dedup job (dedup.sh -r)" "PATH=$binpath:\$PATH sh examples/dedup.sh -T $tmp -r $tmp/report.tsv $C > /dev/null"
cmp -s "$tmp/v1.tsv" "$tmp/v2.tsv" || { echo "the two pipelines' verified pairs differ" >&2; exit 1; }
cmp -s "$tmp/v1.tsv" "$tmp/v3.tsv" || { echo "shingle --band's verified pairs differ from band's" >&2; exit 1; }
cmp -s "$tmp/v4.tsv" "$tmp/v5.tsv" || { echo "verify --offsets's verified pairs differ from verify's" >&2; exit 1; }
cmp -s "$tmp/v4.tsv" "$tmp/v6.tsv" || { echo "shingle --pairs's verified pairs differ from pairs'" >&2; exit 1; }
echo "  verified pairs: $(grep -vc '^#' "$tmp/v1.tsv") from MinHash signatures, $(grep -vc '^#' "$tmp/v4.tsv") from OPH ones"
echo "one core (${one:-not pinned: no taskset}, -j1)"
run "  shingle --sketch minhash" "$one $B/shingle -j1 $SHINGLE --sketch minhash $C > /dev/null"
run "  shingle --sketch oph" "$one $B/shingle -j1 $SHINGLE --sketch oph $C > /dev/null"
run "  to verified pairs, no shingle file" "$one sh -c '$B/shingle -j1 $SHINGLE --sketch minhash $C | $B/band -j1 --threshold 0.8 | $B/pairs -j1 | $B/verify -j1 --documents $C > /dev/null'"
echo "each stage, one core"
: > "$tmp/stages"
stage() {
	run "$@"
	cat "$tmp/last" >> "$tmp/stages"
}
stage "  shingle (to a file)" "$one $B/shingle -j1 $SHINGLE -o $tmp/s.tsv $C"
stage "  sketch" "$one $B/sketch -j1 $tmp/s.tsv > $tmp/k.tsv"
stage "  band" "$one $B/band -j1 --threshold 0.8 $tmp/k.tsv > $tmp/b.tsv"
stage "  pairs" "$one $B/pairs -j1 $tmp/b.tsv > $tmp/p.tsv"
stage "  verify --shingles" "$one $B/verify -j1 --shingles $tmp/s.tsv $tmp/p.tsv > /dev/null"
stage "  verify --documents" "$one $B/verify -j1 --documents $C $tmp/p.tsv > /dev/null"
awk -F '\t' 'NR <= 5 { name[NR] = $1; cpu[NR] = $2; total += $2 }
	END { printf "share of the CPU time of the five stages (%.2f s):", total
		for (i = 1; i <= 5; i++) printf " %s %.0f%%;", name[i], 100 * cpu[i] / total; print "" }' "$tmp/stages"
echo "shingle file: $(awk -v s="$(wc -c < "$tmp/s.tsv")" -v b="$bytes" 'BEGIN { printf "%.2f × the text", s / b }'); candidate pairs $(grep -vc '^#' "$tmp/p.tsv"), verified $(grep -vc '^#' "$tmp/v1.tsv")"
echo "from the shingle file, both cores"
run "  Jaccard 0.8 (sketch ... verify)" "$B/sketch $tmp/s.tsv | $B/band --threshold 0.8 | $B/pairs | $B/verify --shingles $tmp/s.tsv > /dev/null"
jaccard=$(cut -f2 "$tmp/last")
run "  containment 0.9 (band ... verify)" "$B/band --containment 0.9 $tmp/s.tsv | $B/pairs | $B/verify --containment --shingles $tmp/s.tsv > $tmp/c.tsv"
awk -v j="$jaccard" -v c="$(cut -f2 "$tmp/last")" -v n="$(grep -vc '^#' "$tmp/c.tsv")" 'BEGIN { printf "  containment / Jaccard: %.2f× the CPU time (%d pairs at containment 0.9)\n", c / j, n }'
