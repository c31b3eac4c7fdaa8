// Command peer-minhash-lsh finds candidate near-duplicate pairs the way a
// Go program built on dgryski/go-minhash and ekzhu/minhash-lsh does: a
// MinHash signature of each document's word shingles, an LSH index of them
// at a Jaccard threshold, and a query of each document. It writes the
// candidates the index gives, unverified, for examples/peers.sh to time
// against neardup's pipeline to verified pairs.
//
// Usage:
//
//	peer-minhash-lsh [flags] [CORPUS]
//
// CORPUS is the toolkit's TSV, "id TAB text" (standard input without it).
// The words are neardup's (internal/token, the tokens of shingle --unit
// word with its default --normalize width), so that both sides shingle the
// same sets; each shingle, its k words joined by a space, is hashed by the
// peer's own MinHash (minhash-lsh's NewMinhash: FNV-1a, seeded). A document
// of fewer than k words has one shingle, of them all, as in neardup; one
// without words is left out, and counted on standard error.
//
// The output is a header line naming the peer's versions and parameters,
// then the pairs "idA TAB idB", idA < idB bytewise, sorted, each once: the
// layout of neardup's candidate pairs.
//
// Exit status: 0 success; 1 a bad input line (file:line) or a failed
// write; 2 bad usage.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	minhashlsh "github.com/ekzhu/minhash-lsh"
	"github.com/neardup/neardup/internal/token"
	"github.com/neardup/neardup/peers/tsv"
)

// The peer's modules, whose versions the help and the header state.
var peerModules = []string{"github.com/dgryski/go-minhash", "github.com/ekzhu/minhash-lsh"}

// versions returns "module@version" of each of the peer's modules as this
// binary was built with them.
func versions() string {
	found := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			found[d.Path] = d.Version
		}
	}
	var vs []string
	for _, m := range peerModules {
		v := found[m]
		if v == "" {
			v = "(version unknown: not built as a module)"
		}
		vs = append(vs, m+"@"+v)
	}
	return strings.Join(vs, " ")
}

type options struct {
	k         int
	values    int
	threshold float64
	seed      int64
	output    string
}

func (o *options) resolve() error {
	switch {
	case o.k < 1:
		return fmt.Errorf("-k %d: a shingle is at least 1 word", o.k)
	case o.values < 1:
		return fmt.Errorf("-n %d: a signature has at least 1 value", o.values)
	case !(o.threshold > 0 && o.threshold <= 1):
		return fmt.Errorf("-threshold %v: a Jaccard threshold is in (0, 1]", o.threshold)
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("peer-minhash-lsh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.k, "k", 5, "shingle length in words")
	fs.IntVar(&o.values, "n", 128, "MinHash signature length")
	fs.Float64Var(&o.threshold, "threshold", 0.8, "Jaccard threshold of the LSH index")
	fs.Int64Var(&o.seed, "seed", 42, "MinHash seed (minhash-lsh-all-pair's default)")
	fs.StringVar(&o.output, "o", "", "write the pairs to `FILE` instead of standard output")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: peer-minhash-lsh [flags] [CORPUS]

Candidate near-duplicate pairs of a TSV corpus (id TAB text) by
%s:
MinHash signatures of word k-shingles (neardup's words, the peer's hashing),
inserted into a MinhashLSH index at the threshold, and each document queried.
Writes "idA TAB idB" (idA < idB, sorted, each once), unverified.

Flags:
`, versions())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := o.resolve(); err != nil {
		fmt.Fprintf(stderr, "peer-minhash-lsh: %v\n", err)
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "peer-minhash-lsh: one CORPUS at most, got %d\n", fs.NArg())
		return 2
	}
	in, name := stdin, "standard input"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "peer-minhash-lsh: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	out := stdout
	if o.output != "" {
		f, err := os.Create(o.output)
		if err != nil {
			fmt.Fprintf(stderr, "peer-minhash-lsh: %v\n", err)
			return 1
		}
		defer f.Close()
		out = f
	}
	if err := find(o, tsv.NewReader(in, name), out, stderr); err != nil {
		fmt.Fprintf(stderr, "peer-minhash-lsh: %v\n", err)
		return 1
	}
	return 0
}

// find signs every document, indexes the signatures, queries each one and
// writes the pairs.
func find(o options, docs *tsv.Reader, out, stderr io.Writer) error {
	var (
		ids     []string
		sigs    [][]uint64
		empty   int
		sh      shingler
		shingle []byte
	)
	for {
		id, text, err := docs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		sh.words(text)
		if len(sh.ends) == 0 {
			empty++
			continue
		}
		// As the peer's own minhash-lsh-all-pair signs a set: a Minhash
		// for each, every shingle pushed (a repeat changes no minimum).
		m := minhashlsh.NewMinhash(o.seed, o.values)
		n := max(len(sh.ends)-o.k+1, 1)
		for i := range n {
			shingle = sh.join(shingle[:0], i, min(i+o.k, len(sh.ends)))
			m.Push(shingle)
		}
		ids = append(ids, id)
		sigs = append(sigs, m.Signature())
	}
	if empty > 0 {
		fmt.Fprintf(stderr, "peer-minhash-lsh: %d document(s) without words left out\n", empty)
	}
	lsh := minhashlsh.NewMinhashLSH(o.values, o.threshold)
	for i, sig := range sigs {
		lsh.Add(i, sig)
	}
	lsh.Index()
	var pairs []tsv.Pair
	for i, sig := range sigs {
		for _, c := range lsh.Query(sig) {
			// Query is symmetric (a band key equal in full), so each pair
			// is taken once, from its first document's query.
			if j := c.(int); j > i {
				pairs = append(pairs, tsv.NewPair(ids[i], ids[j]))
			}
		}
	}
	k, l := lsh.Params()
	fmt.Fprintf(stderr, "peer-minhash-lsh: %d documents signed, %d candidate pairs (LSH: %d bands of %d values)\n", len(sigs), len(pairs), l, k)
	header := fmt.Sprintf("#peer-minhash-lsh %s unit=word k=%d n=%d threshold=%g seed=%d bands=%d rows=%d",
		versions(), o.k, o.values, o.threshold, o.seed, l, k)
	return tsv.WritePairs(out, header, pairs)
}

// shingler holds a document's words, lower-cased, as shingle --unit word
// finds them.
type shingler struct {
	tok    token.Tokenizer
	folded []byte
	joined []byte // the words, one after another
	ends   []int  // the end of each word in joined
}

// words finds the words of text: with its width forms folded (shingle's
// default --normalize width for words), then neardup's tokens.
func (s *shingler) words(text []byte) {
	if bytes.IndexByte(text, 0xef) >= 0 { // U+FF01 to U+FFEE: EF BC 81 to EF BF AE
		s.folded = token.FoldWidth(s.folded[:0], text)
		text = s.folded
	}
	s.joined = s.joined[:0]
	s.ends = s.ends[:0]
	s.tok.Reset(text)
	for n := s.tok.Scan(); n > 0; n = s.tok.Scan() {
		for i := range n {
			s.joined = append(s.joined, s.tok.Token(i)...)
			s.ends = append(s.ends, len(s.joined))
		}
	}
}

// join appends words [i, j) to dst, separated by a space.
func (s *shingler) join(dst []byte, i, j int) []byte {
	for w := i; w < j; w++ {
		start := 0
		if w > 0 {
			start = s.ends[w-1]
		}
		if w > i {
			dst = append(dst, ' ')
		}
		dst = append(dst, s.joined[start:s.ends[w]]...)
	}
	return dst
}
