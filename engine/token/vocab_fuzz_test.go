package token

import (
	"bytes"
	"errors"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzParseVocab: any bytes as vocab.json give a vocabulary or an error
// wrapping ErrVocab, within the time budget; a vocabulary that parses
// encodes and decodes a small score and writes back the same JSON.
func FuzzParseVocab(f *testing.F) {
	good, err := DefaultVocab().MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{"format":"amt-vocab","version":1,"config":{"positions_per_beat":1000000}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() {
			v, err := ParseVocab(data)
			if err != nil {
				if !errors.Is(err, ErrVocab) {
					t.Fatalf("error %v does not wrap ErrVocab", err)
				}
				return
			}
			toks, err := v.Encode(handScore(), Unspecified())
			if err == nil {
				if _, _, err := v.Decode(toks); err != nil {
					t.Fatalf("decode of its own encoding: %v", err)
				}
			}
			again, err := v.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseVocab(again)
			if err != nil {
				t.Fatalf("re-parse: %v", err)
			}
			if b2, _ := back.MarshalJSON(); !bytes.Equal(b2, again) {
				t.Fatal("JSON differs after a round trip")
			}
		})
	})
}
