package cluster

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

// simhashRecords writes 64-bit fingerprints as simhash sketch records
// d00000, d00001, ….
func simhashRecords(fps ...uint64) string {
	var b strings.Builder
	b.WriteString("#neardup stage=sketch method=simhash f=64 weight=tf seed=0 bits=splitmix64\n")
	for i, fp := range fps {
		fmt.Fprintf(&b, "d%05d\t10\t%s\n", i, record.AppendHex64(nil, fp))
	}
	return b.String()
}

// A cluster whose members drift away from its first document: with
// --update-centre the centre follows them and the last still joins, 5 bits
// from the first document but 3 from the members' majority; without, it
// starts a cluster of its own.
func TestLeaderCentreFollowsDrift(t *testing.T) {
	const first = 0x0123456789abcdef
	fps := []uint64{first, first ^ 0b11, first ^ 0b11, first ^ 0b11111}
	opt := defaults(Leader)
	opt.Hamming = 3
	got, _, err := run(t, opt, simhashRecords(fps...))
	if err != nil {
		t.Fatal(err)
	}
	if want := "d00000\td00000\nd00000\td00001\nd00000\td00002\nd00003\td00003\n"; got != want {
		t.Errorf("leaders:\n%s\nwant\n%s", got, want)
	}
	opt.UpdateCentre = true
	got, _, err = run(t, opt, simhashRecords(fps...))
	if err != nil {
		t.Fatal(err)
	}
	if want := "d00000\td00000\nd00000\td00001\nd00000\td00002\nd00000\td00003\n"; got != want {
		t.Errorf("centres:\n%s\nwant\n%s", got, want)
	}
}

// bruteCentres is the leader method with centres by its definition: in
// input order, a document joins the nearest centre within k bits (ties to
// the earliest cluster), which becomes its members' per-bit majority (ties
// keep the bit), else it starts a cluster centred on itself.
func bruteCentres(fps [][]uint64, k int) []string {
	type cluster struct {
		first  int
		counts []int
		centre []uint64
	}
	var cs []*cluster
	out := make([]string, len(fps))
	for i, fp := range fps {
		f := 64 * len(fp)
		best := nearest(cs, fp, k, func(c *cluster) []uint64 { return c.centre })
		if best == nil {
			best = &cluster{first: i, counts: make([]int, f), centre: make([]uint64, len(fp))}
			cs = append(cs, best)
		}
		for b := range f {
			if fp[b/64]>>(b%64)&1 == 1 {
				best.counts[b]++
			} else {
				best.counts[b]--
			}
			switch {
			case best.counts[b] > 0:
				best.centre[b/64] |= 1 << (b % 64)
			case best.counts[b] < 0:
				best.centre[b/64] &^= 1 << (b % 64)
			}
		}
		out[i] = fmt.Sprintf("d%05d\td%05d", best.first, i)
	}
	return out
}

func TestLeaderCentresEqualDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, f := range []int{64, 128} {
		for _, k := range []int{1, 3, 4} {
			text, fps := fingerprintStream(rng, 2000, f)
			opt := defaults(Leader)
			opt.Hamming = k
			opt.UpdateCentre = true
			got, _, err := run(t, opt, text)
			if err != nil {
				t.Fatalf("f=%d k=%d: %v", f, k, err)
			}
			want := strings.Join(bruteCentres(fps, k), "\n") + "\n"
			if got != want {
				t.Errorf("f=%d k=%d: the moving centres' index assigns differently from the brute-force definition", f, k)
			}
			opt.UpdateCentre = false
			if plain, _, _ := run(t, opt, text); plain == got {
				t.Errorf("f=%d k=%d: no centre moved a document: the stream does not test them", f, k)
			}
		}
	}
}

