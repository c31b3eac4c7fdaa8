package keep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/parts"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// partsTexts returns n document texts of paragraphs with escapes, CRLF, JSON
// escapes and Unicode in them.
func partsTexts(n int, rng *rand.Rand) []string {
	words := []string{"alpha", "beta\\q", "tab\there", "été", "漢字", "quote\"d", "back\\slash", "x\r\ny", "\u2028", "z"}
	var out []string
	for range n {
		var b strings.Builder
		for p := range 1 + rng.IntN(5) {
			if p > 0 {
				b.WriteString([]string{"\n\n", "\r\n\r\n", "\n \t\n\n"}[rng.IntN(3)])
			}
			for w := range 1 + rng.IntN(12) {
				if w > 0 {
					b.WriteString([]string{" ", "\n", ", "}[rng.IntN(3)])
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// Random parts cut from TSV and JSON Lines corpora: every document written
// is its text without the ranges (merged where they overlap), the others
// unchanged or dropped when nothing but white space is left, for any -j.
func TestDropPartsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := partsTexts(3000, rng)
	dir := t.TempDir()
	var tsv, jsonl bytes.Buffer
	for i, text := range texts {
		tsv.WriteString(fmt.Sprintf("d%d\t", i))
		tsv.Write(record.Escape(nil, []byte(text)))
		tsv.WriteByte('\n')
		j, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("d%d", i), "text": text})
		jsonl.Write(j)
		jsonl.WriteByte('\n')
	}
	for _, c := range []struct{ name, corpus string }{{"docs.tsv", tsv.String()}, {"docs.jsonl", jsonl.String()}} {
		corpus := testutil.WriteFileIn(t, dir, c.name, c.corpus)
		all, _, err := testutil.Run(t, parts.Run, parts.Options{By: parts.ByWindow, Tokens: 4, Stride: 3}, corpus)
		if err != nil {
			t.Fatal(err)
		}
		// Half the windows, at random; each with its text or without.
		var list bytes.Buffer
		cuts := map[string][][2]int{}
		for _, line := range strings.Split(strings.TrimSpace(all), "\n")[1:] {
			if rng.IntN(2) == 0 {
				continue
			}
			id, _, _ := strings.Cut(line, "\t")
			if rng.IntN(2) == 0 {
				line = id
			}
			list.WriteString(line + "\n")
			doc, s, e, _ := record.ParsePartID([]byte(id))
			cuts[string(doc)] = append(cuts[string(doc)], [2]int{s, e})
		}
		listFile := testutil.WriteFileIn(t, dir, "list-"+c.name, list.String())
		var first string
		for _, jobs := range []int{1, 3} {
			opt := Options{DropParts: listFile}
			opt.Jobs = jobs
			stdout, stderr, err := testutil.Run(t, Run, opt, corpus)
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, stderr)
			}
			if jobs > 1 {
				if stdout != first {
					t.Fatalf("%s: -j %d differs from -j 1", c.name, jobs)
				}
				continue
			}
			first = stdout
			got := map[string]string{}
			for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
				id, text := docOf(t, c.name, line)
				got[id] = text
			}
			for i, text := range texts {
				id := fmt.Sprintf("d%d", i)
				want := cutText(text, cuts[id])
				g, ok := got[id]
				if parts.IsBlank([]byte(want)) && len(cuts[id]) > 0 {
					if ok {
						t.Fatalf("%s: %s left %q, written", c.name, id, g)
					}
					continue
				}
				if g != want {
					t.Fatalf("%s: %s is %q, want %q (cuts %v of %q)", c.name, id, g, want, cuts[id], text)
				}
			}
		}
	}
}

// docOf returns the id and text of a document line.
func docOf(t *testing.T, name, line string) (string, string) {
	if strings.HasSuffix(name, ".tsv") {
		id, text, _ := strings.Cut(line, "\t")
		return id, string(record.Unescape(nil, []byte(text)))
	}
	var v struct{ ID, Text string }
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return v.ID, v.Text
}

// cutText is text without the ranges, which may overlap.
func cutText(text string, cuts [][2]int) string {
	gone := make([]bool, len(text))
	for _, c := range cuts {
		for i := c[0]; i < c[1]; i++ {
			gone[i] = true
		}
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if !gone[i] {
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

func TestDropPartsRefused(t *testing.T) {
	dir := t.TempDir()
	docs := testutil.WriteFileIn(t, dir, "docs.tsv", "a\tone two\n")
	list := testutil.WriteFileIn(t, dir, "list.txt", "a#0-3\n")
	for _, opt := range []Options{
		{DropParts: list, Drop: true},
		{DropParts: list, Pairs: list},
		{DropParts: list, Annotate: true},
		{DropParts: list, Reading: input.Reading{Format: "parquet"}},
		{DropParts: "-"},
	} {
		if _, _, err := testutil.Run(t, Run, opt, docs); err == nil && opt.DropParts != "-" {
			t.Errorf("%+v: no error", opt)
		}
	}
	if _, _, err := testutil.Run(t, Run, Options{DropParts: "-"}); err == nil {
		t.Error("--drop-parts - with documents from standard input: no error")
	}
	out, _, err := testutil.Run(t, Run, Options{DropParts: list}, docs)
	if err != nil || out != "a\t two\n" {
		t.Errorf("a#0-3 cut from a: %q %v", out, err)
	}
}

// The --drop-parts file's header says which stage wrote its lines: seen's
// and spans' records are parsed as theirs, parts' lines as part ids with
// their text; without a header a line of three fields is tried as either.
func TestDropPartsByHeader(t *testing.T) {
	dir := t.TempDir()
	docs := testutil.WriteFileIn(t, dir, "docs.tsv", "a\tone two\n")
	for _, c := range []struct{ name, parts, err string }{
		{"seen", "#neardup stage=parts by=paragraph\n#neardup stage=seen k=13\na#0-3\t1\t1\n", ""},
		{"seen-ids", "#neardup stage=seen k=13\na#0-3\n", ""},
		{"spans", "#neardup stage=spans tokens=2\na#0-3\t2\ta#0-3\n", ""},
		{"headerless-seen", "a#0-3\t1\t1\n", ""},
		{"headerless-spans", "a#0-3\t2\ta#0-3\n", ""},
		{"spans-as-seen", "#neardup stage=seen k=13\na#0-3\t2\ta#0-3\n", "want doc#START-END TAB seen TAB total with 0 ≤ seen ≤ total"},
		{"seen-as-spans", "#neardup stage=spans tokens=2\na#0-3\t1\t1\n", "count 1: want a decimal number of places, at least 2"},
		{"three-as-parts", "#neardup stage=parts by=paragraph\na#0-3\t1\t1\n", "found 3 fields"},
	} {
		list := testutil.WriteFileIn(t, dir, c.name+".txt", c.parts)
		out, _, err := testutil.Run(t, RunDropParts, DropPartsOptions{Parts: list}, docs)
		switch {
		case c.err == "" && (err != nil || out != "a\t two\n"):
			t.Errorf("%s: %q %v, want a#0-3 cut", c.name, out, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}
