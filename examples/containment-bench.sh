#!/bin/sh
# Containment search measured on a real corpus, against the exact answer.
#
#   examples/containment-bench.sh OUTDIR
#
# The corpus: examples/corpus-multilingual.sh (man pages in several
# languages, READMEs, Chinese fortunes, Go source; N a language, default
# 1000), Go module cache files in several versions (golang.org/x modules
# present in $(go env GOMODCACHE), files under 200 KB), the Debian
# copyright files, and planted containment: for PLANT pairs (A, B) of the
# multilingual corpus, B with the whole of A inserted in its middle
# ("plant/N": c(A, plant/N) = 1), and a run of 30 to 100 % of A's words
# ("snip/N", contained in A and in plant/N). Word 5-shingles.
#
# It runs the containment pipeline
#   shingle | docfreq;  band --containment T --df | pairs | verify --containment
# and the Jaccard pipeline shingle | sketch | band | pairs | verify on the
# same shingles, timing each stage (/usr/bin/time), then
# internal/tools/containtruth, an exact join through an inverted index, and
# prints recall, precision and candidates per true pair for the directed
# pairs with c >= T and |A| >= 10 shingles.
set -eu
OUT=${1:?usage: containment-bench.sh OUTDIR}
N=${N:-1000}
PLANT=${PLANT:-500}
T=${T:-0.9}
BIN=${BIN:-bin}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
cd "$OUT"
PATH=$ROOT/$BIN:$PATH
[ -x "$ROOT/$BIN/shingle" ] || (cd "$ROOT" && make >/dev/null)
(cd "$ROOT" && go build -o "$OUT/containtruth" ./internal/tools/containtruth)

"$ROOT/examples/corpus-multilingual.sh" "$N" > multi.tsv
# The planted documents, from pairs of multilingual documents.
awk -F'\t' -v plant="$PLANT" '
	{ id[NR] = $1; text[NR] = $2 }
	END {
		seed = 12345
		for (i = 0; i < plant && 2*i+2 <= NR; i++) {
			a = text[2*i+1]; b = text[2*i+2]
			na = split(a, aw, " "); nb = split(b, bw, " ")
			if (na < 20) continue
			mid = int(nb / 2)
			p = ""
			for (j = 1; j <= mid; j++) p = p bw[j] " "
			p = p a
			for (j = mid + 1; j <= nb; j++) p = p " " bw[j]
			printf "plant/%d\t%s\n", i, p
			seed = (seed * 1103515245 + 12345) % 2147483648
			len = int(na * (0.3 + 0.7 * (seed % 1000) / 1000)); if (len > 400) len = 400
			seed = (seed * 1103515245 + 12345) % 2147483648
			start = 1 + seed % (na - len + 1)
			s = aw[start]
			for (j = start + 1; j < start + len; j++) s = s " " aw[j]
			printf "snip/%d\t%s\n", i, s
		}
	}' multi.tsv > planted.tsv
rm -rf modcache copyright
mkdir -p modcache copyright
M=$(go env GOMODCACHE)/golang.org/x
for d in "$M"/*@*; do
	[ -d "$d" ] || continue
	find "$d" -name '*.go' -size -200k | while read -r f; do
		t=modcache/$(basename "$d")/${f#"$d"/}
		mkdir -p "$(dirname "$t")"
		cp "$f" "$t"
	done
done
for f in /usr/share/doc/*/copyright; do
	[ -f "$f" ] || continue
	d=${f%/copyright}
	cp "$f" "copyright/${d##*/}"
done

run() { # NAME COMMAND: runs it, appends "NAME wall user sys peakKiB" to times.txt
	name=$1; shift
	/usr/bin/time -f "$name %e %U %S %M" -a -o times.txt sh -c "$*"
}
: > times.txt
run shingle "shingle --unit word -k 5 multi.tsv > s1.tsv && shingle --unit word -k 5 planted.tsv > s2.tsv && shingle --unit word -k 5 --files modcache > s3.tsv && shingle --unit word -k 5 --files copyright > s4.tsv"
cat s1.tsv s2.tsv s3.tsv s4.tsv > shingles.tsv
rm s1.tsv s2.tsv s3.tsv s4.tsv
run docfreq "docfreq shingles.tsv > df.tsv"
run band-containment "band --containment $T --df df.tsv shingles.tsv > ckeys.tsv 2>/dev/null"
run pairs-containment "pairs ckeys.tsv > ccand.tsv 2>pairs-containment.err"
run verify-containment "verify --shingles shingles.tsv --containment --threshold $T ccand.tsv > cver.tsv"
run sketch "sketch shingles.tsv > sketches.tsv"
run band-jaccard "band --threshold 0.8 sketches.tsv > jkeys.tsv 2>/dev/null"
run pairs-jaccard "pairs jkeys.tsv > jcand.tsv 2>/dev/null"
run verify-jaccard "verify --shingles shingles.tsv --threshold 0.8 jcand.tsv > jver.tsv"
./containtruth -t "$T" -verified cver.tsv -candidates ccand.tsv shingles.tsv > truth.tsv 2> truth.txt
echo "documents: $(grep -vc '^#' shingles.tsv)   text: $(du -sh multi.tsv planted.tsv modcache copyright | awk '{print $1}' | tr '\n' ' ')"
echo "band --containment records: $(grep -vc '^#' ckeys.tsv); Jaccard band records: $(grep -vc '^#' jkeys.tsv)"
cat pairs-containment.err
cat truth.txt
# CPU seconds (user + sys) are compared: wall time says more on a quiet
# machine, but is disturbed by anything else running.
echo "stage wall-s cpu-s peak-KiB"
awk '{ printf "%-20s %7.2f %7.2f %9d\n", $1, $2, $3 + $4, $5 }' times.txt
awk '{ cpu = $3 + $4; wall = $2 } $1 ~ /containment|docfreq/ { c += cpu; cw += wall } $1 ~ /jaccard|sketch/ { j += cpu; jw += wall } $1 == "shingle" { s = cpu; sw = wall }
	END { printf "CPU: containment pipeline %.2f s (shingle %.2f + docfreq, band, pairs, verify); Jaccard pipeline %.2f s (shingle + sketch, band, pairs, verify): %.2f times\n", s + c, s, s + j, (s + c) / (s + j)
	      printf "wall: containment %.2f s, Jaccard %.2f s: %.2f times\n", sw + cw, sw + jw, (sw + cw) / (sw + jw) }' times.txt
