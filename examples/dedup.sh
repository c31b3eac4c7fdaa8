#!/bin/sh
# Deduplicate a corpus: write its documents that are not near-duplicates of
# an earlier one, byte for byte, on standard output.
#
#   examples/dedup.sh [-t THRESHOLD] [-m METHOD] [-r REPORT] [-T TMPDIR] [--rule RULE] [SHINGLE-FLAGS...] CORPUS...
#
#   -t THRESHOLD  least Jaccard similarity of a near-duplicate (default 0.8)
#   -m METHOD     the signatures the candidates come from: oph (the default,
#                 one hash per shingle) or minhash (128 hashes per shingle:
#                 on a crawl of 20,000 documents, char 9-shingles, both found
#                 all 6,832 pairs of Jaccard >= 0.8, and oph took 37 % less
#                 CPU in shingle)
#   -r REPORT     also write, for each dropped document, the kept one, the
#                 one it was dropped for and their similarity (keep(1)); the
#                 ids are arrival numbers, a document's place in the corpus
#                 counted from 0, followed by the three documents' own ids
#                 (--id-field, TSV ids, WARC URIs, Parquet ids; a --lines
#                 line's number): dropped TAB kept TAB via TAB similarity
#                 TAB own-dropped TAB own-kept TAB own-via (with --files
#                 the ids are paths, the four columns alone)
#   -T TMPDIR     where the intermediate files go (default $TMPDIR or /tmp)
#   --rule RULE   keep's rule (keep(1)): arrival (the default) or kept
#
# The other flags go to shingle (--unit, -k, --hash, --seed, --stopwords,
# --normalize, -j) and, those that say how documents are read (--format,
# --files, --lines, --id-field, --text-field, --text, --main), to keep as
# well. The rule (keep
# --pairs): documents in arrival order, each dropped when it has a verified
# pair with a document that came before it. examples/incremental.sh applies
# the same rule batch by batch and keeps the same documents.
#
#   examples/dedup.sh -r report.tsv corpus.jsonl.zst > deduplicated.jsonl
#   examples/dedup.sh --unit word -k 5 --files docs/ > kept-paths.txt
#
# On standard error keep counts the documents read, kept and dropped. A
# stage that fails stops the job with its own message and exit status.
#
# With STAGE_TIMES=FILE in the environment, each stage's wall and CPU
# seconds and peak memory are appended to FILE, a line per process:
# "stage TAB wall TAB user TAB system TAB peak KiB" (make scale reads them).
set -eu
# Installed beside the stages (make install: dedup), it runs those.
case $0 in */*) [ ! -x "${0%/*}/shingle" ] || PATH=${0%/*}:$PATH ;; esac
usage="usage: ${0##*/} [-t THRESHOLD] [-m METHOD] [-r REPORT] [-T TMPDIR] [--rule RULE] [SHINGLE-FLAGS...] CORPUS..."
help() {
	cat <<EOF
$usage

Deduplicate a corpus: write its documents that have no verified
near-duplicate among the documents before them, byte for byte, on standard
output (shingle, sketch, band, pairs, verify, keep, in one go).

  -t THRESHOLD  least Jaccard similarity of a near-duplicate (default 0.8)
  -m METHOD     signatures: oph (default) or minhash
  -r REPORT     also write, for each document dropped, the one it was
                dropped for and their similarity (keep(1), --report): ids
                are arrival numbers counted from 0, then the documents' own
                ids (--id-field, TSV ids, WARC URIs, Parquet ids; a --lines
                line's number): dropped TAB kept TAB via TAB similarity TAB
                own-dropped TAB own-kept TAB own-via (with --files the ids
                are paths: the first four columns only)
  -T TMPDIR     where the intermediate files go (default \$TMPDIR or /tmp)
  --rule RULE   arrival (default: dropped for any earlier near-duplicate)
                or kept (only for a kept one; keep(1), THE KEPT RULE)
  -h, --help    this help
Other flags go to shingle (--unit, -k, --hash, --seed, --stopwords,
--normalize, -j) and, those that say how documents are read (--format,
--files, --lines, --id-field, --text-field, --text, --main), to verify and
keep as well. A CORPUS is a file in any format the stages read (JSON Lines,
TSV, WARC, Parquet, compressed), or with --files a directory.

On standard error keep counts the documents read, kept and dropped; a stage
that fails stops the job with its own message and exit status.

Example:
  dedup --id-field url --text-field content -r report.tsv \\
      crawl.jsonl.zst > deduplicated.jsonl

Batch by batch, with a state kept between runs: dedup-incremental.
EOF
}
threshold=0.8
method=oph
report=
rule=arrival
tmpdir=${TMPDIR:-/tmp}
flags=    # shingle's
docflags= # how the documents are read: shingle's, verify's and keep's
stopwords=
while [ $# -gt 0 ]; do
	case $1 in
	-t) threshold=$2; shift 2 ;;
	-m) method=$2; shift 2 ;;
	-r) report=$2; shift 2 ;;
	-T) tmpdir=$2; shift 2 ;;
	--rule) rule=$2; shift 2 ;;
	-h|--help) help; exit 0 ;;
	-k|--unit|--hash|--seed|--normalize|-j|--jobs) flags="$flags $1 $2"; shift 2 ;;
	--stopwords) stopwords=$2; shift 2 ;;
	--format|--id-field|--text-field|--text) docflags="$docflags $1 $2"; shift 2 ;;
	--files|--lines|--main) docflags="$docflags $1"; shift ;;
	--) shift; break ;;
	-*) printf '%s: unknown flag %s\n%s\n' "${0##*/}" "$1" "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "$0: give the corpus: files (or directories with --files)" >&2
	exit 2
