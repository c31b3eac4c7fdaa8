package e2e

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/cli"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/synth"
	"github.com/neardup/neardup/internal/tools/containtruth/truth"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected files of the scripts that cmp compares")

// TestMain puts every stage, and gencorpus, on the scripts' $PATH: the test
// binary runs as the command its name says.
func TestMain(m *testing.M) {
	commands := map[string]func(){
		"gencorpus":  func() { os.Exit(synth.Main(os.Args[1:], os.Stdout, os.Stderr)) },
		"firstvalue": func() { os.Exit(firstValue()) },
		"peakrss":    func() { os.Exit(peakRSS()) },
		"containtruth": func() {
			os.Exit(truth.Main(os.Args[1:], os.Stdout, os.Stderr))
		},
	}
	for _, s := range cli.Stages() {
		commands[s.Name] = func() { os.Exit(cli.Main(s)) }
	}
	testscript.Main(m, commands)
}

func TestScript(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cli.Stages() {
		names = append(names, s.Name)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		// [exists:PATH] holds when PATH exists on this machine (the
		// licences and copyright files some scripts read).
		Condition: func(cond string) (bool, error) {
			if p, ok := strings.CutPrefix(cond, "exists:"); ok {
				_, err := os.Stat(p)
				return err == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			// ROOT is the repository (for examples/), STAGES the name of
			// every stage.
			env.Setenv("ROOT", root)
			env.Setenv("STAGES", strings.Join(names, " "))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"gzipfile":    cmdGzipFile,
			"zstdfile":    cmdZstdFile,
			"decompress":  cmdDecompress,
			"checkrecall": cmdCheckRecall,
			"hadoop":      cmdHadoop,
			"samecanon":   cmdSameCanon,
			"headone":     cmdHeadOne,
			"interrupt":   cmdInterrupt,
			"warcbomb":    cmdWARCBomb,
		},
	})
}

// cmdExits runs a program as exec does and checks its exit status:
//
//	exits 2 shingle bad.tsv
//
// The program's standard output and error are then there for stdout and
// stderr, as after exec. (! exec accepts any failure.)
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: status %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdGzipFile writes a gzip-compressed copy of a file: gzipfile SRC DST.
func cmdGzipFile(ts *testscript.TestScript, neg bool, args []string) {
	compressFile(ts, neg, args, "gzipfile", func(data []byte) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		ts.Check(w.Close())
		return b.Bytes()
	})
}

// cmdZstdFile writes a zstd-compressed copy of a file: zstdfile SRC DST.
func cmdZstdFile(ts *testscript.TestScript, neg bool, args []string) {
	compressFile(ts, neg, args, "zstdfile", func(data []byte) []byte {
		enc, err := zstd.NewWriter(nil)
		ts.Check(err)
		defer enc.Close()
		return enc.EncodeAll(data, nil)
	})
}

// cmdDecompress checks that a file is compressed with KIND (gzip, zstd or
// none) and writes it decompressed: decompress KIND SRC DST.
func cmdDecompress(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: decompress gzip|zstd|none SRC DST")
	}
	f, err := input.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	kind := f.Compression
	if kind == "" {
		kind = "none"
	}
	if kind != args[0] {
		ts.Fatalf("%s: compression %s, want %s", args[1], kind, args[0])
	}
	data, err := io.ReadAll(f)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), data, 0o644))
}

func compressFile(ts *testscript.TestScript, neg bool, args []string, name string, compress func([]byte) []byte) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: %s SRC DST", name)
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), compress(data), 0o644))
}
