package docfreq

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

func TestTableLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 3000} {
		want := map[uint64]uint64{}
		for len(want) < n {
			h := rng.Uint64()
			if len(want)%7 == 0 {
				h >>= rng.IntN(64) // crowd the low end
			}
			want[h] = 1 + rng.Uint64N(50)
		}
		keys := make([]uint64, 0, n)
		for h := range want {
			keys = append(keys, h)
		}
		slices.Sort(keys)
		var b strings.Builder
		b.WriteString("#neardup stage=shingle unit=word k=1 hash=tok64 seed=0 counts=yes\n#neardup stage=docfreq docs=60\n")
		for _, h := range keys {
			fmt.Fprintf(&b, "%016x\t%d\n", h, want[h])
		}
		tab, err := Load(context.Background(), testutil.WriteFile(t, "df.tsv", b.String()), 2)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Docs != 60 || tab.Len() != n || tab.Shingle == nil || len(tab.ID) != 16 {
			t.Fatalf("n=%d: docs %d, len %d, shingle %v, id %q", n, tab.Docs, tab.Len(), tab.Shingle, tab.ID)
		}
		for h, c := range want {
			if got := tab.DF(h); got != c {
				t.Fatalf("n=%d: DF(%016x) = %d, want %d", n, h, got, c)
			}
		}
		for range 1000 {
			h := rng.Uint64()
			if got := tab.DF(h); got != want[h] {
				t.Fatalf("n=%d: DF(%016x) = %d, want %d", n, h, got, want[h])
			}
		}
		for _, h := range []uint64{0, ^uint64(0)} {
			if got := tab.DF(h); got != want[h] {
				t.Fatalf("n=%d: DF(%016x) = %d, want %d", n, h, got, want[h])
			}
		}
	}
}

func TestTableIdentity(t *testing.T) {
	a, err := Load(context.Background(), testutil.WriteFile(t, "df.tsv", "#neardup stage=docfreq docs=3\n0000000000000001\t2\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Load(context.Background(), testutil.WriteFile(t, "df.tsv", "#neardup stage=docfreq docs=3\n0000000000000001\t3\n"), 1)
	c, _ := Load(context.Background(), testutil.WriteFile(t, "df.tsv", "#neardup stage=docfreq docs=4\n0000000000000001\t2\n"), 1)
	if a.ID == b.ID || a.ID == c.ID {
		t.Errorf("different tables share an identity: %s %s %s", a.ID, b.ID, c.ID)
	}
}

func TestTableRefused(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"0000000000000001\t2\n", "no docfreq header"},
		{"#neardup stage=docfreq docs=3\n#neardup stage=docfreq docs=4\n0000000000000001\t2\n", "docfreq --merge"},
		{"#neardup stage=docfreq docs=3\n0000000000000002\t2\n0000000000000001\t2\n", "df.tsv:3:"},
		{"#neardup stage=docfreq docs=3\n0000000000000002\t2\n0000000000000002\t2\n", "each hash once"},
		{"#neardup stage=docfreq docs=3\n00002\t2\n", "df.tsv:2: hash"},
		{"#neardup stage=docfreq docs=x\n", "document count"},
	} {
		_, err := Load(context.Background(), testutil.WriteFile(t, "df.tsv", c.content), 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
}

// A table of several chunks, whose lines are parsed as a run until one
// is not in docfreq's form: a line ending in CR LF or with a long count is
// read as well (the same entries, the same ID), and a bad or unsorted
// line is refused at its place, in any chunk.
func TestTableLarge(t *testing.T) {
	const n = 250000
	lines := []string{"#neardup stage=docfreq docs=70000\n"}
	want := make([]uint64, n)
	for i := range n {
		want[i] = uint64(1 + i%17)
		lines = append(lines, fmt.Sprintf("%016x\t%d\n", uint64(i)<<40|uint64(i), want[i]))
	}
	load := func(ls []string) (*Table, error) {
		return Load(context.Background(), testutil.WriteFile(t, "df.tsv", strings.Join(ls, "")), 3)
	}
	plain, err := load(lines)
	if err != nil {
		t.Fatal(err)
	}
	odd := slices.Clone(lines)
	odd[100001] = strings.TrimSuffix(odd[100001], "\n") + "\r\n"
	odd[200001] = fmt.Sprintf("%016x\t%010d\n", uint64(200000)<<40|200000, want[200000])
	tab, err := load(odd)
	if err != nil {
		t.Fatal(err)
	}
	if tab.ID != plain.ID || tab.Len() != n {
		t.Fatalf("the tables have IDs %s and %s, %d entries", plain.ID, tab.ID, tab.Len())
	}
	for i := range n {
		if got := tab.DF(uint64(i)<<40 | uint64(i)); got != want[i] {
			t.Fatalf("entry %d: DF %d, want %d", i, got, want[i])
		}
	}
	for _, at := range []int{3, 70001, 150001, n} {
		bad := slices.Clone(lines)
		bad[at] = "0000000000000001\tx\n"
		if _, err := load(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("df.tsv:%d: count", at+1)) {
			t.Errorf("a bad count on line %d: %v", at+1, err)
		}
		bad[at] = fmt.Sprintf("%016x\t1\n", uint64(at-2)<<40|uint64(at-2))
		if _, err := load(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("df.tsv:%d: hash", at+1)) {
			t.Errorf("an unsorted hash on line %d: %v", at+1, err)
		}
	}
}
