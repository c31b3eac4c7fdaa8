package token

import (
	"slices"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/mix"
)

// RuneHash hashes one code point: the unit of char shingles under tok64.
func RuneHash(r rune) uint64 { return mix.Murmur(uint64(r) ^ 0xbb67ae8584caa73b) }

// Chars yields the code points of a text lower-cased, the units of char
// shingles: every run of white space as one space; with Punct, every run
// of runes that are not letters, digits or marks as one space between two
// words and nothing next to a single-rune token (Han, kana, Hangul), at the
// start or the end.
type Chars struct {
	// Punct folds punctuation as above (shingle --normalize punct).
	Punct   bool
	text    []byte
	pos     int
	inSpace bool
	// Punct: a separator run was seen since the last rune returned, and
	// that rune (0 at the start) is a single-rune token.
	gap      bool
	prevCJK  bool
	started  bool
	queued   rune
	hasQueue bool
}

// Reset starts on text.
func (n *Chars) Reset(text []byte) {
	n.text = text
	n.pos = 0
	n.inSpace = false
	n.gap, n.prevCJK, n.started, n.hasQueue = false, false, false, false
}

// Next returns the next normalised code point; ok is false at the end.
func (n *Chars) Next() (r rune, ok bool) {
	if n.hasQueue {
		n.hasQueue = false
		return n.queued, true
	}
	for n.pos < len(n.text) {
		c := n.text[n.pos]
		var size int
		var f uint8
		if c < utf8.RuneSelf {
			r, size = rune(c), 1
			if c <= 'Z' && c >= 'A' {
				r += 'a' - 'A'
			}
			f = asciiFlags[c]
		} else {
			r, size = decodeRune(n.text[n.pos:])
			f = runeFlags(r)
			r = lowerOf(r, f)
		}
		n.pos += size
		if n.Punct {
			if f&rfCharWord == 0 {
				n.gap = true
				continue
			}
			cjk := f&rfSingle != 0
			space := n.gap && n.started && !cjk && !n.prevCJK
			n.gap, n.started, n.prevCJK = false, true, cjk
			if space {
				n.queued, n.hasQueue = r, true
				return ' ', true
			}
			return r, true
		}
		if f&rfSpace != 0 {
			if n.inSpace {
				continue
			}
			n.inSpace = true
			return ' ', true
		}
		n.inSpace = false
		return r, true
	}
	return 0, false
}

// The ASCII runes as Units computes them: asciiUnits their unit hashes
// (RuneHash) lower-cased, the space Next returns for a white-space rune;
// asciiWord and asciiSpace their rfCharWord and rfSpace flags as 0 or 1.
// spaceUnit is the hash of that space.
var (
	spaceUnit  = RuneHash(' ')
	asciiUnits = func() (t [0x80]uint64) {
		for c := range rune(0x80) {
			switch f := asciiFlags[c]; {
			case f&rfSpace != 0:
				t[c] = spaceUnit
			case c >= 'A' && c <= 'Z':
				t[c] = RuneHash(c + 'a' - 'A')
			default:
				t[c] = RuneHash(c)
			}
		}
		return t
	}()
	asciiWord, asciiSpace = func() (w, s [0x80]uint8) {
		for c := range 0x80 {
			w[c] = asciiFlags[c] & rfCharWord / rfCharWord
			s[c] = asciiFlags[c] & rfSpace / rfSpace
		}
		return w, s
	}()
)

// Units appends to dst the unit hashes (RuneHash) of the code points Next
// would return, until the text ends or dst holds max or max+1 of them: the
// loop of Next with its state in locals, and ASCII without a branch on
// the text, for char shingles under tok64. It returns dst as it was only
// at the end of the text.
func (n *Chars) Units(dst []uint64, max int) []uint64 {
	if n.hasQueue {
		n.hasQueue = false
		dst = append(dst, RuneHash(n.queued))
	}
	// State as 0 or 1.
	inSpace, gap, started, prevCJK := bit(n.inSpace), bit(n.gap), bit(n.started), bit(n.prevCJK)
	text, pos, punct := n.text, n.pos, n.Punct
	// Room for eight units after max: d[j] is written before j tells
	// whether it counts, and the vector code stores eight at a time.
	dst = slices.Grow(dst, max+8-len(dst))
	d, j := dst[:cap(dst)], len(dst)
	// The vector code is tried at the start and then after each 64 bytes
	// the loop below took (it stops at the first block that is not all
	// ASCII).
	vectorAt := pos
	for pos < len(text) && j < max {
		if pos >= vectorAt {
			st := unitState{gap: uint64(gap), started: uint64(started), prevCJK: uint64(prevCJK)}
			if punct {
				st.punct = 1
			} else {
				st.gap = uint64(inSpace)
			}
			read, wrote := unitsVector(d[:max], j, text, pos, &st)
			if read > 0 {
				pos, j = pos+read, j+wrote
				gap, started, prevCJK = uint8(st.gap), uint8(st.started), uint8(st.prevCJK)
				if !punct {
					inSpace = uint8(st.gap)
				}
			}
			vectorAt = pos + 64
			continue
		}
		c := text[pos]
		if c < utf8.RuneSelf {
			pos++
			if punct {
				// A word rune ends a gap (after a start, a space) and
				// is a unit; any other makes one.
				w := asciiWord[c]
				d[j] = spaceUnit
				j += int(w & gap & started &^ prevCJK)
				d[j] = asciiUnits[c]
				j += int(w)
				gap, started, prevCJK = w^1, started|w, prevCJK&^w
				continue
			}
			// A run of white space is one space.
			sp := asciiSpace[c]
			d[j] = asciiUnits[c]
			j += int(1 - sp&inSpace)
			inSpace = sp
			continue
		}
		r, size := decodeRune(text[pos:])
		pos += size
		f := runeFlags(r)
		h := RuneHash(lowerOf(r, f))
		if punct {
			if f&rfCharWord == 0 {
				gap = 1
				continue
			}
			cjk := bit(f&rfSingle != 0)
			d[j] = spaceUnit
			j += int(gap & started &^ prevCJK &^ cjk)
			d[j] = h
			j++
			gap, started, prevCJK = 0, 1, cjk
			continue
		}
		if f&rfSpace != 0 {
			d[j] = spaceUnit
			j += int(1 - inSpace)
			inSpace = 1
			continue
		}
		d[j] = h
		j++
		inSpace = 0
	}
	n.pos = pos
	n.inSpace, n.gap, n.started, n.prevCJK = inSpace == 1, gap == 1, started == 1, prevCJK == 1
	return d[:j]
}

// unitState is Units' state between runes for unitsVector, each 0 or 1:
// gap is inSpace where punct is 0. The assembly reads its offsets.
type unitState struct {
	gap, started, prevCJK, punct uint64
}

// unitRunes is, for each ASCII rune, the rune its unit is the hash of
// (RuneHash: lower-cased, a space for white space), with bit 7 set for a
// word rune (rfCharWord): the table unitsVector looks the runes up in.
var unitRunes = func() (t [0x80]byte) {
	for c := range byte(0x80) {
		u := c
		switch f := asciiFlags[c]; {
		case f&rfSpace != 0:
			u = ' '
		case c >= 'A' && c <= 'Z':
			u = c + 'a' - 'A'
		}
		t[c] = u | asciiWord[c]<<7
	}
	return t
}()

func bit(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
