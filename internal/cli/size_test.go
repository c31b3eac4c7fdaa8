package cli

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1":     1,
		"512M":  512 << 20,
		"512m":  512 << 20,
		"2G":    2 << 30,
		"2GB":   2 << 30,
		"64k":   64 << 10,
		"1T":    1 << 40,
		" 10K ": 10 << 10,
		"100B":  100,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1M", "M", "1.5G", "lots", "1P", "1 G"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestManMarkdown(t *testing.T) {
	in := "Some text.\n\n   indented block\n   second line\nafter\n\nEXAMPLES\n   cmd --flag\n\nNOT A HEADING: WITH COLON\nEXIT STATUS"
	want := "Some text.\n\n```\nindented block\nsecond line\n```\nafter\n\n# EXAMPLES\n```\ncmd --flag\n```\n\nNOT A HEADING: WITH COLON\n# EXIT STATUS\n"
	if got := manMarkdown(in); got != want {
		t.Errorf("manMarkdown\n got %q\nwant %q", got, want)
	}
}
