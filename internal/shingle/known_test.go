package shingle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/token"
)

// knownShingles are known-answer vectors: the shingle hashes, in text
// order, of fixed texts under every hash scheme (the header's hash=), unit,
// some lengths and seeds, ASCII and not (stop-word shingles with the
// built-in list, stopwords=english). Shingle files are kept and
// compared with files made years later, so these values never change: a
// change to a value is a new scheme with a new name, never a silent one.
var knownShingles = []struct {
	hash, unit string
	k          int
	seed       uint64
	text       string
	want       string // the hashes in hex, space separated
}{
	{"tok64", "char", 3, 0, "Déjà vu", "2d0a8b69d3af5abf 737087052a44c064 3b3419afb6cc4f4c 07a82ba2933acd46 2ec8b08603e6e1db"},
	{"tok64", "char", 5, 42, "The  quick\tbrown fox", "0322bc4187f3e260 df58da8fa1d2488a 8c0f2a92a219c7d9 3e4baa9bf4b09945 8e335db1d58c7537 d4da3a99e435d3ce 5e7e7987bc36eac1 2cb52e6ba9caf41c 9f7ceb87a19bb2b9 ef33aa455abece50 0596f0e17d068c21 2eb59a20d438ebb2 e270091f0c7fa360 3fba8ed1da3a3590 e27437d7de508e4a"},
	{"tok64", "char", 2, 42, "近似重复", "d7593b6acf0531ca c8b61db4991e7a32 c799ac23ca4fad16"},
	{"tok64", "char", 9, 0, "short", "c594d29de1cef507"},
	{"tok64", "char", 3, 0, "", ""},
	{"tok64", "word", 1, 0, "The quick, quick brown fox!", "e6322dc58ed78943 8cf9a4ce10344d0e 8cf9a4ce10344d0e c35263138cd9889f 5417c662477182d5"},
	{"tok64", "word", 3, 42, "Ça, c'est déjà l'été n'est-ce pas", "0056cb7ee23b0b81 94de8f928b8faf25 f55382e786968c0e 523e5d4429fa993f f87454b6accab18d 3d2745463c29a775 9d7c9d619054981c 4a2ce3f668e321c8"},
	{"tok64", "word", 2, 0, "近似重复检测 and text", "800c4abeef544ecf 880ffbb9c529f387 48e756c44955d48a c45795eca788983d be55d1f0f4564b5f 4fca329d2aee98ba b06825782321d7bc"},
	{"tok64", "word", 5, 0, "two words", "cb5b8e16075bb858"},
	{"tok64", "word", 2, 7, "Internationalisation and pseudointernationalisation: supercalifragilisticexpialidocious!", "57c90cde58539a46 67ad3d9b15572ad8 94745436f203c120"},
	{"tok64", "stopword", 3, 0, "the quick brown fox jumps over the lazy dog", "32beb4c0e46842ec 1a37f91f8e6a302c 3e7e30f44e4023e2"},
	{"tok64", "stopword", 3, 42, "The quick brown fox jumps over the lazy dog", "4e7c41b4c6014b57 e27ca4c1b002f0be d0da6e388f2ec98a"},
	{"xxh64", "char", 3, 0, "Déjà vu", "756465cac7bc696b 437b9f5ce70d0ab0 0f8e93f98479d64c 02820f89135f6d71 49c2da148bfa50d1"},
	{"xxh64", "char", 5, 42, "The  quick\tbrown fox", "03ae32fbb4c385cd 28d9525992a242b4 233f83ec6299787d 0531c9dac12edbae 1ff6056eb09da1fd 009dadc96f70afdf 686b1fca5719af2e 93d2b19a5bf287c3 7cbc31a714e455f3 d7618c0a8a72fbb1 f61e6fb1ac8e90da be0a6400b7a7dacb e4595a303281c917 3eba498d1507a181 3746c36168dd0a11"},
	{"xxh64", "char", 2, 42, "近似重复", "5133ffb9b4aa05d5 9cba34acf7ff83d2 357fa054baebbb8e"},
	{"xxh64", "char", 9, 0, "short", "a4dbb3294161a9a4"},
	{"xxh64", "char", 3, 0, "", ""},
	{"xxh64", "word", 1, 0, "The quick, quick brown fox!", "4b1b03a21f8b5f26 5d33f7629a5184a6 5d33f7629a5184a6 70212f2e5296ad88 bce6c02d5136f238"},
	{"xxh64", "word", 3, 42, "Ça, c'est déjà l'été n'est-ce pas", "3b17302d548b07e8 7a6b54dd6ca071db 9c2adbd32eed2461 557b959e90fcffb1 cb50c272b339aa64 1cd76c68e669bafe 537945f8ef9b9d4c c342faaad644f671"},
	{"xxh64", "word", 2, 0, "近似重复检测 and text", "05b3f8ce4220bfe1 9cf152388de2d4e3 7ecf06cd8b9f3560 4cb6dd35ed4d9dab d94f553b546a2218 36b35e64a098f0ba c3a24b37ae733e79"},
	{"xxh64", "word", 5, 0, "two words", "415621c010c5d643"},
	{"xxh64", "word", 2, 7, "Internationalisation and pseudointernationalisation: supercalifragilisticexpialidocious!", "25ac6a6cbf904fb7 c62215d8cd1ca474 d19dd9370161ac0e"},
	{"xxh64", "stopword", 3, 0, "the quick brown fox jumps over the lazy dog", "f7ddf37e33344503 a5fc9f5749e3baf2 6a695dff843eb87e"},
	{"xxh64", "stopword", 3, 42, "The quick brown fox jumps over the lazy dog", "4020305ce7ea18a4 1b2b2f0978bb3a72 f6ecae19cb0800b0"},
}

