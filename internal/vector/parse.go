package vector

import (
	"bytes"
	"math"
	"strconv"

	"github.com/neardup/neardup/internal/record"
)

// Parse appends to dst the components of the vector a document holds and
// returns them: a JSON array of numbers, "[0.25, -1, 3e-2]" (the value of
// the vector field of JSON Lines, as written), or numbers separated by
// spaces, tabs or commas ("0.25 -1 3e-2": the text of TSV and of --lines).
// A component that is not a number, NaN, an infinity or a number too large
// for a float64, and a vector without components, are errors
// (*record.LineError, which the reader places at file:line).
func Parse(dst []float64, text []byte) ([]float64, error) {
	t := bytes.TrimSpace(text)
	json := len(t) > 0 && t[0] == '['
	if json {
		if t[len(t)-1] != ']' {
			return dst, record.Bad("the vector %s: want a JSON array of numbers", clip(t))
		}
		t = t[1 : len(t)-1]
	}
	n0 := len(dst)
	for i := 1; ; i++ {
		var num []byte
		if json {
			if i == 1 && len(bytes.TrimSpace(t)) == 0 {
				break // []
			}
			k := bytes.IndexByte(t, ',')
			if k < 0 {
				num, t = bytes.TrimSpace(t), nil
			} else {
				num, t = bytes.TrimSpace(t[:k]), t[k+1:]
			}
		} else {
			t = bytes.TrimLeft(t, " \t,")
			if len(t) == 0 {
				break
			}
			k := bytes.IndexAny(t, " \t,")
			if k < 0 {
				k = len(t)
			}
			num, t = t[:k], t[k:]
		}
		x, err := strconv.ParseFloat(string(num), 64)
		switch {
		case len(num) == 0:
			return dst, record.Bad("component %d of the vector is empty, want a number", i)
		case err != nil && !isRange(err) || json && !jsonNumber(num):
			return dst, record.Bad("component %d of the vector is %s, want a number", i, clip(num))
		case math.IsNaN(x) || math.IsInf(x, 0):
			return dst, record.Bad("component %d of the vector is %s, want a finite number", i, clip(num))
		}
		dst = append(dst, x)
		if json && t == nil {
			break
		}
	}
	if len(dst) == n0 {
		return dst, record.Bad("the vector has no components")
	}
	return dst, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// jsonNumber says whether b is written as JSON writes a number: no NaN,
// Inf, hexadecimal, leading '+' or underscores.
func jsonNumber(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+') {
			return false
		}
	}
	return len(b) > 0 && b[0] != '+'
}

// clip quotes b for a message, shortened.
func clip(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40]) + "…")
	}
	return strconv.Quote(string(b))
}
