package token

import (
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

// charText returns what Chars yields for text.
func charText(text string, punct bool) string {
	n := Chars{Punct: punct}
	n.Reset([]byte(text))
	var b strings.Builder
	for {
		r, ok := n.Next()
		if !ok {
			return b.String()
		}
		b.WriteRune(r)
	}
}

func TestCharsPunct(t *testing.T) {
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
