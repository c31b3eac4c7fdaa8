package bbit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const headers = "#neardup stage=shingle unit=word k=5 ids=number from=7\n" +
	"#neardup stage=sketch method=oph n=4 seed=0 densify=optimal\n" +
	"#neardup stage=band scheme=minhash b=2 r=2 key=xxh64 threshold=0.8 bbit=4\n"

func write(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "bits.tsv")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func upstream(stage string) string {
	for _, l := range strings.Split(headers, "\n") {
		if strings.HasPrefix(l, "#neardup stage="+stage+" ") {
			return l
		}
	}
	return ""
}

func TestLoad(t *testing.T) {
	name := write(t, headers+"000000000007\t10\t0123\n000000000009\t12\tabcd\n")
	f, err := Open(name, upstream)
	if err != nil || !f.Densified {
		t.Fatalf("Open: %v, densified %v", err, f != nil && f.Densified)
	}
	tb, err := Load(f, true)
	if err != nil {
		t.Fatal(err)
	}
	sig, size, ok := Lookup(tb, []byte("000000000009"))
	if !ok || size != 12 || len(sig) != 2 || sig[0] != 0xba || sig[1] != 0xdc {
		t.Errorf("Lookup(9) = %x %d %v, want badc 12", sig, size, ok)
	}
	for _, id := range []string{"000000000008", "000000000006", "000000000010", "x"} {
		if _, _, ok := Lookup(tb, []byte(id)); ok {
			t.Errorf("Lookup(%s) found a signature the file has not", id)
		}
	}
	// Ids of any form, by a map.
	tm, err := Load(f, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, size, ok := Lookup(tm, []byte("000000000007")); !ok || size != 10 {
		t.Errorf("map Lookup(7) = %d %v", size, ok)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"000000000009\t1\t00\n000000000008\t1\t00\n", ":5: id 000000000008 comes after"},
		{"000000000009\t1\t00\n000000000009\t1\t00\n", ":5: document 000000000009 appears more than once"},
		{"000000000009\t1\t00\n000000000010\t1\t0000\n", ":5: a signature of 4 values after one of 2"},
		{"a\t1\t00\n", ":4: id a is not an arrival number"},
	} {
		f, err := Open(write(t, headers+c.body), upstream)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(f, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	name := write(t, headers+"000000000007\t10\t0123\n")
	other := func(stage string) string {
		if stage == "shingle" {
			return "#neardup stage=shingle unit=char k=9"
		}
		return upstream(stage)
	}
	if _, err := Open(name, other); err == nil || !strings.Contains(err.Error(), "its shingle header is") {
		t.Errorf("other shingles: %v", err)
	}
	plain := write(t, strings.Replace(headers, " bbit=4", "", 1))
	if _, err := Open(plain, upstream); err == nil || !strings.Contains(err.Error(), "not a b-bit signature file") {
		t.Errorf("no bbit=4: %v", err)
	}
}
