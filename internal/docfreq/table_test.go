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
