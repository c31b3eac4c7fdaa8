package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/cli"
	ucli "github.com/urfave/cli/v2"
)

// valuesDocs are the documents every value case reads: two near
// duplicates, a copy inside a longer document, and one apart.
const valuesDocs = "a\tthe quick brown fox jumps over the lazy dog by the river bank in the morning\n" +
	"b\tthe quick brown fox jumps over the lazy dog by the river bank in the evening\n" +
	"c\tpack my box with five dozen liquor jugs and then pack my box with six more jugs\n" +
	"d\twe said the quick brown fox jumps over the lazy dog by the river bank in the morning and left\n"

// valuesVectors are the vectors of the documents of valuesDocs, for the
// flags of vectors (sketch --method hyperplane, verify --cosine).
const valuesVectors = "a\t1 0 0.5\nb\t1 0.01 0.5\nc\t-1 2 0\nd\t1 0.02 0.49\n"

// valuesInputs are the files made from valuesDocs before the cases run, in
// order: each is written by its command, run with -o NAME, in the data
// directory ($D in the arguments).
var valuesInputs = []struct {
	name string
	args []string
}{
	{"sh.tsv", []string{"shingle", "$D/docs.tsv"}},
	{"shw.tsv", []string{"shingle", "--unit", "word", "-k", "3", "$D/docs.tsv"}},
	{"df.tsv", []string{"docfreq", "$D/shw.tsv"}},
	{"sw.tsv", []string{"shingle", "--unit", "word", "-k", "1", "$D/docs.tsv"}},
	{"dfw.tsv", []string{"docfreq", "$D/sw.tsv"}},
	{"sk.tsv", []string{"sketch", "$D/sh.tsv"}},
	{"fp.tsv", []string{"sketch", "--method", "simhash", "$D/sh.tsv"}},
	{"b.tsv", []string{"band", "$D/sk.tsv"}},
	{"hb.tsv", []string{"band", "--hamming", "3", "--no-header", "$D/fp.tsv"}},
	{"p.tsv", []string{"pairs", "$D/b.tsv"}},
	{"hp.tsv", []string{"pairs", "--hamming", "3", "$D/hb.tsv"}},
	{"v.tsv", []string{"verify", "--shingles", "$D/sh.tsv", "$D/p.tsv"}},
	{"vc.tsv", []string{"verify", "--shingles", "$D/sh.tsv", "--containment", "$D/p.tsv"}},
	{"fp.idx", []string{"index", "build", "$D/fp.tsv"}},
	{"hy.tsv", []string{"sketch", "--method", "hyperplane", "--bits", "256", "$D/vec.tsv"}},
	{"ps.tsv", []string{"sketch", "--method", "pstable", "--width", "4", "$D/vec.tsv"}},
	{"b.idx", []string{"bandindex", "build", "$D/b.tsv"}},
}

// valueCase says how one numeric flag is tried: the command line it is
// given in (the flag and its value go before args; $D is the data
// directory, $T a directory of the case's own), commands run before
// (in $T) and the values with which the command succeeds. Any other value
// must be a usage error naming the flag.
type valueCase struct {
	args   []string
	before [][]string
	ok     []string
	// badInput are values the input, made under another, does not fit:
	// bad input (status 2) that need not name the flag.
	badInput []string
	// same says that with an ok value the output is that of the command
	// without the flag (the small input is within every budget and cap).
	same bool
}

