package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedValues returns n distinct sorted values: random, or packed closely
// (all in a small range), or spread to both ends.
func sortedValues(rng *rand.Rand, n int, kind string) []uint64 {
	seen := map[uint64]bool{}
	var vals []uint64
	for len(vals) < n {
		var v uint64
		switch kind {
		case "dense":
			v = 0x8000000000000000 + rng.Uint64N(uint64(4*n))
		case "ends":
			v = rng.Uint64N(uint64(n))
			if rng.IntN(2) == 0 {
				v = ^v
			}
		default:
			v = rng.Uint64()
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	slices.Sort(vals)
	return vals
}

func TestCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, kind := range []string{"random", "dense", "ends"} {
		for _, n := range []int{1, 2, 3, 63, 64, 65, 1000} {
			vals := sortedValues(rng, n, kind)
			for _, bs := range []int{1, 2, 7, 64, 1000} {
				var hist [64]uint64
				histogram(&hist, vals, bs)
				code := buildCode(&hist)
				enc, err := newEncoder(code)
				if err != nil {
					t.Fatal(err)
				}
				dec, err := newDecoder(code)
				if err != nil {
					t.Fatal(err)
				}
				var sc scratch
				for start := 0; start < len(vals); start += bs {
					block := vals[start:min(start+bs, len(vals))]
					b := enc.appendBlock(nil, block)
					got, err := dec.decode(b, len(block), ^uint64(0), &sc)
					if err != nil {
						t.Fatalf("%s n=%d bs=%d: %v", kind, n, bs, err)
					}
					if !slices.Equal(got, block) {
						t.Fatalf("%s n=%d bs=%d: decoded %x, want %x", kind, n, bs, got, block)
					}
					// Decoding stops after the first value above a limit.
					mid := block[len(block)/2]
					got, err = dec.decode(b, len(block), mid, &sc)
					if err != nil || !slices.Equal(got, block[:min(len(block)/2+2, len(block))]) {
						t.Fatalf("%s n=%d bs=%d: decoding up to %x gave %x, %v", kind, n, bs, mid, got, err)
					}
					// Any changed byte is found.
					for i := range b {
						bad := slices.Clone(b)
						bad[i] ^= 0x10
						if _, err := dec.decode(bad, len(block), ^uint64(0), &sc); err == nil {
							t.Fatalf("%s n=%d bs=%d: byte %d changed, block accepted", kind, n, bs, i)
						}
					}
					if _, err := dec.decode(b[:len(b)-1], len(block), ^uint64(0), &sc); err == nil {
						t.Fatalf("truncated block accepted")
					}
				}
			}
		}
	}
}

// TestCode checks the Huffman code lengths: at most maxCodeLen bits for
// any histogram (counts growing like Fibonacci numbers make deeper trees),
// every position coded, a complete code; and that other lengths are
// refused.
func TestCode(t *testing.T) {
	var fib, one, zero, peaked [64]uint64
	a, b := uint64(1), uint64(1)
	for i := range fib {
		fib[i] = a
		a, b = b, a+b
		one[i] = 1
		peaked[i] = uint64(1) << max(0, 40-4*abs(i-24))
	}
	for name, h := range map[string]*[64]uint64{"fibonacci": &fib, "flat": &one, "empty": &zero, "peaked": &peaked} {
		lens := buildCode(h)
		kraft := 0
		for s, l := range lens {
			if l < 1 || l > maxCodeLen {
				t.Fatalf("%s: position %d has a code of %d bits", name, s, l)
			}
			kraft += 1 << (maxCodeLen - l)
		}
		if kraft != 1<<maxCodeLen {
			t.Fatalf("%s: not a complete code", name)
		}
		if _, err := newDecoder(lens); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if l := buildCode(&peaked); l[24] > 2 {
		t.Errorf("the commonest position has a code of %d bits", l[24])
	}
	good := buildCode(&fib)
	// Lengthen the shortest code: the code is then not complete.
	incomplete := slices.Clone(good)
	incomplete[slices.Index(good, slices.Min(good))]++
	for name, lens := range map[string][]byte{
		"short":      good[:63],
		"zero":       append([]byte{0}, good[1:]...),
		"too long":   append([]byte{maxCodeLen + 1}, good[1:]...),
		"incomplete": incomplete,
		"overfull":   append([]byte{1, 1}, good[2:]...),
	} {
		if _, err := newDecoder(lens); err == nil {
			t.Errorf("%s code lengths accepted", name)
		}
	}
}

func abs(x int) int { return max(x, -x) }

// TestCodecSize checks the compression the format promises: about
// 64 - log2(n) + 2 bits per value for uniform values.
func TestCodecSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 1 << 16
	vals := sortedValues(rng, n, "random")
	var hist [64]uint64
	histogram(&hist, vals, 64)
	enc, _ := newEncoder(buildCode(&hist))
	var size int
	for start := 0; start < n; start += 64 {
		size += len(enc.appendBlock(nil, vals[start:start+64]))
	}
	bitsPer := float64(8*size) / n
	// 64 - 16 + 2 = 50 bits, plus the block headers (23 bytes per 64).
	if bitsPer > 53.5 {
		t.Errorf("%.1f bits per value, want about 50 + 3 of headers", bitsPer)
	}
	t.Logf("%.2f bits per value", bitsPer)
}

func BenchmarkDecodeBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 1 << 16
	vals := sortedValues(rng, n, "random")
	var hist [64]uint64
	histogram(&hist, vals, 64)
	code := buildCode(&hist)
	enc, _ := newEncoder(code)
	dec, _ := newDecoder(code)
	var blocks [][]byte
	for start := 0; start < n; start += 64 {
		blocks = append(blocks, enc.appendBlock(nil, vals[start:start+64]))
	}
	var sc scratch
	b.SetBytes(64 * 8)
	i := 0
	for b.Loop() {
		if _, err := dec.decode(blocks[i%len(blocks)], 64, ^uint64(0), &sc); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
