// Command plant plants realistic near-duplicates of real documents, for
// examples/languages.sh: it reads TSV documents (id TAB escaped text) and
// writes each document and, for each kind of change, a copy with that
// change, id "ID~KIND". The changes:
//
//	punct  punctuation: ASCII ,.!?:;() and full-width ，。！？：；（） swapped,
//	       quotes "…" and 「…」 swapped, and one mark in four dropped
//	space  spacing: lines joined or split, a space after or before a mark,
//	       spaces between Han and kana characters added or removed
//	width  full-width ASCII letters, digits and marks (Ａ１！), half-width
//	       katakana (ｶﾞ) for full-width
//	case   a word in five capitalised, a line in ten upper-cased
//	edit   every ~50 tokens (words, or Han/kana characters) one substituted
//	       by another of the document or deleted
//	all    punct, space, case and edit together
//
// With -truth FILE it writes the planted pairs there, "ID TAB ID~KIND TAB
// KIND", ordered as pairs records are (the original's id is a prefix of
// the copy's, so it sorts first).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"unicode"

	"github.com/neardup/neardup/internal/record"
)

var kinds = []string{"punct", "space", "width", "case", "edit", "all"}

func main() {
	truthName := flag.String("truth", "", "write the planted pairs to `FILE`")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	var truth *bufio.Writer
	if *truthName != "" {
		f, err := os.Create(*truthName)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		truth = bufio.NewWriter(f)
		defer truth.Flush()
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<28)
	rng := rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15))
	skipped := 0
	for in.Scan() {
		line := in.Bytes()
		tab := bytes.IndexByte(line, '\t')
		if tab < 0 {
			skipped++
			continue
		}
		id := string(line[:tab])
		text := string(record.Unescape(nil, line[tab+1:]))
		fmt.Fprintf(out, "%s\t%s\n", id, line[tab+1:])
		for _, kind := range kinds {
			v := plant(kind, text, rng)
			fmt.Fprintf(out, "%s~%s\t%s\n", id, kind, record.Escape(nil, []byte(v)))
			if truth != nil {
				fmt.Fprintf(truth, "%s\t%s~%s\t%s\n", id, id, kind, kind)
			}
		}
	}
	if err := in.Err(); err != nil {
		fatal(err)
	}
	if skipped > 0 {
		fmt.Fprintf(os.Stderr, "plant: skipped %d line(s) without a TAB (want id TAB text)\n", skipped)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "plant:", err)
	os.Exit(1)
}

func plant(kind, text string, rng *rand.Rand) string {
	switch kind {
	case "punct":
		return punct(text, rng)
	case "space":
		return space(text, rng)
	case "width":
		return width(text)
	case "case":
		return caseChange(text, rng)
	case "edit":
		return edit(text, rng)
	}
	return edit(caseChange(space(punct(text, rng), rng), rng), rng)
}

var swaps = map[rune]rune{
	',': '，', '.': '。', '!': '！', '?': '？', ':': '：', ';': '；', '(': '（', ')': '）',
	'，': ',', '。': '.', '！': '!', '？': '?', '：': ':', '；': ';', '（': '(', '）': ')',
	'、': ',', '「': '"', '」': '"', '『': '"', '』': '"',
}

func punct(text string, rng *rand.Rand) string {
	var b strings.Builder
	open := true
	for _, r := range text {
		if unicode.IsPunct(r) && rng.IntN(4) == 0 {
			continue
		}
		if r == '"' {
			if open {
				r = '「'
			} else {
				r = '」'
			}
			open = !open
		} else if s, ok := swaps[r]; ok {
			r = s
		}
		b.WriteRune(r)
	}
	return b.String()
}

func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func space(text string, rng *rand.Rand) string {
	var b strings.Builder
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '\n':
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString("\n\n")
			}
			continue
		case r == ' ' && i > 0 && i+1 < len(rs) && (cjk(rs[i-1]) || cjk(rs[i+1])):
			continue // spaces between CJK characters removed
		}
		b.WriteRune(r)
		if unicode.IsPunct(r) && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
			b.WriteByte(' ')
		}
		if cjk(r) && i+1 < len(rs) && cjk(rs[i+1]) && rng.IntN(8) == 0 {
			b.WriteString("　") // an ideographic space
		}
	}
	return b.String()
}

// halfKana is the half-width form of the full-width katakana that have one.
var halfKana = func() map[rune]string {
	full := "・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン"
	m := map[rune]string{}
	h := rune(0xff65)
	for _, r := range full {
		m[r] = string(h)
		h++
	}
	voiced := "ガギグゲゴザジズゼゾダヂヅデドバビブベボ"
	base := "カキクケコサシスセソタチツテトハヒフヘホ"
	br := []rune(base)
	for i, r := range []rune(voiced) {
		m[r] = m[br[i]] + "ﾞ"
	}
	for i, r := range []rune("パピプペポ") {
		m[r] = m[[]rune("ハヒフヘホ")[i]] + "ﾟ"
	}
	m['ヴ'] = m['ウ'] + "ﾞ"
	return m
}()

func width(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r > ' ' && r < 0x7f:
			b.WriteRune(r - '!' + 0xff01)
		case halfKana[r] != "":
			b.WriteString(halfKana[r])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func caseChange(text string, rng *rand.Rand) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if rng.IntN(10) == 0 {
			lines[i] = strings.ToUpper(l)
			continue
		}
		words := strings.Split(l, " ")
		for j, w := range words {
			if w != "" && rng.IntN(5) == 0 {
				rs := []rune(w)
				rs[0] = unicode.ToUpper(rs[0])
				words[j] = string(rs)
			}
		}
		lines[i] = strings.Join(words, " ")
	}
	return strings.Join(lines, "\n")
}

// edit cuts the text into tokens (runs of letters and digits, each Han or
// kana character one) and the rest, and every ~50 tokens substitutes one
// by another token of the text or deletes it.
func edit(text string, rng *rand.Rand) string {
	type piece struct {
		s   string
		tok bool
	}
	var ps []piece
	var run []rune
	flush := func() {
		if len(run) > 0 {
			ps = append(ps, piece{string(run), true})
			run = nil
		}
	}
	for _, r := range text {
		switch {
		case cjk(r):
			flush()
			ps = append(ps, piece{string(r), true})
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			run = append(run, r)
		default:
			flush()
			ps = append(ps, piece{string(r), false})
		}
	}
	flush()
	var toks []int
	for i, p := range ps {
		if p.tok {
			toks = append(toks, i)
		}
	}
	if len(toks) < 2 {
		return text
	}
	for i := rng.IntN(50); i < len(toks); i += 40 + rng.IntN(21) {
		if rng.IntN(2) == 0 {
			ps[toks[i]].s = ""
		} else {
			ps[toks[i]].s = ps[toks[rng.IntN(len(toks))]].s
		}
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.s)
	}
	return b.String()
}