// valueCases has an entry, "COMMAND --FLAG", for every numeric flag of
// every command; TestFlagValues fails on a numeric flag without one.
var valueCases = map[string]valueCase{
	"parts --tokens":      {args: []string{"--by", "window", "$D/docs.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"parts --stride":      {args: []string{"--by", "window", "--tokens", "5", "$D/docs.tsv"}},
	"parts --min-bytes":   {args: []string{"$D/docs.tsv"}, ok: []string{"0", "1000000000000000000", "9223372036854775807"}},
	"parts --min-tokens":  {args: []string{"$D/docs.tsv"}, ok: []string{"0", "1000000000000000000", "9223372036854775807"}},
	"parts --number-from": {args: []string{"$D/docs.tsv"}, ok: []string{"0"}},
	"parts --jobs":        {args: []string{"$D/docs.tsv"}, ok: []string{"0"}, same: true},

	"seen -k":            {args: []string{"--expected", "1000", "$D/docs.tsv"}},
	"seen --threshold":   {args: []string{"--expected", "1000", "$D/docs.tsv"}},
	"seen --min-tokens":  {args: []string{"--expected", "1000", "$D/docs.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"seen --tokens":      {args: []string{"--expected", "1000", "--by", "window", "$D/docs.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"seen --stride":      {args: []string{"--expected", "1000", "--by", "window", "--tokens", "5", "$D/docs.tsv"}},
	"seen --fp":          {args: []string{"--expected", "1000", "$D/docs.tsv"}},
	"seen --memory":      {args: []string{"$D/docs.tsv"}},
	"seen --number-from": {args: []string{"--expected", "1000", "$D/docs.tsv"}, ok: []string{"0"}},
	"seen --jobs":        {args: []string{"--expected", "1000", "$D/docs.tsv"}, ok: []string{"0"}, same: true},

	"spans --tokens":      {args: []string{"$D/docs.tsv"}},
	"spans --memory":      {args: []string{"$D/docs.tsv"}},
	"spans --number-from": {args: []string{"$D/docs.tsv"}, ok: []string{"0"}},
	"spans --jobs":        {args: []string{"$D/docs.tsv"}, ok: []string{"0"}, same: true},

	"shingle -k":            {args: []string{"$D/docs.tsv"}},
	"shingle --seed":        {args: []string{"$D/docs.tsv"}, ok: []string{"0", "1000000000000000000", "18446744073709551615"}},
	"shingle -n":            {args: []string{"--sketch", "minhash", "$D/docs.tsv"}},
	"shingle -s":            {args: []string{"--sketch", "bottomk", "$D/docs.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"shingle -m":            {args: []string{"--sketch", "modm", "$D/docs.tsv"}, ok: []string{"1000000000000000000", "18446744073709551615"}},
	"shingle --sketch-seed": {args: []string{"--sketch", "minhash", "$D/docs.tsv"}, ok: []string{"0", "1000000000000000000", "18446744073709551615"}},
	"shingle --band":        {args: []string{"--sketch", "minhash", "$D/docs.tsv"}},
	"shingle --number-from": {args: []string{"$D/docs.tsv"}, ok: []string{"0"}},
	"shingle --jobs":        {args: []string{"$D/docs.tsv"}, ok: []string{"0"}, same: true},

	"docfreq --memory": {args: []string{"$D/shw.tsv"}},
	"docfreq --jobs":   {args: []string{"$D/shw.tsv"}, ok: []string{"0"}, same: true},

	"sketch -n":     {args: []string{"$D/sh.tsv"}},
	"sketch -s":     {args: []string{"--method", "bottomk", "$D/sh.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"sketch -m":     {args: []string{"--method", "modm", "$D/sh.tsv"}, ok: []string{"1000000000000000000", "18446744073709551615"}},
	"sketch --seed": {args: []string{"$D/sh.tsv"}, ok: []string{"0", "1000000000000000000", "18446744073709551615"}},
	"sketch -f":     {args: []string{"--method", "simhash", "$D/sh.tsv"}},
	"sketch --jobs": {args: []string{"$D/sh.tsv"}, ok: []string{"0"}, same: true},
	"sketch --bits": {args: []string{"--method", "hyperplane", "$D/vec.tsv"}},
	"sketch --dim":  {args: []string{"--method", "hyperplane", "$D/vec.tsv"}},
	// A cosine of 1.5 or more is no cosine.
	"sketch --cosine": {args: []string{"--method", "hyperplane", "$D/vec.tsv"}},
	// Any width and distance above 0 are taken (1e18 makes every hash 0).
	"sketch --width":    {args: []string{"--method", "pstable", "$D/vec.tsv"}, ok: []string{"1.5", "1e18"}},
	"sketch --distance": {args: []string{"--method", "pstable", "--width", "4", "$D/vec.tsv"}, ok: []string{"1.5", "1e18"}},

	"band -b":                    {args: []string{"-r", "1", "$D/sk.tsv"}},
	"band -r":                    {args: []string{"-b", "1", "$D/sk.tsv"}},
	"band --threshold":           {args: []string{"$D/sk.tsv"}},
	"band --fp-weight":           {args: []string{"$D/sk.tsv"}, ok: []string{"0", "1.5", "1e18"}},
	"band --fn-weight":           {args: []string{"$D/sk.tsv"}, ok: []string{"0", "1.5", "1e18"}},
	"band --recall-at-threshold": {args: []string{"$D/sk.tsv"}, ok: []string{"0"}},
	"band --hamming":             {args: []string{"$D/fp.tsv"}, ok: []string{"0"}},
	// A cosine of 1.5 or more is no cosine; any distance above 0 is taken.
	"band --cosine":      {args: []string{"$D/hy.tsv"}},
	"band --distance":    {args: []string{"$D/ps.tsv"}, ok: []string{"1.5", "1e18"}},
	"band --blocks":      {args: []string{"--hamming", "3", "$D/fp.tsv"}},
	"band --containment": {args: []string{"--df", "$D/df.tsv", "$D/shw.tsv"}},
	"band --memory":      {args: []string{"--containment", "0.9", "$D/shw.tsv"}},
	"band --jobs":        {args: []string{"$D/sk.tsv"}, ok: []string{"0"}, same: true},

	"pairs --max-bucket": {args: []string{"$D/b.tsv"}, ok: []string{"0", "1000000000000000000", "9223372036854775807"}},
	"pairs --reps":       {args: []string{"$D/b.tsv"}, ok: []string{"0", "1000000000000000000", "9223372036854775807"}},
	"pairs --memory":     {args: []string{"$D/b.tsv"}, ok: []string{"9223372036854775807", "8000000T"}, same: true},
	"pairs --hamming":    {args: []string{"$D/hb.tsv"}, badInput: []string{"0"}},
	"pairs --blocks":     {args: []string{"--hamming", "3", "$D/hb.tsv"}},
	"pairs --jobs":       {args: []string{"$D/b.tsv"}, ok: []string{"0"}, same: true},

	"verify --number-from": {args: []string{"--documents", "$D/docs.tsv", "$D/p.tsv"}},
	"verify --threshold":   {args: []string{"--shingles", "$D/sh.tsv", "$D/p.tsv"}, ok: []string{"0"}},
	"verify --memory":      {args: []string{"--shingles", "$D/sh.tsv", "$D/p.tsv"}, ok: []string{"9223372036854775807", "8000000T"}, same: true},
	"verify --hamming":     {args: []string{"--sketches", "$D/fp.tsv", "$D/hp.tsv"}, ok: []string{"0"}},
	"verify --jobs":        {args: []string{"--shingles", "$D/sh.tsv", "$D/p.tsv"}, ok: []string{"0"}, same: true},
	"verify --dim":         {args: []string{"--cosine", "--documents", "$D/vec.tsv", "$D/p.tsv"}},

	"cluster --min-similarity-to-representative": {args: []string{"$D/v.tsv"}, ok: []string{"0"}},
	"cluster --memory":                           {args: []string{"$D/v.tsv"}, ok: []string{"9223372036854775807", "8000000T"}, same: true},
	"cluster --threshold":                        {args: []string{"--method", "leader", "$D/sk.tsv"}},
	"cluster -b":                                 {args: []string{"--method", "leader", "-r", "1", "$D/sk.tsv"}},
	"cluster -r":                                 {args: []string{"--method", "leader", "-b", "1", "$D/sk.tsv"}},
	"cluster --hamming":                          {args: []string{"--method", "leader", "$D/fp.tsv"}, ok: []string{"0"}},
	"cluster --blocks":                           {args: []string{"--method", "leader", "$D/fp.tsv"}, ok: []string{"0"}},
	"cluster --topics":                           {args: []string{"--method", "leader", "--df", "$D/dfw.tsv", "--documents", "$D/docs.tsv", "--topics-out", "$T/topics.tsv", "$D/fp.tsv"}, ok: []string{"1000000000000000000", "9223372036854775807"}},
	"cluster -s":                                 {args: []string{"--method", "greedy", "$D/sk.tsv"}, ok: []string{"0", "1000000000000000000", "9223372036854775807"}},
	"cluster --jobs":                             {args: []string{"$D/v.tsv"}, ok: []string{"0"}, same: true},

	"keep --threshold":   {args: []string{"--pairs", "$D/vc.tsv", "--containment", "$D/docs.tsv"}},
	"keep --memory":      {args: []string{"--pairs", "$D/v.tsv", "$D/docs.tsv"}, ok: []string{"9223372036854775807", "8000000T"}, same: true},
	"keep --number-from": {args: []string{"--pairs", "$D/v.tsv", "--lines", "$D/docs.tsv"}},
	"keep --jobs":        {args: []string{"--pairs", "$D/v.tsv", "$D/docs.tsv"}, ok: []string{"0"}, same: true},

	"index build -k":           {args: []string{"-o", "$T/fp.idx", "$D/fp.tsv"}, ok: []string{"0"}},
	"index build --blocks":     {args: []string{"-o", "$T/fp.idx", "$D/fp.tsv"}},
	"index build --block-size": {args: []string{"-o", "$T/fp.idx", "$D/fp.tsv"}},
	"index build --jobs":       {args: []string{"-o", "$T/fp.idx", "$D/fp.tsv"}, ok: []string{"0"}, same: true},
	"index add --jobs": {
		before: [][]string{{"index", "build", "-o", "$T/fp.idx", "$D/fp.tsv"}},
		args:   []string{"$T/fp.idx", "$D/fp.tsv"},
		ok:     []string{"0"},
		same:   true,
	},
	"index query --distance": {args: []string{"$D/fp.idx", "$D/fp.tsv"}, ok: []string{"-1", "0"}},
	"index query --jobs":     {args: []string{"$D/fp.idx", "$D/fp.tsv"}, ok: []string{"0"}, same: true},

	// estimate runs the dedup job, which this test has not: a value it
	// takes is seen to pass by the usage error of another flag after it
	// (one sample, fewer than three).
	"estimate --replicates":  {args: []string{"$D/docs.tsv"}},
	"estimate --sample-seed": {args: []string{"--fraction", "0.5", "--replicates", "1", "$D/docs.tsv"}, badInput: []string{"0", "1000000000000000000", "18446744073709551615"}},
	"estimate -t":            {args: []string{"$D/docs.tsv"}},
	"estimate -k":            {args: []string{"$D/docs.tsv"}},
	"estimate --jobs":        {args: []string{"--fraction", "0.5", "--replicates", "1", "$D/docs.tsv"}, badInput: []string{"0"}},

	"bandindex build --memory": {args: []string{"-o", "$T/b.idx", "$D/b.tsv"}, ok: []string{"9223372036854775807", "8000000T"}, same: true},
	"bandindex add --memory": {
		before: [][]string{{"bandindex", "build", "-o", "$T/b.idx", "$D/b.tsv"}},
		args:   []string{"$T/b.idx", "$D/b.tsv"},
		ok:     []string{"9223372036854775807", "8000000T"},
		same:   true,
	},
	"bandindex merge --max-runs": {
		before: [][]string{{"bandindex", "build", "-o", "$T/b.idx", "$D/b.tsv"}, {"bandindex", "add", "$T/b.idx", "$D/b.tsv"}},
		args:   []string{"$T/b.idx"},
		ok:     []string{"1000000000000000000", "9223372036854775807"},
	},
}

// Values tried by the type of the flag: not a number, infinities,
// negative, zero, beyond any range, and the largest the type holds.
var (
	floatValues = []string{"NaN", "Inf", "-Inf", "-1", "0", "1.5", "1e18"}
	intValues   = []string{"NaN", "-1", "0", "1000000000000000000", "9223372036854775807"}
	uintValues  = []string{"-1", "0", "1000000000000000000", "18446744073709551615"}
	// --memory: 0 and small sizes are left out; their minimums are
	// another item of issue 29.
	memoryValues = []string{"NaN", "-1", "9223372036854775807", "8000000T"}
)

// numericStrings are the string flags whose value is a number.
var numericStrings = map[string][]string{
	"memory": memoryValues,
	// seen --expected is left out: its check (the Bloom filter's size) is
	// another item of issue 29.
	"expected": nil,
}

// numberPlaceholder finds, in a flag's usage, the placeholder of a number.
var numberPlaceholder = regexp.MustCompile("`(N|SIZE|RATE|FRACTION|T|K|B|S)`")

// valuesTimeout is how long one case may take: a value that makes a
// stage hang fails the test instead of stalling it.
const valuesTimeout = 10 * time.Second

// TestFlagValues gives every numeric flag of every command (walked from
// the flag definitions, so that a new flag cannot be forgotten) values
// that are not numbers, infinite, negative, zero or huge, with otherwise
// valid input: each run must succeed where the table says so and be a
// usage error (status 2) naming the flag otherwise; never a panic, another
// status, a hang or an allocation the machine cannot hold.
func TestFlagValues(t *testing.T) {
	emptyStdin(t)
	// A stage that allocates past what a machine holds then fails at
	// once ("fatal error: out of memory", with its stack) instead of
	// making this one swap.
	limitAddressSpace(t, 8<<30)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "docs.tsv"), []byte(valuesDocs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "vec.tsv"), []byte(valuesVectors), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range valuesInputs {
		args := expand(in.args, data, "")
		args = slices.Insert(args, len(args)-1, "-o", filepath.Join(data, in.name))
		if _, stderr, status := runValue(t, args); status != 0 {
			t.Fatalf("%s: status %d: %s", strings.Join(args, " "), status, stderr)
		}
	}
	seen := map[string]bool{}
	for _, s := range cli.Stages() {
		tryFlags(t, []string{s.Name}, s.Flags, data, seen)
		for _, c := range s.Commands {
			tryFlags(t, []string{s.Name, c.Name}, c.Flags, data, seen)
		}
	}
	for name := range valueCases {
		if !seen[name] {
			t.Errorf("valueCases has %q, which is no numeric flag", name)
		}
	}
}

// tryFlags tries the numeric flags of one command.
func tryFlags(t *testing.T, command []string, flags []ucli.Flag, data string, seen map[string]bool) {
	for _, f := range flags {
		name := f.Names()[0]
		var values []string
		switch f.(type) {
		case *ucli.Float64Flag:
			values = floatValues
		case *ucli.IntFlag, *ucli.Int64Flag:
			values = intValues
		case *ucli.UintFlag, *ucli.Uint64Flag:
			values = uintValues
		case *ucli.StringFlag:
			var numeric bool
			values, numeric = numericStrings[name]
			if !numeric && numberPlaceholder.MatchString(f.(*ucli.StringFlag).Usage) {
				t.Errorf("%s %s: a string flag that takes a number: say in numericStrings which values to try", strings.Join(command, " "), flagName(name))
			}
			if values == nil {
				continue
			}
		case *ucli.BoolFlag, *ucli.StringSliceFlag:
			continue
		default:
			t.Errorf("%s %s: a flag of type %T: say which values to try", strings.Join(command, " "), flagName(name), f)
			continue
		}
		key := strings.Join(command, " ") + " " + flagName(name)
		seen[key] = true
		vc, ok := valueCases[key]
		if !ok {
			t.Errorf("%s: a numeric flag with no entry in valueCases", key)
			continue
		}
		for _, v := range values {
			t.Run(strings.ReplaceAll(key, " ", "_")+"="+v, func(t *testing.T) {
				dir := t.TempDir()
				for _, b := range vc.before {
					if _, stderr, status := runValue(t, expand(b, data, dir)); status != 0 {
						t.Fatalf("%s: status %d: %s", strings.Join(b, " "), status, stderr)
					}
				}
				args := append(slices.Clone(command), flagName(name), v)
				args = append(args, expand(vc.args, data, dir)...)
				stdout, stderr, status := runValue(t, args)
				line := strings.Join(args, " ")
				switch {
				case slices.Contains(vc.ok, v):
					if status != 0 {
						t.Errorf("%s: status %d, want 0: %s", line, status, stderr)
					}
					if vc.same {
						want, _, _ := runValue(t, append(slices.Clone(command), expand(vc.args, data, dir)...))
						if stdout != want {
							t.Errorf("%s: the output differs from that without %s:\n%s\nwant:\n%s", line, flagName(name), stdout, want)
						}
					}
				case status == 2 && slices.Contains(vc.badInput, v):
				case status != 2:
					t.Errorf("%s: status %d, want 2 (a usage error): %s", line, status, stderr)
				case !namesFlag(stderr, f.Names()):
					t.Errorf("%s: the message does not name %s: %s", line, flagName(name), stderr)
				}
			})
		}
	}
}

// runValue runs a command line in-process; a panic or a run past
// valuesTimeout fails the test.
func runValue(t *testing.T, args []string) (stdout, stderr string, status int) {
	t.Helper()
	type result struct {
		stdout, stderr string
		status         int
		panicked       any
	}
	s := stage(t, args[0])
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		r := result{}
		defer func() {
			if p := recover(); p != nil {
				r.panicked = fmt.Sprintf("%v\n%s", p, debug.Stack())
			}
			r.stdout, r.stderr = out.String(), errOut.String()
			done <- r
		}()
		r.status = cli.Run(s, args, &out, &errOut)
	}()
	select {
	case r := <-done:
		if r.panicked != nil {
			t.Fatalf("%s: panic: %v", strings.Join(args, " "), r.panicked)
		}
		return r.stdout, r.stderr, r.status
	case <-time.After(valuesTimeout):
		t.Fatalf("%s: still running after %v", strings.Join(args, " "), valuesTimeout)
	}
	return "", "", 0
}

// expand replaces $D and $T in args.
func expand(args []string, data, dir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(a, "$D", data), "$T", dir)
	}
	return out
}

// namesFlag reports whether a message names one of the flag's names, with
// one dash or two.
func namesFlag(msg string, names []string) bool {
	for _, n := range names {
		if regexp.MustCompile(`(^|[\s'"(])--?` + regexp.QuoteMeta(n) + `($|[\s:=,'")])`).MatchString(msg) {
			return true
		}
	}
	return false
}

// flagName writes a flag's name as it is typed: -n, --sketch-seed.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
