package cli

import (
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/urfave/cli/v2"
)

// Sketch is the sketch stage.
func Sketch() Stage {
	return Stage{
		Name:  "sketch",
		Usage: "turn shingle records into MinHash signatures, samples or SimHash fingerprints, or vectors into fingerprints",
		Args:  "[FILE...]",
		Description: `Reads shingle records and writes one sketch record per document
(shingle --sketch METHOD writes the same records from the documents, in one
process):

   id TAB size TAB v1 v2 … vn

size is the number of distinct shingles. The values depend on --method:

   minhash  (default) n values, the minimum over the set of each of n hash
            functions h_i(x) = a_i·x + b_i mod 2^64 (a_i odd, drawn from
            --seed); the fraction of equal positions of two signatures
            estimates the Jaccard similarity of the sets, with standard
            error sqrt(J(1-J)/n). Cost: |set|·n multiply-adds (AVX-512, or
            AVX2, where the CPU has it: the same values).
   oph      n values by one-permutation hashing with optimal densification
            (Shrivastava 2017): one hash per shingle, O(|set| + n), the same
            estimator.
   bottomk  Broder's MIN_s: the s smallest values of the set under one
            permutation; estimates resemblance (verify --sketches).
   modm     Broder's MOD_m: the values that are 0 mod m under one
            permutation; a sample that grows with the set, so it estimates
            containment as well as resemblance.
   simhash  Charikar's SimHash: one f-bit fingerprint (-f 64 or 128) of the
            weighted shingles, "id TAB size TAB fingerprint", 16 hex digits
            for 64 bits and 32 for 128 (one field, the first bit first).
            Each distinct shingle adds its weight to the f counters where
            its bits are 1 and subtracts it where they are 0; the signs
            are the fingerprint. The Hamming distance of two fingerprints
            estimates the angle θ between the weighted vectors: each bit
            differs with probability θ/π. Feature bits are the SplitMix64
            mix of the shingle hash with keys from --seed. Weights
            (--weight): tf (the count, from shingle --counts), logtf
            (1 + ln count), binary (1), idf (count × (ln((1+N)/(1+df)) + 1)
            with df from --df FILE, a table that docfreq writes). The usual
            input is shingle --unit word -k 1 --counts.

VECTORS
With --method hyperplane sketch reads documents that carry a dense vector
(an embedding), not shingle records: FILE... are the documents, JSON Lines
with the vector a JSON array of numbers in the field --vector-field names
({"id": "a", "emb": [0.12, -0.5, …]}), or TSV "id TAB numbers" separated
by spaces or commas (or --format lines: a line of numbers, its id the line
number). Parquet, WARC and --files are refused. Every vector has the
dimension of the first (or --dim D); a vector of another length, a
component that is not a finite number (NaN, Inf, 1e999) and a field that
is not an array are bad input, at file:line. It writes what simhash
writes,

   id TAB size TAB fingerprint      (bits/4 hex digits: 16 for 64 bits)

size being the number of components that are not zero (0 for the zero
vector, which band leaves without keys), so band --hamming, pairs, index
and verify --hamming take fingerprints of 64 or 128 bits as they take
SimHash fingerprints. Longer ones (--bits a multiple of 64, up to 8192)
are banded: band --cosine C cuts them into b bands of r bits (see band(1)),
whose memory is bounded where the tables of a wide Hamming radius (cosine
0.8 and below) are not. Bit r is
1 when the dot product of the vector with Gaussian random vector r is above
zero (Charikar): two vectors at angle θ differ in each bit with probability
θ/π. The random vectors come from --seed (SplitMix64, then Box–Muller: see
internal/vector) and are never stored; the header says method=hyperplane,
f= (the bits), seed=, dim= and vectors=splitmix64-boxmuller. --cosine C
says on standard error the least Hamming radius k for band --hamming k
that keeps a pair at cosine C with probability 0.99 (k is the 0.99
quantile of Binomial(bits, arccos(C)/π)), or for longer fingerprints the
banding band --cosine C chooses; verify --cosine then scores the
candidates by their exact cosine, from the vectors. Memory: the random
vectors, 8·bits·dim bytes (256 KiB for 256 components at 128 bits, 2 MiB
at 1024 bits; at most 1 GiB, and a vector has at most 65536 components),
and a chunk of documents per worker; it streams. Time: bits multiply-adds
per component that is not zero.

   sketch --method hyperplane --vector-field emb --cosine 0.9 corpus.jsonl > fp.tsv
   band --hamming 16 fp.tsv | pairs |
      verify --cosine --documents corpus.jsonl --vector-field emb --threshold 0.9
   sketch --method hyperplane --bits 1024 --vector-field emb corpus.jsonl |
      band --cosine 0.8 | pairs |
      verify --cosine --documents corpus.jsonl --vector-field emb

With --method pstable sketch reads the same documents and writes n values
for the Euclidean distance (Datar, Immorlica, Indyk, Mirrokni 2004),

   id TAB size TAB values           (n values of 16 hex digits)

value i being the p-stable hash floor((a_i·v + b_i)/W), a_i a Gaussian
random vector (the generator of hyperplane, seeded apart) and b_i uniform
in [0, W) (W is --width); a negative value is written as its 64-bit two's
complement. size is the dimension (the zero vector is a point, not an
empty document). Two vectors at distance c share a value with probability
p(c) = 1 − 2Φ(−W/c) − 2/(√(2π)·W/c)·(1 − exp(−(W/c)²/2)), so band -b B
-r R keys them as it keys minhash signatures: r rows and b bands make a
pair a candidate with probability 1 − (1 − p(c)^r)^b. The header says
method=pstable, n=, width=, seed=, dim= and vectors=. --distance R says
on standard error the banding band --distance R chooses (band takes
pstable sketches with --distance R or -b and -r, not for a Jaccard
threshold): the most rows a band whose probability at distance R is at
least 0.995, with a warning when none is. A width about the distance R to
several times it suits (p(R) = 0.80 at W = 4R). Memory: the random
vectors, 8·n·dim bytes, and a chunk of documents per worker; it streams.

   sketch --method pstable --vector-field emb --width 4 -n 64 --distance 1 corpus.jsonl > s.tsv
   band --distance 1 s.tsv | pairs |
      verify --euclidean --documents corpus.jsonl --vector-field emb

The empty set (a document without shingles) has size 0 and, for minhash
and oph, n values of ffffffffffffffff; band gives it no keys.

The shingle header must come before the records in every file: a shingle
header after records without one, or a file of records without it after a
file with it, is bad input (status 2), as is an empty id or one with an
escape other than \t, \n, \r, \\.

Memory: one record at a time per worker; it streams. Measured peak resident memory (make bench, make scale; two cores):
45-70 MiB with -j1 or -j2 on the shingles of the Go source tree (12,183
documents); 21 MiB on 1 million synthetic documents (5.1 GB of
text): it does not grow with the corpus. A short record makes a sketch
many times its size (n values of 17 bytes), so each worker passes its
output on, in order, whenever it reaches 1 MiB: on 1 million one-word
documents 23 MiB with -j1 and 32 MiB with -j2 (425 MiB before it did;
examples/degenerate-bench.sh).

EXAMPLES
   shingle --unit word corpus.jsonl | sketch -n 128 > sketches.tsv
   sketch --method oph -n 256 shingles.tsv
   sketch --method modm -m 32 shingles.tsv > samples.tsv
   shingle --unit word -k 1 --counts docs.tsv | sketch --method simhash > fp.tsv
   sketch --method simhash --weight idf --df df.tsv shingles.tsv
   sketch --method hyperplane --vector-field emb --seed 7 corpus.jsonl > fp.tsv`,
		SeeAlso: []string{"shingle", "docfreq", "band", "verify", "cluster", "index"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "method", Value: "minhash", Usage: "sketch `METHOD`: minhash, oph, bottomk, modm, simhash, or hyperplane or pstable (vectors)"},
			&cli.IntFlag{Name: "n", Value: 128, Usage: "signature length (minhash, oph, pstable)"},
			&cli.IntFlag{Name: "s", Value: 128, Usage: "sample size (bottomk)"},
			&cli.Uint64Flag{Name: "m", Value: 32, Usage: "modulus (modm): keeps about one value in m"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the hash functions; sketches are comparable only under the same seed"},
			&cli.IntFlag{Name: "f", Value: 64, Usage: "fingerprint bits (simhash): 64 or 128"},
			&cli.StringFlag{Name: "weight", Value: "tf", Usage: "feature `WEIGHT` (simhash): tf, logtf, binary or idf"},
			&cli.StringFlag{Name: "df", Usage: "document-frequency table `FILE` for --weight idf (written by docfreq)"},
			&cli.IntFlag{Name: "bits", Value: 64, Usage: "fingerprint bits (hyperplane): 64 or 128 (band --hamming), or a multiple of 64 up to 8192 (band --cosine)"},
			&cli.StringFlag{Name: "vector-field", Value: "vector", Category: catInput, Usage: "hyperplane, pstable, JSON Lines: the `NAME` of the field that holds the vector"},
			&cli.StringFlag{Name: "format", Category: catInput, Usage: "hyperplane, pstable: document `FORMAT`, tsv, jsonl or lines (default: from the file's name)"},
			&cli.StringFlag{Name: "id-field", Value: "id", Category: catInput, Usage: "hyperplane, pstable, JSON Lines: the `NAME` of the id field"},
			&cli.IntFlag{Name: "dim", Usage: "hyperplane, pstable: the number of components `D` of every vector (default: the first vector's)"},
			&cli.Float64Flag{Name: "width", Usage: "pstable: the bucket width `W`, a distance (about the distance of the pairs sought)"},
			&cli.Float64Flag{Name: "distance", Usage: "pstable: say on standard error the band -b and -r that make pairs within distance `R` candidates (probability 0.99)"},
			&cli.Float64Flag{Name: "cosine", Usage: "hyperplane: say on standard error the band --hamming radius (or, past 128 bits, the band --cosine banding) that keeps pairs at cosine `C`"},
		}, commonFlags()),
		Action: sketchAction,
	}
}

