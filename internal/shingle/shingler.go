package shingle

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/token"
)

// Unit is what a shingle is made of.
type Unit int

const (
	Char Unit = iota
	Word
	Stopword
)

// ParseUnit parses "char", "word" or "stopword".
func ParseUnit(s string) (Unit, error) {
	switch s {
	case "char":
		return Char, nil
	case "word":
		return Word, nil
	case "stopword":
		return Stopword, nil
	}
	return 0, fmt.Errorf("unknown unit %q: want char, word or stopword", s)
}

func (u Unit) String() string {
	switch u {
	case Char:
		return "char"
	case Word:
		return "word"
	}
	return "stopword"
}

// DefaultK returns the default shingle length of a unit: 5 code points
// (after the default normalization, width,punct: chosen by measurement on
// real text in seven languages, see examples/languages.sh and the shingle
// man page), 5 words, or a stop word and the next 2 words.
func DefaultK(u Unit) int {
	switch u {
	case Char:
		return 5
	case Word:
		return 5
	}
	return 3
}

// Scheme is how shingles are hashed.
type Scheme int

const (
	Tok64 Scheme = iota
	XXH64
)

// ParseScheme parses "tok64" or "xxh64".
func ParseScheme(s string) (Scheme, error) {
	switch s {
	case "tok64":
		return Tok64, nil
	case "xxh64":
		return XXH64, nil
	}
	return 0, fmt.Errorf("unknown hash %q: want tok64 or xxh64", s)
}

func (s Scheme) String() string {
	if s == XXH64 {
		return "xxh64"
	}
	return "tok64"
}

// Options configure a Shingler.
type Options struct {
	Unit   Unit
	K      int
	Scheme Scheme
	Seed   uint64
	// Norm is the normalization before shingling (the header's normalize=).
	Norm token.Normalization
	// Stopwords is the stop-word list of the Stopword unit.
	Stopwords *Stopwords
}

// Shingler hashes the shingles of texts. It keeps scratch space and is not
// safe for concurrent use; make one per goroutine.
type Shingler struct {
	opt    Options
	key    uint64
	tok    token.Tokenizer
	chars  token.Chars
	win    window
	units  []uint64 // unit hashes (stop-word shingles)
	stop   []bool
	bytes  []byte // lower-cased units, for xxh64
	ends   []int  // end offset in bytes of each unit
	joined []byte
	folded []byte // the text with its width forms folded
	digest *xxhash.Digest
	each   func([]uint64) // Stream's, while it runs
}

// New returns a Shingler. K must be at least 1.
func New(opt Options) *Shingler {
	if opt.K < 1 {
		opt.K = 1
	}
	if opt.Unit == Stopword && opt.Stopwords == nil {
		opt.Stopwords = English()
	}
	s := &Shingler{opt: opt, key: seedKey(opt.Seed), digest: xxhash.NewWithSeed(opt.Seed)}
	s.chars.Punct = opt.Norm.Punct && opt.Unit == Char
	return s
}

// Append appends to dst the hash of every shingle of text, in text order and
// with repetitions.
func (s *Shingler) Append(dst []uint64, text []byte) []uint64 {
	if s.opt.Norm.Width && bytes.IndexByte(text, 0xef) >= 0 {
		s.folded = token.FoldWidth(s.folded[:0], text)
		text = s.folded
	}
	switch {
	case s.opt.Unit == Word && s.opt.Scheme == Tok64:
		return s.wordsTok64(dst, text)
	case s.opt.Unit == Char && s.opt.Scheme == Tok64:
		return s.charsTok64(dst, text)
	case s.opt.Unit == Char:
		return s.charsXXH64(dst, text)
	}
	return s.tokensGeneral(dst, text)
}

// Stream hands each the hash of every shingle of text, in text order and
// with repetitions, as Append gives them, in parts of about StreamPart
// hashes (xxh64 and stop-word shingles, whose units are collected first,
// in one part); buf holds the parts, and is returned for the next call.
// The hashes of a large document, 8 bytes a word or a character, are
// never all held, and a part is taken while in the cache.
func (s *Shingler) Stream(buf []uint64, text []byte, each func([]uint64)) []uint64 {
	s.each = each
	buf = s.Append(buf[:0], text)
	s.each = nil
	if len(buf) > 0 {
		each(buf)
	}
	return buf[:0]
}

