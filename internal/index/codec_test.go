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
