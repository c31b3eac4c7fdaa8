package token

import "testing"

func TestParseNormalization(t *testing.T) {
	for _, s := range []string{"none", "width", "punct", "width,punct"} {
		n, err := ParseNormalization(s)
		if err != nil || n.String() != s {
			t.Errorf("%q: %v %v", s, n, err)
		}
	}
	if n, err := ParseNormalization("punct,width"); err != nil || n.String() != "width,punct" {
		t.Errorf("punct,width: %v %v", n, err)
	}
	for _, s := range []string{"", "nfkc", "width,", "none,width"} {
		if _, err := ParseNormalization(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
