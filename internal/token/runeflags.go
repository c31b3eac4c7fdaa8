package token

import (
	"sync"
	"unicode"
)

// Rune flags: what the tokenizer and the char normalizer ask of a rune,
// answered once for every rune of the Basic Multilingual Plane (a 64 KiB
// table made the first time a text has a rune outside ASCII) instead of by
// the unicode package's range tables for every rune of every text: they
// made Cyrillic, Chinese and Japanese text shingle at a third of the speed
// of ASCII. Each flag but rfCased is of the rune lower-cased.
const (
	rfCased    = 1 << iota // unicode.ToLower changes the rune
	rfWord                 // isWordRune: a letter or digit
	rfSingle               // isSingleRuneToken: Han, Hiragana, Katakana, Hangul
	rfCharWord             // isCharWordRune: a letter, digit or mark
	rfSpace                // isSpace
)

var (
	bmpOnce  sync.Once
	bmpFlags *[0x10000]uint8
)

// flagsOf computes the flags of r.
func flagsOf(r rune) uint8 {
	var f uint8
	l := unicode.ToLower(r)
	if l != r {
		f |= rfCased
	}
	if isWordRune(l) {
		f |= rfWord
	}
	if isSingleRuneToken(l) {
		f |= rfSingle
	}
	if isCharWordRune(l) {
		f |= rfCharWord
	}
	if isSpace(l) {
		f |= rfSpace
	}
	return f
}

// asciiFlags are the flags of the ASCII runes.
var asciiFlags = func() (t [0x80]uint8) {
	for c := range rune(0x80) {
		t[c] = flagsOf(c)
	}
	return t
}()

// runeFlags returns the flags of r: from the table in the BMP.
func runeFlags(r rune) uint8 {
	if uint32(r) >= 0x10000 {
		return flagsOf(r)
	}
	return bmpTable()[r]
}

// bmpTable returns the flags of every rune of the BMP, made on first use.
func bmpTable() *[0x10000]uint8 {
	bmpOnce.Do(func() { bmpFlags = makeBMPTable() })
	return bmpFlags
}

// makeBMPTable makes the flags of every rune of the BMP from the unicode
// package's range tables, range by range (tens of microseconds, where
// flagsOf of each rune took 3 ms, paid by every stage that met a rune
// outside ASCII): the flags of a rune that lower-casing leaves as it is
// are those of the tables it is in; the few others (in unicode.CaseRanges)
// are flagsOf's.
func makeBMPTable() *[0x10000]uint8 {
	t := new([0x10000]uint8)
	// mark sets f for the runes of tab.
	mark := func(tab *unicode.RangeTable, f uint8) {
		for _, rg := range tab.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				t[r] |= f
			}
		}
		for _, rg := range tab.R32 {
			for r := rune(rg.Lo); r <= min(rune(rg.Hi), 0xffff); r += rune(rg.Stride) {
				t[r] |= f
			}
		}
	}
	mark(unicode.Letter, rfWord|rfCharWord)
	mark(unicode.Digit, rfWord|rfCharWord)
	mark(unicode.M, rfCharWord)
	// isSingleRuneToken's scripts start at U+1100, which it asks first.
	for _, tab := range []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul} {
		mark(tab, rfSingle)
	}
	mark(unicode.White_Space, rfSpace)
	for _, c := range unicode.CaseRanges {
		for r := rune(c.Lo); r <= rune(c.Hi) && r < 0x10000; r++ {
			if unicode.ToLower(r) != r {
				t[r] = flagsOf(r)
			}
		}
	}
	return t
}

// lowerOf returns r lower-cased, given its flags.
func lowerOf(r rune, f uint8) rune {
	if f&rfCased != 0 {
		return unicode.ToLower(r)
	}
	return r
}
