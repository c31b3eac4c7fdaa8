package input

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseNumberSlow is ParseNumber as its definition says: NumberDigits
// ASCII digits.
func parseNumberSlow(id []byte) (uint64, bool) {
	if len(id) != NumberDigits {
		return 0, false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(string(id), 10, 64)
	return n, err == nil
}

func checkParseNumber(t *testing.T, id []byte) {
	t.Helper()
	n, ok := ParseNumber(id)
	wn, wok := parseNumberSlow(id)
	if n != wn && wok || ok != wok {
		t.Fatalf("ParseNumber(%q) = %d, %v; want %d, %v", id, n, ok, wn, wok)
	}
}

// TestParseNumber: every byte value at every place of numbers of every
// size, and ids a byte too short or too long.
func TestParseNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []uint64{0, 1, 9, 10, 99, 123456789012, 999999999999, maxNumber} {
		id, _ := AppendNumber(nil, int64(n), 1)
		checkParseNumber(t, id)
	}
	for range 200 {
		id, _ := AppendNumber(nil, rng.Int64N(maxNumber+1), 1)
		checkParseNumber(t, id)
		for i := range id {
			keep := id[i]
			for c := range 256 {
				id[i] = byte(c)
				checkParseNumber(t, id)
			}
			id[i] = keep
		}
		checkParseNumber(t, id[:NumberDigits-1])
		checkParseNumber(t, append(id, '0'))
	}
}

func FuzzParseNumber(f *testing.F) {
	f.Add([]byte("000000000042"))
	f.Add([]byte("99999999999/"))
	f.Add([]byte("0000:0000000"))
	f.Fuzz(func(t *testing.T, id []byte) { checkParseNumber(t, id) })
}

func BenchmarkParseNumber(b *testing.B) {
	ids := make([][]byte, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range ids {
		ids[i], _ = AppendNumber(nil, rng.Int64N(maxNumber+1), 1)
	}
	var sum uint64
	for i := 0; b.Loop(); i++ {
		n, _ := ParseNumber(ids[i%len(ids)])
		sum += n
	}
	if sum == 1 {
		b.Log(sum)
	}
}
