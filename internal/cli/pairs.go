package cli

import (
	"github.com/neardup/neardup/internal/pairs"
	"github.com/urfave/cli/v2"
)

// Pairs is the pairs stage.
func Pairs() Stage {
	return Stage{
		Name:  "pairs",
		Usage: "turn band keys into candidate pairs",
		Args:  "[FILE...]",
		Description: `Reads band records "key TAB id" and writes every pair of documents that share
a key, once, as

   idA TAB idB

with idA < idB bytewise, sorted by idA then idB (the order of LC_ALL=C sort).

Memory: by default pairs holds its input within --memory (by default an
eighth of the machine's memory, 64M to 2G):
52 bytes per band record (the record, and its copy while they are sorted),
each distinct id once (its length plus about 90 bytes), 8 bytes per
candidate pair, the arrays counted whole, and a table of the pairs tried
last on each core (a pair made in several buckets is judged and held
once; 9 bytes a slot, a quarter of the core's share of the records, 36 KiB
to 4.5 MiB). Past --memory it sorts the
records held by key, then id, and spills them as a compressed run (binary:
varint key deltas; ids of 12 digits, as shingle --number-from writes them,
as numbers) to --temp-dir, each run cut into parts by key ranges, and at
the end merges the runs one bucket at a time, as --sorted reads, the parts
at once on every core (-j), through the pair buffer that spills; standard
error says so in one line (runs, compressed bytes). The output is the same
for any --memory and -j, capped buckets included (their representatives
are the smallest ids of every run). Measured under load (two cores shared),
band records of a gencorpus crawl corpus of 200,000 documents (shingle
--number-from 0 --sketch minhash | band, 3.6 million records, 18 bands):
--memory 100G (no spill) 1.1 CPU s, 282 MB peak RSS; 256M the same; 64M
4 runs, 34 MB on disk (9.4 bytes a record), 3.4 CPU s, 85 MB; 16M 15 runs,
36 MB of RSS. Peak resident memory is about --memory plus 20 MiB and the
largest bucket; spilling costs about 650 ns of CPU per band record. The
containment keys' in-memory mode is not bounded (see below). With --sorted
it reads input sorted by key,
   LC_ALL=C sort -t$'\t' -k1,1 -S 2G keys.tsv | pairs --sorted
one bucket at a time: it holds the largest bucket and a buffer of pairs
(--memory) that spills to sorted runs in --temp-dir, merged at the end, so
inputs larger than memory work. Both modes write the same output. The
buffer counts all it holds against --memory: each pair's record, 24 bytes
of index and the byte its parallel sort takes, its arrays whole (not only
what they hold), and while an array grows the old one beside the new. Peak
resident memory with --sorted is the largest bucket, --memory and about 20
MiB (measured on one bucket of 2,500 ids, four times: 23, 52 and 147 MB at
--memory 8M, 32M and 128M, where it was 36, 110 and 327 MB before the
buffer counted its arrays whole).

-j N sorts with N goroutines (0, the default, one per core): the band
records, the ids and the pairs in memory, and with --sorted or --against
each buffer of pairs before it is written or spilled. The output is the
same for any -j. Sorting the pairs in parallel holds one more byte per pair
while it runs.

LARGE BUCKETS
A bucket of m ids makes m(m-1)/2 pairs: m copies of one document, or m
variants of a template, would cost their square here and in every stage
after. By default every pair of a bucket of up to --max-bucket 512 ids is
made (at most 130,816 pairs). Measured (examples/pairs-recall.sh, 37,462
real documents: man pages and Debian docs in six languages, Chinese
fortunes, Go source and modules in several versions; char 5-shingles,
--normalize width,punct, band --threshold 0.8): the largest bucket held
1,393 ids (gcloud man pages), the next 367; of the 38,465 verified pairs
banding gives, the default makes 38,458 (--max-bucket 32: 34,088; 256:
38,437; 0: all); against the exact join's 38,510 pairs at Jaccard >= 0.8,
recall 0.99865, precision 1. With word 5-shingles the largest bucket held
176 ids and the default made every pair. A
larger bucket is paired as if its ids came in order: each of its first N
(--max-bucket N) with every id before it, each later one with the bucket's
--reps K smallest ids (default 32), its representatives, only: about N²/2
+ K·m pairs. Standard error says how many buckets were capped, the
largest, and how many pairs were not made, and --progress counts the pairs
tried as a large bucket is paired. The header records max-bucket=N (and
reps=K when K is not N; --max-bucket 32 alone caps as before, at 32 ids
with 32 representatives). --max-bucket 0: no cap, all pairs. The cap is the
same in every mode (in memory, --sorted, --against, Hamming tables).

With ids that are arrival numbers (shingle --number-from), the
representatives are the earliest documents of the bucket, and which pairs
a document has depends only on the documents before it: a batch paired
--against an index gets exactly the pairs a one-shot run over everything
gives it. Every document of a capped bucket is paired with the bucket's
earliest document, so keep --pairs, which drops a document with a verified
pair with an earlier one, drops all but the first of a group of copies,
however large. Without arrival numbers (no ids=number in the shingle
header) the representatives are the smallest ids, a copy beyond them is
paired with no earlier copy, and keep --pairs may keep several: when a
bucket is capped, standard error says so.

What cluster then finds in a capped bucket: the connected components of a
graph whose later ids are stars around the representatives rather than a
complete graph. Two later documents are joined only through a
representative that verifies with both, so a large bucket of documents
that are near-duplicates of each other but not of its K smallest ids may
split into more clusters than the exact components. Measured (--max-bucket
4, so 4 representatives; TestCapComponents in internal/pairs, go test -v
-run CapComponents ./internal/pairs): 40 groups of 30 variants of a
100-token document (up to 8 tokens replaced), each group one bucket, pairs
verified at Jaccard >= 0.8: 41 components where the exact ones are 40, one
group of 30 split in two; all 1,170 other documents in their exact
cluster. A chain of 20 documents, each a near-duplicate of the next only,
in one bucket: 16 components instead of 1. Use --max-bucket 0 where exact
components of large buckets matter more than their cost.

Hamming band records (band --hamming k: "key TAB id TAB fingerprint") give
only the pairs whose fingerprints differ in at most k bits, each from the
first table of the scheme in which the two share a key: both tests need only
the two fingerprints, so no set of pairs is kept and --sorted works the same.
The scheme comes from the band header; for input without one, give --hamming
K (and --blocks or --tables as band had them). A pair in a bucket capped by
--max-bucket and not made there is not looked for in its other tables. Memory: about 24 bytes
per band record and, per distinct id, its length plus about 56 bytes.

CONTAINMENT KEYS
Containment keys (band --containment T: "key TAB id TAB role TAB size", with
a band header scheme=containment) are grouped by key as well, but a pair is
made only of a probe (role p) and another record of its key whose document
has at least ceil(T·size of the probe) shingles, never of two records that
are not probes: every pair with containment >= T one way or the other is
made (the prefix filter of band(1)), and each once. Their buckets are never
capped: a cap would lose such pairs, so --max-bucket or --reps given with
them is refused, the header says max-bucket=0, and standard error gives the number
of buckets, the largest and the pairs tried. A containment record without
its band header is refused (its T is needed), and so is a mix of containment
and MinHash band records, by their header lines, naming both. In memory the
records are parsed, sorted by key (in 256 parts, each on its own) and
paired on -j jobs; the pairs are made per probing document: a pair comes
up once for every key of its prefix that the other document holds (6.6
million times for 63,000 pairs on the containment bench), and a stamp per
document and job keeps each pair once or twice (from either side). Memory
(in memory): about 24 bytes per record (a part's once more while it is
sorted), 12 more per probe and 4 per record of a bucket that pairs, per
distinct id its length plus about 64 bytes (and 4 more per job), and 8
bytes per pair kept (measured: 117 MiB peak for the 1.4 million records of
19,801 documents of band's containment bench); with --sorted, the largest bucket and the pair buffer; --against (query mode, see bandindex(1)): the batch's records
(their bytes and 16 more each) and the pair buffer.

AGAINST AN INDEX
--against IDX pairs a batch of new band records with the records stored in
a band index (bandindex(1)) of the documents seen before, which are not
read again: for each key of the batch, the bucket is the batch's ids and
the stored ones together, and its pairs that hold an id of the batch are
written (an id in both counts as new): pairs among the new documents and
between new and old, never between two old ones, each once, sorted as
always. --max-bucket caps the bucket as a whole: its representatives are the
smallest ids of batch and index together (the index's other ids are read
only when an id of the batch is among them). The batch's header lines
must be those of the records the index was built from (but for band's
threshold=T, accepted when the index's band header has none: an index built
before band wrote it, or from -b and -r, holds the same keys). With arrival
numbers (shingle --number-from) a batch numbered over the index's batches
is refused, naming both (one the index holds already is paired as the first
time, said on standard error), and the header's batches= names the index's
batches, for verify --documents to check the older files. The pairs of the
old documents and those of --against together are the pairs of everything.
Memory: the batch as above (with --sorted, its largest bucket), per run of
the index the first key of each block and one block of about 64 KiB, and
the pair buffer (--memory), spilled to disk past it. An index of more runs
than files can be open at once (see bandindex(1)) has its newest runs
merged into a temporary run in --temp-dir first, as standard error says.

B-BIT SIGNATURES
With --bbit FILE, written by band --bbit in the same pipeline, pairs leaves
out the pairs far below the threshold band chose its banding for (threshold=
in band's header): those whose sizes rule them out (Jaccard is at most the
smaller size over the larger) and those whose signatures at 4 bits a value
agree on so few positions that a pair at the threshold would with
probability under 1e-12 (verify(1), "B-BIT SIGNATURES", has the bound). Most
candidates of a dedup are such pairs. FILE is read once the input is read
to its end (band has then renamed it into place); its shingle and sketch
headers must be the input's. The header says bbit=4. One line on standard
error says how many pairs went, by size and by signature; pairs with a
document FILE has no signature of are kept, and counted. Memory: 68 bytes
per document of FILE while the pairs are written (ids that are not arrival
numbers add a map entry each), and 4 per document held (its place in FILE's
table), taken from what the pairs held in memory may use.

EXAMPLES
   band --threshold 0.8 sketches.tsv | pairs > candidates.tsv
   shingle --number-from 0 --sketch oph corpus.jsonl.zst | band --bbit bits.tsv |
       pairs --bbit bits.tsv > candidates.tsv
   LC_ALL=C sort -t$'\t' -k1,1 -S 4G keys.tsv | pairs --sorted --max-bucket 1000
   band --hamming 3 fingerprints.tsv | pairs > near.tsv
   pairs --against crawl.idx todays-keys.tsv > new-candidates.tsv
   band --containment 0.9 --df df.tsv shingles.tsv | pairs > candidates.tsv`,
		SeeAlso: []string{"band", "verify", "cluster", "bandindex"},
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-bucket", Value: pairs.DefaultMaxBucket, Usage: "in a bucket of more than `N` ids, pair the later ones with its --reps smallest only (0: no cap, all pairs)"},
			&cli.IntFlag{Name: "reps", Value: pairs.DefaultReps, Usage: "the `K` smallest ids of a capped bucket, its representatives (at most --max-bucket; 0: --max-bucket)"},
			&cli.BoolFlag{Name: "sorted", Usage: "the input is sorted by key: stream it one bucket at a time"},
			memoryFlag("`SIZE` held before spilling to --temp-dir: band records (default mode), the pair buffer"),
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for spilled runs (default: the system's)"},
			&cli.StringFlag{Name: "against", Usage: "pair the input, a batch of new band records, with the band index `IDX` (bandindex)"},
			&cli.StringFlag{Name: "bbit", Usage: "the b-bit signatures `FILE` of band --bbit: leave out the pairs far below band's threshold by their sizes and signatures"},
			&cli.IntFlag{Name: "hamming", Usage: "the input is Hamming band records without a header, for distance at most `K`"},
			&cli.StringFlag{Name: "tables", Value: "manku", Usage: "with --hamming, the `SCHEME` band used: manku or pigeonhole"},
			&cli.IntFlag{Name: "blocks", Usage: "with --hamming, the blocks `B` band used (default k+3)"},
			jobsFlag(), outputFlag(), compressFlag(), noHeaderFlag(), skipBadFlag(), progressFlag(), countersFlag(),
		},
		Action: pairsAction,
	}
}

func pairsAction(c *cli.Context, env *Env) error {
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	opt := pairs.Options{
		MaxBucket:    c.Int("max-bucket"),
		Reps:         c.Int("reps"),
		Sorted:       c.Bool("sorted"),
		MemoryBytes:  mem,
		TempDir:      c.String("temp-dir"),
		Against:      c.String("against"),
		MaxBucketSet: c.IsSet("max-bucket"),
		RepsSet:      c.IsSet("reps"),
		BBit:         c.String("bbit"),
		HoldLimit:    holdLimit,
	}
	if c.IsSet("hamming") {
		h, err := hammingOptions(c, c.Int("hamming"))
		if err != nil {
			return err
		}
		opt.Hamming = h
	} else if c.IsSet("blocks") || c.IsSet("tables") {
		return usagef("--blocks and --tables describe the tables of --hamming K")
	}
	holdGC()
	return runStream(c, env, &opt, &opt.Common, pairs.Run)
}
