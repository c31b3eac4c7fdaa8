package cli

import (
	"github.com/neardup/neardup/internal/cluster"
	"github.com/urfave/cli/v2"
)

// Cluster is the cluster stage.
func Cluster() Stage {
	return Stage{
		Name:  "cluster",
		Usage: "group near-duplicate documents into clusters",
		Args:  "[FILE...]",
		Description: `Writes one record per document:

   cluster TAB id

A cluster is named by one of its ids. Three methods:

COMPONENTS
--method components (the default) reads scored pairs (verify) or candidate
pairs (pairs): "idA TAB idB" with any further fields. Two documents are in
one cluster when a chain of pairs joins them: the connected components of
the pair graph, found by union-find with path compression and union by size.
Every document in a pair is written, its cluster named by the cluster's
smallest id (bytewise, in the escaped form ids travel in), sorted by cluster,
then id (the order of LC_ALL=C sort). The input need not be sorted.

--singletons --ids FILE also writes the documents in no pair, each as a
cluster of its own: FILE is any record file whose first field is the id
(the shingle or sketch file lists every document).

Memory: the documents, never the pairs: about 50 bytes plus the id's length
per document (an interning table, the union-find forest, and at the end the
sort; 80 bytes of peak resident memory per document measured over 6.7
million documents with 9-byte ids), up to --memory. Beyond it, the
documents held become pairs (each with its root) and every pair from then
on is spilled, both ids, to sorted runs in --temp-dir; merges of those runs,
each held to --memory, number the ids in their order, join the numbers of
each pair in a union-find forest of 8 bytes a document, and write the
documents in the output's order. Standard error says so ("cluster: N
documents passed --memory M: … spilled to R sorted run(s) …", and when the
forest itself passes --memory, how much it holds); the output is the same
for any --memory and -j. So the pairs may be far larger than memory, and
the documents too, but for their 8 bytes each. --singletons,
--min-similarity-to-representative and --report hold their documents in
memory whatever --memory, and say so when they pass it. Measured on
700,000 synthetic pairs of 1 million documents with 12-digit ids (676,707
in a pair; two shared cores, under load): 68 MB peak resident memory and
0.6 CPU seconds in memory (about 86 bytes a document); 71 MB and 1.5 CPU
seconds with --memory 16M (spilled from 431,117 documents on, 44 MB of
runs), 39 MB and 1.7 CPU seconds with --memory 1M. The resident memory is
up to about twice what is held (the Go collector's headroom) and 10 MB.

Chaining: A~B and B~C put A and C in one cluster even if A and C are not
alike. Two guards, both for scored pairs only; a similarity is known only
for a pair that verify scored, so a member joined to the representative
through others has none:

--report FILE writes one line per cluster, "cluster TAB size TAB verified
TAB min-similarity": how many members other than the representative (the
smallest id) have a verified pair with it, and the smallest of those
similarities ("-" when none). size-1-verified members are in the cluster
only through chains.

--min-similarity-to-representative t splits: going through the documents in
id order, a document not yet placed becomes the representative of a new
cluster and takes every document not yet placed whose pair with it was
verified with similarity at least t (the third field: Jaccard, also under
verify --containment). So every member's verified similarity to its
representative, the cluster's smallest id, reaches t; what falls below is
split off and clustered again the same way among itself. It costs memory per
pair: the pairs at or above t are held, 12 bytes each plus 8 for their
adjacency lists (--report alone holds every pair, 12 bytes each), and a
linear pass over them. With --stats it reports how many components were
split into how many clusters.

LEADER
--method leader reads sketches (sketch --method minhash or oph) in input
order and assigns each at once, without revisiting any: the leaders of
existing clusters that an LSH index over the leaders proposes are compared
with it, and it joins the most similar whose estimated similarity (the
fraction of equal signature positions) reaches --threshold; ties go to the
leader with the smallest id. Else it becomes the leader of a new cluster,
named by its id. The index cuts each leader's signature into b bands of r
rows (-b, -r, or chosen from --threshold as band does, so that a leader at
the threshold is proposed with probability at least 0.995) and maps each
band to the leaders that have it: a document is compared only with the
leaders that share a band with it, never with all of them. Each record is
written as its line arrives; --line-buffered flushes every line, so a live
stream works:

   tail -f crawl.jsonl | shingle --format jsonl --line-buffered |
      sketch --line-buffered | cluster --method leader --line-buffered

--state FILE loads the leaders and rebuilds their index before reading, and
saves them at the end (also when interrupted: the lines written so far are
kept), so a later run continues the same clustering: two runs over two
halves of a stream write the lines one run over the whole writes. The file
is written beside FILE, synced and renamed into place, so a crash leaves the
old state or the new one. It records the parameters (the input's headers,
threshold, banding); a run with others is refused. A document without
shingles is a cluster of its own and no leader.

SimHash fingerprints (sketch --method simhash), and hyperplane
fingerprints of 64 or 128 bits (sketch --method hyperplane), work the same
way with Hamming distance: a document joins the nearest leader within --hamming k
bits (ties to the smallest id). The index holds the leaders in the Hamming
tables band --hamming uses (--blocks B, default k+3: C(B,k) tables), so
every leader within k bits is found.

--update-centre (SimHash fingerprints) moves each cluster's centre as its
members join, instead of keeping its leader: the centre is the sign of the
cluster's summed feature weights. A cluster keeps a signed counter per bit,
the sum over its members of +1 where their fingerprint has the bit set and
-1 where it has not (the members count equally: sketch records carry no
weights per bit), and its centre has a bit set where the counter is
positive, clear where it is negative, and as it was where it is 0: the
members' per-bit majority, ties kept. A document joins the nearest centre
within --hamming k bits (ties to the cluster with the smallest name), which
then moves; a cluster is still named by its first member. So members that
drift away from the first document still join while they stay near the
majority, where without --update-centre they start clusters of their own.
It is still one pass in input order, and as deterministic. Cost: per
cluster, 4 bytes per bit of the fingerprint (32-bit counters: 256 bytes for
64 bits, 512 for 128; a cluster of 2^31-1 members refuses more, status 1);
per document that joins, a counter update per bit, and when the centre's
fingerprint changes its table keys are computed again and, in each table
whose key changed (one whose key holds a changed bit), it leaves the chain
of the old key, walked from its head (the clusters sharing that key), and
heads the chain of the new one. With --state the counters are saved too
(state format 3; a state of format 2 loads as before): a later run
continues the centres, and a state made with --update-centre and one made
without refuse the other run (a state of format 1, from before
--update-centre, loads, its centres its leaders). A
live stream of fingerprints:

   tail -f crawl.jsonl |
      shingle --format jsonl --unit word -k 1 --counts --line-buffered |
      sketch --method simhash --line-buffered |
      cluster --method leader --update-centre --state centres.bin --line-buffered

--update-centre over hyperplane fingerprints makes a cluster's centre the
fingerprint of its members' mean vector: the signs of its dot products with
the sketch's random vectors, made again from the seed, f and dim of the
sketch header. A fingerprint does not give its vector, so cluster reads the
vectors from --documents FILE (repeated for more files), the documents the
sketches were made from, in step with the sketches as --topics does
(below): for each sketch it reads on to the document with its id, passing
over those without a sketch (counted on standard error). It refuses, with
the file and line, a sketch whose document does not come, a vector of
another dimension than the header's dim=, and a vector whose fingerprint
is not its sketch's (other documents, or another --vector-field). The
documents are read as sketch reads vectors: TSV "id TAB numbers", JSON
Lines with the vector in the field --vector-field names (default vector)
and the id in the field --id-field names (default id), or lines; the
format from each file's name. A
cluster keeps the sum of its members' vectors in float64, added in input
order; a member that joins adds its vector, and the centre becomes the
fingerprint of the sum divided by the cluster's size (when that changes the
centre's fingerprint, it moves in the tables as above). It is still one
pass in input order, and as deterministic. Cost: per cluster, 8 bytes per
component of the vectors (6 KB for 768 components, where the leader itself
takes about 0.5 KB); once, the random vectors, 8 bytes per bit per
component (768 KB for 128 bits of 768 components); per document, its
vector read, parsed and signed to check it against its sketch (f
multiply-adds per component), and per document that joins, an addition per
component and the mean signed again (as many multiply-adds again). With
--state the sums are saved, exactly (state format 3), so that a later run
continues the centres as one run would; a run reads --documents from their
start, so give it the documents of its own sketches (the earlier ones would
be passed over):

   sketch --method hyperplane --vector-field emb corpus.jsonl |
      cluster --method leader --hamming 6 --update-centre \
         --documents corpus.jsonl --vector-field emb --state centres.bin

--topics N names each cluster's topic as the clusters form: its N most
characteristic words. The sketches carry no words (nor do shingle --counts
records: only the words' hashes), so cluster reads the documents themselves
from --documents FILE (repeated for more files), the files the sketches were
made from, in step with the sketches: for each sketch it reads on to the
document with its id, passing over those without a sketch (counted on
standard error), and refuses a sketch whose document does not come. They are
read as the sketches' shingle header says shingle read them (TSV, JSON Lines
or lines; format, id-field, text-field). A file being written, as tail -f
follows, works: a document whose sketch has come is already in the file.
Each document's words are tokenized as shingle does and hashed as the
shingle header of --df FILE says, a docfreq table of single words (shingle
--unit word -k 1 | docfreq): a word's document frequency df is that of its
shingle. A cluster holds its members' distinct words and their occurrences
tf; a word scores (1 + ln tf) × ln((1+D)/(1+df)), D the documents the table
counted, and the topic is the N best, ties to the word first bytewise (a
word of every document counted scores 0 and is left out). Each time a
member changes its cluster's topic, and when a cluster starts, a line
"cluster TAB word word ..." goes to --topics-out FILE, after the header
lines of the input and cluster's own with topics=N (as on standard output;
--no-header leaves them out), flushed after each batch of input read (in a
live stream, as the lines come), so a cluster's last line is its topic. Cost: per cluster, about 64 bytes plus the word per
distinct word of its members (--stats prints it); per document, a pass over
the distinct words of its cluster. The words are not kept in --state, so
--topics and --state exclude each other:

   shingle --unit word -k 1 --counts crawl.jsonl | docfreq > df.tsv
   tail -f crawl.jsonl |
      shingle --format jsonl --unit word -k 1 --counts --line-buffered |
      sketch --method simhash --line-buffered |
      cluster --method leader --update-centre --line-buffered --topics 5 \
         --df df.tsv --documents crawl.jsonl --topics-out topics.tsv

Memory: per leader, 4 bytes per signature value (the low 32 bits are kept;
the estimate moves by less than 1e-9), about 25 bytes per band, and its id:
about 1.25 KB for 128 values and 18 bands (--stats prints it); for SimHash,
8 bytes per 64 bits of fingerprint and about 25 bytes per table (about 0.5
KB with 20 tables), and with --update-centre 32 bytes per 64 bits
(SimHash) or 8 bytes per vector component (hyperplane).
Followers cost nothing. The peak resident memory is
about twice what the leaders hold (arrays grow by doubling, the old beside
the new, and memory they left is handed back to the system as they grow)
plus 24 MiB and 4 MiB per job for the runtime and the input in flight;
--stats prints both (leader and greedy alike), and agreed with the measured
peak within 1.1 times on 19,000 leaders or clusters
(examples/degenerate-bench.sh).

GREEDY
--method greedy is Broder's greedy clustering. A sketch is taken as a set of
values: the n (position, value) pairs of a MinHash or OPH signature, or the
values of a bottom-k sample (sketch --method bottomk). A cluster has a
representative set R: its first member's values, or with --represent
popular the s values (-s, default the sketch length) held by the most
members, ties to the smaller value (a cluster of one member: its s smallest
values). A table maps each value of each representative to the clusters
that hold it. A document E, in input order, is looked up value by value,
which counts |E ∩ R| for every cluster that shares a value with it; its
similarity to a cluster is |E ∩ R| / max(|E|, |R|) (for signatures and first
members: the fraction of equal positions). It joins the cluster of highest
similarity if that reaches --threshold (ties to the smallest name), else it
starts a new cluster named by its id. Unlike leader, no cluster that shares
a value is missed. Memory per cluster: about 26 bytes per representative
value (3.4 KB for 128 values); with popular, also about 20 bytes per
distinct value among its members (5.1 KB a cluster measured). The peak
resident memory is about twice that and the fixed part, as for leader.

Leader and greedy write every document, in input order.

--stats prints on standard error the number of clusters, how many there are
of each size (in powers of two), and the largest ones (with --report or the
guard, with their members' verified similarities).

EXAMPLES
   verify --shingles s.tsv candidates.tsv | cluster > clusters.tsv
   cluster --singletons --ids shingles.tsv --stats scored.tsv
   cluster --min-similarity-to-representative 0.8 --report report.tsv scored.tsv
   sketch shingles.tsv | cluster --method leader --threshold 0.8 --state leaders.bin
   sketch --method simhash words.tsv | cluster --method leader --hamming 3
   cluster --method greedy --represent popular sketches.tsv
   keep --clusters clusters.tsv corpus.jsonl > deduplicated.jsonl`,
		SeeAlso: []string{"sketch", "pairs", "verify", "keep"},
		Flags: merge([]cli.Flag{
			&cli.StringFlag{Name: "method", Value: cluster.Components, Usage: "clustering `METHOD`: components (of pairs), leader or greedy (of sketches)"},
			&cli.BoolFlag{Name: "singletons", Usage: "components: also write the documents in no pair, each its own cluster (needs --ids)"},
			&cli.StringFlag{Name: "ids", Usage: "components: `FILE` whose records' first field lists every document (a shingle or sketch file)"},
			&cli.Float64Flag{Name: "min-similarity-to-representative", Usage: "components: split clusters so that every member's verified similarity to the representative reaches `T`"},
			&cli.StringFlag{Name: "report", Usage: "components: write to `FILE` per cluster its size, members verified to the representative and their least similarity"},
			memoryFlag("components: the documents held, `SIZE`, before their pairs spill to sorted runs in --temp-dir"),
			&cli.StringFlag{Name: "temp-dir", Usage: "components: directory `DIR` for spilled runs (default: the system's)"},
			&cli.Float64Flag{Name: "threshold", Value: 0.8, Usage: "leader, greedy: least estimated similarity with which a document joins a cluster"},
			&cli.IntFlag{Name: "b", Usage: "leader: bands of the leader index (with -r; default: chosen from --threshold)"},
			&cli.IntFlag{Name: "r", Usage: "leader: rows per band of the leader index"},
			&cli.StringFlag{Name: "state", Usage: "leader: load the leaders from `FILE` if it exists, and save them there"},
			&cli.IntFlag{Name: "hamming", Value: 3, Usage: "leader, SimHash fingerprints: join the nearest leader within `K` bits"},
			&cli.IntFlag{Name: "blocks", Usage: "leader, SimHash fingerprints: blocks `B` of the Hamming tables (default k+3)"},
			&cli.BoolFlag{Name: "update-centre", Usage: "leader: a cluster's centre moves as members join: the per-bit majority of SimHash fingerprints, the mean vector of hyperplane ones (with --documents)"},
			&cli.IntFlag{Name: "topics", Usage: "leader: name each cluster by its `N` most characteristic words, tf-idf (needs --df, --documents, --topics-out)"},
			&cli.StringFlag{Name: "df", Usage: "leader, --topics: the document frequencies of single words, `FILE` (shingle --unit word -k 1 | docfreq)"},
			&cli.StringSliceFlag{Name: "documents", Usage: "leader, --topics or --update-centre of hyperplane fingerprints: the documents the sketches were made from, `FILE` (repeat for more), read in step with them"},
			&cli.StringFlag{Name: "vector-field", Category: catInput, Usage: "--update-centre of hyperplane fingerprints, JSON Lines: the `NAME` of the field of --documents that holds the vector (default: vector)"},
			&cli.StringFlag{Name: "id-field", Category: catInput, Usage: "--update-centre of hyperplane fingerprints, JSON Lines: the `NAME` of the id field of --documents (default: id)"},
			&cli.StringFlag{Name: "topics-out", Usage: "leader, --topics: write \"cluster TAB word word ...\" to `FILE` each time a cluster's topic changes"},
			&cli.StringFlag{Name: "represent", Value: cluster.RepresentFirst, Usage: "greedy: a cluster's representative, first (its first member) or popular (its s most frequent values)"},
			&cli.IntFlag{Name: "s", Usage: "greedy: values of a popular representative (default: the sketch length)"},
			&cli.BoolFlag{Name: "stats", Usage: "print on standard error the number of clusters, their sizes and the largest"},
		}, commonFlags()),
		Action: clusterAction,
	}
}

func clusterAction(c *cli.Context, env *Env) error {
	mem, err := memoryOption(c)
	if err != nil {
		return err
	}
	opt := cluster.Options{
		MemoryBytes:   mem,
		TempDir:       c.String("temp-dir"),
		Method:        c.String("method"),
		IDs:           c.String("ids"),
		Singletons:    c.Bool("singletons"),
		Split:         c.IsSet("min-similarity-to-representative"),
		MinSimilarity: c.Float64("min-similarity-to-representative"),
		Report:        c.String("report"),
		Threshold:     c.Float64("threshold"),
		B:             c.Int("b"),
		R:             c.Int("r"),
		Hamming:       c.Int("hamming"),
		Blocks:        c.Int("blocks"),
		State:         c.String("state"),
		UpdateCentre:  c.Bool("update-centre"),
		VectorField:   c.String("vector-field"),
		IDField:       c.String("id-field"),
		Topics:        c.Int("topics"),
		DF:            c.String("df"),
		Documents:     c.StringSlice("documents"),
		TopicsOut:     c.String("topics-out"),
		Represent:     c.String("represent"),
		S:             c.Int("s"),
		Stats:         c.Bool("stats"),
	}
	return runStream(c, env, &opt, &opt.Common, cluster.Run)
}
