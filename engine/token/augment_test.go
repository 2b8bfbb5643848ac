package token

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func measured(v *Vocab, s *midi.Score, key int) Attributes {
	return v.Measure(s, midi.Metadata{EstimatedKey: midi.Key{Tonic: key}})
}

// notesOf returns (tick, program, pitch, velocity, dur) of every note, sorted.
func notesOf(s *midi.Score) [][5]int64 {
	var out [][5]int64
	for _, tr := range s.Tracks {
		p := int64(tr.Program)
		if tr.IsDrum {
			p = DrumProgram
		}
		for _, n := range tr.Notes {
			out = append(out, [5]int64{n.Tick, p, int64(n.Pitch), int64(n.Velocity), n.Dur})
		}
	}
	slices.SortFunc(out, func(a, b [5]int64) int { return slices.Compare(a[:], b[:]) })
	return out
}

func TestTranspose(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	toks, _ := v.Encode(s, measured(v, s, 0))
	up, err := v.Transpose(nil, toks, 5)
	if err != nil {
		t.Fatal(err)
	}
	// Independent truth: transpose the score's pitched notes, then encode
	// with the key moved from C to F.
	s2 := handScore()
	for i := range s2.Tracks[0].Notes {
		s2.Tracks[0].Notes[i].Pitch += 5
	}
	want, _ := v.Encode(s2, measured(v, s2, 5))
	if !reflect.DeepEqual(up, want) {
		t.Fatalf("transpose:\n got %v\nwant %v", v.Names(up), v.Names(want))
	}
	lo, hi, ok := v.PitchRange(toks)
	if !ok || lo != 60 || hi != 72 { // the drum's 36 is not a pitch
		t.Fatalf("pitch range %d..%d %v", lo, hi, ok)
	}
	if _, err := v.Transpose(nil, toks, 127-hi+1); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("too high: %v", err)
	}
	if out, err := v.Transpose(nil, toks, -lo); err != nil || out == nil {
		t.Fatalf("lowest: %v", err)
	}
}

// TransposeFold agrees with Transpose where that succeeds, and past the
// range moves only the pitches that would leave it, by octaves (60…72 up
// by 60: 120…127 stay, 128…132 fold to 116…120).
func TestTransposeFold(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	toks, _ := v.Encode(s, measured(v, s, 0))
	want, _ := v.Transpose(nil, toks, -7)
	if got, n := v.TransposeFold(nil, toks, -7); n != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("in range: %d folded\n got %v\nwant %v", n, v.Names(got), v.Names(want))
	}
	got, n := v.TransposeFold(nil, toks, 60)
	d, a, err := v.Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	if a.KeyTonic != 0 || a.KeyMinor { // C moved by five octaves
		t.Fatalf("key %d minor %v", a.KeyTonic, a.KeyMinor)
	}
	folded := 0
	for i, nt := range d.Tracks[0].Notes {
		p := int(s.Tracks[0].Notes[i].Pitch) + 60
		if p > 127 {
			p -= 12
			folded++
		}
		if int(nt.Pitch) != p {
			t.Fatalf("note %d: pitch %d, want %d", i, nt.Pitch, p)
		}
	}
	if folded == 0 || n != folded {
		t.Fatalf("%d folded, %d by hand", n, folded)
	}
	for _, tr := range d.Tracks {
		if tr.IsDrum && tr.Notes[0].Pitch != 36 {
			t.Fatalf("drum moved to %d", tr.Notes[0].Pitch)
		}
	}
}

func TestScaleTempoAndRevoice(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	toks, _ := v.Encode(s, measured(v, s, 0))
	slow, err := v.ScaleTempo(nil, toks, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	d, a, err := v.Decode(slow)
	if err != nil {
		t.Fatal(err)
	}
	// 122.5 × 0.5 = 61.25 → bin 60–65; 92.5 × 0.5 = 46.25 → bin 45–50.
	if a.TempoBPM != 62.5 || len(d.Tempos) != 2 || d.Tempos[0].BPM() < 62.49 || d.Tempos[1].BPM() < 47.49 || d.Tempos[1].BPM() > 47.51 {
		t.Fatalf("tempo %g, %+v", a.TempoBPM, d.Tempos)
	}
	if _, err := v.ScaleTempo(nil, toks, 0.1); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("too slow: %v", err)
	}

	re, err := v.Revoice(nil, toks, map[int]int{0: 41})
	if err != nil {
		t.Fatal(err)
	}
	d, a, err = v.Decode(re)
	if err != nil {
		t.Fatal(err)
	}
	s2 := handScore()
	s2.Tracks[0].Program = 41
	d2, _, _ := v.Decode(must(v.Encode(s2, Unspecified())))
	if !reflect.DeepEqual(notesOf(d), notesOf(d2)) || !slices.Equal(a.Programs, []int{41}) || !*a.Drums {
		t.Fatalf("revoiced: %v programs %v", notesOf(d), a.Programs)
	}
	if _, err := v.Revoice(nil, toks, map[int]int{0: 128}); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("bad target: %v", err)
	}
}

func must(t []uint16, err error) []uint16 {
	if err != nil {
		panic(err)
	}
	return t
}

func TestDropAttributes(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	full := measured(v, s, 0)
	full.Style = 2
	full.Genre = "jazz"
	toks, _ := v.Encode(s, full)
	for d := 0; d <= int(AttrAll); d++ { // an int: AttrAll is 255
		drop := AttrSet(d)
		got := v.DropAttributes(nil, toks, drop)
		a := full
		if drop&AttrTempo != 0 {
			a.TempoBPM = 0
		}
		if drop&AttrKey != 0 {
			a.KeyTonic = -1
		}
		if drop&AttrMeter != 0 {
			a.MeterNum, a.MeterDen = 0, 0
		}
		// Version 2 never drops the instruments (the grammar wants them).
		if drop&AttrGenre != 0 {
			a.Genre = ""
		}
		if drop&AttrDensity != 0 {
			a.Density = -1
		}
		if drop&AttrLength != 0 {
			a.Bars = 0
		}
		want, _ := v.Encode(s, a)
		if drop&AttrStyle != 0 { // Encode keeps a STYLE_NONE slot; dropping removes it
			want = slices.Delete(want, v.StyleIndex(want), v.StyleIndex(want)+1)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("drop %08b:\n got %v\nwant %v", drop, v.Names(got), v.Names(want))
		}
	}
}
