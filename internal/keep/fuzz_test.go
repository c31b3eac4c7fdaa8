package keep

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// FuzzClusterFile reads any bytes as keep's cluster file (--clusters): it
// is refused, or every record is a cluster member, the header lines are
// headers, and the map holds each id once, in the one cluster every line
// that names it gives.
func FuzzClusterFile(f *testing.F) {
	for _, s := range []string{
		"#neardup stage=cluster method=components\na\ta\na\tb\nc\tc\n",
		"#neardup stage=shingle unit=word k=5\n#neardup stage=cluster method=leader\nx\\ty\tx\\ty\nx\\ty\tz\r\n",
		"a\tb\nc\tb\n",
		"a\tb\t\n",
		"a\\qb\tc\n",
		"\tb\n",
		"a\n",
		"a\tb",
	} {
		f.Add([]byte(s))
	}
	file := filepath.Join(testutil.FuzzDir(f), "clusters-"+strconv.Itoa(os.Getpid())+".tsv")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cm, err := loadClusters(context.Background(), file, stream.Common{}, io.Discard)
		if err != nil {
			return
		}
		want := map[string]string{}
		lines := bytes.Split(data, []byte{'\n'})
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i, line := range lines {
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if record.IsHeader(line) {
				if _, err := record.ParseHeader(line); err != nil {
					t.Fatalf("line %d: header %q accepted: %v", i+1, line, err)
				}
				continue
			}
			c, id, err := record.ParseMember(line)
			if err != nil {
				t.Fatalf("line %d: %q accepted: %v", i+1, line, err)
			}
			if old, ok := want[string(id)]; ok && old != string(c) {
				t.Fatalf("line %d: id %q in clusters %q and %q accepted", i+1, id, old, c)
			}
			want[string(id)] = string(c)
		}
		if cm.members.Len() != len(want) {
			t.Fatalf("%d members, want %d", cm.members.Len(), len(want))
		}
		for id, c := range want {
			m, ok := cm.members.Lookup([]byte(id))
			if !ok || string(cm.names.ID(cm.clusterOf[m])) != c {
				t.Fatalf("id %q: member %v, cluster %q, want %q", id, ok, cm.names.ID(cm.clusterOf[m]), c)
			}
		}
	})
}
