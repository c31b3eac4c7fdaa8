package record_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestAppendHex64(t *testing.T) {
	tests := []struct {
		v    uint64
		want string
	}{
		{0, "0000000000000000"},
		{1, "0000000000000001"},
		{0xabcdef, "0000000000abcdef"},
		{0x0123456789abcdef, "0123456789abcdef"},
		{math.MaxUint64, "ffffffffffffffff"},
	}
	for _, tt := range tests {
		got := record.AppendHex64([]byte("x"), tt.v)
		if string(got) != "x"+tt.want {
			t.Errorf("AppendHex64(%#x) = %q, want %q", tt.v, got, "x"+tt.want)
		}
		v, ok := record.ParseHex64(got[1:])
		if !ok || v != tt.v {
			t.Errorf("ParseHex64(%q) = %#x, %v, want %#x, true", got[1:], v, ok, tt.v)
		}
	}
}

func TestParseHex64(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0123456789abcdef", 0x0123456789abcdef, true},
		{"0123456789ABCDEF", 0x0123456789abcdef, true},
		{"FfFfFfFfFfFfFfFf", math.MaxUint64, true},
		{"", 0, false},
		{"123", 0, false},
		{"0123456789abcde", 0, false},   // 15 digits
		{"0123456789abcdef0", 0, false}, // 17 digits
		{"0123456789abcdeg", 0, false},
		{"g123456789abcdef", 0, false},
		{"0x23456789abcdef", 0, false},
		{"+123456789abcdef", 0, false},
		{" 123456789abcdef", 0, false},
		{"0123456789abcde\n", 0, false},
		{"0123456789abcde\xff", 0, false},
		{"012345678:abcdef", 0, false}, // ':' and '@' border the digit ranges
		{"012345678@abcdef", 0, false},
		{"012345678`abcdef", 0, false},
		{"012345678/abcdef", 0, false},
	}
	for _, tt := range tests {
		v, ok := record.ParseHex64([]byte(tt.in))
		if ok != tt.ok || (ok && v != tt.want) {
			t.Errorf("ParseHex64(%q) = %#x, %v, want %#x, %v", tt.in, v, ok, tt.want, tt.ok)
		}
	}
}

func TestParseUint(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7, true},
		{"0042", 42, true},
		{"123456789012345678", 123456789012345678, true},
		{"999999999999999999", 999999999999999999, true},
		{"1234567890123456789", 0, false}, // more than 18 digits
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1.5", 0, false},
		{"12a", 0, false},
		{" 1", 0, false},
	}
	for _, tt := range tests {
		v, ok := record.ParseUint([]byte(tt.in))
		if ok != tt.ok || (ok && v != tt.want) {
			t.Errorf("ParseUint(%q) = %d, %v, want %d, %v", tt.in, v, ok, tt.want, tt.ok)
		}
	}
}

func TestPutHexList(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, vector := range []bool{true, false} {
		restore := func() {}
		if !vector {
			restore = record.NoVectorCode()
		}
		for n := 0; n < 40; n++ {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = r.Uint64() >> r.IntN(64)
			}
			got := make([]byte, 17*n+1)
			got[17*n] = '!' // not to be written
			record.PutHexList(got, hs)
			var want []byte
			for _, h := range hs {
				want = fmt.Appendf(want, "%016x ", h)
			}
			want = append(want, '!')
			if !bytes.Equal(got, want) {
				t.Fatalf("vector %v: PutHexList(%x) = %q, want %q", vector, hs, got, want)
			}
		}
		restore()
	}
}
