package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/synthsketch"
)

var planted = synthsketch.Options{Docs: 3000, N: 128, CopyFraction: 0.4, MinSimilarity: 0.9, MaxSimilarity: 1, Seed: 7}

// stream returns the synthetic sketches as text and the documents.
func plantedStream(t *testing.T, o synthsketch.Options) (string, []synthsketch.Doc) {
	t.Helper()
	var b bytes.Buffer
	if err := synthsketch.Write(&b, o); err != nil {
		t.Fatal(err)
	}
	var docs []synthsketch.Doc
	synthsketch.Generate(o, func(d *synthsketch.Doc) {
		docs = append(docs, synthsketch.Doc{ID: d.ID, Original: d.Original, Similarity: d.Similarity})
	})
	return b.String(), docs
}

// assignment parses cluster records into id → cluster, keeping the order.
func assignment(t *testing.T, out string) (map[string]string, []string) {
	t.Helper()
	m := map[string]string{}
	var order []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		c, id, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("bad record %q", l)
		}
		m[id] = c
		order = append(order, id)
	}
	return m, order
}

func TestLeaderPlantedGroups(t *testing.T) {
	text, docs := plantedStream(t, planted)
	for _, jobs := range []int{1, 3} {
		opt := defaults(Leader)
		opt.Jobs = jobs
		got, _, err := run(t, opt, text)
		if err != nil {
			t.Fatal(err)
		}
		m, order := assignment(t, got)
		if len(order) != len(docs) {
			t.Fatalf("%d records for %d documents", len(order), len(docs))
		}
		copies := 0
		for i, d := range docs {
			if order[i] != d.ID {
				t.Fatalf("record %d is %s, want %s: leader writes in input order", i, order[i], d.ID)
			}
			if d.Original < 0 {
				if m[d.ID] != d.ID {
					t.Fatalf("original %s joined %s", d.ID, m[d.ID])
				}
				continue
			}
			copies++
			if want := docs[d.Original].ID; m[d.ID] != want {
				t.Fatalf("copy %s (similarity %.3f to %s) is in cluster %s", d.ID, d.Similarity, want, m[d.ID])
			}
		}
		if copies < 1000 {
			t.Fatalf("only %d copies planted", copies)
		}
	}
}

func TestLeaderStateContinues(t *testing.T) {
	text, _ := plantedStream(t, planted)
	lines := strings.SplitAfter(text, "\n")
	header, body := lines[0], lines[1:]
	dir := t.TempDir()
	opt := defaults(Leader)
	whole, _, err := run(t, opt, text)
	if err != nil {
		t.Fatal(err)
	}
	opt.State = filepath.Join(dir, "leaders.state")
	var parts []string
	cuts := []int{0, 1, 700, 701, 2200, len(body) - 1}
	for i, start := range cuts {
		end := len(body) - 1
		if i+1 < len(cuts) {
			end = cuts[i+1]
		}
		got, _, err := run(t, opt, header+strings.Join(body[start:end], ""))
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		parts = append(parts, got)
	}
	if strings.Join(parts, "") != whole {
		t.Fatal("runs continued with --state differ from one run")
	}

	// Other parameters are refused, naming both values.
	other := opt
	other.Threshold = 0.7
	if _, _, err := run(t, other, text); err == nil || !strings.Contains(err.Error(), "threshold=0.7") || !strings.Contains(err.Error(), "threshold=0.8") {
		t.Fatalf("other threshold: err = %v", err)
	}
	if _, _, err := run(t, opt, strings.Replace(text, "seed=7", "seed=8", 1)); err == nil || !strings.Contains(err.Error(), "seed=8") {
		t.Fatalf("other seed: err = %v", err)
	}

	// A damaged state is refused.
	data, _ := os.ReadFile(opt.State)
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { c := bytes.Clone(b); c[len(c)/2] ^= 1; return c },
		func(b []byte) []byte { return []byte("neardup-leaders 9\n\n") },
	} {
		os.WriteFile(opt.State, damage(data), 0o644)
		if _, _, err := run(t, opt, text); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("damaged state: err = %v", err)
		}
	}
}

func TestLeaderRefuses(t *testing.T) {
	opt := defaults(Leader)
	_, _, err := run(t, defaults(Greedy), "#neardup stage=sketch method=simhash f=64 seed=0\na\t3\t0000000000000001\n")
	if err == nil || !strings.Contains(err.Error(), "the input holds simhash sketches") {
		t.Fatalf("greedy of simhash: err = %v", err)
	}
	_, _, err = run(t, opt, "#neardup stage=sketch method=bottomk s=2 seed=0\na\t3\t0000000000000001\n")
	if err == nil || !strings.Contains(err.Error(), "bottomk") {
		t.Fatalf("bottomk: err = %v", err)
	}
	_, _, err = run(t, opt, "a\t3\t0000000000000001 0000000000000002\nb\t3\t0000000000000001\n")
	if err == nil || !strings.Contains(err.Error(), "in.tsv:2: sketch has 1 values") {
		t.Fatalf("lengths: err = %v", err)
	}
}

