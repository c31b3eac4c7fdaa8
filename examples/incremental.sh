#!/bin/sh
# Incremental deduplication: documents come in batches (a crawler's day, a
# training corpus's update), and each batch is checked against everything
# seen before without the old documents' keys or pairs being computed again.
# Run `examples/incremental.sh --help` for its use; installed (make install)
# it is dedup-incremental.
#
# STATE holds generations and a symlink naming the current one:
#
#   LOCK                   held (flock) by the run changing the state; it
#                          names its holder while held
#   current -> gen.NNNNNN  the state after the last batch done
#   kept -> current/kept   a stable path to the kept documents
#   gen.NNNNNN/
#     kept/SEQ-NAME        batch SEQ's kept documents, byte for byte, and
#     kept/SEQ-NAME.report the dropped ones with the document they were
#                          dropped for (keep --report)
#     keys.idx/            the band index of every document so far
#     batches/SEQ-NAME     a copy of every batch (none with --files, where a
#                          document's id is its path and the batches are
#                          read where they are)
#     batches.tsv          the batches done: SEQ, sha256 of the content,
#                          NAME, the path given
#     verified/SEQ.tsv     each batch's verified near-duplicate pairs
#     ids/SEQ.tsv          each batch's documents' own ids: "number TAB own
#                          id" (keep --write-id-map), whence the reports of
#                          later batches name the documents of this one (none
#                          with --files: the ids are paths)
#     next                 the arrival number of the next document
#
# A batch is done in a new generation: a hard-link copy of the current one
# (cp -al) in which no file is changed in place (a file is replaced by a
# rename, and bandindex writes new runs and renames its MANIFEST), every
# write of the batch goes there, it is synced, and the batch is committed
# by renaming a new symlink over `current`. A run killed at any point leaves
# the previous generation current; the next run removes what it left and
# does the batch again, to the same bytes. Batches are told apart by their
# content (sha256), never by their file name: one already done is skipped.
#
# Ids are arrival numbers across all batches (shingle --number-from), so
# that a batch is paired with the earliest documents of a large bucket, as a
# one-shot run is. For each batch: its band keys (shingle --sketch, no
# shingle file); pairs --against the index gives the pairs among the new
# documents and between new and old (never two old ones: they were found
# when those came); verify scores them from the documents of all the
# batches (--documents, numbered from 0); keep --pairs writes the batch's
# kept documents; then the batch's keys are added to the index as a new
# run, and the runs merged when there are more than 8.
set -eu
# Installed beside the stages, it runs those.
case $0 in */*) [ ! -x "${0%/*}/shingle" ] || PATH=${0%/*}:$PATH ;; esac
usage="usage: ${0##*/} [-w] [-t THRESHOLD] [-m METHOD] [--rule RULE] [SHINGLE-FLAGS...] STATE BATCH..."
help() {
	cat <<EOF
$usage

Deduplicate documents that come in batches: each batch's documents that
have no verified near-duplicate among the documents that came before them,
in this batch or an earlier one, are written byte for byte to
STATE/kept/SEQ-NAME (SEQ the batch's number, 000000 for the first), and
STATE/kept/SEQ-NAME.report names the dropped ones, each with the document
it was dropped for: "dropped TAB kept TAB via TAB similarity TAB own-dropped
TAB own-kept TAB own-via", arrival numbers across the batches then the
documents' own ids (--id-field, TSV ids, WARC URIs, Parquet ids; a --lines
line's number), those of earlier batches from STATE/current/ids (with
--files the ids are paths: the first four columns only). Together the
batches keep exactly what dedup does of all of them in one go, given the
same flags; give every batch the same flags.

  -t THRESHOLD  least Jaccard similarity of a near-duplicate (default 0.8)
  -m METHOD     oph (default) or minhash
  --rule RULE   arrival (default): drop a document for any earlier one; kept:
                only for one that was kept (keep(1); the same for every batch)
  -w, --wait    wait for another run on STATE to finish (default: refuse,
                exit status 1, naming it)
  -h, --help    this help

The other flags go to shingle (--unit, -k, --hash, --seed, --stopwords,
--normalize, -j) and, those that say how documents are read (--format,
--files, --lines, --id-field, --text-field, --text, --main), to keep too.

A batch is done in full or not at all: killed at any point, the run is
run again to the same result. A batch already done (the same content,
whatever its name) is skipped with a message. STATE holds a copy of each
batch (with --files the batches are read where they are, and must stay),
their band index and verified pairs, in STATE/current.

Example, a crawl a day (crawl.jsonl.zst each time):

  dedup-incremental -k 5 --unit word state day1/crawl.jsonl.zst
  dedup-incremental -k 5 --unit word state day2/crawl.jsonl.zst
  ls state/kept    # 000000-crawl.jsonl.zst 000001-crawl.jsonl.zst ...
EOF
}
threshold=0.8
method=oph
rule=arrival
wait=-n
flags=    # shingle's
stopwords=
docflags= # how the documents are read: shingle's and keep's
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) help; exit 0 ;;
	-w|--wait) wait=; shift ;;
	-t) threshold=$2; shift 2 ;;
	-m) method=$2; shift 2 ;;
	--rule) rule=$2; shift 2 ;;
	-k|--unit|--hash|--seed|--normalize|-j|--jobs) flags="$flags $1 $2"; shift 2 ;;
	--stopwords) stopwords=$2; shift 2 ;;
	--format|--id-field|--text-field|--text) docflags="$docflags $1 $2"; shift 2 ;;
	--files|--lines|--main) docflags="$docflags $1"; shift ;;
	--) shift; break ;;
	-*) echo "$0: unknown flag $1" >&2; echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "$usage" >&2
	exit 2
