package cli

import (
	"math/big"
	"strconv"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1":     1,
		"512M":  512 << 20,
		"512m":  512 << 20,
		"2G":    2 << 30,
		"2GB":   2 << 30,
		"64k":   64 << 10,
		"1T":    1 << 40,
		" 10K ": 10 << 10,
		"100B":  100,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1M", "M", "1.5G", "lots", "1P", "1 G", "8388608T", "9223372036854775807K"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestManMarkdown(t *testing.T) {
	in := "Some text.\n\n   indented block\n   second line\nafter\n\nEXAMPLES\n   cmd --flag\n\nNOT A HEADING: WITH COLON\nEXIT STATUS"
	want := "Some text.\n\n```\nindented block\nsecond line\n```\nafter\n\n# EXAMPLES\n```\ncmd --flag\n```\n\nNOT A HEADING: WITH COLON\n# EXIT STATUS\n"
	if got := manMarkdown(in); got != want {
		t.Errorf("manMarkdown\n got %q\nwant %q", got, want)
	}
}

// FuzzParseSize: a size is accepted only when it is a positive number of
// bytes that fits in 63 bits, the suffix applied exactly; formatted back in
// bytes it parses to the same number.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "512M", "2GB", "64k", "1T", " 10K ", "100B", "0", "-1M", "1.5G", "8388607T", "8388608T", "9223372036854775807", "+5M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("parseSize(%q) = %d, want a positive size", s, n)
		}
		// The exact value, in arbitrary precision.
		u := strings.TrimSuffix(strings.TrimSpace(strings.ToUpper(s)), "B")
		mult := map[byte]int64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}[u[len(u)-1]]
		if mult == 0 {
			mult = 1
		} else {
			u = u[:len(u)-1]
		}
		v, ok := new(big.Int).SetString(strings.TrimPrefix(u, "+"), 10)
		if !ok {
			t.Fatalf("parseSize(%q) = %d, but %q is not a number", s, n, u)
		}
		if want := v.Mul(v, big.NewInt(mult)); want.Cmp(big.NewInt(n)) != 0 {
			t.Fatalf("parseSize(%q) = %d, want %s", s, n, want)
		}
		if again, err := parseSize(strconv.FormatInt(n, 10)); err != nil || again != n {
			t.Fatalf("parseSize(%d) = %d, %v", n, again, err)
		}
	})
}
