package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Kind is how a document was made.
type Kind int

const (
	Original Kind = iota
	Exact
	Edit
	Contain
)

func (k Kind) String() string {
	switch k {
	case Exact:
		return "exact"
	case Edit:
		return "edit"
	case Contain:
		return "contain"
	}
	return "original"
}

// Format is how documents are written.
type Format int

const (
	// TSV is "id TAB text", the text escaped (record.Escape).
	TSV Format = iota
	// JSONL is {"id":"…","text":"…"}, one object a line.
	JSONL
)

// ParseFormat parses "tsv" or "jsonl".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "tsv":
		return TSV, nil
	case "jsonl":
		return JSONL, nil
	}
	return 0, fmt.Errorf("unknown format %q: want tsv or jsonl", s)
}

// Lengths is the law of an original's length.
type Lengths int

const (
	// LogUniform draws lengths log-uniformly between MinWords and MaxWords.
	LogUniform Lengths = iota
	// Crawl draws them as a crawl's pages are: log-normal with median
	// MedianWords and σ = 0.7, and one document in fifty from a Pareto tail
	// (α = 1.2) above 4 × MedianWords; clamped to MinWords..MaxWords.
	Crawl
)

// ParseLengths parses "loguniform" or "crawl".
func ParseLengths(s string) (Lengths, error) {
	switch s {
	case "loguniform":
		return LogUniform, nil
	case "crawl":
		return Crawl, nil
	}
	return 0, fmt.Errorf("unknown length law %q: want loguniform or crawl", s)
}

// Options describe a corpus.
type Options struct {
	Seed uint64
	// Docs is the number of documents, originals and planted.
	Docs int
	// MinWords and MaxWords bound the length of an original.
	MinWords, MaxWords int
	// Lengths is how an original's length is drawn between them:
	// LogUniform, or Crawl (a web crawl's pages: log-normal around
	// MedianWords with a heavy tail, see originalLength).
	Lengths     Lengths
	MedianWords int
	// Vocabulary is the number of distinct words; Zipf is the exponent s of
	// the law P(rank r) ∝ 1/r^s.
	Vocabulary int
	Zipf       float64
	// PlantRate is the probability that a document is planted from an
	// earlier original; ExactShare and ContainShare are the shares of exact
	// copies and containing documents among them, the rest are edited.
	PlantRate, ExactShare, ContainShare float64
	// Insert, Delete and Substitute are the per-word edit rates of edited
	// copies.
	Insert, Delete, Substitute float64
	// ContainExtra bounds the words a containing document adds around its
	// source, as a fraction of the source's length.
	ContainExtra float64
	Format       Format
}

// DefaultOptions returns the options of a corpus of 1000 documents.
func DefaultOptions() Options {
	return Options{
		Seed:         1,
		Docs:         1000,
		MinWords:     50,
		MaxWords:     2000,
		Vocabulary:   100000,
		Zipf:         1,
		PlantRate:    0.3,
		ExactShare:   0.1,
		ContainShare: 0.2,
		Insert:       0.01,
		Delete:       0.01,
		Substitute:   0.01,
		ContainExtra: 1,
	}
}

// Check reports the first option out of range.
func (o Options) Check() error {
	rate := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("%s %g: want a rate between 0 and 1", name, v)
		}
		return nil
	}
	switch {
	case o.Docs < 0:
		return fmt.Errorf("%d documents: want 0 or more", o.Docs)
	case o.MinWords < 1 || o.MaxWords < o.MinWords:
		return fmt.Errorf("document length %d to %d words: want 1 ≤ min ≤ max", o.MinWords, o.MaxWords)
	case o.Lengths == Crawl && o.MedianWords < 1:
		return fmt.Errorf("median length %d words: want 1 or more", o.MedianWords)
	case o.Vocabulary < 2 || o.Vocabulary > 1<<24:
		return fmt.Errorf("vocabulary of %d words: want 2 to %d", o.Vocabulary, 1<<24)
	case !(o.Zipf >= 0 && o.Zipf <= 10):
		return fmt.Errorf("zipf exponent %g: want 0 to 10", o.Zipf)
	case !(o.ContainExtra >= 0 && o.ContainExtra <= 100):
		return fmt.Errorf("containment extra %g: want 0 to 100", o.ContainExtra)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"plant rate", o.PlantRate}, {"exact share", o.ExactShare}, {"contain share", o.ContainShare},
		{"insert rate", o.Insert}, {"delete rate", o.Delete}, {"substitute rate", o.Substitute},
	} {
		if err := rate(r.name, r.v); err != nil {
			return err
		}
	}
	if o.ExactShare+o.ContainShare > 1 {
		return errors.New("exact and contain shares add up to more than 1")
	}
	if o.Delete+o.Substitute > 1 {
		return errors.New("delete and substitute rates add up to more than 1")
	}
	return nil
}

