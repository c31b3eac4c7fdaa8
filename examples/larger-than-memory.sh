#!/bin/sh
# The whole pipeline, shingles to clusters, with the memory of every process
# bounded whatever the size of the corpus: what must be grouped is sorted by
# GNU sort (an external merge sort that spills to disk), and the stages that
# would hold state read it in key order instead:
#
#   pairs --sorted     band keys sorted by key: one bucket at a time, pairs
#                      spilled to sorted runs past --memory
#   verify --attach    pairs sorted by their first id, joined with the shingle
#                      file sorted by id: each pair carries its first set
#   verify --sorted    the same, sorted by the second id, joined again: scored
#   cluster            union-find over the documents in some pair (about 80
#                      bytes each), never the pairs
#
# The result equals the in-memory pipeline's (checked, with every process
# kept under a memory limit, in
# e2e/testdata/script/example_larger_than_memory.txtar;
# examples/larger-than-memory-bench.sh measures it on a corpus several times
# the limit).
#
#   examples/larger-than-memory.sh CORPUS.tsv OUTDIR
#
# SORTMEM is the memory of each sort (sort -S) and of pairs' buffer (default
# 1G); JOBS the threads of each (default: the cores); sort and pairs put their
# temporary files in TMPDIR, which needs room for about twice the attached
# pairs (17 bytes per shingle per candidate pair).
set -eu
corpus=$1
out=$2
mem=${SORTMEM:-1G}
jobs=${JOBS:-$(nproc)}
tmp=${TMPDIR:-/tmp}
mkdir -p "$out"
export LC_ALL=C
tab=$(printf '\t')
# In bash: LC_ALL=C sort -t$'\t' -k1,1 -S 1G --parallel=N
sortkey() { sort -t "$tab" -k1,1 -S "$mem" --parallel="$jobs" -T "$tmp" "$@"; }

# Shingle records sorted by id: both joins of verify read them in that order.
shingle -j "$jobs" --unit word -k 5 "$corpus" | sortkey > "$out/shingles.tsv"

# Band keys sorted by key, then one bucket at a time. pairs writes the pairs
# sorted by their first id, as verify --attach reads them.
sketch -j "$jobs" "$out/shingles.tsv" | band -j "$jobs" --threshold 0.8 | sortkey |
	pairs --sorted --memory "$mem" --temp-dir "$tmp" > "$out/pairs.tsv"

# Each pair joined with its first document's shingles, sorted by the second
# id, joined with the second's and scored.
verify -j "$jobs" --attach --shingles "$out/shingles.tsv" "$out/pairs.tsv" | sortkey |
	verify -j "$jobs" --sorted --shingles "$out/shingles.tsv" --threshold 0.8 > "$out/verified.tsv"

cluster "$out/verified.tsv" > "$out/clusters.tsv"
