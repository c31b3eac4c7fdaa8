package keep

import (
	"bytes"
	"strings"
	"testing"
)

// TestWARCRelated follows related records to the documents they concern:
// by Concurrent-To either way, else the same target URI next to it.
func TestWARCRelated(t *testing.T) {
	rel := func(name, key, uri string, concerns ...string) relatedRecord {
		r := relatedRecord{data: []byte(name + ";"), key: []byte(key), uri: []byte(uri)}
		for _, c := range concerns {
			r.concerns = append(r.concerns, []byte(c))
		}
		return r
	}
	type step struct {
		r       relatedRecord
		doc     bool
		written bool
	}
	steps := []step{
		{r: rel("reqA", "q1", "A")},
		{r: rel("respA", "r1", "A", "q1"), doc: true, written: true},
		{r: rel("metaA", "m1", "A", "r1")}, // names respA, after it
		{r: rel("reqB", "q2", "B")},
		{r: rel("respB", "r2", "B", "q2"), doc: true, written: false},
		{r: rel("reqC", "q3", "C")}, // same URI as respC, no link
		{r: rel("stray", "s", "Z")}, // concerns nothing
		{r: rel("respC", "r3", "C"), doc: true, written: true},
	}
	for _, related := range []bool{true, false} {
		var out bytes.Buffer
		ww := &warcWriter{related: related}
		for _, s := range steps {
			var err error
			if s.doc {
				err = ww.document(&out, s.r, s.written, s.r.data)
			} else {
				err = ww.relatedRecord(&out, s.r)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := ww.finish(&out); err != nil {
			t.Fatal(err)
		}
		want := "reqA;respA;metaA;reqC;respC;"
		if !related {
			want = "respA;respC;"
		}
		if out.String() != want {
			t.Errorf("related %v: wrote %q, want %q", related, out.String(), want)
		}
		var rep bytes.Buffer
		ww.report(&rep)
		wantRep := ": 3 written with their document, 1 dropped with theirs, 1 concerning no document dropped"
		if !related {
			wantRep = ": 4 dropped (give --related to write those of the documents written), 1 concerning"
		}
		if !strings.Contains(rep.String(), wantRep) {
			t.Errorf("related %v: report %q, want %q", related, rep.String(), wantRep)
		}
	}
}