// Plant says how a document was made: from which original (Source is -1 for
// an original).
type Plant struct {
	Kind   Kind
	Source int
}

// Salts keep the random streams of a document's plan, words and layout
// apart.
const (
	planSalt   = 0x243f6a8885a308d3
	wordSalt   = 0x13198a2e03707344
	layoutSalt = 0xa4093822299f31d0
)

// sourceTries is how many earlier documents a planted document draws before
// it gives up finding an original and becomes one itself.
const sourceTries = 64

// Generator makes the documents of a corpus. It keeps scratch space and is
// not safe for concurrent use.
type Generator struct {
	opt   Options
	vocab *vocabulary
	idLen int

	plan, probe, words, layout rand.PCG
	planRand, wordRand         *rand.Rand

	logRatio       float64 // ln(MaxWords/MinWords)
	del, sub, ins  uint64  // edit thresholds on a uniform uint64
	planted, exact uint64
	contain        uint64
	src, tokens    []int32
}

// New returns a Generator for opt.
func New(opt Options) (*Generator, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	g := &Generator{opt: opt, vocab: newVocabulary(opt.Vocabulary, opt.Zipf)}
	g.planRand = rand.New(&g.plan)
	g.wordRand = rand.New(&g.words)
	g.idLen = len(fmt.Sprint(max(opt.Docs-1, 0)))
	g.logRatio = math.Log(float64(opt.MaxWords) / float64(opt.MinWords))
	g.del = threshold(opt.Delete)
	g.sub = threshold(opt.Delete + opt.Substitute)
	g.ins = threshold(opt.Insert)
	g.planted = threshold(opt.PlantRate)
	g.exact = threshold(opt.ExactShare)
	g.contain = threshold(opt.ExactShare + opt.ContainShare)
	return g, nil
}

// threshold turns a probability into a bound on a uniform uint64: u < t
// with probability p.
func threshold(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(p * (1 << 64))
}

// Options returns the generator's options.
func (g *Generator) Options() Options { return g.opt }

// AppendID appends the id of document i: "d" and i in decimal, zero-padded
// to the width of the largest number so that ids sort as numbers do.
func (g *Generator) AppendID(dst []byte, i int) []byte {
	dst = append(dst, 'd')
	var digits [20]byte
	n := len(digits)
	for v := uint64(i); ; v /= 10 {
		n--
		digits[n] = byte('0' + v%10)
		if v < 10 {
			break
		}
	}
	for w := len(digits) - n; w < g.idLen; w++ {
		dst = append(dst, '0')
	}
	return append(dst, digits[n:]...)
}

func (g *Generator) key(salt uint64) uint64 { return g.opt.Seed ^ salt }

// isOriginal reports whether document j is drawn as an original; it uses
// its own stream so that Plan's stream is left alone.
func (g *Generator) isOriginal(j int) bool {
	if j == 0 {
		return true
	}
	g.probe.Seed(g.key(planSalt), uint64(j))
	return g.probe.Uint64() >= g.planted
}

// Plan returns how document i is made.
func (g *Generator) Plan(i int) Plant {
	orig := Plant{Kind: Original, Source: -1}
	if i == 0 {
		return orig
	}
	g.plan.Seed(g.key(planSalt), uint64(i))
	r := g.planRand
	if r.Uint64() >= g.planted {
		return orig
	}
	kind := Edit
	switch u := r.Uint64(); {
	case u < g.exact:
		kind = Exact
	case u < g.contain:
		kind = Contain
	}
	for range sourceTries {
		j := r.IntN(i)
		if g.isOriginal(j) {
			return Plant{Kind: kind, Source: j}
		}
	}
	return orig
}

// originalWords appends the words of original document i.
func (g *Generator) originalWords(dst []int32, i int) []int32 {
	g.words.Seed(g.key(wordSalt), uint64(i))
	return g.appendWords(dst, g.originalLength())
}

