package verify

import (
	"testing"
)

func TestBinsComponents(t *testing.T) {
	// Components a-b-c, d-e, f (a pair with a missing document is none).
	tb := tableOf(t, false, "a\tb\nd\te\nb\tc\nf\tf\n")
	b := newBins(tb)
	doc := func(id string) uint32 { d, _ := tb.lookup([]byte(id)); return d }
	if b.comp[doc("a")] != b.comp[doc("c")] || b.comp[doc("d")] != b.comp[doc("e")] || b.comp[doc("a")] == b.comp[doc("d")] {
		t.Fatalf("components %v", b.comp)
	}
	if n := b.size[b.comp[doc("a")]]; n != 3 {
		t.Errorf("a's component has %d documents, want 3", n)
	}
	// A bin takes components while their estimate fits its share; a
	// component too large for one has a bin of its own; a component's
	// later documents go to its bin.
	b.share = 4 * 100
	for _, c := range []struct {
		id  string
		bin int
	}{{"a", 0}, {"d", 1}, {"b", 0}, {"f", 1}, {"e", 1}, {"c", 0}} {
		if k := b.place(doc(c.id), 100); k != c.bin {
			t.Errorf("%s in bin %d, want %d", c.id, k, c.bin)
		}
	}
	if len(b.docs) != 2 || len(b.docs[0]) != 3 || len(b.docs[1]) != 3 {
		t.Errorf("bins %v", b.docs)
	}
	b.share = 100
	b.bin = make([]uint32, len(b.bin))
	b.docs = nil
	for _, id := range []string{"a", "d"} {
		b.place(doc(id), 100)
	}
	if len(b.docs) != 2 {
		t.Errorf("a component larger than a bin's share shares its bin: %v", b.docs)
	}
}
