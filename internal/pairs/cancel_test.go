package pairs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// TestCancelInBucket checks that a cancelled run stops while it pairs one
// big bucket (SIGINT was ignored for 32 s until an out-of-memory death),
// not once the bucket is done.
func TestCancelInBucket(t *testing.T) {
	const n = 3000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "00000000000000000001\td%05d\n", i)
	}
	name := testutil.WriteFile(t, "bands.tsv", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opt := Options{MaxBucket: 0}
	if err := opt.Resolve(); err != nil {
		t.Fatal(err)
	}
	sc := stream.NewScanner(stream.NewLines([]string{name}))
	defer sc.Close()
	out := stream.NewOutput("pairs", opt.Common, io.Discard, io.Discard)
	var st stats
	err := runMemory(ctx, opt, scheme{}, sc, out, &st)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("runMemory = %v, want context.Canceled", err)
	}
	if made, all := st.made.Load(), int64(n*(n-1)/2); made >= all {
		t.Errorf("cancelled before the bucket, the run tried all its %d pairs", made)
	}
}