fi
case $rule in
arrival|kept) ;;
*) echo "$0: --rule $rule: want arrival or kept" >&2; exit 2 ;;
esac
state=$1
shift
if [ -e "$state/next" ] || [ -d "$state/keys.idx" ]; then
	echo "$0: $state was made by an older examples/incremental.sh (it has $state/next): start a new STATE" >&2
	exit 1
fi
export LC_ALL=C
tab=$(printf '\t')
mkdir -p "$state"

# One run at a time on a STATE: the lock is held by the open file (fd 9,
# which the stages inherit) until the last of them exits.
exec 9>> "$state/LOCK"
if ! flock $wait 9; then
	who=
	read -r who < "$state/LOCK" || true
	echo "$0: $state/LOCK: another run is changing this state (${who:-which has not yet written its pid}); run again when it has finished, or give --wait" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/neardup-incremental.XXXXXX")
trap ': > "$state/LOCK"; rm -rf "$tmp"' EXIT
echo "pid $$ on $(uname -n) since $(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$state/LOCK"

# What an interrupted run left: generations that never became current.
cur=
if [ -L "$state/current" ]; then
	cur=$(readlink "$state/current")
fi
for g in "$state"/gen.* "$state/current.tmp"; do
	if [ -e "$g" ] || [ -L "$g" ]; then
		if [ "${g##*/}" != "$cur" ]; then
			echo "$0: removing $g, left by an interrupted run" >&2
			rm -rf "$g"
		fi
	fi
done
[ -L "$state/kept" ] || ln -s current/kept "$state/kept"

# verify_batches BATCH: verify the pairs from the documents of the batches
# done and BATCH, in order, so that their arrival numbers are those shingle
# gave.
verify_batches() {
	if [ -n "$cur" ]; then
		while IFS=$tab read -r s _ n given; do
			# A batch of no documents numbered none: not given.
			[ ! -e "$new/ids/$s.tsv" ] || [ -s "$new/ids/$s.tsv" ] || continue
			if [ -n "$all" ]; then
				set -- "$@" --documents "$new/batches/$s-$n"
			else
				set -- "$@" --documents "$given"
			fi
		done < "$new/batches.tsv"
	fi
	set -- "$@" --documents "$1"
	shift
	# shellcheck disable=SC2086 # the flags are words
	verify $all $docflags ${stopwords:+--stopwords "$stopwords"} "$@" -o "$new/verified/$seq.tsv" "$tmp/pairs.tsv"
}

# keep_batch BATCH: keep the batch's documents, its report naming the
# documents by their own ids too, from the maps of the batches done
# (--id-map) and of this one (--write-id-map), with arrival numbers. A
# state made before the maps has none for its older batches: keep writes
# "-" for their documents, and counts them.
keep_batch() {
	set -- "$1"
	if [ -n "$number" ]; then
		mkdir -p "$new/ids"
		if [ -n "$cur" ]; then
			while IFS=$tab read -r s _; do
				[ ! -e "$new/ids/$s.tsv" ] || set -- --id-map "$new/ids/$s.tsv" "$@"
			done < "$new/batches.tsv"
		fi
		set -- --write-id-map "$new/ids/$seq.tsv" "$@"
	fi
	# shellcheck disable=SC2086
	keep --pairs "$new/verified/$seq.tsv" $number $docflags --rule "$rule" ${dropped:+--dropped "$dropped"} \
		--report "$tmp/report.tsv" -o "$new/kept/$seq-$name" "$@"
}

