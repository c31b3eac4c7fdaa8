package cli

import (
	"math"
	"strconv"

	"github.com/neardup/neardup/internal/seen"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/token"
	"github.com/urfave/cli/v2"
)

// Seen is the seen stage.
func Seen() Stage {
	return Stage{
		Name:  "seen",
		Usage: "write the paragraphs whose word n-grams were mostly seen in earlier documents (a Bloom filter, streaming)",
		Args:  "[FILE...]",
		Description: `Reads documents as shingle reads them, cuts each into paragraphs as
parts --by paragraph does, and writes each paragraph whose word n-grams
were mostly seen before, in earlier documents, in one pass through a Bloom
filter of a size fixed in advance (DCLM's "BFF"): a licence header, a
cookie banner, a navigation menu repeated in many otherwise different
documents. keep --drop-parts cuts them out of the corpus:

   doc#START-END TAB seen TAB total

doc#START-END is the paragraph's part id, as parts writes it (the
document's id, the byte range of the paragraph in its text); total is the
paragraph's number of n-grams, seen how many of them the filter held. A
paragraph is written when seen/total is at least --threshold (default
0.8). keep --drop-parts reads these lines as it reads part ids.

The n-grams are shingle --unit word -k K shingles (default 13 tokens:
runs of letters and digits, each Han, kana and Hangul character a token,
lower-cased, --normalize width by default), hashed by tok64 with seed 0,
counted with repetitions and in text order, within a paragraph (none
spans two). A paragraph is a run of non-blank lines (see parts(1)).

In arrival order: the paragraphs of a document are looked up in the
filter as it stood before the document, then all its n-grams are added.
So a paragraph is seen only for what earlier documents held: a paragraph
repeated within one document is not seen for that (it is the next
document that finds it), and neither is one that repeats its own
n-grams. Every paragraph's n-grams are added, seen or not, as BFF does:
what a document brings in is what the documents after it are checked
against. A paragraph of fewer than --min-tokens word tokens (default: k)
is left out: neither looked up nor added, and counted on standard error
(a heading, a "}", "return nil"; its one n-gram would be seen as soon as it
occurred anywhere before). --min-tokens 1 looks them up too, each as one
n-gram of all its tokens (shingle's rule for a text shorter than k).
Paragraphs without a word token are left out and counted.

--by window --tokens N [--stride S] looks up windows of N word tokens, one
starting every S (default N), as parts --by window cuts them, instead of
paragraphs: for text without blank lines (a crawl's extracted text, one
line a document). The windows' n-grams are their own (none spans two
windows); a window of fewer than --min-tokens tokens (the last of a
document) is left out and counted; --tokens less than --min-tokens (by
default -k) is refused. Overlapping windows that are seen are cut as one
by keep --drop-parts.

The filter: a blocked Bloom filter (Putze, Sanders and Singler): blocks
of 512 bits, a cache line; an n-gram's 64-bit hash picks a block and sets
H distinct bits in it, taken from the hash mixed again. One cache line an
n-gram where a plain Bloom filter touches H: measured on Go's source tree
with a filter of 35 MiB, the whole run took 30% less CPU. Its size comes
from two of: --expected N, the distinct n-grams it is to hold (1e9 is
allowed); --fp RATE, its false-positive rate when it holds them (default
0.01); --memory SIZE, its bytes. With --expected and --fp it has the
fewest blocks whose rate at N n-grams, with the best H, is at most RATE
(9.9 bits an n-gram and 6 hashes at 0.01, where a plain Bloom filter has
9.6); with --memory and --fp, the most n-grams it holds at RATE; with
--expected and --memory the rate follows. The rate is the blocked filter's
(the blocks' loads Poisson, mean N·512/bits; a block of j n-grams finds an
absent one with the chance that its H bits are all among those the j set),
which the tests check against measured rates. Standard error says the size
and hash count at the start, and at the end the n-grams added, the bits set
and the false-positive rate they give, with a warning when more n-grams
were added than the filter was sized for (the rate is then above the
target). A false positive makes an n-gram count as seen that was not: a
paragraph's fraction can only rise by it, never fall (no false
negatives). At most 128 GiB, and at most the machine's memory (MemTotal,
or the cgroup's limit when lower): the filter is allocated at once, so a
larger one is refused (status 2), naming the bytes it needs and the flag
to change.

--state FILE loads the filter from FILE when it exists and saves it there
at the end, replaced atomically (a temporary file beside it, synced and
renamed, the directory synced), so that a crash or a failed run leaves the
file of the run before, whole; a run that fails saves nothing. The file
records the n-grams' parameters (unit, k, hash, seed, normalize), the
filter's bits and hashes, what it was sized for and the n-grams added so
far, with a checksum; it is saved after the output is complete (with -o,
after the file is in place), so that a state is never ahead of the output
of its batch: after a crash between the two, the batch run again with the
state gives the same output. A run whose -k, --normalize or sizing flags make
another filter is refused, naming both (give no sizing flags, or the
same, to continue one). A filter up to about 1/8 full is stored as the
gaps between its bits set, about a byte a bit set, else as its bits: a
filter of 118 MiB 3.3% full (50 MB of /usr/share/doc) saves 34 MB, one 1%
full about a tenth of its bits. Today's batch against everything seen:
run 1 and then run 2 with the same state give the same output as one run
over both batches.

The header names how the documents were cut and read, the parts header
(#neardup stage=parts by=paragraph min-bytes=0 min-tokens=T format=…
ids=…), which keep --drop-parts reads the corpus by, then the stage's own
(#neardup stage=seen unit=word k=13 hash=tok64 seed=0 normalize=width
threshold=0.8 min-tokens=13 bits=M hashes=H).

The documents are read as shingle reads them (see shingle(1)): TSV,
JSON Lines (--id-field, --text-field), --files, --lines, WARC and
Parquet, gzip and zstd, --number-from N. The text is as stored (no --text
html: keep --drop-parts cuts ranges out of the documents as stored).

The output is the same for any -j: the workers read, cut and hash in
parallel, and one thread looks up and adds in input order. Memory: the
filter, and per chunk of about 1 MiB in flight (up to 2×workers+2) its
paragraphs' n-gram hashes, 8 bytes a token.

EXAMPLES
   seen --state bff.bin --expected 1e9 batch1.jsonl > seen1.tsv
   keep --drop-parts seen1.tsv --report removed.tsv batch1.jsonl > clean1.jsonl
   seen --state bff.bin --expected 1e9 batch2.jsonl > seen2.tsv   # against batch 1 and itself
   seen --memory 64M --min-tokens 20 --files $(go env GOROOT)/src > licences.tsv
   seen --expected 1e8 --by window --tokens 50 --stride 25 --lines crawl.txt.zst > seen.tsv`,
		SeeAlso: []string{"parts", "shingle", "keep"},
		Flags: merge([]cli.Flag{
			&cli.IntFlag{Name: "k", Value: seen.DefaultK, Usage: "n-gram length in word tokens"},
			&cli.StringFlag{Name: "normalize", Usage: "fold the text by `LIST` before taking tokens: none or width (as shingle --unit word; default width)"},
			&cli.Float64Flag{Name: "threshold", Value: seen.DefaultThreshold, Usage: "a paragraph is seen when at least this `FRACTION` of its n-grams is in the filter"},
			&cli.IntFlag{Name: "min-tokens", Usage: "leave out paragraphs of fewer than `T` word tokens (counted; default -k)"},
			&cli.StringFlag{Name: "by", Value: "paragraph", Usage: "look up `UNIT`s: paragraph, or window (--tokens, --stride)"},
			&cli.IntFlag{Name: "tokens", Usage: "--by window: `N` word tokens a window"},
			&cli.IntFlag{Name: "stride", Usage: "--by window: a window starts every `S` tokens (default --tokens)"},
			&cli.StringFlag{Name: "expected", Usage: "size the filter for `N` distinct n-grams (1e9 allowed)"},
			&cli.Float64Flag{Name: "fp", Value: seen.DefaultRate, Usage: "the filter's false-positive `RATE` at --expected n-grams"},
			&cli.StringFlag{Name: "memory", Usage: "size the filter to `SIZE` bytes (K, M, G suffixes)"},
			&cli.StringFlag{Name: "state", Usage: "load the filter from `FILE` if it exists, and save it there at the end"},
		}, documentFlagsExcept("text", "main"), commonFlags()),
		Action: seenAction,
	}
}