fi
tmp=$(mktemp -d "$tmpdir/neardup-dedup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The stages' own scratch (pairs' and keep's spilled runs, verify's bins)
# goes there too: every stage takes its temporary directory from TMPDIR.
export TMPDIR="$tmp"

# timed STAGE ARGS...: run the stage, timed into $STAGE_TIMES when it is set.
timed() {
	if [ -n "${STAGE_TIMES:-}" ]; then
		/usr/bin/time -a -o "$STAGE_TIMES" -f "$1	%e	%U	%S	%M" "$@"
	else
		"$@"
	fi
}

# Ids are arrival numbers (--number-from), so that a large bucket is paired
# with its earliest documents (pairs --max-bucket) and keep needs one pass;
# with --files a document's id is its path. shingle also writes each
# signature at 4 bits a value (--bbit), by which pairs leaves out the
# candidates far below the threshold (most of them), which would otherwise
# chain the documents verify reads into components larger than its bins.
number="--number-from 0"
bbit="$tmp/bbit.tsv"
# A document with the text of an earlier one writes a copy key alone,
# paired with its first (shingle --collapse): 100,000 copies of a page
# make 99,999 pairs. The arrival rule drops the same documents from those
# pairs; the kept rule needs every copy's own.
collapse=--collapse
# shingle writes where each document's line is (--offsets), so that verify
# reads only the lines of the documents in some pair; an input that has no
# offsets (compressed, WARC, Parquet) shingle names, and verify reads them
# all.
offsets="$tmp/offsets.tsv"
case " $docflags " in *" --files "*|*" --format files "*) number= bbit= collapse= offsets= ;; esac
[ "$rule" = arrival ] || collapse=
# The documents are read three times and nothing large is stored: shingle
# signs each document as it reads it and pairs its signatures' band keys
# into candidate pairs (--sketch, --band, --pairs: shingle | sketch | band
# | pairs in one process, neither the shingles, the signatures nor the
# band keys written as text), verify shingles again the documents in some
# pair for their exact similarity, keep writes the kept.
# shellcheck disable=SC2086 # the flags are words
timed shingle $number $flags $docflags ${stopwords:+--stopwords "$stopwords"} --sketch "$method" --band "$threshold" ${bbit:+--bbit "$bbit"} ${offsets:+--offsets "$offsets"} $collapse --pairs -o "$tmp/pairs.tsv" "$@"
# The signatures have served: their room goes to verify's scratch.
[ -z "$bbit" ] || rm -f "$bbit"
# With an input that has no offsets (size -1 in the file's header) verify
# reads every document, without the file.
if [ -n "$offsets" ]; then
	sizes=$(sed -n '/^#neardup stage=offsets /{s/.* sizes=//;p;q;}' "$offsets")
	case ",$sizes," in *,-1,*) rm -f "$offsets"; offsets= ;; esac
fi
# verify_documents CORPUS...: verify the pairs from the documents, each
# corpus file or directory given as --documents.
verify_documents() {
	# The words --documents "${1}" --documents "${2}" ... made at once (a
	# loop of set -- "$@" takes time in the square of the files: 2 minutes
	# for 10,000), then expanded by eval.
	documents=$(awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) printf " --documents \"${%d}\"", i }')
	eval "timed verify \$docflags \${stopwords:+--stopwords \"\$stopwords\"} $documents \${offsets:+--offsets \"\$offsets\"} -o \"\$tmp/verified.tsv\" \"\$tmp/pairs.tsv\""
}
verify_documents "$@"
# shellcheck disable=SC2086
timed keep --stats --pairs "$tmp/verified.tsv" --rule "$rule" ${report:+--report "$report"} $docflags "$@"
