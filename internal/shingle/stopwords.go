package shingle

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/token"
)

// Stopwords is a set of stop words, lower-cased.
type Stopwords struct {
	set  map[string]struct{}
	name string
}

// Contains reports whether tok (lower-cased) is a stop word.
func (s *Stopwords) Contains(tok []byte) bool {
	_, ok := s.set[string(tok)]
	return ok
}

// Len returns the number of stop words.
func (s *Stopwords) Len() int { return len(s.set) }

// Name identifies the list in headers: "english", or "xxh64:" and the hash
// of the sorted words of a list read from a file, so that shingles made
// with different lists are never compared.
func (s *Stopwords) Name() string { return s.name }

// englishStopwords are common English function words: articles, pronouns,
// auxiliary verbs, prepositions and conjunctions.
const englishStopwords = `a about above after again against all am an and any are as at
be because been before being below between both but by
can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how
i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very
was we were what when where which while who whom why will with would
you your yours yourself yourselves`

// English returns the built-in English list.
func English() *Stopwords {
	s, _ := readStopwords(strings.NewReader(englishStopwords))
	s.name = "english"
	return s
}

// ReadStopwords reads a list of stop words separated by white space; '#'
// starts a comment that runs to the end of its line. Words are lower-cased and must be single
// tokens.
func ReadStopwords(r io.Reader) (*Stopwords, error) {
	s, err := readStopwords(r)
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(s.set))
	for w := range s.set {
		words = append(words, w)
	}
	slices.Sort(words)
	s.name = fmt.Sprintf("xxh64:%016x", xxhash.Sum64String(strings.Join(words, "\n")))
	return s, nil
}

func readStopwords(r io.Reader) (*Stopwords, error) {
	s := &Stopwords{set: map[string]struct{}{}}
	sc := bufio.NewScanner(r)
	var tok token.Tokenizer
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#") // a comment runs to the end of the line
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		for _, f := range strings.Fields(text) {
			tok.Reset([]byte(f))
			switch tok.Scan() {
			case 0:
				return nil, fmt.Errorf("line %d: %q holds no word", line, f)
			case 1:
				s.set[string(tok.Token(0))] = struct{}{}
			default:
				return nil, fmt.Errorf("line %d: %q is more than one token", line, f)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s.set) == 0 {
		return nil, fmt.Errorf("no stop words")
	}
	return s, nil
}
