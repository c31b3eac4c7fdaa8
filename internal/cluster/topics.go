package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
)

// topics is --topics: each cluster's most characteristic words, by tf-idf
// against a document-frequency table of single words, named as the
// clusters form. The sketches carry no words, so the documents are read
// alongside them (docReader), in the same order, and their words are
// hashed as the table's shingle header says, to find their document
// frequencies. A cluster holds its members' distinct words and how often
// each occurs, tf; a word's score is (1 + ln tf) · ln((1+docs)/(1+df)), and
// the topic is the n best, ties to the word first bytewise (a word in every
// document counted scores 0 and is left out). A line "cluster TAB
// word word …" is written each time a member changes its cluster's topic,
// so the last line of a cluster is its topic, after the header lines of
// the input and the stage's own with topics=n, as every output has them.
type topics struct {
	n      int
	df     *docfreq.Table
	norm   token.Normalization
	sh     *shingle.Shingler
	tok    token.Tokenizer
	docs   *docReader
	out    *record.Writer
	file   *os.File
	byName map[string]*topicCluster
	words  int64 // distinct words held over all clusters
	hashes []uint64
	folded []byte
	scored []scoredWord
	line   []byte
}

type topicCluster struct {
	words map[string]*wordCount
	topic []string
}

type wordCount struct {
	hash  uint64
	count uint32
}

type scoredWord struct {
	word  string
	score float64
}

// before orders words by score, highest first, then bytewise.
func (a scoredWord) before(b scoredWord) bool {
	return a.score > b.score || a.score == b.score && a.word < b.word
}

// wordBytes is about what a distinct word of a cluster holds besides its
// bytes: the map's entry (key header, pointer, its share of the buckets)
// and the count.
const wordBytes = 64

// newTopics loads the table, checks that it counted single words, and opens
// the documents and the output.
func newTopics(ctx context.Context, opt Options, reading input.Reading, own record.Header) (*topics, error) {
	df, err := docfreq.Load(ctx, opt.DF, opt.Jobs)
	if err != nil {
		return nil, err
	}
	if df.Shingle == nil {
		return nil, fmt.Errorf("--df %s has no shingle header: the topics must hash words as its counts were made", opt.DF)
	}
	so, err := shingle.OptionsFromHeader(*df.Shingle, nil)
	if err != nil {
		return nil, record.Errorf(df.ShinglePos, "%v", err)
	}
	if so.Unit != shingle.Word || so.K != 1 {
		return nil, record.Errorf(df.ShinglePos, "--topics needs the document frequencies of single words (shingle --unit word -k 1 | docfreq); --df %s counted %s shingles of k=%d", opt.DF, so.Unit, so.K)
	}
	docs, err := newDocReader(opt.Documents, reading)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(opt.TopicsOut)
	if err != nil {
		docs.close(io.Discard)
		return nil, err
	}
	own.Params = append(slices.Clip(own.Params), record.Param{Key: "topics", Value: strconv.Itoa(opt.Topics)})
	return &topics{n: opt.Topics, df: df, norm: so.Norm, sh: shingle.New(so), docs: docs,
		out: record.NewWriter(f, opt.NoHeader, false, own), file: f, byName: map[string]*topicCluster{}}, nil
}

// add reads the document id from the documents, adds its words to the
// cluster name and writes the cluster's topic if it changed.
func (t *topics) add(name, id []byte) error {
	text, err := t.docs.find(id)
	if err != nil {
		return err
	}
	if t.norm.Width && bytes.IndexByte(text, 0xef) >= 0 {
		t.folded = token.FoldWidth(t.folded[:0], text)
		text = t.folded
	}
	// Folded again by the shingler, the text is the same: both see the
	// same tokens.
	t.hashes = t.sh.Append(t.hashes[:0], text)
	c := t.byName[string(name)]
	if c == nil {
		c = &topicCluster{words: map[string]*wordCount{}}
		t.byName[string(name)] = c
	}
	i := 0
	t.tok.Reset(text)
	for n := t.tok.Scan(); n > 0; n = t.tok.Scan() {
		for j := range n {
			if i >= len(t.hashes) {
				return fmt.Errorf("document %s: the words and their shingles do not pair up", id)
			}
			w := c.words[string(t.tok.Token(j))]
			if w == nil {
				w = &wordCount{hash: t.hashes[i]}
				c.words[string(t.tok.Token(j))] = w
				t.words++
			}
			w.count++
			i++
		}
	}
	if i != len(t.hashes) {
		return fmt.Errorf("document %s: the words and their shingles do not pair up", id)
	}
	return t.update(name, c)
}

// update computes the topic of cluster name and writes it if it changed:
// one pass over its words keeps the n best so far in order.
func (t *topics) update(name []byte, c *topicCluster) error {
	best := t.scored[:0]
	for word, w := range c.words {
		idf := math.Log(float64(1+t.df.Docs) / float64(1+t.df.DF(w.hash)))
		if idf <= 0 {
			continue // in every document counted: it names nothing
		}
		sw := scoredWord{word, (1 + math.Log(float64(w.count))) * idf}
		if len(best) == t.n && !sw.before(best[len(best)-1]) {
			continue
		}
		i := len(best)
		for i > 0 && sw.before(best[i-1]) {
			i--
		}
		if len(best) < t.n {
			best = append(best, scoredWord{})
		}
		copy(best[i+1:], best[i:])
		best[i] = sw
	}
	t.scored = best
	if len(best) == len(c.topic) && slices.EqualFunc(best, c.topic, func(a scoredWord, b string) bool { return a.word == b }) {
		return nil
	}
	c.topic = c.topic[:0]
	t.line = append(t.line[:0], name...)
	for i, w := range best {
		c.topic = append(c.topic, w.word)
		if i == 0 {
			t.line = append(t.line, '\t')
		} else {
			t.line = append(t.line, ' ')
		}
		t.line = append(t.line, w.word...)
	}
	t.line = append(t.line, '\n')
	_, err := t.out.Write(t.line)
	return err
}

// header takes a header line of the input, at pos.
func (t *topics) header(h record.Header, pos record.Pos) error { return t.out.Header(h, pos) }

// flush writes out the lines so far.
func (t *topics) flush() error { return t.out.Flush() }

// close flushes and closes the output and the documents, and says how many
// documents had no sketch.
func (t *topics) close(stderr io.Writer) error {
	t.docs.close(stderr)
	err := t.out.Close()
	if cerr := t.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// bytes returns about what the clusters' words hold.
func (t *topics) bytes() int64 {
	var n int64
	for _, c := range t.byName {
		for w := range c.words {
			n += int64(len(w))
		}
	}
	return n + wordBytes*t.words
}

// readingOf is how the documents are read: as the sketches' shingle
// header says shingle read them.
func readingOf(headers []stream.HeaderAt) (input.Reading, error) {
	var hs record.HeaderSet
	for _, h := range headers {
		if _, err := hs.Add(h.Header, h.Pos); err != nil {
			return input.Reading{}, err
		}
	}
	if _, ok := hs.Get("shingle"); !ok {
		return input.Reading{}, fmt.Errorf("--topics reads the documents as the sketches' shingle header says shingle read them: the input has none (was it written with --no-header?)")
	}
	r, _, err := input.ReadingFlags{}.FromHeaders(&hs)
	return r, err
}