// TestLeaderCentreIsMajority feeds fingerprints to the leaders one by one
// and checks after each that every centre is its members' per-bit majority
// and that the index finds every centre from its own fingerprint and from
// nothing else.
func TestLeaderCentreIsMajority(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range []int{64, 128} {
		_, fps := fingerprintStream(rng, 600, f)
		opt := defaults(Leader)
		opt.Hamming = 4
		opt.UpdateCentre = true
		l, _, err := hammingLeaders(opt, sketchKind{method: "simhash", n: f / 64}, false, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		index := l.index.(*HammingIndex)
		members := map[string][]int{}
		for i, fp := range fps {
			id := fmt.Sprintf("d%05d", i)
			name := string(l.assign([]byte(id), 10, fp))
			members[name] = append(members[name], i)
			for c := range l.sizes {
				centre := l.centres.(*centres).fingerprint(uint32(c))
				for b := range f {
					sum := 0
					for _, m := range members[string(l.name(uint32(c)))] {
						if bit(fps[m], b) {
							sum++
						} else {
							sum--
						}
					}
					if sum != 0 && bit(centre, b) != (sum > 0) {
						t.Fatalf("f=%d after d%05d: bit %d of the centre of cluster %s is not its members' majority (%+d)", f, i, b, l.name(uint32(c)), sum)
					}
				}
			}
			if i%50 == 0 || i == len(fps)-1 {
				checkIndex(t, index)
			}
		}
	}
}

// checkIndex checks that each chain of the index's tables holds exactly
// the leaders whose fingerprints have its key.
func checkIndex(t *testing.T, x *HammingIndex) {
	t.Helper()
	nt := uint32(len(x.scheme.Tables))
	for l := range uint32(x.Len()) {
		keys := append([]uint64(nil), x.tableKeys(x.fps[int(l)*x.words:(int(l)+1)*x.words])...)
		for j, k := range keys {
			found := false
			for h := x.table.get(k); h != 0; h = x.next[(h-1)*nt+uint32(j)] {
				other := x.tableKeys(x.fps[int(h-1)*x.words : int(h)*x.words])[j]
				if other != k {
					t.Fatalf("table %d: leader %d is in the chain of a key it has not", j, h-1)
				}
				found = found || h-1 == l
			}
			if !found {
				t.Fatalf("table %d: leader %d is not in the chain of its key", j, l)
			}
		}
	}
}

func TestLeaderCentresStateContinues(t *testing.T) {
	text, _ := fingerprintStream(rand.New(rand.NewPCG(13, 14)), 1500, 64)
	lines := strings.SplitAfter(text, "\n")
	header, body := lines[0], lines[1:]
	opt := defaults(Leader)
	opt.Hamming = 3
	opt.UpdateCentre = true
	whole, _, err := run(t, opt, text)
	if err != nil {
		t.Fatal(err)
	}
	opt.State = t.TempDir() + "/leaders.state"
	var parts string
	for _, r := range [][2]int{{0, 400}, {400, 401}, {401, 1100}, {1100, len(body)}} {
		got, _, err := run(t, opt, header+strings.Join(body[r[0]:r[1]], ""))
		if err != nil {
			t.Fatal(err)
		}
		parts += got
	}
	if parts != whole {
		t.Fatal("a run with --update-centre continued with --state differs from one run")
	}
	plain := opt
	plain.UpdateCentre = false
	if _, _, err := run(t, plain, header+body[0]); err == nil || !strings.Contains(err.Error(), "centre") {
		t.Fatalf("a state with centres continued without: err = %v", err)
	}
}

// A state file of version 1, written before --update-centre, continues a
// clustering without centres; a run with them refuses it.
func TestLeaderStateVersion1(t *testing.T) {
	text, _ := fingerprintStream(rand.New(rand.NewPCG(15, 16)), 800, 64)
	lines := strings.SplitAfter(text, "\n")
	header, body := lines[0], lines[1:]
	opt := defaults(Leader)
	opt.Hamming = 3
	whole, _, err := run(t, opt, text)
	if err != nil {
		t.Fatal(err)
	}
	opt.State = t.TempDir() + "/leaders.state"
	first, _, err := run(t, opt, header+strings.Join(body[:300], ""))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(opt.State)
	if err != nil {
		t.Fatal(err)
	}
	v1 := []byte(stateMagicV1 + string(data[len(stateMagic):len(data)-8]))
	v1 = binary.LittleEndian.AppendUint64(v1, xxhash.Sum64(v1))
	if err := os.WriteFile(opt.State, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	centred := opt
	centred.UpdateCentre = true
	if _, _, err := run(t, centred, header+body[300]); err == nil || !strings.Contains(err.Error(), "centre") {
		t.Fatalf("a version 1 state continued with --update-centre: err = %v", err)
	}
	second, _, err := run(t, opt, header+strings.Join(body[300:], ""))
	if err != nil {
		t.Fatal(err)
	}
	if first+second != whole {
		t.Fatal("a run continued from a version 1 state differs from one run")
	}
}

func TestUpdateCentreNeedsSimHash(t *testing.T) {
	opt := defaults(Leader)
	opt.UpdateCentre = true
	input := "#neardup stage=sketch method=minhash n=2 seed=1\na\t3\t1 2\n"
	if _, _, err := run(t, opt, input); err == nil || !strings.Contains(err.Error(), "--update-centre needs simhash") {
		t.Fatalf("minhash signatures: err = %v", err)
	}
	opt.Method = Greedy
	if err := opt.Resolve(); err == nil || !strings.Contains(err.Error(), "--update-centre is for --method leader") {
		t.Fatalf("greedy: err = %v", err)
	}
}

// A cluster counts its members past 2^32: one of 2^32-1 members in a state
// takes one more, and the state saved holds 2^32.
func TestLeaderSizePast32Bits(t *testing.T) {
	opt := defaults(Leader)
	opt.Hamming = 3
	opt.State = t.TempDir() + "/leaders.state"
	if _, _, err := run(t, opt, simhashRecords(0xff)); err != nil {
		t.Fatal(err)
	}
	load := func() (*leaders, []record.Header) {
		l, _, err := hammingLeaders(opt, sketchKind{method: "simhash", n: 1}, false, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var headers []record.Header
		if err := loadState(opt.State, l, func(h []record.Header) error { headers = h; return nil }); err != nil {
			t.Fatal(err)
		}
		return l, headers
	}
	l, headers := load()
	l.sizes[0] = 1<<32 - 1
	if err := saveState(opt.State, l, headers); err != nil {
		t.Fatal(err)
	}
	got, _, err := run(t, opt, simhashRecords(0xff))
	if err != nil {
		t.Fatal(err)
	}
	if got != "d00000\td00000\n" {
		t.Fatalf("the document did not join the cluster: %q", got)
	}
	if l, _ = load(); uint64(l.sizes[0]) != 1<<32 {
		t.Errorf("the cluster has %d members, want %d", l.sizes[0], uint64(1)<<32)
	}
}

// nearest is the first of cs whose centre (of centre) is nearest fp, within
// k bits, or nil: the leader a reference clustering puts fp with.
func nearest[C any](cs []*C, fp []uint64, k int, centre func(*C) []uint64) *C {
	var best *C
	bestD := k + 1
	for _, c := range cs {
		d := 0
		for j, w := range centre(c) {
			d += bits.OnesCount64(fp[j] ^ w)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
