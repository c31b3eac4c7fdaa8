#!/bin/sh
# Writes docs.parquet with another Parquet implementation (the npm package
# hyparquet-writer, make.mjs), runs neardup's pipeline and keep on it, and
# reads keep's Parquet output back with hyparquet (npm), checking that the
# schema is the input's and that every row kept is the input's row,
# unchanged, in order. Needs node and npm; the tests need neither (they use
# the committed docs.parquet).
#
#   sh internal/input/testdata/parquet/make.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
cd "$here"
npm install --no-audit --no-fund >/dev/null
node make.mjs write docs.parquet

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/" ./cmd/...)
PATH=$tmp/bin:$PATH
shingle docs.parquet | sketch | band | pairs >"$tmp/candidates.tsv"
verify --documents docs.parquet "$tmp/candidates.tsv" >"$tmp/scored.tsv"
keep --pairs "$tmp/scored.tsv" --stats docs.parquet >"$tmp/kept.parquet"

node make.mjs read docs.parquet >"$tmp/docs.jsonl"
node make.mjs read "$tmp/kept.parquet" >"$tmp/kept.jsonl"
# Line 1 is the schema, line 2 the row groups and rows, then a row a line.
if [ "$(head -1 "$tmp/docs.jsonl")" != "$(head -1 "$tmp/kept.jsonl")" ]; then
	echo "make.sh: the schemas differ" >&2
	exit 1
fi
tail -n +3 "$tmp/kept.jsonl" >"$tmp/kept-rows"
tail -n +3 "$tmp/docs.jsonl" | grep -Fx -f "$tmp/kept-rows" >"$tmp/same-rows" || true
if ! cmp -s "$tmp/kept-rows" "$tmp/same-rows"; then
	echo "make.sh: the rows kept are not the input's rows, in order" >&2
	exit 1
fi
echo "make.sh: hyparquet read keep's output: $(sed -n 2p "$tmp/kept.jsonl"), the input's schema, $(wc -l <"$tmp/kept-rows") rows as in the input" >&2
