package pairs

import (
	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/record"
)

// key128 names a bucket. Band keys of 20 hex digits (4 for the band or
// table, 16 for the hash) map to it exactly; any other key is hashed twice
// with independent seeds, so that two different keys share a bucket with
// probability 2^-128.
type key128 struct{ hi, lo uint64 }

const hashedKeyBit = 1 << 63

var keySeed = [2]uint64{0x243f6a8885a308d3, 0x13198a2e03707344}

func parseKey(k []byte) key128 {
	if len(k) == 20 && isLowerHex(k) {
		var band uint64
		for _, c := range k[:4] {
			band = band<<4 | uint64(hexDigit(c))
		}
		h, _ := record.ParseHex64(k[4:])
		return key128{band, h}
	}
	d := xxhash.NewWithSeed(keySeed[0])
	d.Write(k)
	hi := d.Sum64()
	d.ResetWithSeed(keySeed[1])
	d.Write(k)
	return key128{hi | hashedKeyBit, d.Sum64()}
}

func isLowerHex(k []byte) bool {
	for _, c := range k {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func hexDigit(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func (a key128) less(b key128) bool {
	if a.lo != b.lo {
		return a.lo < b.lo
	}
	return a.hi < b.hi
}
