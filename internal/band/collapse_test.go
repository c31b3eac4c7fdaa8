package band

import (
	"slices"
	"testing"
)

// TestTextCache: a text's keys come back as they went in; a slot met again
// is kept from the next text of its slot once, then given up.
func TestTextCache(t *testing.T) {
	c := newTextCache()
	a, b := [2]uint64{5, 1}, [2]uint64{5 + 1<<cacheSlotBits, 2} // one slot
	var e cached
	if c.get(a, &e) {
		t.Fatal("an empty cache had a text")
	}
	c.put(a, 7, 3, []uint64{1, 2}, []byte("ab"))
	if !c.get(a, &e) || e.sum != 7 || e.size != 3 || !slices.Equal(e.keys, []uint64{1, 2}) || string(e.bits) != "ab" {
		t.Fatalf("got %+v, want the text's keys", e)
	}
	c.put(b, 8, 4, []uint64{3}, nil)
	if c.get(b, &e) || !c.get(a, &e) {
		t.Fatal("a text met again was not kept from the next of its slot")
	}
	c.put(b, 8, 4, []uint64{3}, nil)
	c.put(b, 8, 4, []uint64{3}, nil)
	if !c.get(b, &e) || e.sum != 8 || c.get(a, &e) {
		t.Fatal("the slot was not given up the second time")
	}
}
