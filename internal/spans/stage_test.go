package spans

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
)

// doc is a document of a test corpus.
type doc struct{ id, text string }

// plantedCorpus makes documents of random words with planted repeats:
// passages copied into several documents and twice into one, passages that
// overlap (one's end is another's start), passages copied with one token
// changed, and the same tokens written with other case, spacing,
// punctuation and full-width letters.
func plantedCorpus(seed uint64, ndocs int) []doc {
	rng := rand.New(rand.NewPCG(seed, 7))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega ａｂｃ Ｘｙｚ naïve Ünïcode 日 本 語 x1 y2 z3")
	word := func() string { return vocab[rng.IntN(len(vocab))] }
	passage := func(n int) []string {
		p := make([]string, n)
		for i := range p {
			p[i] = word()
		}
		return p
	}
	var passages [][]string
	for range 12 {
		passages = append(passages, passage(3+rng.IntN(25)))
	}
	// Overlapping passages: the end of one is the start of the next.
	for i := range 4 {
		p := passages[i]
		passages = append(passages, append(slices.Clone(p[len(p)/2:]), passage(8)...))
	}
	seps := []string{" ", "  ", "\\n", ", ", " - ", ". ", "\\t"}
	render := func(toks []string) string {
		var b strings.Builder
		for i, t := range toks {
			if i > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			if rng.IntN(5) == 0 {
				t = strings.ToUpper(t)
			}
			b.WriteString(t)
		}
		return b.String()
	}
	var docs []doc
	for d := range ndocs {
		var toks []string
		for range 1 + rng.IntN(6) {
			switch r := rng.IntN(10); {
			case r < 4:
				toks = append(toks, passage(rng.IntN(20))...)
			case r < 8:
				toks = append(toks, passages[rng.IntN(len(passages))]...)
			default: // a near-repeat: one token changed
				p := slices.Clone(passages[rng.IntN(len(passages))])
				p[rng.IntN(len(p))] = "changed"
				toks = append(toks, p...)
			}
		}
		docs = append(docs, doc{fmt.Sprintf("d%03d", d), render(toks)})
	}
	return docs
}

// bruteForce computes the records by their definition: the tokens of each
// document compared as normalized bytes (shingle's tokenizer over the text
// width-folded), every window of n tokens looked up among all windows of
// the corpus by its tokens, and the repeated windows of a document joined
// in token order while the count stays the same and the first places
// follow each other in one document.
func bruteForce(t *testing.T, docs []doc, n int) []string {
	t.Helper()
	type place struct{ doc, tok int }
	var toks [][]string
	var spans [][]token.TokenHash
	var texts [][]byte
	places := map[string][]place{}
	var h token.TokenHasher
	for d, dc := range docs {
		text := record.Unescape(nil, []byte(dc.text))
		texts = append(texts, text)
		var tk token.Tokenizer
		tk.Reset(token.FoldWidth(nil, text))
		var ts []string
		for k := tk.Scan(); k > 0; k = tk.Scan() {
			for i := range k {
				ts = append(ts, string(tk.Token(i)))
			}
		}
		sp := h.Append(nil, text, true)
		if len(sp) != len(ts) {
			t.Fatalf("document %d: %d spans, %d tokens", d, len(sp), len(ts))
		}
		toks, spans = append(toks, ts), append(spans, sp)
		for i := 0; i+n <= len(ts); i++ {
			k := strings.Join(ts[i:i+n], "\x00")
			places[k] = append(places[k], place{d, i})
		}
	}
	var out []string
	for d := range docs {
		type run struct {
			from, to           int // windows
			count              int
			first              place
			firstFrom, firstTo int
		}
		var cur *run
		flush := func() {
			if cur == nil {
				return
			}
			f := cur.first
			out = append(out, fmt.Sprintf("%s#%d-%d\t%d\t%s#%d-%d", docs[d].id, spans[d][cur.from].Start, spans[d][cur.to+n-1].End, cur.count,
				docs[f.doc].id, spans[f.doc][cur.firstFrom].Start, spans[f.doc][cur.firstTo+n-1].End))
			cur = nil
		}
		for i := 0; i+n <= len(toks[d]); i++ {
			ps := places[strings.Join(toks[d][i:i+n], "\x00")]
			if len(ps) < 2 {
				flush()
				continue
			}
			first := ps[0]
			if cur != nil && cur.to == i-1 && cur.count == len(ps) && first.doc == cur.first.doc && first.tok == cur.firstTo+1 {
				cur.to, cur.firstTo = i, first.tok
				continue
			}
			flush()
			cur = &run{from: i, to: i, count: len(ps), first: first, firstFrom: first.tok, firstTo: first.tok}
		}
		flush()
	}
	return out
}

func writeDocs(t *testing.T, docs []doc) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.id + "\t" + d.text + "\n")
	}
	name := filepath.Join(t.TempDir(), "docs.tsv")
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// runStage runs the stage and returns its records and stderr.
func runStage(t *testing.T, opt Options, inputs ...string) ([]string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	if err := Run(context.Background(), opt, inputs, &out, &errs); err != nil {
		t.Fatalf("%+v: %v\n%s", opt, err, errs.String())
	}
	var recs []string
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if record.IsHeader([]byte(line)) || line == "" {
			continue
		}
		var s record.Span
		if err := record.ParseSpan(&s, []byte(line)); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		recs = append(recs, line)
	}
	return recs, errs.String()
}

// TestBruteForce compares the stage with the brute force on planted
// corpora, for several N, -j and --memory (a tiny one spills both sorts
// to many runs, merged three at a time, and keys with more windows than
// are held go to a file).
func TestBruteForce(t *testing.T) {
	defer func(m, r int) { maxGroupHeld, maxRuns = m, r }(maxGroupHeld, maxRuns)
	for _, n := range []int{1, 3, 8, 20} {
		docs := plantedCorpus(uint64(n), 150)
		name := writeDocs(t, docs)
		want := bruteForce(t, docs, n)
		if len(want) == 0 {
			t.Fatalf("n=%d: no repeated span planted", n)
		}
		var first string
		for _, jobs := range []int{1, 3} {
			for _, mem := range []int64{0, 1} {
				maxGroupHeld, maxRuns = 1<<16, 128
				if mem == 1 {
					// Keys with more windows than are held, and runs
					// merged into one as they come.
					maxGroupHeld, maxRuns = 2, 3
				}
				opt := Options{Tokens: n, Width: true, MemoryBytes: mem, TempDir: t.TempDir(), Common: stream.Common{Jobs: jobs}}
				got, stderr := runStage(t, opt, name)
				if !slices.Equal(got, want) {
					t.Errorf("n=%d -j %d --memory %d: %d records, want %d (brute force)\n%s", n, jobs, mem, len(got), len(want), diff(got, want))
				}
				if mem == 1 && !strings.Contains(stderr, "spilled") {
					t.Errorf("n=%d: --memory 1 spilled nothing:\n%s", n, stderr)
				}
				if first == "" {
					first = strings.Join(got, "\n")
					t.Logf("n=%d: %d records; %s", n, len(got), stderr)
				}
			}
		}
	}
}

// diff shows the first lines that differ.
func diff(got, want []string) string {
	var b strings.Builder
	for i := 0; i < max(len(got), len(want)) && b.Len() < 2000; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "line %d:\n  got  %s\n  want %s\n", i+1, g, w)
		}
	}
	return b.String()
}