func TestKnownShingles(t *testing.T) {
	for _, v := range knownShingles {
		scheme, err := ParseScheme(v.hash)
		if err != nil {
			t.Fatal(err)
		}
		unit, err := ParseUnit(v.unit)
		if err != nil {
			t.Fatal(err)
		}
		hashes := New(Options{Unit: unit, K: v.k, Scheme: scheme, Seed: v.seed}).Append(nil, []byte(v.text))
		if g := strings.Trim(fmt.Sprintf("%016x", hashes), "[]"); g != v.want {
			t.Errorf("hash=%s unit=%s k=%d seed=%d %q:\n got %s\nwant %s\na changed value needs a new scheme name", v.hash, v.unit, v.k, v.seed, v.text, g, v.want)
		}
	}
}

// knownNormalized are known-answer vectors of the normalizations (the
// header's normalize=): none is the values above; width and punct fold the
// text first, so a change to what they fold is a new normalization name.
var knownNormalized = []struct {
	hash, unit string
	k          int
	seed       uint64
	norm, text string
	want       string
}{
	{"tok64", "char", 5, 0, "width,punct", "子曰：「学而时习之，不亦说乎？」 Ｄｅｂｉａｎ ｶﾞｲﾄﾞ", "5a821739a9489ee0 8286f143b50f6362 9c8b256614cdd343 ac2ee5ec16c6d939 708ea1013b4e620e ae29257747cd29cd 53859cf4ce240fd9 93e7a01f9033d963 7932f0691b73ae01 c36edb04d819d8bd 97b1d89877b9e0fb c0063b417892af49 0ca38286e3397788 c54ee01a979d8cd3 ffc09783e659e9d5 2ce13a45b009641e"},
	{"tok64", "char", 3, 42, "punct", "Hello,  World! -- x", "149a4aa7e1185ec2 11515357997224b2 75c74bc23b2174ee 9ed5b61e839feba7 9c74f4d6038407d7 c4201e97cd76e0ac 8da48a084cf4ec43 ed47c8e3d8f72ee3 f9df5e78ac5b71fc 268a5d3aa15528ac 8271c6f28964f44c"},
	{"tok64", "char", 3, 0, "width", "Ａ，ｂ  ｶﾞ", "a2f70cf1aa265217 1bd769594cdef96f 30c7ad76ff2b6c68"},
	{"tok64", "char", 3, 0, "none", "Ａ，ｂ  ｶﾞ", "d0aee816dbb0306c 8c85686b8972e23d 5abdde8f32e76220 8b94164fec03009a"},
	{"tok64", "word", 2, 0, "width", "Ｄｅｂｉａｎ １２ ｶﾞｲﾄﾞ", "7109af948bff861c 58b0caac1e69855e fe2cc9a572d773e5 2640dd63b7cefee4"},
	{"xxh64", "char", 5, 0, "width,punct", "子曰：「学而时习之，不亦说乎？」 Ｄｅｂｉａｎ ｶﾞｲﾄﾞ", "42ef788af78d879c aa887700d99d7640 ab423083d3e909ba 6f59db671e478440 08c87d59b0d64e7a 1e20ea7ddb8fc678 b27241ec67f509c0 eea5183827612ad2 1d0b29897d9f2265 be6ea73fda7f7b70 ab2dc45a5719b907 59dfa1bd2d88304b 41a530e03fc923bc 223e8c3de54b4fd6 aa22e1e967f75d1f a62ae5476edb029e"},
	{"xxh64", "char", 3, 42, "punct", "Hello,  World! -- x", "9c13260d2891689d 81dd67f6d8b65e83 e5758b7fa96199e2 6610fff0a4912e3e 71d335dd781b37a4 f49484cea1d2af50 57c2d687c0d97646 49c759413dca43cc 51bd115e435b1568 c757854e99d9e527 4d38bac8328041d2"},
	{"xxh64", "word", 2, 0, "width", "Ｄｅｂｉａｎ １２ ｶﾞｲﾄﾞ", "5f8e94410e2481ef 5fb4ee8cea983b4f 931c54623fff4185 0e9146e7f99c79be"},
	{"tok64", "stopword", 3, 0, "width", "ｔｈｅ quick brown fox", "32beb4c0e46842ec"},
}

func TestKnownNormalized(t *testing.T) {
	for _, v := range knownNormalized {
		scheme, _ := ParseScheme(v.hash)
		unit, _ := ParseUnit(v.unit)
		norm, err := token.ParseNormalization(v.norm)
		if err != nil {
			t.Fatal(err)
		}
		hashes := New(Options{Unit: unit, K: v.k, Scheme: scheme, Seed: v.seed, Norm: norm}).Append(nil, []byte(v.text))
		if g := strings.Trim(fmt.Sprintf("%016x", hashes), "[]"); g != v.want {
			t.Errorf("hash=%s unit=%s k=%d seed=%d normalize=%s %q:\n got %s\nwant %s\na changed value needs a new normalization name", v.hash, v.unit, v.k, v.seed, v.norm, v.text, g, v.want)
		}
	}
}