func sketchAction(c *cli.Context, env *Env) error {
	opt := sketch.Options{
		Method: c.String("method"),
		N:      c.Int("n"),
		S:      c.Int("s"),
		M:      c.Uint64("m"),
		Seed:   c.Uint64("seed"),
		F:      c.Int("f"),
		Weight: c.String("weight"),
		DF:     c.String("df"),
	}
	// The options take 0 for "not given" (64 bits).
	if c.IsSet("f") && opt.F == 0 {
		return usagef("-f 0: want 64 or 128")
	}
	vectorFlags := []string{"bits", "vector-field", "format", "id-field", "dim", "cosine", "width", "distance"}
	if opt.Method != sketch.Hyperplane && opt.Method != sketch.PStable {
		for _, f := range vectorFlags {
			if c.IsSet(f) {
				return usagef("--%s is for --method hyperplane or pstable, which read vectors", f)
			}
		}
		return runStream(c, env, &opt, &opt.Common, sketch.Run)
	}
	notFor := []string{"s", "m", "f", "weight", "df"}
	if opt.Method == sketch.Hyperplane {
		notFor = append(notFor, "n", "width", "distance")
	} else {
		notFor = append(notFor, "bits", "cosine")
	}
	for _, f := range notFor {
		if c.IsSet(f) {
			return usagef("%s is not for --method %s", flagName(f), opt.Method)
		}
	}
	if opt.Method == sketch.PStable && !c.IsSet("width") {
		return usagef("--method pstable needs --width W, the bucket width (a distance)")
	}
	opt.Width, opt.Distance = c.Float64("width"), c.Float64("distance")
	if c.IsSet("distance") && opt.Distance == 0 {
		return usagef("--distance 0: want a distance above 0")
	}
	format, err := input.ParseFormat(c.String("format"))
	if err != nil {
		return usagef("%v", err)
	}
	opt.Bits, opt.Dim, opt.Cosine, opt.VectorField = c.Int("bits"), c.Int("dim"), c.Float64("cosine"), c.String("vector-field")
	if c.IsSet("bits") && opt.Bits == 0 {
		return usagef("--bits 0: want 64 or 128, or a multiple of 64 up to 8192")
	}
	if c.IsSet("dim") && opt.Dim == 0 {
		return usagef("--dim 0: want the number of components of the vectors")
	}
	if c.IsSet("cosine") && opt.Cosine == 0 {
		return usagef("--cosine 0: want a cosine above 0 and below 1")
	}
	opt.Vectors = input.Reading{Format: format, IDField: c.String("id-field"), IDRequired: c.IsSet("id-field")}
	return runStream(c, env, &opt, &opt.Common, sketch.Run)
}
