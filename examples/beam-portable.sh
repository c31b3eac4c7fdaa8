#!/bin/sh
# What "make beam-portable-test" runs: neardup-beam on the path a job takes
# on Dataflow, Flink or Spark, and its outputs against the command line's.
#
# A job server runs as a process of its own (Beam's Prism,
# bin/beam-sdk/prism), and so does a worker pool (the Go SDK's boot loader,
# bin/beam-sdk/beam-boot --worker_pool, on port 50000, which the boot loader
# fixes). neardup-beam submits the job to Prism (--runner=universal
# --endpoint=...) and stages itself as the worker binary; Prism asks the
# pool for workers (--environment_type=EXTERNAL), the pool starts the boot
# loader for each, and the boot loader fetches the staged binary from
# Prism's artifact service and runs it: workers that see only what the
# pipeline registered and serialised, as on a cluster.
#
# The documents are real (examples/corpus-multilingual.sh, N a language)
# with planted copies: exact copies, near-copies, chains of near-copies, a
# group of 40 exact copies, in a shuffled order that puts some copies
# before their originals, as a TSV file and a gzipped TSV file. The
# command line runs shingle --number-from 0 | sketch | band | pairs |
# verify | cluster and keep --pairs --report on them, and
# examples/dedup.sh -m minhash -r; the job writes pairs, clusters, kept and
# report. The documents kept and the report must equal keep's and dedup's
# byte for byte; the pairs and clusters, whose shards are each sorted,
# must equal the command line's sorted (header lines once).
#
#   examples/beam-portable.sh     # N=300 JOB_PORT=8073 SHARDS=3 TIMEOUT=600
#
# Exit status 0 when every output is the same, 1 otherwise (the difference
# is shown) or when the job fails or does not end within TIMEOUT seconds.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
BIN=$(cd "${BIN:-bin}" && pwd)
N=${N:-300}
JOB_PORT=${JOB_PORT:-8073}
SHARDS=${SHARDS:-3}
TIMEOUT=${TIMEOUT:-600}
POOL=localhost:50000
SDK=$BIN/beam-sdk
for b in shingle sketch band pairs verify cluster keep dedup neardup-beam beam-sdk/prism beam-sdk/beam-boot; do
	[ -x "$BIN/$b" ] || { echo "beam-portable: no $BIN/$b: run make beam-portable-test" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=
pool=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	# The pool, the boot loaders it started and their workers are one
	# process group (setsid below): a worker outlives the job and the
	# pool, still calling on the job server, unless it is stopped. Each
	# boot loader copied the worker binary into a directory /tmp/bin*
	# of its own (the SDK fixes /tmp) and leaves it there: those of
	# this run, copies of neardup-beam, are removed.
	if [ -n "$pool" ]; then
		kill -TERM -"$pool" 2>/dev/null || true
		i=0
		while [ "$i" -lt 50 ] && kill -0 -"$pool" 2>/dev/null; do
			i=$((i + 1))
			sleep 0.1
		done
		kill -KILL -"$pool" 2>/dev/null || true
		find /tmp -maxdepth 1 -type d -name 'bin*' -newer "$tmp/start" 2>/dev/null | while read -r d; do
			! cmp -s "$d/worker" "$BIN/neardup-beam" || rm -rf "$d"
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The documents.
examples/corpus-multilingual.sh "$N" > "$tmp/real.tsv"
perl -e '
use strict; use warnings;
srand(13);
my @real = map { chomp; [split /\t/, $_, 2] } <STDIN>;
# One word in every $every replaced, from the word $offset on: a near-copy.
sub edit { my ($t, $every, $offset) = @_; my @w = split / /, $t, -1;
	for (my $i = $offset % $every; $i < @w; $i += $every) { $w[$i] = "xyzzy$i" }
	return join " ", @w }
my @docs = @real;
for my $i (0 .. $#real) {
	my ($id, $t) = @{$real[$i]};
	if ($i % 9 == 0) { push @docs, ["$id~copy", $t] }
	elsif ($i % 7 == 0) { push @docs, ["$id~edit", edit($t, 40, $i)] }
	elsif ($i % 11 == 0) { for my $j (0 .. 2) { $t = edit($t, 30, 10 * $j + $i); push @docs, ["$id~chain$j", $t] } }
}
push @docs, ["$real[5][0]~many$_", $real[5][1]] for 0 .. 39;
for (my $i = $#docs; $i > 0; $i--) { my $j = int rand($i + 1); @docs[$i, $j] = @docs[$j, $i] }
my $half = int(@docs / 2);
open my $a, ">", "$ARGV[0]/a.tsv" or die; open my $b, "| gzip -n > $ARGV[0]/b.tsv.gz" or die;
print $a "$docs[$_][0]\t$docs[$_][1]\n" for 0 .. $half - 1;
print $b "$docs[$_][0]\t$docs[$_][1]\n" for $half .. $#docs;
close $a; close $b or die;
print STDERR "beam-portable: ", scalar(@docs), " documents (", scalar(@real), " real)\n";
' "$tmp" < "$tmp/real.tsv"
set -- "$tmp/a.tsv" "$tmp/b.tsv.gz"

# The command line.
mkdir "$tmp/cli"
cd "$tmp/cli"
"$BIN/shingle" --number-from 0 -- "$@" > shingles.tsv
"$BIN/sketch" --method minhash shingles.tsv | "$BIN/band" --threshold 0.8 | "$BIN/pairs" > candidates.tsv
"$BIN/verify" --shingles shingles.tsv candidates.tsv > pairs.tsv
"$BIN/cluster" --method components pairs.tsv > clusters.tsv
"$BIN/keep" --pairs pairs.tsv --report report.tsv -- "$@" > kept.tsv 2> keep.err
"$BIN/dedup" -m minhash -r dedup-report.tsv -- "$@" > dedup-kept.tsv 2> dedup.err
cd "$root"

# The job server and the worker pool, each a process of its own.
"$SDK/prism" --job_port "$JOB_PORT" --serve_http=false --log_level info > "$tmp/prism.log" 2>&1 &
pids="$pids $!"
# The pool, and the boot loaders it starts, write pipeline_options.json in
# their working directory: the scratch one. It leads a process group of its
# own, which its workers join (cleanup stops them all).
touch "$tmp/start"
start_pool() {
	(cd "$tmp" && exec setsid "$SDK/beam-boot" --worker_pool) > "$tmp/pool.log" 2>&1 &
	pool=$!
}
start_pool
up() { # LOG TEXT: wait up to 30 s for TEXT in LOG
	i=0
	until grep -q "$2" "$1"; do
		i=$((i + 1))
		[ "$i" -le 300 ] || { echo "beam-portable: $2 not in $1 after 30 s:" >&2; cat "$1" >&2; exit 1; }
		sleep 0.1
	done
}
up "$tmp/prism.log" "Serving JobManagement"
# Port 50000 is in Linux's range of ephemeral ports: another program's
# connection may hold it for a while, and the pool then fails to listen.
# It is started again, a second apart, up to 10 times.
tries=1
while :; do
	up "$tmp/pool.log" "starting Process server\|address already in use"
	grep -q "address already in use" "$tmp/pool.log" || break
	if [ "$tries" -ge 10 ]; then
		echo "beam-portable: port 50000 still in use after $tries tries:" >&2
		cat "$tmp/pool.log" >&2
		exit 1
	fi
	wait "$pool" 2>/dev/null || true
	echo "beam-portable: port 50000 in use: the worker pool is started again in a second" >&2
	sleep 1
	tries=$((tries + 1))
	start_pool
done

# The job, submitted.
start=$(date +%s.%N)
status=0
timeout "$TIMEOUT" "$BIN/neardup-beam" --runner=universal --endpoint="localhost:$JOB_PORT" \
	--environment_type=EXTERNAL --environment_config="$POOL" --worker_binary="$BIN/neardup-beam" \
	-number-from 0 -method minhash -threshold 0.8 -shards "$SHARDS" \
	-write pairs,clusters,kept,report -output "$tmp/beam/run" -- "$@" 2> "$tmp/beam.err" || status=$?
end=$(date +%s.%N)
if [ "$status" -ne 0 ]; then
	cat "$tmp/beam.err" >&2
	echo "== prism" >&2
	tail -40 "$tmp/prism.log" >&2
	echo "== worker pool" >&2
	tail -40 "$tmp/pool.log" >&2
	[ "$status" -ne 124 ] || echo "beam-portable: the job did not end in $TIMEOUT s" >&2
	exit 1
fi
grep -q "starting worker id=" "$tmp/pool.log" || { echo "beam-portable: the worker pool started no worker" >&2; exit 1; }

# The comparison.
sorted() { # the header lines once, then the records, each sorted bytewise
	{ grep -h '^#neardup ' "$@" | LC_ALL=C sort -u; grep -hv '^#neardup ' "$@" | LC_ALL=C sort; } || true
}
fail=0
same() { # NAME GOT WANT
	if cmp -s "$2" "$3"; then
		printf 'beam-portable: %-22s the same: %s lines\n' "$1" "$(wc -l < "$3")"
	else
		echo "beam-portable: $1 differs from the command line's:" >&2
		diff "$3" "$2" | head -20 >&2
		fail=1
	fi
}
for o in pairs clusters; do
	sorted "$tmp"/beam/run-$o-*-of-*.tsv > "$tmp/beam-$o.sorted"
	sorted "$tmp/cli/$o.tsv" > "$tmp/cli-$o.sorted"
	same "$o" "$tmp/beam-$o.sorted" "$tmp/cli-$o.sorted"
done
cat "$tmp"/beam/run-kept-* > "$tmp/beam-kept.tsv"
cat "$tmp"/beam/run-report-* > "$tmp/beam-report.tsv"
same kept "$tmp/beam-kept.tsv" "$tmp/cli/kept.tsv"
same report "$tmp/beam-report.tsv" "$tmp/cli/report.tsv"
same "kept, as dedup.sh's" "$tmp/beam-kept.tsv" "$tmp/cli/dedup-kept.tsv"
same "report, as dedup.sh's" "$tmp/beam-report.tsv" "$tmp/cli/dedup-report.tsv"
echo "beam-portable: $(grep -c 'starting worker id=' "$tmp/pool.log") worker(s) started by the pool; the job took $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f s", e - s }')"
[ "$fail" -eq 0 ] || exit 1
echo "beam-portable: ok: the job through Prism and external workers wrote what the command line writes"