// StreamPart is about how many hashes Stream hands on at a time: 32 KiB,
// in the first or second level cache while they are taken.
const StreamPart = 4096

// part hands dst to Stream's each once it holds StreamPart hashes, and
// returns what to append to next.
func (s *Shingler) part(dst []uint64) []uint64 {
	if s.each != nil && len(dst) >= StreamPart {
		s.each(dst)
		return dst[:0]
	}
	return dst
}

func (s *Shingler) wordsTok64(dst []uint64, text []byte) []uint64 {
	s.win.reset(s.opt.K)
	s.tok.Reset(text)
	for s.tok.Scan() > 0 {
		s.units = s.tok.AppendHashes(s.units[:0])
		dst = s.part(s.win.add(dst, s.units, s.key))
	}
	return s.win.short(dst, s.key)
}

func (s *Shingler) charsTok64(dst []uint64, text []byte) []uint64 {
	s.win.reset(s.opt.K)
	s.chars.Reset(text)
	units := s.units
	for {
		if units = s.chars.Units(units[:0], token.MaxSpans); len(units) == 0 {
			break
		}
		dst = s.part(s.win.add(dst, units, s.key))
	}
	s.units = units
	return s.win.short(dst, s.key)
}

func (s *Shingler) xxh64(b []byte) uint64 {
	s.digest.ResetWithSeed(s.opt.Seed)
	s.digest.Write(b)
	return s.digest.Sum64()
}

func (s *Shingler) charsXXH64(dst []uint64, text []byte) []uint64 {
	s.bytes = s.bytes[:0]
	s.ends = s.ends[:0]
	s.chars.Reset(text)
	for {
		r, ok := s.chars.Next()
		if !ok {
			break
		}
		s.bytes = utf8.AppendRune(s.bytes, r)
		s.ends = append(s.ends, len(s.bytes))
	}
	n, k := len(s.ends), s.opt.K
	if n == 0 {
		return dst
	}
	if n < k {
		return append(dst, s.xxh64(s.bytes))
	}
	for i := 0; i+k <= n; i++ {
		start := 0
		if i > 0 {
			start = s.ends[i-1]
		}
		dst = append(dst, s.xxh64(s.bytes[start:s.ends[i+k-1]]))
	}
	return dst
}

// tokensGeneral handles word shingles under xxh64 and stop-word shingles:
// it collects the tokens first, then hashes each shingle.
func (s *Shingler) tokensGeneral(dst []uint64, text []byte) []uint64 {
	s.units = s.units[:0]
	s.stop = s.stop[:0]
	s.bytes = s.bytes[:0]
	s.ends = s.ends[:0]
	needBytes := s.opt.Scheme == XXH64
	s.tok.Reset(text)
	for n := s.tok.Scan(); n > 0; n = s.tok.Scan() {
		for i := range n {
			t := s.tok.Token(i)
			if needBytes {
				s.bytes = append(s.bytes, t...)
				s.ends = append(s.ends, len(s.bytes))
			} else {
				s.units = append(s.units, token.Hash(t))
			}
			if s.opt.Unit == Stopword {
				s.stop = append(s.stop, s.opt.Stopwords.Contains(t))
			}
		}
	}
	n := len(s.units)
	if needBytes {
		n = len(s.ends)
	}
	k := s.opt.K
	if s.opt.Unit == Stopword {
		for i := 0; i < n; i++ {
			if s.stop[i] {
				dst = append(dst, s.shingle(i, min(i+k, n)))
			}
		}
		return dst
	}
	if n == 0 {
		return dst
	}
	if n < k {
		return append(dst, s.shingle(0, n))
	}
	for i := 0; i+k <= n; i++ {
		dst = append(dst, s.shingle(i, i+k))
	}
	return dst
}

// shingle hashes tokens [i, j) collected by tokensGeneral.
func (s *Shingler) shingle(i, j int) uint64 {
	if s.opt.Scheme == Tok64 {
		return combine(s.units[i:j], s.key)
	}
	b := s.joined[:0]
	for t := i; t < j; t++ {
		start := 0
		if t > 0 {
			start = s.ends[t-1]
		}
		if t > i {
			b = append(b, ' ')
		}
		b = append(b, s.bytes[start:s.ends[t]]...)
	}
	s.joined = b
	return s.xxh64(b)
}
