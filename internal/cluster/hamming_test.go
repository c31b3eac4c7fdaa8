package cluster

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// fingerprintStream makes n SimHash records: originals at random, and
// copies of an earlier document with 0 to 5 bits flipped, some within a
// few bits of two leaders at once.
func fingerprintStream(rng *rand.Rand, n, f int) (string, [][]uint64) {
	var b strings.Builder
	fmt.Fprintf(&b, "#neardup stage=sketch method=simhash f=%d weight=tf seed=0 bits=splitmix64\n", f)
	words := f / 64
	var fps [][]uint64
	for i := range n {
		fp := make([]uint64, words)
		if i > 0 && rng.IntN(2) == 0 {
			copy(fp, fps[rng.IntN(i)])
			for range rng.IntN(6) {
				bit := rng.IntN(f)
				fp[bit/64] ^= 1 << (bit % 64)
			}
		} else {
			for j := range fp {
				fp[j] = rng.Uint64()
			}
		}
		fps = append(fps, fp)
		fmt.Fprintf(&b, "d%05d\t10\t", i)
		var hex []byte
		hex = record.AppendHex64(hex, fp[0])
		if words == 2 {
			hex = record.AppendHex64(hex, fp[1])
		}
		b.Write(hex)
		b.WriteByte('\n')
	}
	return b.String(), fps
}

// bruteLeaders is the leader method by its definition: in input order, a
// document joins the nearest leader within k bits (ties to the smallest
// id), else it leads.
func bruteLeaders(fps [][]uint64, k int) []string {
	var leaders []int
	out := make([]string, len(fps))
	for i, fp := range fps {
		best, bestD := -1, k+1
		for _, l := range leaders {
			d := 0
			for j := range fp {
				d += bits.OnesCount64(fp[j] ^ fps[l][j])
			}
			if d < bestD { // leaders are in id order: the first nearest wins
				best, bestD = l, d
			}
		}
		if best < 0 {
			leaders = append(leaders, i)
			best = i
		}
		out[i] = fmt.Sprintf("d%05d\td%05d", best, i)
	}
	return out
}

func TestLeaderSimHashEqualsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, f := range []int{64, 128} {
		for _, k := range []int{1, 3, 4} {
			text, fps := fingerprintStream(rng, 2000, f)
			opt := defaults(Leader)
			opt.Hamming = k
			got, _, err := run(t, opt, text)
			if err != nil {
				t.Fatalf("f=%d k=%d: %v", f, k, err)
			}
			want := strings.Join(bruteLeaders(fps, k), "\n") + "\n"
			if got != want {
				t.Errorf("f=%d k=%d: the leader index assigns differently from the brute-force definition", f, k)
			}
		}
	}
}

func TestLeaderSimHashStateContinues(t *testing.T) {
	text, _ := fingerprintStream(rand.New(rand.NewPCG(3, 4)), 1500, 64)
	lines := strings.SplitAfter(text, "\n")
	header, body := lines[0], lines[1:]
	opt := defaults(Leader)
	opt.Hamming = 3
	whole, _, err := run(t, opt, text)
	if err != nil {
		t.Fatal(err)
	}
	opt.State = t.TempDir() + "/leaders.state"
	first, _, err := run(t, opt, header+strings.Join(body[:700], ""))
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := run(t, opt, header+strings.Join(body[700:], ""))
	if err != nil {
		t.Fatal(err)
	}
	if first+second != whole {
		t.Fatal("a run continued with --state differs from one run")
	}
	other := opt
	other.Hamming = 2
	if _, _, err := run(t, other, header+body[0]); err == nil || !strings.Contains(err.Error(), "hamming=2") {
		t.Fatalf("other distance: err = %v", err)
	}
}
