package cli

import (
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/verify"
	"github.com/urfave/cli/v2"
)

// Verify is the verify stage.
func Verify() Stage {
	return Stage{
		Name:  "verify",
		Usage: "score candidate pairs exactly and keep those above a threshold",
		Args:  "[FILE...]",
		Description: `Reads candidate pairs "idA TAB idB" and writes the pairs whose similarity
reaches --threshold:

   idA TAB idB TAB similarity                   (6 decimals)
   idA TAB idB TAB jaccard TAB c(A,B) TAB c(B,A) with --containment

with idA < idB bytewise, in the order of the input.

Without --threshold, the threshold is the one band chose its banding for,
read from the pairs' band header (threshold=T, said on standard error:
"verify: threshold 0.7 from band's header"); when the header has none
(band -b and -r, or no header), 0.8. Candidates of containment keys (band
--containment T) need --containment (refused without it) and take T from
the header the same way.

With --shingles FILE the similarity is the exact Jaccard similarity
|A∩B|/|A∪B| of the two documents' shingle sets, and --containment adds the
containments c(A,B) = |A∩B|/|A| both ways and keeps a pair when either
containment reaches the threshold (one document inside the other). With
--sketches FILE it is the estimate from sketches: the fraction of equal
positions of MinHash signatures, Broder's estimate from bottom-s samples, or
from MOD_m samples (with containment).

With --documents FILE (repeated for more files) the similarity is exact
too, but no shingle file is needed: verify reads the documents themselves
(TSV, JSON Lines, lines or Parquet, read as shingle reads them: --format,
--id-field, --text-field) and shingles the ones in some pair again, as the
shingle header of the pairs says (unit, k, hash, seed; a stop-word file
must be given again with --stopwords). With --files each document is read
from its own file, its id being its path, and --documents names the files
and directories they must be under: only those documents are read. The
check is on the paths resolved, so a symlink in the tree to a file outside
it is refused (status 2, naming where it leads); --documents / takes every
path. The
documents are read as the pairs' shingle header says shingle read them
(format, id-field, text-field, ids=number from=N), unless a flag says
otherwise; a flag that disagrees is refused (status 2) naming both. With
arrival numbers the files are checked against the inputs numbered (the
shingle header's inputs=, and with pairs --against the index's batches=),
in order: one that is not the input numbered there is refused (status 2),
naming both. When
none of the documents the pairs name is found, verify stops with status 2
("the ids do not match"), showing an id from each side.

With --offsets FILE (shingle --offsets: where each document's line is)
verify reads only the lines of the documents in some pair, from where
FILE puts them, and scores the same pairs. The --documents must be the
inputs shingle read, in its order, at the sizes FILE's header gives
(status 2 otherwise), FILE's shingle header the pairs', and each line read
the one FILE describes, between two line ends, with its length and its
ends; a line that is not stops verify: the documents have changed since.
When FILE has no offsets for an input (size -1: compressed, or read as
records or files), verify reads every document whole, as without it,
and says so.

   shingle --unit word -k 5 --files src | sketch | band | pairs |
       verify --files --documents src

With --hamming k and --sketches FILE of SimHash fingerprints (sketch --method
simhash) it writes the pairs whose fingerprints differ in at most k bits:

   idA TAB idB TAB distance                     (bits, an integer)

VECTORS
With --cosine and --documents FILE the similarity is the exact cosine
similarity u·v/(|u||v|) of the two documents' vectors (0 when either is the
zero vector), read as sketch --method hyperplane reads them: JSON Lines
with the vector an array of numbers in the field --vector-field names
(default vector), TSV "id TAB numbers" or --lines; --format and --id-field
as there, and the same errors at file:line. Every vector must have the
dimension of the pairs' hyperplane sketch header (dim=; a --dim that
differs is refused), else --dim D, else the first vector's: documents
other than those sketched, or another field, are stopped at the first
vector. The header says measure=cosine, and the records are those of
Jaccard, "idA TAB idB TAB cosine", so keep --pairs and cluster take them.
A pair is written when its cosine reaches --threshold (a cosine above 0;
not given, the threshold=C of band's header, which band --cosine C
writes). Memory: as with --shingles, verify reads the pairs ahead (up to --memory)
and loads the vectors of the documents in some pair, 8 bytes a component;
past --memory of pairs it loads every document's vector.

   sketch --method hyperplane --vector-field emb corpus.jsonl |
      band --hamming 16 | pairs |
      verify --cosine --documents corpus.jsonl --vector-field emb --threshold 0.9
   sketch --method hyperplane --bits 1024 --vector-field emb corpus.jsonl |
      band --cosine 0.8 | pairs |
      verify --cosine --documents corpus.jsonl --vector-field emb

With --euclidean and --documents FILE verify reads the vectors as --cosine
does (the dimension from a pstable sketch header too) and keeps the pairs
whose exact Euclidean distance d is at most --threshold R (a distance
above 0; not given, the distance=R of band's header, which band
--distance R writes, said on standard error). The score is 1/(1 + d),
not d: keep --pairs and cluster read scores as similarities, larger the
nearer, so 1/(1 + d) orders the pairs as they need. The header says
measure=euclidean, threshold=1/(1 + R) (the least score written) and
distance=R.

   sketch --method pstable --vector-field emb --width 4 -n 64 corpus.jsonl |
      band --distance 1 | pairs |
      verify --euclidean --documents corpus.jsonl --vector-field emb

The shingle or sketch file must come from the same pipeline as the pairs:
their headers are checked against each other. Its header must come before
its records (a header after records without one is bad input, status 2).
MinHash and OPH signatures must all have the header's n= values, or without
a header as many as the first signature read; one of another length would
score 0 with every partner, and is bad input (file:line) instead; verify
--sorted refuses a pair whose two signatures differ in length. An empty id,
or one with an escape other than \t, \n, \r, \\, is bad input in the
pairs and in the file.

Memory: verify first reads the pairs (up to --memory of them) to learn
which documents appear in some pair, then loads those documents from the
--shingles or --sketches file: 8 bytes per shingle, value or 64 bits of
fingerprint, plus about 56 bytes and the id's length per document. When the
pairs are larger than --memory, it loads every document of the file and
streams the rest of the pairs. Measured peak resident memory (make bench, make scale; two cores): 90-100 MiB on the Go source
tree (word 5-shingles, 19,639 candidate pairs); 5.2 GiB on 1 million
synthetic documents of 100 to 4,000 words (351,318 candidate pairs over
about 47% of the documents): 5.6 KB per document of the corpus. Without the memory,
LARGER THAN MEMORY below holds neither side.

Memory with --documents: verify holds at most --memory (the pieces in
flight, about 12 MB per thread, included), for any size of corpus. It
reads the pairs in parts of up to half of --memory: 12 bytes a line and 8
a pair, and per document in some pair about 40 bytes (arrival numbers,
shingle --number-from) or 116 and the id's length (other ids), with the
lines as read. A part is scored in one pass over the corpus, in the order
the documents are read, and, if needed, one over each bin of the scratch.
The first pass holds the shingle sets (8 bytes a shingle, up to a byte
more for its histogram: its values counted by their leading bits, one or
two to a part, whose minima with a partner's bound their intersection, so
that most pairs below the threshold are not merged; and up to half a byte
more for the set's difference from a near partner's: a document with four
or more partners held near one another is counted against them through
that difference, one merge in all, not one each) of the documents
from the first on, as many as fit in three quarters of what the pairs leave
of --memory (the rest is the collector's slack), scores each document read
against its partners held, and lets a set go once its last pair is scored;
documents after the last held are shingled only when a partner is held.
A document whose text is byte for byte a held partner's (the same 64-bit
hash of its text, compared only with its partners') takes the partner's
set and is not shingled again, where the set was made before a worker
read the document: exact copies cost no memory, and standard error counts
them, the same for any -j ("verify: N document(s) with the text of a
partner held before them").
The documents after that block with pairs still to score go, their text
s2-compressed, to a scratch file in --temp-dir, in bins: the pairs'
connected components (a pair's two documents are always in one), each
bin taking components while their estimated shingle sets (documents times
the mean set so far) fit the budget. Then each bin is scored in a pass
over its own part of the scratch, its documents shingled once; a bin whose
sets do not fit after all (one very large component) takes more passes
over its part, each holding as much as fits from where the last stopped.
So the corpus is read once (also from standard input), and the scratch
holds the compressed text of the documents the bins need, compressed by s2
(Snappy's successor: three times zstd's fastest level, in about 1.4 to 1.7
times its bytes, so the scratch may exceed the compressed documents of the
bins when the corpus is zstd). Pairs larger than
half of --memory are read in several parts, and each part reads the corpus
again: from standard input that is refused (status 2). With more than one
pass or part, one line on standard error says how many, the bins and those
that took more than one pass, the bytes held and the scratch written:

   verify: 17 pass(es) over the documents for 1 part(s) of the pairs (…):
   16 bin(s) of connected documents after the first, 0 of them in more than
   one pass; held up to …; scratch 1257533 bytes (the texts the bins need,
   s2) written to /tmp

The output is that of one pass, byte for byte, for any --memory and -j.
Measured (crawl-like corpora: gencorpus -seed 1 -format jsonl -lengths
crawl -min-words 20 -max-words 20000 -plant 0.3 -n 200000, 263 MB of
.jsonl.zst, -n 500000, 658 MB, and -n 1000000, 1.35 GB; their 336,550,
1,553,204 and 4,934,008 candidate pairs of shingle --number-from 0 --sketch oph | band --threshold 0.8 |
pairs; CPU seconds user+system, peak resident memory and scratch; taken on
two cores shared with other work, so the memory varies by some 10 %):

   documents  --memory  passes (bins)  peak memory  CPU    scratch
   200,000    2G        1              1.8 GiB      40 s   none
   200,000    512M      8 (5)          505 MiB      56 s   186 MB (71% of the input)
   200,000    256M      19 (12)        256 MiB      78 s   205 MB (78% of the input)
   500,000    512M      25 (11)        511 MiB      342 s  561 MB (85% of the input)
   1,000,000  1G        26 (12)        1023 MiB     968 s  1.55 GB in 2 parts of the pairs
   before the bins (block passes over the whole scratch): 200,000 at
   512M 5 passes, 70 s; at 256M 11 passes, 98 s; 500,000 at 512M 17
   passes, 400 s

In these corpora most documents in some pair are in one component (the
candidate pairs chain them: 46% at 200,000, 65% at 500,000), and that bin
takes most of the passes.

B-BIT SIGNATURES
With --bbit FILE (band --bbit: each document's size and its signature at 4
bits a value), verify --documents first sets aside the candidate pairs that
are far below the threshold, as scored with nothing in common: they are not
written, and neither their documents nor their components are read or held
for them. A pair goes when the sizes rule it out (Jaccard is at most the
smaller size over the larger) or when the two signatures agree on so few of
their positions that a pair at the threshold would do so with probability
under 1e-12: at Jaccard J a position agrees with probability J + (1-J)/16,
and the agreements are bounded by Chernoff's bound, counting an oph
signature of a small set (whose empty bins copy others) as only as many
independent positions as its bins filled. With --containment the threshold
is the least Jaccard at which either document is contained at T in the other
(T·s/(s+L-T·s) for sizes s <= L). The shingle and sketch headers of FILE
must be the pairs'. One line on standard error says how many pairs went, by
size and by signature; pairs of a document FILE has no signature of are
scored from the documents, and counted. Memory: 68 bytes per document in
some pair, counted in the parts of the pairs while they are filtered.

Why: the candidates of a dedup are mostly far below the threshold, and they
chain the documents of the true pairs into one component that no bin holds.
On the 200,000-document crawl above, the 336,550 candidates join 57,473
documents into one component; the 70,619 left by --bbit at 0.8 (69,795
true pairs among them, none lost) have 10 documents in their largest
(internal/tools/pairgraph -sketches S -bbit 0.8). So every bin fits and
each document in a pair is read once after the first pass.

With --files, the documents are read one file each, and the shingle sets of
all the documents in some pair are held at once: past --memory verify stops
(status 2) and says what to use instead.

LARGER THAN MEMORY
With --attach and then --sorted, verify holds neither the pairs nor the
file: both are read in order, the way join(1) reads two sorted files, in two
steps with a sort between them. The file must be sorted by id and the pairs
by their first id (pairs writes them so):

   LC_ALL=C sort -t$'\t' -k1,1 -S 2G shingles.tsv > shingles.sorted.tsv
   pairs --sorted keys.sorted.tsv |
      verify --attach --shingles shingles.sorted.tsv |
      LC_ALL=C sort -t$'\t' -k1,1 -S 2G --parallel=4 |
      verify --sorted --shingles shingles.sorted.tsv --threshold 0.8

--attach writes, for each pair idA TAB idB, an attached pair

   idB TAB idA TAB size TAB h h h …

keyed by idB and carrying idA's shingle hashes as its shingle record has them
(size: their number), or with --sketches its sketch's size and values; and
always the header line "#neardup stage=attach values=shingles" (or
sketches). Every stage but verify --sorted refuses input with that header.
The sort brings the pairs of each idB together; --sorted joins them with
the file again and writes the same scored pairs, with the same header lines,
as verify without these flags, in the order of idB (sort them to compare).
The attached pairs take about 17 bytes per shingle per pair: give sort a
--temporary-directory with room, or --compress-program=zstd.
--threshold and --containment belong to --sorted, which scores.

Memory: each step holds a few pieces of its input per worker, about 2 MB
each (lines, the records of the file they name and, for --attach, what they
write), whatever the size of the files. Input out of
order stops the stage with the place of the first record out of order (an
id repeated in the file, too), even under --skip-bad: the join would
otherwise be silently wrong.

EXAMPLES
   pairs keys.tsv | verify --shingles shingles.tsv --threshold 0.8
   verify --shingles s.tsv --containment --threshold 0.9 candidates.tsv
   verify --sketches sketches.tsv candidates.tsv
   verify --documents corpus.jsonl --threshold 0.8 candidates.tsv
   verify --documents corpus.jsonl --bbit bits.tsv pairs.tsv
   band --hamming 3 fp.tsv | pairs | verify --hamming 3 --sketches fp.tsv
   verify --cosine --documents emb.jsonl --vector-field emb --threshold 0.9 pairs.tsv
   verify --attach --shingles s.sorted.tsv pairs.tsv |
      LC_ALL=C sort -t$'\t' -k1,1 -S 1G | verify --sorted --shingles s.sorted.tsv`,
		SeeAlso: []string{"shingle", "sketch", "pairs", "cluster"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "shingles", Usage: "shingle records `FILE` for exact similarity"},
			&cli.StringSliceFlag{Name: "documents", Usage: "the documents themselves (`FILE`; with --files the files and directories they are under; repeat for more), shingled again as the pairs' shingle header says, for exact similarity"},
		}, documentFlags("--documents: document format, "+input.FormatNames()+" (default: from the shingle header, else the file's first bytes, else its name)",
			"--documents: each document is a file, its id its path; same as --format files",
			"--documents: each line is a document; same as --format lines", "--documents, "), []cli.Flag{
			&cli.StringFlag{Name: "stopwords", Category: catInput, Usage: "--documents: the stop-word `FILE` shingle was given"},
			&cli.StringFlag{Name: "offsets", Category: catInput, Usage: "--documents: read only the documents in some pair, where shingle --offsets wrote to `FILE` they are"},
			&cli.StringFlag{Name: "sketches", Usage: "sketch records `FILE` for estimated similarity"},
			&cli.Float64Flag{Name: "threshold", Value: 0.8, Usage: "least similarity of a pair written (default: the threshold in band's header, else 0.8)"},
			&cli.BoolFlag{Name: "containment", Usage: "add containment both ways; keep pairs where either reaches the threshold"},
			memoryFlag("read up to `SIZE` of pairs ahead to load only the documents they name; with --documents, hold at most that"),
			&cli.StringFlag{Name: "temp-dir", Usage: "directory `DIR` for the scratch file of --documents (default: the system's)"},
			&cli.StringFlag{Name: "bbit", Usage: "with --documents, the b-bit signatures `FILE` of band --bbit: set aside unread the pairs far below the threshold"},
			&cli.BoolFlag{Name: "cosine", Usage: "score by the exact cosine similarity of the vectors of the documents (--documents, --vector-field)"},
			&cli.BoolFlag{Name: "euclidean", Usage: "keep the pairs whose vectors (--documents, --vector-field) are within --threshold, a distance; score 1/(1 + distance)"},
			&cli.StringFlag{Name: "vector-field", Category: catInput, Usage: "--cosine, --euclidean, JSON Lines: the `NAME` of the field that holds the vector (default: vector)"},
			&cli.IntFlag{Name: "dim", Category: catInput, Usage: "--cosine, --euclidean: the number of components `D` of every vector (default: the first vector's)"},
			&cli.IntFlag{Name: "hamming", Usage: "score by the Hamming distance of the SimHash fingerprints in --sketches; keep pairs within `K` bits"},
			&cli.BoolFlag{Name: "attach", Usage: "join pairs sorted by their first id with the file sorted by id; write attached pairs (larger than memory, step 1)"},
			&cli.BoolFlag{Name: "sorted", Usage: "join attached pairs sorted by their first field with the file sorted by id; score them (larger than memory, step 2)"},
		}, commonFlags()),
		Action: verifyAction,
	}
}

