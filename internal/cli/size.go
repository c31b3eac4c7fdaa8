package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseSize parses a byte count with an optional K, M, G or T suffix
// (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(t, "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size %q: want a positive number with an optional K, M, G or T", s)
	}
	if v > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q: more than 2^63-1 bytes", s)
	}
	return v * mult, nil
}