for batch in "$@"; do
	name=${batch%/}
	name=${name##*/}
	# The batch's content: its bytes, or with --files the paths and bytes
	# of the files under it.
	if [ -d "$batch" ]; then
		find "$batch" -type f -exec sha256sum {} + > "$tmp/files"
		sort -o "$tmp/files" "$tmp/files"
		digest=$(sha256sum < "$tmp/files")
	else
		digest=$(sha256sum < "$batch")
	fi
	digest=${digest%% *}
	n=0
	done_as=
	if [ -n "$cur" ]; then
		while IFS=$tab read -r s d dn _; do
			n=$((n + 1))
			[ "$d" != "$digest" ] || done_as="$s ($dn)"
		done < "$state/$cur/batches.tsv"
	fi
	if [ -n "$done_as" ]; then
		echo "$0: $batch: skipped: its content (sha256 $digest) is that of batch $done_as, already done" >&2
		continue
	fi
	seq=$(printf '%06d' "$n")
	gen=gen.$(printf '%06d' $((n + 1)))
	new=$state/$gen
	from=0
	if [ -n "$cur" ]; then
		cp -al "$state/$cur" "$new"
		# bandindex writes its holder into LOCK: not the current one's.
		rm -f "$new/keys.idx/LOCK"
		read -r from < "$new/next"
	else
		mkdir "$new" "$new/kept" "$new/batches" "$new/verified"
	fi
	number="--number-from $from"
	all="--number-from 0"
	case " $docflags " in *" --files "*|*" --format files "*) number= all= ;; esac # ids are paths
	# shellcheck disable=SC2086 # the flags are words
	shingle $number $flags $docflags ${stopwords:+--stopwords "$stopwords"} --sketch "$method" -o "$tmp/sketches.tsv" "$batch"
	band --threshold "$threshold" -o "$tmp/keys.tsv" "$tmp/sketches.tsv"
	if [ -n "$cur" ]; then
		pairs --against "$new/keys.idx" -o "$tmp/pairs.tsv" "$tmp/keys.tsv"
	else
		pairs -o "$tmp/pairs.tsv" "$tmp/keys.tsv"
	fi
	verify_batches "$batch"
	# The batch's documents are numbered from $from, as shingle numbered
	# them; a pair with a smaller number is with an older batch's document.
	# The kept rule drops only for a kept one: the older batches' reports
	# say which were dropped.
	find "$new/kept" -name '*.report' -exec cat {} + > "$tmp/old-reports.tsv"
	dropped=
	[ "$rule" != kept ] || dropped=$tmp/old-reports.tsv
	keep_batch "$batch"
	# A chain that leaves the batch ends, for keep, at the older document it
	# left for; the older batches' reports say where that one's chain ends
	# (the kept rule's end at a kept one, in no report), and its own id
	# (column 6, with arrival numbers).
	awk -F "$tab" -v OFS="$tab" -v batch="$tmp/report.tsv" '
		FILENAME != batch { kept[$1] = $2; own[$1] = $6; next }
		$2 in kept { if (NF >= 7) $6 = own[$2]; $2 = kept[$2] }
		{ print }' "$tmp/old-reports.tsv" "$tmp/report.tsv" > "$new/kept/$seq-$name.report"

	# Fold the batch in: a copy of it, its line in batches.tsv, the next
	# arrival number (one past the batch's last id), a new run of the
	# index. The files of the current generation are linked, not copied:
	# each is replaced (a new file renamed over it), never written.
	if [ -n "$all" ]; then
		cp "$batch" "$new/batches/$seq-$name"
	fi
	done=/dev/null
	[ -z "$cur" ] || done=$new/batches.tsv
	line="$seq$tab$digest$tab$name$tab$batch" awk '{ print } END { print ENVIRON["line"] }' "$done" > "$new/batches.tsv.new"
	mv "$new/batches.tsv.new" "$new/batches.tsv"
	awk -F "$tab" -v from="$from" '!/^#/ { from = $1 + 1 } END { print from }' "$tmp/sketches.tsv" > "$new/next.new"
	mv "$new/next.new" "$new/next"
	if [ -n "$cur" ]; then
		bandindex add "$new/keys.idx" "$tmp/keys.tsv"
	else
		bandindex build -o "$new/keys.idx" "$tmp/keys.tsv"
	fi
	bandindex stats "$new/keys.idx" > "$tmp/stats"
	runs=$(sed -n 's/^runs: *\([0-9]*\),.*/\1/p' "$tmp/stats")
	if [ "$runs" -gt 8 ]; then
		bandindex merge "$new/keys.idx"
	fi

	# Commit: every file of the new generation on disk, then the symlink
	# renamed to it, then the old one removed.
	find "$new" -exec sync {} +
	ln -s "$gen" "$state/current.tmp"
	mv -T "$state/current.tmp" "$state/current"
	sync "$state"
	if [ -n "$cur" ]; then
		rm -rf "${state:?}/$cur"
	fi
	cur=$gen
	awk -v p="$tmp/pairs.tsv" -v s="$tmp/sketches.tsv" -v r="$tmp/report.tsv" '
		/^#/ { next }
		FILENAME == p { pairs++; next }
		FILENAME == s { docs++; next }
		FILENAME == r { dropped++; next }
		{ verified++ }
		END { printf "%d candidate pairs, %d verified so far, %d run(s); kept %d of %d documents", pairs, verified, runs, docs - dropped, docs }' \
		runs="$runs" "$tmp/pairs.tsv" "$tmp/sketches.tsv" "$tmp/report.tsv" "$new"/verified/*.tsv > "$tmp/counts"
	read -r counts < "$tmp/counts" || true
	echo "$batch: batch $seq: $counts in $state/kept/$seq-$name"
done
