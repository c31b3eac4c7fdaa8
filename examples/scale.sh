#!/bin/sh
# The dedup job at growing size: examples/dedup.sh with default flags on
# synthetic crawls of 1, 2, 5 and 10 million documents (gencorpus -lengths
# crawl: median about 2 KB, a long tail to 100 KB, 30 % planted
# near-duplicates, exact copies among them; .jsonl.zst, as a crawl is
# kept). For each size: wall time, CPU time, peak memory of each stage
# (STAGE_TIMES, see dedup.sh), the largest scratch space held at once (the
# -T directory, sampled every second), and the cost per document; then the
# same run under a hard limit per process (LIMIT MiB of RLIMIT_DATA, as
# examples/larger-than-memory-bench.sh sets it), whose kept documents must
# be the unlimited run's.
#
#   make scale                                    # SIZES="1000000 2000000 5000000 10000000"
#   SIZES="20000 40000" LIMIT=512 examples/scale.sh   # DIR=/big/disk for the files
#   SIZES=10000000 LIMIT=none examples/scale.sh       # no run under a limit
#
# The corpora are made once per size in DIR and kept there between runs
# (KEEP=0 removes them at the end); a corpus of N documents is the first N
# documents of any larger one.
set -eu
cd "$(dirname "$0")/.."
make -s build
PATH=$PWD/bin:$PATH
SIZES=${SIZES:-"1000000 2000000 5000000 10000000"}
DIR=${DIR:-${TMPDIR:-/tmp}/neardup-scale}
LIMIT=${LIMIT:-4096}
KEEP=${KEEP:-1}
GENFLAGS=${GENFLAGS:-"-seed 1 -format jsonl -lengths crawl -min-words 20 -max-words 20000 -plant 0.3"}
mkdir -p "$DIR"
tmp=$(mktemp -d "$DIR/run.XXXXXX")
cleanup() {
	rm -rf "$tmp"
	[ "$KEEP" = 1 ] || rm -f "$DIR"/crawl-*.jsonl.zst
}
trap cleanup EXIT
go build -o "$tmp/gencorpus" ./internal/tools/gencorpus
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

# scratch PID FILE: until PID ends, write to FILE the most bytes the
# scratch directory held.
scratch() {
	most=0
	while kill -0 "$1" 2> /dev/null; do
		now=$(du -sb "$tmp/scratch" 2> /dev/null | cut -f1)
		[ "${now:-0}" -gt "$most" ] && most=$now
		sleep 1
	done
	echo "$most" > "$2"
}

# dedup NAME CORPUS [ULIMIT]: run examples/dedup.sh, print its stages and totals.
dedup() {
	name=$1 corpus=$2 limit=${3:-}
	rm -rf "$tmp/scratch" && mkdir "$tmp/scratch"
	: > "$tmp/times"
	start=$(date +%s.%N)
	# The kept documents (some 20 GB at 10 million) are only compared
	# between the runs: their checksum is kept, not them.
	(
		if [ -n "$limit" ]; then
			ulimit -d $((limit * 1024))
			export GOMEMLIMIT=$((limit - 128))MiB
		fi
		if STAGE_TIMES="$tmp/times" sh examples/dedup.sh -T "$tmp/scratch" -r "$tmp/report-$name.tsv" "$corpus" 2> "$tmp/stderr"; then
			echo 0 > "$tmp/status"
		else
			echo $? > "$tmp/status"
		fi
	) | cksum > "$tmp/kept-$name.cksum" &
	pid=$!
	scratch "$pid" "$tmp/scratch-bytes" &
	sampler=$!
	wait "$pid"
	wait "$sampler"
	[ "$(cat "$tmp/status")" = 0 ] || { cat "$tmp/stderr"; exit 1; }
	end=$(date +%s.%N)
	awk -F '\t' -v docs="$docs" '
		NF == 5 { printf "    %-8s %8.1f s wall %8.1f s cpu %7.0f MiB peak %7.1f µs cpu/doc\n", $1, $2, $3 + $4, $5 / 1024, ($3 + $4) * 1e6 / docs; cpu += $3 + $4; if ($5 > peak) peak = $5 }
		END { printf "%.1f %.0f\n", cpu, peak / 1024 > "/dev/stderr" }' "$tmp/times" 2> "$tmp/sum"
	read -r cpu peak < "$tmp/sum"
	awk -v name="$name" -v s="$start" -v e="$end" -v docs="$docs" -v cpu="$cpu" -v peak="$peak" -v scratch="$(cat "$tmp/scratch-bytes")" -v input="$input" '
		BEGIN { printf "  %-10s %8.1f s wall %8.1f s cpu %8.1f µs wall/doc %7.1f µs cpu/doc %6.0f MiB largest peak %7.2f GB scratch (%.2f × the input)\n",
			name, e - s, cpu, (e - s) * 1e6 / docs, cpu * 1e6 / docs, peak, scratch / 1e9, scratch / input }'
}

for n in $SIZES; do
	corpus=$DIR/crawl-$n.jsonl.zst
	[ -s "$corpus" ] || "$tmp/gencorpus" -n "$n" $GENFLAGS -o "$corpus"
	docs=$n
	input=$(wc -c < "$corpus")
	if command -v zstd > /dev/null; then
		text=$(zstd -dc "$corpus" | wc -c)
		echo "$n documents: $(awk -v t="$text" -v c="$input" 'BEGIN { printf "%.2f GB of JSON Lines, %.2f GB compressed", t / 1e9, c / 1e9 }')"
	else
		echo "$n documents: $(awk -v c="$input" 'BEGIN { printf "%.2f GB compressed (no zstd command here to measure the text)", c / 1e9 }')"
	fi
	dedup unlimited "$corpus"
	if [ "$LIMIT" = none ]; then
		echo "  kept $((docs - $(wc -l < "$tmp/report-unlimited.tsv"))), dropped $(wc -l < "$tmp/report-unlimited.tsv") (LIMIT=none: no run under a limit)"
		continue
	fi
	dedup "limit-${LIMIT}M" "$corpus" "$LIMIT"
	if cmp -s "$tmp/kept-unlimited.cksum" "$tmp/kept-limit-${LIMIT}M.cksum" && cmp -s "$tmp/report-unlimited.tsv" "$tmp/report-limit-${LIMIT}M.tsv"; then
		echo "  kept $((docs - $(wc -l < "$tmp/report-unlimited.tsv"))), dropped $(wc -l < "$tmp/report-unlimited.tsv"): the same under the limit (cksum $(cut -d' ' -f1-2 "$tmp/kept-unlimited.cksum"))"
	else
		echo "  under the limit, the kept documents or the report differ from the unlimited run's" >&2
		exit 1
	fi
done
