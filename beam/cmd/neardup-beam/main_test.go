package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMetrics runs the command with -metrics and checks the file it
// writes: a line for the band keys, 18 for each of the documents (the
// banding at 0.8 of 128 values), with their bytes.
func TestMetrics(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "neardup-beam")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var docs strings.Builder
	for i := range 50 {
		fmt.Fprintf(&docs, "d%d\tthe text of document number %d, long enough to have shingles\n", i, i)
	}
	in := filepath.Join(dir, "docs.tsv")
	if err := os.WriteFile(in, []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	metrics := filepath.Join(dir, "metrics.tsv")
	cmd := exec.Command(bin, "-metrics", metrics, "-write", "pairs", "-output", filepath.Join(dir, "out"), in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("neardup-beam: %v\n%s", err, out)
	}
	data, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("metrics line %q: want 4 fields", line)
		}
		if !strings.HasPrefix(f[0], "band/") && !strings.HasPrefix(f[0], "band.") {
			continue
		}
		found = true
		elements, _ := strconv.Atoi(f[1])
		bytes, _ := strconv.Atoi(f[2])
		largest, _ := strconv.Atoi(f[3])
		if elements != 50*18 || bytes < elements*8 || largest < 8 {
			t.Errorf("band keys: %s elements, %s bytes, largest %s; want %d elements of at least 8 bytes", f[1], f[2], f[3], 50*18)
		}
	}
	if !found {
		t.Errorf("no line for the band keys in\n%s", data)
	}
}