// originalLength draws an original's number of words from the word stream.
func (g *Generator) originalLength() int {
	o := &g.opt
	if o.Lengths == Crawl {
		r := g.wordRand
		median := float64(o.MedianWords)
		n := median * math.Exp(0.7*r.NormFloat64())
		if r.IntN(50) == 0 {
			n = 4 * median * math.Pow(1-r.Float64(), -1/1.2)
		}
		return int(math.Round(min(max(n, float64(o.MinWords)), float64(o.MaxWords))))
	}
	if g.logRatio > 0 {
		return int(math.Round(float64(o.MinWords) * math.Exp(g.wordRand.Float64()*g.logRatio)))
	}
	return o.MinWords
}

// appendWords appends n words drawn from the word stream.
func (g *Generator) appendWords(dst []int32, n int) []int32 {
	for range n {
		dst = append(dst, g.vocab.sample(g.words.Uint64()))
	}
	return dst
}

// edit appends src with deletions, substitutions and insertions drawn from
// the word stream.
func (g *Generator) edit(dst, src []int32) []int32 {
	for _, w := range src {
		switch u := g.words.Uint64(); {
		case u < g.del:
		case u < g.sub:
			dst = append(dst, g.other(w))
		default:
			dst = append(dst, w)
		}
		if g.ins > 0 && g.words.Uint64() < g.ins {
			dst = append(dst, g.vocab.sample(g.words.Uint64()))
		}
	}
	return dst
}

// other draws a word other than w.
func (g *Generator) other(w int32) int32 {
	for {
		if v := g.vocab.sample(g.words.Uint64()); v != w {
			return v
		}
	}
}

// Words appends the word numbers of document i, in order, and returns how it
// was made. Word numbers are ranks (0 the most frequent); Word spells them.
func (g *Generator) Words(dst []int32, i int) ([]int32, Plant) {
	p := g.Plan(i)
	switch p.Kind {
	case Original:
		return g.originalWords(dst, i), p
	case Exact:
		return g.originalWords(dst, p.Source), p
	}
	g.src = g.originalWords(g.src[:0], p.Source)
	g.words.Seed(g.key(wordSalt), uint64(i))
	if p.Kind == Edit {
		return g.edit(dst, g.src), p
	}
	r := g.wordRand
	extra := int(math.Round(r.Float64() * g.opt.ContainExtra * float64(len(g.src))))
	before := r.IntN(extra + 1)
	dst = g.appendWords(dst, before)
	dst = append(dst, g.src...)
	return g.appendWords(dst, extra-before), p
}

// Word appends the spelling of word number w.
func (g *Generator) Word(dst []byte, w int32) []byte { return g.vocab.append(dst, w) }

// AppendText appends the text of document i and returns how it was made.
func (g *Generator) AppendText(dst []byte, i int) ([]byte, Plant) {
	var p Plant
	g.tokens, p = g.Words(g.tokens[:0], i)
	layout := i
	if p.Kind == Exact {
		layout = p.Source
	}
	return g.render(dst, g.tokens, layout), p
}

// render appends words as sentences of 4 to 23 words, the first letter
// capitalised, each ended by a full stop; about one sentence in six ends a
// paragraph (a line break). The layout is drawn from document i's stream.
func (g *Generator) render(dst []byte, words []int32, i int) []byte {
	g.layout.Seed(g.key(layoutSalt), uint64(i))
	// A word takes at most maxWordLen bytes, a separator and a full stop;
	// with that room reserved the loop writes without growing dst.
	n := len(dst)
	dst = slices.Grow(dst, len(words)*(maxWordLen+2))
	buf := dst[:cap(dst)]
	left := 0
	for k, w := range words {
		if left == 0 {
			u := g.layout.Uint64()
			left = 4 + int(u%20)
			if k > 0 {
				buf[n] = ' '
				if (u>>32)%6 == 0 {
					buf[n] = '\n'
				}
				n++
			}
			l := g.vocab.put(buf, n, w)
			buf[n] -= 'a' - 'A'
			n += l
		} else {
			buf[n] = ' '
			n++
			n += g.vocab.put(buf, n, w)
		}
		left--
		if left == 0 || k == len(words)-1 {
			buf[n] = '.'
			n++
			left = 0
		}
	}
	return buf[:n]
}
