package minhash

import (
	"fmt"
	"strings"
	"testing"
)

// Known-answer vectors: the values every sketch method gives fixed sets
// under fixed seeds. Sketch files are kept and compared with sketches made
// years later, so these values never change: a change to a value is a new
// scheme with a new name in the sketch header (method=, family=,
// densify=), never a silent one. The leader index of cluster --state keeps
// the low 32 bits of minhash and oph values (index=banding values=low32):
// these vectors pin them too.

var (
	knownSet = []uint64{1, 2, 3, 0x9e3779b97f4a7c15, 0xfffffffffffffffe, 42, 1 << 40}
	// knownMultiples are 32 multiples of the golden ratio, for MOD_m.
	knownMultiples = func() []uint64 {
		s := make([]uint64, 32)
		for i := range s {
			s[i] = uint64(i) * 0x9e3779b97f4a7c15
		}
		return s
	}()
)

// knownSketches are keyed by the header's names: method=minhash
// family=mixmuladd64 (n=8), method=oph densify=optimal (n=8, the first 5
// values of knownSet), method=bottomk (s=4), method=modm (m=4, of
// knownMultiples).
var knownSketches = []struct {
	scheme string
	seed   uint64
	want   string
}{
	{"minhash family=mixmuladd64", 0, "16ba931b64d429c7 00e59c4ebe984c94 2670ff77a723ac84 4e895a83d474d97a 0c45c35af5ce2e79 02bbec99f512a82c 1baee362572855a0 0afcbf454c92ffba"},
	{"minhash family=mixmuladd64", 42, "13ce144dd2f06b86 06d829eb5c0d6d5e 0912b7ce30887e67 208c66f061995b5e 40c555ad9af841f6 27047634487f80ef 0d4f83aec5b530b1 38678a5023684428"},
	{"oph densify=optimal", 0, "9181f5e1279f2691 7793eeee117e6bc0 408375840552e66e 7793eeee117e6bc0 9181f5e1279f2691 9181f5e1279f2691 cd65d5aff659552f cd65d5aff659552f"},
	{"oph densify=optimal", 42, "05685d8d8f926e88 3d0aaf4c7986b972 5f6907402a9677d2 05685d8d8f926e88 9b8f96696bb4c589 5f6907402a9677d2 3d0aaf4c7986b972 3d0aaf4c7986b972"},
	{"bottomk", 0, "39db00d9220ebb87 509384a32de4e23e 64296a15ae94b417 a479fa55a928a8cb"},
	{"bottomk", 42, "0cdeef85fab173c8 1c126484334abb82 3178e4e88a1fe6bf 37fbd973b9eef7eb"},
	{"modm", 0, "2760afe0030b61e4 83dd86b6c70ab4b0 8d3f12c8869c1e94 d4223025648b4de4 eb09c38df8898b9c"},
	{"modm", 42, "00207048957ec578 289473a2fe9b8b00 47240f5905d98f50 4e914df9e4300284 5e6d82dd7bb8b3d0 9e509bfd71788c04"},
}

func TestKnownSketches(t *testing.T) {
	for _, v := range knownSketches {
		sig := make([]uint64, 8)
		var got [][]uint64
		switch v.scheme {
		case "minhash family=mixmuladd64":
			// The vector loop (where the CPU has one) and the plain loop.
			f := NewFamily(8, v.seed)
			f.Signature(sig, knownSet)
			plain := make([]uint64, 8)
			f.signature(plain, knownSet, false)
			got = [][]uint64{sig, plain}
		case "oph densify=optimal":
			NewOPH(8, v.seed).Signature(sig, knownSet[:5])
			got = [][]uint64{sig}
		case "bottomk":
			got = [][]uint64{NewBottomK(4, v.seed).Sample(nil, knownSet)}
		case "modm":
			got = [][]uint64{NewModM(4, v.seed).Sample(nil, knownMultiples)}
		default:
			t.Fatalf("no sketcher for %s", v.scheme)
		}
		for _, g := range got {
			if h := strings.Trim(fmt.Sprintf("%016x", g), "[]"); h != v.want {
				t.Errorf("%s seed=%d:\n got %s\nwant %s\na changed value needs a new scheme name", v.scheme, v.seed, h, v.want)
			}
		}
	}
}
