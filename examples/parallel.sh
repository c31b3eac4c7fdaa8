#!/bin/sh
# The stages on several cores of one machine with GNU parallel, the way they
# run on Hadoop: the map stages on blocks of the input, the reducer on shards
# of the band keys (equal keys reach the same job), then each pair once.
# The result equals the one-process pipeline's (examples/parallel.sh is
# checked against it in e2e/testdata/script/example_parallel.txtar).
#
#   examples/parallel.sh CORPUS.tsv OUTDIR [JOBS]
#
# Documents need ids of their own (TSV, or JSON Lines with an id field):
# --lines numbers lines within each block, which differs between blocks.
set -eu
corpus=$1
out=$2
jobs=${3:-$(nproc)}
mkdir -p "$out"
export LC_ALL=C

# Map: shingle blocks of about 16 MB of documents, then sketch and band
# blocks of the shingle records (verify needs the shingles again later).
# -b and -r are given rather than --threshold so that no job prints its
# choice.
parallel --pipe --block 16M -k -j "$jobs" 'shingle --unit word -k 5' \
	< "$corpus" > "$out/shingles.tsv"
parallel --pipe --block 16M -j "$jobs" 'sketch | band -b 18 -r 6' \
	< "$out/shingles.tsv" > "$out/keys.tsv"

# Reduce: shard the keys by their first column, run pairs on each shard; a
# pair that shares buckets in several bands may come from several shards,
# so sort -u keeps it once.
parallel --pipe --colsep '\t' --shard 1 -j "$jobs" pairs < "$out/keys.tsv" |
	sort -u -S 1G > "$out/pairs.tsv"

# Map again: verify blocks of pairs against the shingle file.
parallel --pipe --block 16M -k -j "$jobs" "verify --shingles $out/shingles.tsv" \
	< "$out/pairs.tsv" > "$out/verified.tsv"

# Connected components need every pair: one job.
cluster "$out/verified.tsv" > "$out/clusters.tsv"
