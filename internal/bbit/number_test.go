package bbit

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestParseNumber: parseNumber gives what strconv does for every id of
// twelve digits drawn, and refuses each byte that is not a digit at each
// place (those next to '0' and '9' among them), and other lengths.
func TestParseNumber(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	for range 100000 {
		want := r.Uint64N(1e12)
		id := fmt.Sprintf("%012d", want)
		if got, ok := parseNumber(id); !ok || got != want {
			t.Fatalf("parseNumber(%q) = %d, %v", id, got, ok)
		}
		if got, ok := parseNumber([]byte(id)); !ok || got != want {
			t.Fatalf("parseNumber([]byte(%q)) = %d, %v", id, got, ok)
		}
	}
	for i := range 12 {
		for c := range 256 {
			b := []byte("123456789012")
			b[i] = byte(c)
			_, ok := parseNumber(b)
			if want := c >= '0' && c <= '9'; ok != want {
				t.Fatalf("parseNumber(%q) ok %v", b, ok)
			}
		}
	}
	for _, id := range []string{"", "12345678901", "1234567890123", strconv.Itoa(123)} {
		if _, ok := parseNumber(id); ok {
			t.Errorf("parseNumber(%q) took it", id)
		}
	}
}

func BenchmarkParseNumber(b *testing.B) {
	ids := make([]string, 1024)
	for i := range ids {
		ids[i] = fmt.Sprintf("%012d", i*977)
	}
	var sum uint64
	for b.Loop() {
		for _, id := range ids {
			n, _ := parseNumber(id)
			sum += n
		}
	}
	_ = sum
}
