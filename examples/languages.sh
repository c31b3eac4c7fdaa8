#!/bin/sh
# Which shingle defaults find near-duplicates in every language? Takes real
# documents in English, German, French, Russian, Chinese, Japanese and Go
# source (examples/corpus-multilingual.sh), plants a copy of each with one
# kind of change (internal/tools/plant: punctuation, spacing, width forms,
# case, a word substituted or deleted every ~50 words, and all of them but
# width), and for each candidate shingling prints, per language:
#
#   recall  the share of planted pairs whose exact Jaccard is >= THRESHOLD,
#           for each kind of change
#   false   the pairs of distinct real documents (no planted copy) with
#           Jaccard >= THRESHOLD, as the pipeline finds them (sketch | band
#           | pairs | verify): copies that were in the corpus already, and
#           documents that are not near-duplicates
#
#   examples/languages.sh                  # N=300 documents a language, THRESHOLD=0.8
#   N=1000 LANGS="zh ja" examples/languages.sh
#   CONFIGS="char:9:none word:5:width" examples/languages.sh
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
N=${N:-300}
THRESHOLD=${THRESHOLD:-0.8}
LANGS=${LANGS:-"en de fr ru zh ja go"}
# unit:k:normalize
CONFIGS=${CONFIGS:-"char:9:none char:5:width,punct char:7:width,punct char:9:width,punct word:3:width word:5:none word:5:width"}
if command -v plant > /dev/null 2>&1; then
	plant=plant
else
	go build -o "${TMPDIR:-/tmp}/neardup-plant.$$" ./internal/tools/plant
	plant="${TMPDIR:-/tmp}/neardup-plant.$$"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; case $plant in */neardup-plant.*) rm -f "$plant" ;; esac' EXIT

LANGS=$LANGS examples/corpus-multilingual.sh "$N" > "$tmp/corpus.tsv"
echo "# N=$N documents a language, THRESHOLD=$THRESHOLD; recall per kind of change, false pairs among the real documents"
for lang in $LANGS; do
	grep -a "^$lang/" "$tmp/corpus.tsv" > "$tmp/docs.tsv" || true
	docs=$(wc -l < "$tmp/docs.tsv")
	[ "$docs" -gt 0 ] || continue
	"$plant" -truth "$tmp/truth.tsv" < "$tmp/docs.tsv" > "$tmp/planted.tsv"
	echo
	echo "## $lang ($docs documents)"
	printf '%-24s %6s %6s %6s %6s %6s %6s %6s\n' "unit k normalize" punct space width case edit all false
	for c in $CONFIGS; do
		unit=${c%%:*}
		rest=${c#*:}
		k=${rest%%:*}
		norm=${rest#*:}
		"$BIN/shingle" --unit "$unit" -k "$k" --normalize "$norm" -o "$tmp/s.tsv" "$tmp/planted.tsv"
		cut -f1,2 "$tmp/truth.tsv" |
			"$BIN/verify" --shingles "$tmp/s.tsv" --threshold "$THRESHOLD" --no-header > "$tmp/found.tsv"
		grep -v '~' "$tmp/s.tsv" |
			"$BIN/sketch" | "$BIN/band" --threshold "$THRESHOLD" 2> "$tmp/band.err" | "$BIN/pairs" |
			"$BIN/verify" --shingles "$tmp/s.tsv" --threshold "$THRESHOLD" --no-header > "$tmp/false.tsv"
		awk -F '\t' -v conf="$unit $k $norm" -v false="$(wc -l < "$tmp/false.tsv")" '
			FNR == NR { n[$3]++; next }
			{ sub(/.*~/, "", $2); f[$2]++ }
			END {
				printf "%-24s", conf
				split("punct space width case edit all", kinds, " ")
				for (i = 1; i <= 6; i++) printf " %5.1f%%", n[kinds[i]] ? 100 * f[kinds[i]] / n[kinds[i]] : 0
				printf " %6d\n", false
			}' "$tmp/truth.tsv" "$tmp/found.tsv"
		# band's warnings (documents without shingles), not its choice of b and r.
		grep -v 'S-curve threshold' "$tmp/band.err" >&2 || true
	done
done
