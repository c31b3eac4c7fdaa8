#!/bin/sh
# What "make demo" runs: the dedup job (examples/dedup.sh, installed as
# bin/dedup) on real files every machine that builds neardup has, the text
# files of the Go source tree, each file one document. It prints how many
# files were kept, the first lines of the report (each file dropped, the
# earlier file it is a near-duplicate of, their similarity) and how long it
# took.
#
#   make demo                 # or: SRC=/some/tree THRESHOLD=0.9 examples/demo.sh
set -eu
cd "$(dirname "$0")/.."
root=$PWD
BIN=$(cd "${BIN:-bin}" && pwd)
SRC=${SRC:-$(go env GOROOT)/src}
THRESHOLD=${THRESHOLD:-0.8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$SRC"

# The documents: the text files (grep -I leaves out the binary ones, zip
# archives and images) of more than 1 KiB (smaller ones are mostly stubs of
# a few words, "package p", alike for no reason worth showing), named from
# SRC, in the order of their names: that is the order dedup reads them in,
# so a file is dropped for one whose name sorts before it.
find . -type f -size +1k -exec grep -Il '' {} + | sed 's|^\./||' | LC_ALL=C sort > "$tmp/files"
IFS='
'
set -f
# shellcheck disable=SC2046 # a name a line
set -- $(cat "$tmp/files")
unset IFS
set +f

echo "The job: in $SRC,"
echo "  dedup --unit word -k 5 -t $THRESHOLD --files -r report.tsv FILE... > kept.txt"
echo "on its $# text files over 1 KiB: a file is dropped when at least $THRESHOLD"
echo "of the runs of 5 words in the two files (Jaccard similarity) are shared"
echo "with a file that came before it."
echo

now() { date +%s.%N; }
start=$(now)
status=0
PATH=$BIN:$PATH sh "$root/examples/dedup.sh" --unit word -k 5 -t "$THRESHOLD" --files -r "$tmp/report.tsv" "$@" > "$tmp/kept.txt" 2> "$tmp/err" || status=$?
end=$(now)
if [ "$status" -ne 0 ]; then
	cat "$tmp/err" >&2
	exit "$status"
fi
# The lines said here in other words: shingle's banding (how the candidates
# were found) and verify's threshold taken from it; keep's counts. Any other
# line (a warning) is shown as it is.
grep -v -e '^shingle: threshold ' -e '^verify: threshold .* from band.s header$' -e '^keep: ' "$tmp/err" >&2 || true
kept=$(sed -n 's/^keep: \([0-9]*\) kept, [0-9]* dropped$/\1/p' "$tmp/err")
dropped=$(sed -n 's/^keep: [0-9]* kept, \([0-9]*\) dropped$/\1/p' "$tmp/err")

echo "kept:     $kept files"
echo "dropped:  $dropped files, each a near-duplicate of an earlier one"
echo "time:     $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f s", e - s }')"
echo
echo "The first ten lines of the report: the similarity, the file dropped and"
echo "the earlier file it is a near-duplicate of (paths in $SRC):"
head -n 10 "$tmp/report.tsv" |
	awk -F '\t' '{ printf "  %.2f  %s\n        of %s\n", $4, $1, $3 }'
