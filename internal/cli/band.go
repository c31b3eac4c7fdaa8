package cli

import (
	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/record"
	"github.com/urfave/cli/v2"
)

// Band is the band stage.
func Band() Stage {
	return Stage{
		Name:  "band",
		Usage: "turn MinHash signatures, SimHash fingerprints or sketches of vectors into LSH keys",
		Args:  "[FILE...]",
		Description: `Reads MinHash signatures (sketch --method minhash or oph) and writes, for
each document, one record per band:

   key TAB id

The signature is cut into b bands of r rows; the key is the band number (4
hex digits) and the XXH64 hash of the band's rows (16 hex digits). Two
documents whose signatures agree on all rows of some band share that key and
become a candidate pair (pairs). Two sets of Jaccard similarity s become a
candidate with probability 1-(1-s^r)^b, an S-curve that rises steepest near
(1/b)^(1/r).

Give -b and -r, or --threshold t: then b and r (b·r ≤ n, the signature
length) minimise fp-weight × (area under the S-curve below t) + fn-weight ×
(area above it over t) among the bandings under which a pair exactly at t
becomes a candidate with probability at least --recall-at-threshold (0.995).
verify removes false positives exactly, so recall is what matters: libraries
that weigh both areas alone lose about 8% of the pairs at the threshold. The
choice is printed on standard error. The header names the threshold
(threshold=T) when it chose b and r, or was given with -b and -r; verify
without --threshold takes it as its own. With -b and -r alone the header has
no threshold.

Documents without shingles (size 0) get no key; their count is reported.

With --bbit FILE band also writes each signature to FILE reduced to 4 bits
a value (b-bit minwise hashing, Li and König 2010; the low bits of each value
mixed again), one record a document with shingles:

   id TAB size TAB digits

size the document's distinct shingles, then one hex digit a value, in the
order of the signature: 128 digits for 128 values, a sixteenth of the
signature's bytes. The file has the input's headers and band's own with
bbit=4. verify --documents --bbit FILE drops the candidate pairs whose sizes
or b-bit signatures put them far below the threshold before it reads the
documents (verify(1), "B-BIT SIGNATURES").

Every signature has the n values the sketch header says (n=), or without a
header as many as the first signature: one of another length is bad input
(file:line, status 2), naming the header or the first signature. The sketch
header must come before the records in every file: a sketch header after
records without one, or a file of records without it after a file with it,
is bad input (headerless records and headered ones are not mixed). An empty
id, or one with an escape other than \t, \n, \r, \\, is bad input too.

With --hamming k it reads SimHash fingerprints (sketch --method simhash) and
writes the keys of a Hamming table scheme (Manku, Jain and Das Sarma 2007):

   key TAB id TAB fingerprint

The f bits are cut into B blocks (--blocks, default k+3; the first f mod B
blocks one bit wider); each table is one choice of B-k blocks, keyed on
those blocks' bits: C(B,k) tables. Two fingerprints within k bits differ in
at most k blocks, so they share the key of some table: the scheme is exact.
--tables pigeonhole is B = k+1 (k+1 tables keyed on one block each: the
fewest tables, but short keys that many fingerprints share by chance); more
blocks make more tables with longer keys (6 blocks and k = 3: 20 tables keyed
on 31-33 bits). The key is the table number (4 hex digits) and the table's
key bits, left-aligned in f/4 hex digits. The header names f, k, the blocks
and their widths; -v prints the layout. pairs keeps the pairs within k bits,
each from the first table that keys it.

VECTORS
The sketches of vectors are banded the same way, their keys "key TAB id":
hyperplane fingerprints (sketch --method hyperplane, of any multiple of 64
bits) in bands of r bits, band i keyed on bits i·r to (i+1)·r − 1, and
p-stable hashes (sketch --method pstable) in bands of r hashes. Two vectors
at cosine C agree on a bit with probability p = 1 − θ/π (θ = arccos C);
two at distance R agree on a hash of width W with Datar et al.'s p(R/W)
(sketch(1)). --cosine C (for fingerprints) or --distance R (for p-stable
hashes, the width W from the sketch header) chooses b and r from the
header's length: the most rows a band, which makes the fewest far pairs
candidates, and as many bands as fit, among those under which a pair at
the target becomes a candidate, 1 − (1 − p^r)^b, with probability at least
--recall-at-threshold (0.995). The choice is printed on standard error,
and -v prints the S-curve (at cosines 0, 0.5, 0.7, 0.8, 0.9, 0.95, or at
0.5 to 3 times the distance). The header says threshold=C, which verify
--cosine takes as its threshold, or distance=R; with -b and -r alone,
neither. 1024 bits at cosine 0.8 make 85 bands of 12 bits (a pair at 0.8
a candidate with probability 0.9963, two unrelated vectors with 0.02); at
0.9, 64 bands of 16 bits. Unlike --hamming K, whose tables multiply as K
grows with the bits a cosine of 0.8 lets differ, the keys are b a vector
and memory is that of any banding. Fingerprints of 64 or 128 bits may be
banded too; longer ones only so (band --hamming refuses them).

CONTAINMENT
With --containment T it reads shingle records (not signatures) and writes
keys under which every pair (A, B) with containment c(A,B) = |A∩B|/|A| >= T
becomes a candidate, at every ratio of their sizes: an exact prefix-filter
join (AllPairs, Bayardo, Ma and Srikant 2007, for containment), complete by
construction, not a probability. The shingles of each document are ordered
by their document frequency in --df TABLE (docfreq of the same shingles),
or in corpus mode without --df by the frequencies band counts itself,
rarest first, ties by hash. A shares at least t = ceil(T·|A|) shingles with
every B that holds it at T, so one of A's first |A|-t+1 shingles, its
prefix, is in B. A document's shingles are written as records,

   key TAB id TAB role TAB size

the key the shingle's hash, role p (in the prefix: it probes) or i (an
index entry: it is only looked up), size the document's number of shingles;
pairs pairs a probe with every other record of its key whose document has at
least t shingles, never two i records, and does not cap these buckets. A
shingle of df 1 can't be shared and is not written (it takes its place in
the prefix). The header names containment=T, the order (df=, the table's
content hash, and df-docs=) and the mode; pairs refuses to mix these keys
with MinHash band keys, and verify --containment --threshold T scores the
candidates. Why a join and not MinHash banding: for |B|/|A| = 10 and c = 0.9
the Jaccard similarity is 0.09, where no banding reaches recall 0.99
without drowning in candidates; LSH Ensemble (size-partitioned banding)
would bound the candidates but not reach every pair.

In corpus mode band reads its input twice and writes only the index entries
a probe can pair: the first pass finds the shingles some document probes,
each with the least t of the documents probing it; the second writes every
document's probes, and an index entry of a document B only on a shingle
some document A probes with |B| >= t(A). The other entries could make no
pair: the candidates are exactly those of all entries, from a tenth of the
records or fewer. Standard error gives the probes and entries written and
the entries left out. An input that can't be read twice (standard input from
a pipe, a FIFO) is copied to a file in --temp-dir as the first pass reads
it, and removed at the end; standard error says how many bytes were copied.
Standard input redirected from a file is read again from where it began. A
file that changed between the passes is an error (each pass sums every
document's line, size and shingles).

In corpus mode without --df band counts the document frequencies of its
input itself, in a pass before those two (the one that copies an input that
can't be read twice), with docfreq's counter: a buffer of --memory, sorted
runs spilled to --temp-dir. Its output is byte for byte that of --df on
docfreq's table of the same shingles (df= and df-docs= too), without the
table file written and parsed back; standard error gives the documents and
distinct shingles counted, and the runs spilled. Stored and query modes
need --df: their keys meet keys ordered by the same table, kept for them.

--containment-mode says what the documents are:
   corpus   (default) the documents the table counts; their pairs are
            complete.
   stored   every shingle of df >= 2 is written (in one pass: the
            queries to come may probe any), and the prefix's shingles of
            df 1 too: the records go into a band index (bandindex
            build/add) that queries are paired with.
   query    documents the table does not count (a licence, an article),
            to pair --against such an index: every shingle of df >= 1 is
            written, and those of df 1, which a stored document holds
            without a record, come last in the order. Every stored document
            that holds a query at >= T, and every one the query holds, is
            found; pairs among the queries only through shingles the corpus
            also holds.

Measured (examples/containment-bench.sh; 19,801 real documents: man pages
in 7 languages, Go module files in several versions, Debian copyright files,
planted containment; word 5-shingles, T = 0.9): every one of the 56,487
directed pairs with c >= 0.9 (|A| >= 10) found, 62,957 candidates (1.11 per
true pair), all verified pairs true (internal/tools/containtruth, an exact
join through an inverted index). It writes 1.4 million records (1.2 million
probes, 195,000 index entries; all the index entries would be 13.3
million), against 356,000 for MinHash bands at 0.8 (docs/jobs.md, "Containment").

Memory (--containment): 12 bytes per hash of the table while it is read
(without --df: the counting buffer of --memory, and 12 bytes per hash of
df >= 2 as it empties), then its hashes of df >= 2 (df >= 1 for query) in a hash table of 16 to 32
bytes each (buckets of one cache line, on Linux on huge pages where the
kernel gives them to a program that asks: transparent huge pages set to
madvise or always), and one document per worker; in corpus mode also 16
bytes per input line (a document's last prefix shingle) and 32 to 64 bytes
per shingle probed, held through both passes (measured: 210 to 250 MiB peak
on the corpus above, whose table holds 7.5 million hashes, 3.25 million of
df >= 2, and whose documents probe 412,000 shingles).

Memory: one record at a time per worker; it streams. Measured peak resident memory (make bench, make scale; two cores):
17 MiB on the Go source tree, 15 MiB on 1 million synthetic documents.

EXAMPLES
   sketch shingles.tsv | band --threshold 0.8 | pairs > candidates.tsv
   shingle --sketch oph corpus.jsonl | band --bbit bits.tsv | pairs > pairs.tsv
   band -b 20 -r 5 sketches.tsv
   sketch --method hyperplane --bits 1024 --vector-field emb corpus.jsonl |
       band --cosine 0.8 -v | pairs
   sketch --method simhash shingles.tsv | band --hamming 3 -v | pairs
   band --containment 0.9 shingles.tsv | pairs |
       verify --shingles shingles.tsv --containment --threshold 0.9
   docfreq corpus.tsv > df.tsv
   band --containment 0.9 --df df.tsv --containment-mode stored corpus.tsv`,
		SeeAlso: []string{"sketch", "pairs", "bandindex"},
		Flags: merge([]cli.Flag{
			&cli.IntFlag{Name: "b", Usage: "number of bands"},
			&cli.IntFlag{Name: "r", Usage: "rows per band"},
			&cli.Float64Flag{Name: "threshold", Value: 0.8, Usage: "target Jaccard similarity when -b and -r are not given"},
			&cli.Float64Flag{Name: "cosine", Usage: "hyperplane fingerprints: choose -b and -r (bands of bits) for the target cosine `C`"},
			&cli.Float64Flag{Name: "distance", Usage: "pstable sketches: choose -b and -r for the target Euclidean distance `R`"},
			&cli.Float64Flag{Name: "fp-weight", Value: band.DefaultFPWeight, Usage: "weight of the false-positive area in the choice of b and r"},
			&cli.Float64Flag{Name: "fn-weight", Value: band.DefaultFNWeight, Usage: "weight of the false-negative area in the choice of b and r"},
			&cli.Float64Flag{Name: "recall-at-threshold", Value: band.DefaultFloor, Usage: "least probability that a pair at the threshold (or --cosine, --distance) becomes a candidate"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print the banding and its S-curve (or the Hamming layout) on standard error"},
			&cli.IntFlag{Name: "hamming", Usage: "key SimHash fingerprints for distance at most `K` bits"},
			&cli.StringFlag{Name: "tables", Value: "manku", Usage: "Hamming `SCHEME`: manku (C(B,k) tables of B-k blocks) or pigeonhole (k+1 blocks)"},
			&cli.IntFlag{Name: "blocks", Usage: "Hamming blocks `B` for the manku scheme (default k+3)"},
			&cli.Float64Flag{Name: "containment", Usage: "read shingle records and write containment keys: every pair with containment at least `T` becomes a candidate"},
			&cli.StringFlag{Name: "df", Usage: "with --containment, the document-frequency `TABLE` (docfreq) that orders the shingles: needed for stored and query modes; in corpus mode band counts them itself when it is not given"},
			&cli.StringFlag{Name: "containment-mode", Value: record.ContainCorpus, Usage: "with --containment, `MODE`: corpus (the documents the table counts), stored (for a band index that queries are paired with) or query (documents the table does not count, against such an index)"},
			&cli.StringFlag{Name: "bbit", Usage: "also write each signature at 4 bits a value (b-bit minwise hashing) to `FILE`, for verify --bbit to drop the candidates far below the threshold"},
			&cli.StringFlag{Name: "temp-dir", Usage: "with --containment, directory `DIR` for the copy of an input that can't be read twice (standard input from a pipe), which corpus mode reads twice, and for the runs its counting spills without --df (default: the system's)"},
			memoryFlag("with --containment and no --df, the counting buffer `SIZE` before it spills a sorted run to --temp-dir"),
		}, commonFlags()),
		Action: bandAction,
	}
}

func bandAction(c *cli.Context, env *Env) error {
	opt := band.Options{
		B:         c.Int("b"),
		R:         c.Int("r"),
		Threshold: c.Float64("threshold"),
		FPWeight:  c.Float64("fp-weight"),
		FNWeight:  c.Float64("fn-weight"),
		Floor:     c.Float64("recall-at-threshold"),
		Verbose:   c.Bool("verbose"),
	}
	if (opt.B != 0 || c.IsSet("cosine") || c.IsSet("distance")) && !c.IsSet("threshold") {
		// -b and -r alone: no threshold chose them, none goes in the
		// header; --cosine and --distance are the targets of vectors.
		opt.Threshold = 0
	}
	opt.Cosine, opt.Distance = c.Float64("cosine"), c.Float64("distance")
	for _, name := range []string{"cosine", "distance"} {
		if c.IsSet(name) && c.Float64(name) == 0 {
			return usagef("--%s 0: want a %s above 0", name, name)
		}
	}
	if (c.IsSet("cosine") || c.IsSet("distance")) && (c.IsSet("fp-weight") || c.IsSet("fn-weight")) {
		return usagef("--fp-weight and --fn-weight weigh the Jaccard S-curve: --cosine and --distance take the most rows that reach --recall-at-threshold")
	}
	opt.BBit = c.String("bbit")
	if c.IsSet("containment") {
		if opt.B != 0 || opt.R != 0 || c.IsSet("threshold") || c.IsSet("hamming") || c.IsSet("fp-weight") || c.IsSet("fn-weight") || c.IsSet("recall-at-threshold") {
			return usagef("--containment keys shingle records by a prefix filter: -b, -r, --threshold, its weights and --hamming are for signatures")
		}
		mem, err := memoryOption(c)
		if err != nil {
			return err
		}
		opt.Containment = &band.ContainmentOptions{Threshold: c.Float64("containment"), DF: c.String("df"), Mode: c.String("containment-mode"), TempDir: c.String("temp-dir"), MemoryBytes: mem}
		return runStream(c, env, &opt, &opt.Common, band.Run)
	}
	if c.IsSet("df") || c.IsSet("containment-mode") || c.IsSet("temp-dir") || c.IsSet("memory") {
		return usagef("--df, --containment-mode, --temp-dir and --memory are for --containment T")
	}
	if c.IsSet("hamming") {
		h, err := hammingOptions(c, c.Int("hamming"))
		if err != nil {
			return err
		}
		if opt.B != 0 || opt.R != 0 || c.IsSet("threshold") {
			return usagef("--hamming keys fingerprints by tables: -b, -r and --threshold are for MinHash signatures")
		}
		opt.Hamming = h
	} else if c.IsSet("blocks") || c.IsSet("tables") {
		return usagef("--blocks and --tables choose the tables of --hamming K")
	}
	return runStream(c, env, &opt, &opt.Common, band.Run)
}