func verifyAction(c *cli.Context, env *Env) error {
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	opt := verify.Options{
		MemoryBytes: mem,
		TempDir:     c.String("temp-dir"),
		BBit:        c.String("bbit"),
		Shingles:    c.String("shingles"),
		Sketches:    c.String("sketches"),
		Threshold:   c.Float64("threshold"),
		// Without --threshold, the one band chose its banding for.
		ThresholdFromBand: !c.IsSet("threshold"),
		Containment:       c.Bool("containment"),
		Attach:            c.Bool("attach"),
		Sorted:            c.Bool("sorted"),
		Hamming:           c.IsSet("hamming"),
		Cosine:            c.Bool("cosine"),
		Euclidean:         c.Bool("euclidean"),
		MaxDistance:       c.Int("hamming"),
		HoldLimit:         holdLimit,
	}
	if opt.Attach {
		for _, f := range []string{"threshold", "containment", "no-header"} {
			if c.IsSet(f) {
				return usagef("--%s goes to verify --sorted: --attach scores nothing and always writes its header", f)
			}
		}
	}
	if docs := c.StringSlice("documents"); len(docs) > 0 {
		rf, err := readingFlags(c)
		if err != nil {
			return err
		}
		d := &verify.DocumentOptions{Paths: docs, Given: rf, VectorField: c.String("vector-field"), Dim: c.Int("dim")}
		if (opt.Cosine || opt.Euclidean) && d.VectorField == "" {
			d.VectorField = "vector"
		}
		if c.IsSet("dim") && d.Dim == 0 {
			return usagef("--dim 0: want the number of components of the vectors")
		}
		if name := c.String("stopwords"); name != "" {
			if d.Stopwords, err = readStopwords(name); err != nil {
				return err
			}
		}
		if d.Offsets = c.String("offsets"); d.Offsets != "" && (opt.Cosine || opt.Euclidean) {
			return usagef("--offsets is for documents shingled again, not vectors (--cosine, --euclidean)")
		}
		opt.Documents = d
	} else if c.IsSet("offsets") {
		return usagef("--offsets is for --documents: it says where their lines are")
	}
	holdGC()
	return runStream(c, env, &opt, &opt.Common, verify.Run)
}
