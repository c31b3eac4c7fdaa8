package pairs

import (
	"errors"
	"slices"
	"testing"
)

func TestBucket(t *testing.T) {
	ids := [][]byte{[]byte("d"), []byte("b"), []byte("a"), []byte("b"), []byte("c"), []byte("a")}
	var got []string
	repeated, distinct, notMade, err := Bucket(ids, &Options{MaxBucket: 3}, func(a, b []byte) error {
		got = append(got, string(a)+"-"+string(b))
		return nil
	})
	if err != nil || repeated != 2 || distinct != 4 || notMade != 0 {
		t.Fatalf("repeated %d, distinct %d, not made %d, err %v; want 2, 4, 0, nil", repeated, distinct, notMade, err)
	}
	// The 3 smallest distinct ids are paired with each other and d with
	// each of them; each pair once, in order.
	if want := []string{"a-b", "a-c", "a-d", "b-c", "b-d", "c-d"}; !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	// With --reps 1 a bucket of more than 3 ids is paired as its ids
	// came: its first 3 with each other, d with a, the smallest, only;
	// one of 3 or fewer whole.
	for _, c := range []struct {
		ids      [][]byte
		distinct int
		want     []string
	}{
		{ids, 4, []string{"a-b", "a-c", "a-d", "b-c"}},
		{ids[1:5], 3, []string{"a-b", "a-c", "b-c"}},
	} {
		got = got[:0]
		_, _, notMade, _ := Bucket(c.ids, &Options{MaxBucket: 3, Reps: 1}, func(a, b []byte) error {
			got = append(got, string(a)+"-"+string(b))
			return nil
		})
		if !slices.Equal(got, c.want) || int(notMade)+len(got) != c.distinct*(c.distinct-1)/2 {
			t.Errorf("--max-bucket 3 --reps 1: pairs %v (%d not made), want %v", got, notMade, c.want)
		}
	}
	stop := errors.New("stop")
	n := 0
	_, _, _, err = Bucket(ids, &Options{}, func(a, b []byte) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("emit error: got %v after %d pairs", err, n)
	}
}
