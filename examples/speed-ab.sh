#!/bin/sh
# Two builds side by side on make speed's corpus: the rows of
# examples/speed.sh that issue 17 measures, each run by the two builds in
# turn, ROUNDS rounds interleaved (5), so that both see the machine in the
# same state (its speed moves by a third from hour to hour). Prints the
# lowest and the median wall and CPU seconds of each row and build, and
# md5sum's, and checks that the two builds' verified pairs are the same.
#
#   examples/speed-ab.sh OLD_BIN_DIR NEW_BIN_DIR
#   git worktree add /tmp/old HEAD~3 && (cd /tmp/old && go build -o /tmp/old/bin/ ./cmd/...)
#   make build && examples/speed-ab.sh /tmp/old/bin bin
#
# N (20000 documents a language at most) and SHINGLE as for speed.sh.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 OLD_BIN_DIR NEW_BIN_DIR" >&2; exit 2; }
cd "$(dirname "$0")/.."
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
S=${SHINGLE:-"--unit word -k 5"}
TMP=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && TMP=/dev/shm
tmp=$(mktemp -d "$TMP/neardup-speed-ab.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
one=
command -v taskset > /dev/null && one="taskset -c 0"

LANGS="en de fr ru ja zh go mod" sh examples/corpus-multilingual.sh "$N" > "$tmp/corpus.tsv" 2> /dev/null
C=$tmp/corpus.tsv
echo "corpus: $(wc -l < "$C") documents, $(awk -v b="$(wc -c < "$C")" 'BEGIN { printf "%.1f MB", b / 1e6 }'); old $A, new $B; $ROUNDS rounds"

# row NAME BUILD CMD: time CMD once (X in it is the build's directory).
row() {
	cmd=$(printf '%s' "$3" | sed "s|X/|$2/|g")
	/usr/bin/time -f "$1	$2	%e	%U	%S" -a -o "$tmp/times" sh -c "$cmd" > /dev/null 2>&1 || { echo "failed: $cmd" >&2; exit 1; }
}
rows() { # BUILD TAG
	row "shingle | sketch" "$1" "X/shingle $S $C | X/sketch"
	row "to verified pairs, shingle --band" "$1" "X/shingle $S --sketch minhash --band 0.8 $C | X/pairs | X/verify --documents $C > $tmp/v-$2"
	row "to verified pairs, no shingle file" "$1" "X/shingle $S --sketch minhash $C | X/band --threshold 0.8 | X/pairs | X/verify --documents $C"
	row "to verified pairs, shingle file" "$1" "X/shingle $S -o $tmp/s.tsv $C && X/sketch $tmp/s.tsv | X/band --threshold 0.8 | X/pairs | X/verify --shingles $tmp/s.tsv"
	row "the same with OPH (dedup.sh's)" "$1" "X/shingle $S --sketch oph --band 0.8 $C | X/pairs | X/verify --documents $C"
	row "shingle --sketch minhash, one core" "$1" "$one X/shingle -j1 $S --sketch minhash $C"
}
: > "$tmp/times"
i=0
while [ $i -lt "$ROUNDS" ]; do
	row "md5sum" "-" "md5sum $C"
	rows "$A" old
	rows "$B" new
	i=$((i + 1))
done
cmp -s "$tmp/v-old" "$tmp/v-new" || { echo "the two builds' verified pairs differ" >&2; exit 1; }
awk -F '\t' -v A="$A" -v B="$B" '
	{ k = $1 SUBSEP $2; n[k]++; w[k, n[k]] = $3; c[k, n[k]] = $4 + $5; if (!($1 in seen)) { seen[$1] = 1; order[++rows] = $1 } }
	function stat(k, arr,   m, i, j, t, v) {
		m = n[k]
		for (i = 1; i <= m; i++) v[i] = arr[k, i]
		for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return sprintf("%5.2f /%5.2f", v[1], v[int((m + 1) / 2)])
	}
	END {
		printf "%-36s %-27s %s\n", "lowest / median seconds", "old: wall, cpu", "new: wall, cpu"
		for (r = 1; r <= rows; r++) {
			name = order[r]
			if (name == "md5sum") { k = name SUBSEP "-"; printf "%-36s %s wall\n", name, stat(k, w); continue }
			ka = name SUBSEP A; kb = name SUBSEP B
			printf "%-36s %s %s   %s %s\n", name, stat(ka, w), stat(ka, c), stat(kb, w), stat(kb, c)
		}
	}' "$tmp/times"
