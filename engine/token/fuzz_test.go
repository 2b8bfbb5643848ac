package token

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzDecode: any token sequence either fails with an error or decodes to
// a score that writes as MIDI; never a panic.
func FuzzDecode(f *testing.F) {
	v := DefaultVocab()
	toks, _ := v.Encode(handScore(), Unspecified())
	seed := make([]byte, 2*len(toks))
	for i, t := range toks {
		binary.LittleEndian.PutUint16(seed[2*i:], t)
	}
	f.Add(seed)
	f.Add([]byte{1, 0, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		seq := make([]uint16, len(data)/2)
		for i := range seq {
			seq[i] = binary.LittleEndian.Uint16(data[2*i:]) % uint16(v.Size()+8)
		}
		fuzzbudget.Check(t, len(data), func() {
			s, _, err := v.Decode(seq)
			if err != nil {
				return
			}
			var buf bytes.Buffer
			if err := s.Write(&buf); err != nil {
				t.Fatalf("decoded score does not write: %v", err)
			}
		})
	})
}
