package shingle

import (
	"fmt"
	"strings"
	"testing"
)

// nfkcWidth holds every assigned rune of U+FF01 to U+FF9F and U+FFE0 to
// U+FFEE but U+FFE3 (a space and a combining macron in NFKC, kept as it
// is), and the NFKC form of each (Python's unicodedata.normalize); then the
// half-width kana followed by a sound mark that NFKC composes into one.
var nfkcWidth = []struct{ in, want string }{
	{"！＂＃＄％＆＇（）＊＋，－．／０１２３４５６７８９：；＜＝＞？＠ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲＳＴＵＶＷＸＹＺ［＼］＾＿｀ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔｕｖｗｘｙｚ｛｜｝～｟｠｡｢｣､･ｦｧｨｩｪｫｬｭｮｯｰｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜﾝﾞﾟ￠￡￢￤￥￦￨￩￪￫￬￭￮",
		"!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~⦅⦆。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン\u3099\u309a¢£¬¦¥₩│←↑→↓■○"},
	{"ｦﾞｳﾞｶﾞｷﾞｸﾞｹﾞｺﾞｻﾞｼﾞｽﾞｾﾞｿﾞﾀﾞﾁﾞﾂﾞﾃﾞﾄﾞﾊﾞﾊﾟﾋﾞﾋﾟﾌﾞﾌﾟﾍﾞﾍﾟﾎﾞﾎﾟﾜﾞ",
		"ヺヴガギグゲゴザジズゼゾダヂヅデドバパビピブプベペボポヷ"},
}

func TestFoldWidthIsNFKC(t *testing.T) {
	for _, c := range nfkcWidth {
		if got := string(appendFoldWidth(nil, []byte(c.in))); got != c.want {
			t.Errorf("fold(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	// Other text is copied as it is, also around the folded runes.
	for _, s := range []string{"", "plain ASCII", "Déjà vu, 近似重复。「引号」", "\xef\xbf", "a\xefb", "ｶ"} {
		want := s
		if s == "ｶ" {
			want = "カ"
		}
		if got := string(appendFoldWidth([]byte("x"), []byte(s))); got != "x"+want {
			t.Errorf("fold(%q) = %q, want %q", s, got[1:], want)
		}
	}
}

// charText returns what a charNormalizer yields for text.
func charText(text string, punct bool) string {
	var n charNormalizer
	n.punct = punct
	n.reset([]byte(text))
	var b strings.Builder
	for {
		r, ok := n.next()
		if !ok {
			return b.String()
		}
		b.WriteRune(r)
	}
}

func TestCharNormalizerPunct(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  Hello,   World!  ", "hello world"},
		{"don't -- stop", "don t stop"},
		{"a.b", "a b"},
		{"子曰：「学而时习之，不亦说乎？」", "子曰学而时习之不亦说乎"},
		{"子曰 学而 时习之 。", "子曰学而时习之"},
		{"用 Go 语言", "用go语言"},
		{"x := f(a, b) // ok", "x f a b ok"},
		{"naïve café", "naïve café"},
		{"e\u0301te", "e\u0301te"}, // a combining mark stays in its word
		{"\xff\xfeab", "ab"},
	} {
		if got := charText(c.in, true); got != c.want {
			t.Errorf("punct %q = %q, want %q", c.in, got, c.want)
		}
	}
	// Without punct, only white space is folded.
	if got := charText("  A,\t\nB ", false); got != " a, b " {
		t.Errorf("no punct: %q", got)
	}
}

func TestNormalizationsMeet(t *testing.T) {
	// The variants of a text that width and punct fold give the same
	// shingles; without them they do not.
	variants := []string{
		"子曰：「学而时习之，不亦说乎？」 Debian 12",
		"子曰:\"学而时习之, 不亦说乎?\"Ｄｅｂｉａｎ １２",
		"子曰  学而时习之  不亦说乎 DEBIAN 12",
	}
	for _, o := range []Options{
		{Unit: Char, K: 5, Norm: Normalization{Width: true, Punct: true}},
		{Unit: Char, K: 5, Scheme: XXH64, Norm: Normalization{Width: true, Punct: true}},
		{Unit: Word, K: 3, Norm: Normalization{Width: true}},
		{Unit: Word, K: 3, Scheme: XXH64, Norm: Normalization{Width: true}},
	} {
		s := New(o)
		want := fmtHashes(s.Append(nil, []byte(variants[0])))
		for _, v := range variants[1:] {
			if got := fmtHashes(s.Append(nil, []byte(v))); got != want {
				t.Errorf("%+v: %q and %q differ:\n%s\n%s", o, variants[0], v, want, got)
			}
		}
	}
	s := New(Options{Unit: Char, K: 5})
	if fmtHashes(s.Append(nil, []byte(variants[0]))) == fmtHashes(s.Append(nil, []byte(variants[1]))) {
		t.Error("without normalization the variants have the same shingles")
	}
}

func fmtHashes(h []uint64) string { return fmt.Sprintf("%016x", h) }

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
	if DefaultNormalization(Char).String() != "width,punct" || DefaultNormalization(Word).String() != "width" {
		t.Error("defaults")
	}
}
