package keep

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/cluster"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/verify"
)

// plantedCorpus writes TSV documents: originals of random words, each with
// 0 to 3 near-copies (a few words substituted, inserted or deleted), and
// unrelated documents. It returns the lines and, per line, its group (the
// original's line) or -1 for an unrelated document.
func plantedCorpus(seed uint64) (lines []string, group []int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", rng.IntN(1<<30))
	}
	text := func() []string {
		ws := make([]string, 150+rng.IntN(100))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return ws
	}
	type doc struct {
		words []string
		group int
	}
	var docs []doc
	for g := range 40 {
		orig := text()
		docs = append(docs, doc{orig, g})
		for range rng.IntN(4) {
			c := append([]string(nil), orig...)
			for range 2 {
				switch i := rng.IntN(len(c)); rng.IntN(3) {
				case 0:
					c[i] = vocab[rng.IntN(len(vocab))]
				case 1:
					c = append(c[:i], append([]string{vocab[rng.IntN(len(vocab))]}, c[i:]...)...)
				case 2:
					c = append(c[:i], c[i+1:]...)
				}
			}
			docs = append(docs, doc{c, g})
		}
	}
	for range 60 {
		docs = append(docs, doc{text(), -1})
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	for i, d := range docs {
		// Ids with a TAB (escaped) and texts with escapes and CRLF ends.
		line := fmt.Sprintf("doc\\t%03d\t%s\\nend", i, strings.Join(d.words, " "))
		if i%5 == 0 {
			line += "\r"
		}
		lines = append(lines, line+"\n")
		group = append(group, d.group)
	}
	return lines, group
}

// stageFile runs one stage with its inputs and writes its output to a file.
func stageFile(t *testing.T, dir, out string, run func(stdout, stderr io.Writer) error) string {
	t.Helper()
	p := filepath.Join(dir, out)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := run(f, &stderr); err != nil {
		t.Fatalf("%s: %v\n%s", out, err, stderr.String())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPipelineEndToEnd runs corpus → shingle → sketch → band → pairs →
// verify → cluster → keep in process and checks that exactly one document
// of each planted group is kept, every unrelated one too, each byte for
// byte as it came in.
func TestPipelineEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lines, group := plantedCorpus(1)
	corpus := filepath.Join(dir, "corpus.tsv")
	os.WriteFile(corpus, []byte(strings.Join(lines, "")), 0o644)

	shingles := stageFile(t, dir, "shingles.tsv", func(o, e io.Writer) error {
		return shingle.Run(ctx, shingle.StageOptions{Reading: input.Reading{IDField: "id", TextField: "text"}, Shingle: shingle.Options{Unit: shingle.Word, K: 5}}, []string{corpus}, o, e)
	})
	sketches := stageFile(t, dir, "sketches.tsv", func(o, e io.Writer) error {
		return sketch.Run(ctx, sketch.Options{Method: sketch.MinHash, N: 128}, []string{shingles}, o, e)
	})
	keys := stageFile(t, dir, "keys.tsv", func(o, e io.Writer) error {
		return band.Run(ctx, band.Options{Threshold: 0.7, FPWeight: 0.5, FNWeight: 0.5, Floor: 0.995}, []string{sketches}, o, e)
	})
	candidates := stageFile(t, dir, "candidates.tsv", func(o, e io.Writer) error {
		return pairs.Run(ctx, pairs.Options{}, []string{keys}, o, e)
	})
	scored := stageFile(t, dir, "scored.tsv", func(o, e io.Writer) error {
		return verify.Run(ctx, verify.Options{Shingles: shingles, Threshold: 0.7}, []string{candidates}, o, e)
	})
	clusters := stageFile(t, dir, "clusters.tsv", func(o, e io.Writer) error {
		return cluster.Run(ctx, cluster.Options{Method: cluster.Components, Split: true, MinSimilarity: 0.7}, []string{scored}, o, e)
	})
	for _, prefer := range []string{PreferFirst, PreferLongest} {
		var out, stderr bytes.Buffer
		opt := Options{Reading: input.Reading{IDField: "id", TextField: "text"}, Clusters: clusters, Prefer: prefer, ClusterField: "cluster"}
		if err := Run(ctx, opt, []string{corpus}, &out, &stderr); err != nil {
			t.Fatal(err)
		}
		kept := map[string]bool{}
		for _, l := range strings.SplitAfter(out.String(), "\n") {
			if l != "" {
				kept[l] = true
			}
		}
		perGroup := map[int]int{}
		unrelated := 0
		for i, l := range lines {
			if !kept[l] {
				continue
			}
			delete(kept, l)
			if group[i] < 0 {
				unrelated++
			} else {
				perGroup[group[i]]++
			}
		}
		if len(kept) != 0 {
			t.Fatalf("%s: %d kept lines are not input lines byte for byte, e.g. %q", prefer, len(kept), firstKey(kept))
		}
		if unrelated != 60 {
			t.Errorf("%s: %d of 60 unrelated documents kept", prefer, unrelated)
		}
		for g := range 40 {
			if perGroup[g] != 1 {
				t.Errorf("%s: group %d: %d documents kept, want 1", prefer, g, perGroup[g])
			}
		}
	}
}

func firstKey(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}
