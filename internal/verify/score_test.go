package verify

import "testing"

func TestExactAndAppendScored(t *testing.T) {
	a := []uint64{1, 2, 3, 4}
	b := []uint64{3, 4, 5, 6, 7, 8}
	j, cab, cba := Exact(a, b)
	if j != 0.25 || cab != 0.5 || cba != 2.0/6 {
		t.Fatalf("Exact = %v %v %v, want 0.25 0.5 0.333…", j, cab, cba)
	}
	for _, tc := range []struct {
		threshold   float64
		containment bool
		want        string
	}{
		{0.25, false, "a\tb\t0.250000\n"},
		{0.3, false, ""},
		{0.5, true, "a\tb\t0.250000\t0.500000\t0.333333\n"},
		{0.6, true, ""},
	} {
		if got := string(AppendScored(nil, []byte("a"), []byte("b"), j, cab, cba, tc.threshold, tc.containment)); got != tc.want {
			t.Errorf("threshold %g containment %v: %q, want %q", tc.threshold, tc.containment, got, tc.want)
		}
	}
	if j, _, _ := Exact(nil, nil); j != 0 {
		t.Errorf("two empty sets: %v, want 0", j)
	}
}
