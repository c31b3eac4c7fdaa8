#!/bin/sh
# The pipeline as Hadoop Streaming jobs. The stages are maps (shingle, sketch,
# band; verify with the shingle file shipped to every node) and reducers
# keyed on the first field (pairs; cluster as a single reducer); the result
# equals the one-process pipeline's (e2e/testdata/script/hadoop.txtar runs
# these jobs in a simulator with the real binaries).
#
#   HADOOP_STREAMING=/path/to/hadoop-streaming.jar BIN=/path/to/neardup/bin \
#       examples/hadoop-streaming.sh hdfs:///corpus hdfs:///out
#
# Documents need ids of their own (TSV, or JSON Lines with an id field): a
# line number is only known within a split. Each stage writes its counters
# (records read and written, lines skipped) with --counters, and Hadoop shows
# them with the job.
set -eu
in=$1
out=$2
jar=${HADOOP_STREAMING:?set HADOOP_STREAMING to the hadoop-streaming jar}
bin=${BIN:?set BIN to the directory of the neardup binaries}
files="$bin/shingle,$bin/sketch,$bin/band,$bin/pairs,$bin/verify,$bin/cluster"

# Job 1: shingle (kept for verify) -- map-only.
hadoop jar "$jar" -files "$files" \
	-D mapreduce.job.reduces=0 \
	-input "$in" -output "$out/shingles" \
	-mapper 'shingle --unit word -k 5 --counters'

# Job 2: sketch and band in the mapper; pairs in the reducer, keyed on the
# band key (the first field, Hadoop's default).
hadoop jar "$jar" -files "$files" \
	-input "$out/shingles" -output "$out/keys" \
	-mapper "sh -c 'sketch --counters | band -b 18 -r 6 --counters'" \
	-reducer 'pairs --counters'

# Job 3: a pair that shares buckets in several bands can come from several
# reducers; keyed on the whole pair (two fields), one reducer sees all copies
# of it, and uniq keeps one.
hadoop jar "$jar" \
	-D stream.num.map.output.key.fields=2 \
	-input "$out/keys" -output "$out/pairs" \
	-mapper cat -reducer uniq

# Job 4: verify every pair exactly against the shingle records, which are
# merged into one file and shipped to every node (-files ... #shingles.tsv).
hadoop fs -getmerge "$out/shingles" shingles.tsv
hadoop jar "$jar" -files "$files,shingles.tsv#shingles.tsv" \
	-D mapreduce.job.reduces=0 \
	-input "$out/pairs" -output "$out/verified" \
	-mapper 'verify --shingles shingles.tsv --threshold 0.8 --counters'

# Job 5: connected components need every pair: one reducer.
hadoop jar "$jar" -files "$files" \
	-D mapreduce.job.reduces=1 \
	-input "$out/verified" -output "$out/clusters" \
	-mapper cat -reducer 'cluster --counters'