func seenAction(c *cli.Context, env *Env) error {
	rd, err := documentReading(c)
	if err != nil {
		return err
	}
	norm := shingle.DefaultNormalization(shingle.Word)
	if c.IsSet("normalize") {
		if norm, err = token.ParseNormalization(c.String("normalize")); err != nil {
			return usagef("--normalize: %v", err)
		}
	}
	opt := seen.Options{
		K: c.Int("k"), Norm: norm, Threshold: c.Float64("threshold"), MinTokens: c.Int("min-tokens"),
		State: c.String("state"),
		By:    c.String("by"), Tokens: c.Int("tokens"), Stride: c.Int("stride"),
		Reading: rd,
	}
	if err := checkWindowFlags(c); err != nil {
		return err
	}
	if c.IsSet("min-tokens") && opt.MinTokens < 1 {
		return usagef("--min-tokens %d: want at least 1", opt.MinTokens)
	}
	if c.IsSet("fp") {
		// The options take 0 for "not given" (the default rate).
		if opt.Rate = c.Float64("fp"); opt.Rate == 0 {
			return usagef("--fp 0: want a rate between 0 and 1")
		}
	}
	if c.IsSet("expected") {
		v, err := strconv.ParseFloat(c.String("expected"), 64)
		if err != nil || v < 1 || v > math.MaxInt64/2 || v != math.Trunc(v) {
			return usagef("--expected %q: want a whole number of n-grams, at least 1 (1e9 allowed)", c.String("expected"))
		}
		opt.Expected = int64(v)
	}
	if c.IsSet("memory") {
		if opt.Memory, err = parseSize(c.String("memory")); err != nil {
			return usagef("--memory: %v", err)
		}
	}
	// As writeOutput, but the output is put in place before the state is
	// saved (seen.Options.Commit).
	out, err := openOutput(c, env)
	if err != nil {
		return err
	}
	opt.Common = commonOptions(c, out)
	if out.z != nil {
		out.z.flushEach = opt.Common.LineBuffered
	}
	committed := false
	opt.Commit = func() error {
		committed = true
		return out.finish(nil)
	}
	err = seen.Run(env.Ctx, opt, c.Args().Slice(), out.w, env.Stderr)
	if !committed {
		return out.finish(err)
	}
	return err
}