func TestLeaderEmptyDocumentsAndTies(t *testing.T) {
	// Two leaders b and a equally similar to c: c joins the smaller id.
	// Empty sketches (size 0) are clusters of their own.
	v := func(xs ...int) string {
		var s []string
		for _, x := range xs {
			s = append(s, fmt.Sprintf("%016x", x))
		}
		return strings.Join(s, " ")
	}
	in := "b\t4\t" + v(1, 2, 3, 4) + "\n" +
		"a\t4\t" + v(5, 6, 3, 4) + "\n" +
		"c\t4\t" + v(1, 6, 3, 4) + "\n" +
		"e\t0\t" + v(-1, -1, -1, -1) + "\n" +
		"f\t0\t" + v(-1, -1, -1, -1) + "\n"
	in = strings.ReplaceAll(in, "-000000000000001", "ffffffffffffffff")
	opt := defaults(Leader)
	opt.Threshold, opt.B, opt.R = 0.75, 4, 1
	got, _, err := run(t, opt, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "b\tb\na\ta\na\tc\ne\te\nf\tf\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestGreedyPlantedGroups(t *testing.T) {
	text, docs := plantedStream(t, planted)
	for _, represent := range []string{RepresentFirst, RepresentPopular} {
		opt := defaults(Greedy)
		opt.Represent = represent
		got, _, err := run(t, opt, text)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := assignment(t, got)
		for _, d := range docs {
			want := d.ID
			if d.Original >= 0 {
				want = docs[d.Original].ID
			}
			if m[d.ID] != want {
				t.Fatalf("%s: %s (similarity %.3f to its original) is in cluster %s, want %s", represent, d.ID, d.Similarity, m[d.ID], want)
			}
		}
	}
}

// TestGreedyAgainstDefinition compares greedy clustering with first members
// as representatives to its definition computed by brute force: each
// sketch against every cluster's representative.
func TestGreedyAgainstDefinition(t *testing.T) {
	o := synthsketch.Options{Docs: 400, N: 16, CopyFraction: 0.6, MinSimilarity: 0.4, MaxSimilarity: 1, Seed: 11}
	var b bytes.Buffer
	synthsketch.Write(&b, o)
	type cl struct {
		name string
		rep  []uint64
	}
	var clusters []cl
	var want strings.Builder
	synthsketch.Generate(o, func(d *synthsketch.Doc) {
		best, bestSim := -1, 0.0
		for i, c := range clusters {
			eq := 0
			for j := range c.rep {
				if c.rep[j] == d.Values[j] {
					eq++
				}
			}
			s := float64(eq) / float64(o.N)
			if s >= 0.5 && (best < 0 || s > bestSim || s == bestSim && c.name < clusters[best].name) {
				best, bestSim = i, s
			}
		}
		name := d.ID
		if best >= 0 {
			name = clusters[best].name
		} else {
			clusters = append(clusters, cl{d.ID, append([]uint64(nil), d.Values...)})
		}
		want.WriteString(name + "\t" + d.ID + "\n")
	})
	opt := defaults(Greedy)
	opt.Threshold = 0.5
	got, _, err := run(t, opt, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatal("greedy differs from its definition")
	}
	// Leader-follower with an index that proposes every leader sharing a
	// band of one row is the same clustering.
	opt = defaults(Leader)
	opt.Threshold, opt.B, opt.R = 0.5, 16, 1
	got, _, err = run(t, opt, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatal("leader with b=n, r=1 differs from greedy")
	}
}

func TestGreedyPopularRepresentative(t *testing.T) {
	// Three members agree on values 1..3 at positions 0..2 and differ at
	// position 3; the popular representative (s=4) holds the three shared
	// values and one of the others. A fourth document that shares only the
	// popular values with the founder's odd one out joins; with the first
	// member as representative it does not.
	v := func(xs ...int) string {
		var s []string
		for _, x := range xs {
			s = append(s, fmt.Sprintf("%016x", x))
		}
		return strings.Join(s, " ")
	}
	in := "a\t4\t" + v(9, 2, 3, 4) + "\n" +
		"b\t4\t" + v(1, 2, 3, 5) + "\n" +
		"c\t4\t" + v(1, 2, 3, 6) + "\n" +
		"d\t4\t" + v(1, 2, 7, 8) + "\n"
	opt := defaults(Greedy)
	opt.Threshold = 0.5
	got, _, err := run(t, opt, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\na\tb\na\tc\nd\td\n"; got != want {
		t.Fatalf("first: got\n%s\nwant\n%s", got, want)
	}
	opt.Represent = RepresentPopular
	got, _, err = run(t, opt, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\ta\na\tb\na\tc\na\td\n"; got != want {
		t.Fatalf("popular: got\n%s\nwant\n%s", got, want)
	}
}

func TestSketchMethodsDeterministic(t *testing.T) {
	text, _ := plantedStream(t, synthsketch.Options{Docs: 2000, N: 64, CopyFraction: 0.5, MinSimilarity: 0.5, MaxSimilarity: 1, Seed: 5})
	for _, m := range []string{Leader, Greedy} {
		var outs []string
		for _, jobs := range []int{1, 2, 7} {
			opt := defaults(m)
			opt.Jobs = jobs
			var out, errOut bytes.Buffer
			name := filepath.Join(t.TempDir(), "in.tsv")
			os.WriteFile(name, []byte(text), 0o644)
			if err := Run(context.Background(), opt, []string{name}, &out, &errOut); err != nil {
				t.Fatal(err)
			}
			outs = append(outs, out.String())
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Fatalf("%s: output depends on -j", m)
		}
	}
}
