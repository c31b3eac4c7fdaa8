package pairs

import (
	"errors"
	"slices"
	"testing"
)

func TestBucket(t *testing.T) {
	ids := [][]byte{[]byte("d"), []byte("b"), []byte("a"), []byte("b"), []byte("c"), []byte("a")}
	var got []string
	repeated, distinct, err := Bucket(ids, 3, func(a, b []byte) error {
		got = append(got, string(a)+"-"+string(b))
		return nil
	})
	if err != nil || repeated != 2 || distinct != 4 {
		t.Fatalf("repeated %d, distinct %d, err %v; want 2, 4, nil", repeated, distinct, err)
	}
	// The 3 smallest distinct ids are paired with each other and d with
	// each of them; each pair once, in order.
	if want := []string{"a-b", "a-c", "a-d", "b-c", "b-d", "c-d"}; !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	stop := errors.New("stop")
	n := 0
	_, _, err = Bucket(ids, 0, func(a, b []byte) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("emit error: got %v after %d pairs", err, n)
	}
}
