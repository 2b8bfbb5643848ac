package token

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

func TestVocabShape(t *testing.T) {
	v := DefaultVocab()
	if v.Size() >= 65536 || v.Size() < 500 {
		t.Fatalf("size %d", v.Size())
	}
	seen := map[string]bool{}
	for i := 0; i < v.Size(); i++ {
		n := v.Name(uint16(i))
		if seen[n] {
			t.Fatalf("duplicate token name %q", n)
		}
		seen[n] = true
		if id, ok := v.Lookup(n); !ok || int(id) != i {
			t.Fatalf("lookup %q = %d, %v", n, id, ok)
		}
	}
	if v.Name(v.PAD) != "PAD" || v.Name(v.BOS) != "BOS" || v.Name(v.EOS) != "EOS" || v.Name(v.SEP) != "SEP" {
		t.Fatal("special names")
	}
	for k, n := range map[Kind]int{KindKeyAttr: 24, KindInstrumentAttr: 129, KindProgram: 129, KindPitch: 128,
		KindVelocity: 32, KindPosition: 192, KindStyleAttr: 65, KindMeterAttr: 17, KindGenreAttr: len(GenreFamilies)} {
		if _, c := v.Range(k); c != n {
			t.Errorf("%v: %d tokens, want %d", k, c, n)
		}
	}
	// MidiCaps tempo edges are bin boundaries.
	for _, e := range []float64{40, 60, 70, 90, 110, 140, 160, 210} {
		if v.TempoBin(e-0.001) == v.TempoBin(e) {
			t.Errorf("%g bpm is not a tempo bin boundary", e)
		}
		// and the representative of the bin at e lies in [e, next edge)
		if b := v.TempoBin(e); v.TempoBin(v.TempoBPM(b)) != b {
			t.Errorf("representative of bin %d not in it", b)
		}
	}
	// Bins are at most 10 bpm wide from 40 to 210.
	for bpm := 40.0; bpm < 200; bpm += 10 {
		if v.TempoBin(bpm+10) == v.TempoBin(bpm) {
			t.Errorf("bin at %g wider than 10 bpm", bpm)
		}
	}
	// Durations: exact to 8 beats; nearest bin beyond.
	for d := 1; d <= 96; d++ {
		if v.DurationUnits(v.DurationBin(d)) != d {
			t.Fatalf("duration %d not exact", d)
		}
	}
	if got := v.DurationUnits(v.DurationBin(100)); got != 102 { // bins 96, 102: 100 is nearer 102
		t.Errorf("duration 100 → %d, want 102", got)
	}
	if got := v.DurationUnits(v.DurationBin(99)); got != 96 { // tie goes to the shorter
		t.Errorf("duration 99 → %d, want 96", got)
	}
	// Velocity bins: 4 velocities each; representatives map back.
	for vel := 0; vel < 128; vel++ {
		if v.VelocityBin(vel) != vel/4 {
			t.Fatalf("velocity %d → bin %d", vel, v.VelocityBin(vel))
		}
	}
	for b := 0; b < 32; b++ {
		if r := v.Velocity(b); v.VelocityBin(r) != b || r < 1 || r > 127 {
			t.Fatalf("velocity bin %d representative %d", b, r)
		}
	}
	// Length bins: one bar each up to 3 remaining (endings), then wider.
	for _, c := range []struct{ bars, lo, hi int }{{1, 1, 1}, {3, 3, 3}, {5, 4, 5}, {16, 16, 23}, {30, 24, 31}, {5000, 384, 4096}} {
		lo, hi := v.LengthRange(v.LengthBin(c.bars))
		if lo != c.lo || hi != c.hi {
			t.Errorf("length %d → [%d,%d], want [%d,%d]", c.bars, lo, hi, c.lo, c.hi)
		}
	}
	// Density bins are per quarter note: 2.5 notes a beat is bin [2.5, 3).
	if b := v.DensityBin(2.5); v.Name(v.tok(KindDensityAttr, b)) != "DENSITY_2.5-3" || v.DensityBin(v.DensityValue(b)) != b {
		t.Errorf("density 2.5 → %s", v.Name(v.tok(KindDensityAttr, b)))
	}
	if v.GenreIndex("latin") != 5 || v.GenreIndex("bossa") != -1 || v.Name(v.tok(KindGenreAttr, 5)) != "GENRE_latin" {
		t.Errorf("genre tokens")
	}
	// The version 1 vocabulary keeps its layout (models trained with it
	// load): 1,030 tokens, no GENRE, the old LENGTH bins.
	v1 := mustVocab(t, ConfigV1())
	if v1.Size() != 1030 || v1.Version() != 1 || v1.GenreIndex("pop") != -1 {
		t.Errorf("v1: %d tokens, version %d", v1.Size(), v1.Version())
	}
	if lo, hi := v1.LengthRange(v1.LengthBin(3)); lo != 2 || hi != 3 {
		t.Errorf("v1 length 3 → [%d,%d]", lo, hi)
	}
	if _, n := v1.Range(KindGenreAttr); n != 0 {
		t.Errorf("v1 has %d genres", n)
	}
	// Key signatures of KEY tokens invert through KeyChange.Tonic.
	for i := 0; i < 24; i++ {
		kc := midi.KeyChange{Sharps: keySharps(i%12, i >= 12), Minor: i >= 12}
		if kc.Tonic() != i%12 || kc.Sharps < -6 || kc.Sharps > 6 {
			t.Errorf("key %d → sharps %d → tonic %d", i, kc.Sharps, kc.Tonic())
		}
	}
}

func mustVocab(t *testing.T, c Config) *Vocab {
	t.Helper()
	v, err := NewVocab(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVocabSaveLoad(t *testing.T) {
	t.Run("v2", func(t *testing.T) { testVocabSaveLoad(t, DefaultVocab()) })
	t.Run("v1", func(t *testing.T) { testVocabSaveLoad(t, mustVocab(t, ConfigV1())) })
	// A version 1 file with version 2 settings is refused.
	data, _ := DefaultVocab().MarshalJSON()
	bad := strings.Replace(string(data), `"version": 2`, `"version": 1`, 1)
	if _, err := ParseVocab([]byte(bad)); !errors.Is(err, ErrVocab) {
		t.Errorf("v1 with genres: %v", err)
	}
}

func testVocabSaveLoad(t *testing.T, v *Vocab) {
	p := filepath.Join(t.TempDir(), "vocab.json")
	if err := v.Save(p); err != nil {
		t.Fatal(err)
	}
	w, err := LoadVocab(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.names, v.names) || !reflect.DeepEqual(w.Config(), v.Config()) {
		t.Fatal("loaded vocabulary differs")
	}
	data, _ := os.ReadFile(p)
	for name, bad := range map[string]string{
		"version": strings.Replace(string(data), fmt.Sprintf(`"version": %d`, v.Version()), `"version": 99`, 1),
		"token":   strings.Replace(string(data), `"Pitch_60"`, `"Pitch_61"`, 1),
		"format":  strings.Replace(string(data), `"amt-vocab"`, `"other"`, 1),
		"json":    string(data[:len(data)/2]),
	} {
		if bad == string(data) {
			t.Fatalf("%s: replacement did not apply", name)
		}
		q := filepath.Join(t.TempDir(), name+".json")
		os.WriteFile(q, []byte(bad), 0o644)
		_, err := LoadVocab(q)
		if !errors.Is(err, ErrVocab) || !strings.Contains(err.Error(), q) {
			t.Errorf("%s: err = %v, want ErrVocab naming the file", name, err)
		}
	}
	if _, err := LoadVocab(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}

// handScore is a small piece with chords, a triplet, drums and a tempo
// change in the middle of bar 2.
func handScore() *midi.Score {
	s := &midi.Score{Format: 1, TicksPerBeat: 480,
		Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}, {Tick: 2400, MicrosPerBeat: 666667}},
		Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}},
		Tracks: []midi.Track{
			{Program: 0, Notes: []midi.Note{
				{Tick: 0, Dur: 480, Pitch: 60, Velocity: 80},
				{Tick: 0, Dur: 480, Pitch: 64, Velocity: 80},
				{Tick: 160, Dur: 160, Pitch: 67, Velocity: 100}, // triplet eighth
				{Tick: 2400, Dur: 960, Pitch: 72, Velocity: 64},
			}},
			{IsDrum: true, Channel: 9, Notes: []midi.Note{{Tick: 1920, Dur: 60, Pitch: 36, Velocity: 127}}},
		},
		EndTick: 3360,
	}
	return s
}

func TestEncodeHand(t *testing.T) {
	// Version 2: instruments always listed, density per quarter note (5
	// notes in 8 quarter notes), LENGTH bins of one bar at the low end.
	t.Run("v2", func(t *testing.T) {
		testEncodeHand(t, DefaultVocab(), "INSTRUMENT_0 INSTRUMENT_DRUMS ", 0.625,
			"BOS TEMPO_BIN_120-125 KEY_C METER_4/4 INSTRUMENT_0 INSTRUMENT_DRUMS DENSITY_0.5-1 LENGTH_2-2 STYLE_7 SEP")
	})
	// Version 1: as the model trained before issue 13 reads it (2.5 notes
	// per bar).
	t.Run("v1", func(t *testing.T) {
		testEncodeHand(t, mustVocab(t, ConfigV1()), "", 2.5,
			"BOS TEMPO_BIN_120-125 KEY_C METER_4/4 INSTRUMENT_0 INSTRUMENT_DRUMS DENSITY_2-3 LENGTH_2-3 STYLE_7 SEP")
	})
	// A genre goes after the meter; the version 1 vocabulary has none.
	v := DefaultVocab()
	a := Unspecified()
	a.MeterNum, a.MeterDen, a.Genre, a.Programs = 4, 4, "latin", []int{0}
	if got := strings.Join(v.Names(v.Prefix(a)), " "); got != "BOS METER_4/4 GENRE_latin INSTRUMENT_0 SEP" {
		t.Errorf("genre prefix %s", got)
	}
	if v1 := mustVocab(t, ConfigV1()); strings.Join(v1.Names(v1.Prefix(a)), " ") != "BOS METER_4/4 INSTRUMENT_0 SEP" {
		t.Errorf("v1 genre prefix %s", v1.Names(v1.Prefix(a)))
	}
	if got := strings.Join(v.Names(v.Prefix(a)), " "); got != "BOS METER_4/4 GENRE_latin INSTRUMENT_0 SEP" {
		t.Errorf("genre prefix %s", got)
	}
}

func testEncodeHand(t *testing.T, v *Vocab, instr string, density float64, wantPrefix string) {
	s := handScore()
	toks, err := v.Encode(s, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	want := "BOS " + instr + "STYLE_NONE SEP " +
		"Bar TimeSig_4/4 Tempo_120-125 Position_0 Program_0 Pitch_60 Velocity_20 Duration_12 Pitch_64 Velocity_20 Duration_12 " +
		"Position_4 Program_0 Pitch_67 Velocity_25 Duration_4 " +
		"Bar Position_0 Program_DRUMS Pitch_36 Velocity_31 Duration_2 " + // 60 ticks = 1.5 units, rounds up
		"Position_12 Tempo_90-95 Program_0 Pitch_72 Velocity_16 Duration_24 EOS"
	if got := strings.Join(v.Names(toks), " "); got != want {
		t.Fatalf("tokens\n got %s\nwant %s", got, want)
	}

	// Measure: all set but Style, consistent with the body.
	m := midi.Metadata{TempoBPM: 120, EstimatedKey: midi.Key{Tonic: 0}}
	a := v.Measure(s, m)
	drums := true
	wantA := Attributes{TempoBPM: 120, KeyTonic: 0, MeterNum: 4, MeterDen: 4, Programs: []int{0}, Drums: &drums,
		Bars: 2, Density: v.DensityBin(density), Style: -1}
	if !reflect.DeepEqual(a, wantA) {
		t.Fatalf("Measure = %+v, want %+v", a, wantA)
	}
	a.Style = 7
	toks, err = v.Encode(s, a)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.Names(toks[:10]), " "); got != wantPrefix {
		t.Fatalf("prefix\n got %s\nwant %s", got, wantPrefix)
	}
	if got := strings.Join(v.Names(v.Prefix(a)), " "); got != wantPrefix {
		t.Fatalf("Prefix() = %s", got)
	}
	if i := v.StyleIndex(toks); i != 8 {
		t.Fatalf("StyleIndex = %d", i)
	}
	one, _, _ := v.AppendEncodeMeasured(nil, s, m)
	one[v.StyleIndex(one)] = v.Style(7)
	if !reflect.DeepEqual(one, toks) {
		t.Fatal("AppendEncodeMeasured + style patch differs from Measure + Encode")
	}

	// Decode: notes on the grid, velocity bin representatives.
	d, da, err := v.Decode(toks)
	if err != nil {
		t.Fatal(err)
	}
	a.TempoBPM = 122.5 // the bin's representative
	a.Bars = 2         // lower end of the LENGTH bin
	if !reflect.DeepEqual(da, a) {
		t.Fatalf("decoded attributes %+v, want %+v", da, a)
	}
	if d.TicksPerBeat != 480 || len(d.Tracks) != 2 || d.EndTick != 3840 {
		t.Fatalf("decoded score: tpb %d, %d tracks, end %d", d.TicksPerBeat, len(d.Tracks), d.EndTick)
	}
	wantPiano := []midi.Note{{Tick: 0, Dur: 480, Pitch: 60, Velocity: 82}, {Tick: 0, Dur: 480, Pitch: 64, Velocity: 82},
		{Tick: 160, Dur: 160, Pitch: 67, Velocity: 102}, {Tick: 2400, Dur: 960, Pitch: 72, Velocity: 66}}
	for i := range wantPiano {
		n := d.Tracks[0].Notes[i]
		n.Start, n.Duration = 0, 0
		if n != wantPiano[i] {
			t.Errorf("piano note %d = %+v, want %+v", i, n, wantPiano[i])
		}
	}
	dr := d.Tracks[1]
	if !dr.IsDrum || dr.Channel != 9 || len(dr.Notes) != 1 || dr.Notes[0].Tick != 1920 || dr.Notes[0].Dur != 80 {
		t.Errorf("drum track %+v", dr)
	}
	if len(d.Tempos) != 2 || d.Tempos[1].Tick != 2400 || d.Tempos[0].MicrosPerBeat != 489796 {
		t.Errorf("tempos %+v", d.Tempos)
	}
	if len(d.Keys) != 1 || d.Keys[0].Tonic() != 0 || d.Keys[0].Minor {
		t.Errorf("keys %+v", d.Keys)
	}
	// Seconds are filled: the last note starts at 2400 ticks = 5 beats at 122.5 bpm.
	if got := d.Tracks[0].Notes[3].Start; got < 2.448 || got > 2.45 {
		t.Errorf("start seconds %g", got)
	}
	// Re-encoding the decoded score gives the same tokens (the encoding is a
	// fixed point once quantized).
	again, err := v.Encode(d, da)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, toks) {
		t.Fatalf("re-encode differs:\n%v\n%v", v.Names(again), v.Names(toks))
	}
}

func TestEncodeMeterChangesAndGaps(t *testing.T) {
	v := DefaultVocab()
	// 3/4 then 6/8 from bar 3; an empty bar; a note sounding into a later bar;
	// a meter (5/32) no token states exactly.
	s := &midi.Score{TicksPerBeat: 96,
		Meters: []midi.MeterChange{{Tick: 0, Num: 3, Den: 4}, {Tick: 2 * 288, Num: 6, Den: 8}},
		Tracks: []midi.Track{{Program: 40, Notes: []midi.Note{
			{Tick: 0, Dur: 48, Pitch: 70, Velocity: 90},
			{Tick: 2*288 + 144, Dur: 2 * 288, Pitch: 71, Velocity: 90}, // bar 3, position 18, 2 bars long
		}}},
	}
	toks, err := v.Encode(s, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	want := "BOS INSTRUMENT_40 STYLE_NONE SEP Bar TimeSig_3/4 Tempo_120-125 Position_0 Program_40 Pitch_70 Velocity_22 Duration_6 " +
		"Bar Bar TimeSig_6/8 Position_18 Program_40 Pitch_71 Velocity_22 Duration_72 Bar Bar EOS"
	if got := strings.Join(v.Names(toks), " "); got != want {
		t.Fatalf("tokens\n got %s\nwant %s", got, want)
	}
	d, _, err := v.Decode(toks)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Meters) != 2 || d.Meters[1].Tick != 2*36*40 || d.Meters[1].Num != 6 {
		t.Fatalf("meters %+v", d.Meters)
	}
	if n := d.Tracks[0].Notes[1]; n.Tick != (72+18)*40 {
		t.Fatalf("note tick %d", n.Tick)
	}
	if d.EndTick != 180*40 {
		t.Fatalf("end %d", d.EndTick)
	}

	s.Meters = []midi.MeterChange{{Tick: 0, Num: 5, Den: 32}} // 7.5 grid units per bar
	toks, err = v.Encode(s, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	if n := v.Name(toks[5]); n != "TimeSig_1/8" && n != "TimeSig_3/16" { // 6 or 9 units for 7.5
		t.Fatalf("5/32 encoded as %s", v.Name(toks[5]))
	}
	a := v.Measure(s, midi.Metadata{})
	if a.MeterNum != 5 || a.MeterDen != 32 {
		t.Fatalf("measured meter %d/%d", a.MeterNum, a.MeterDen)
	}
	toks, err = v.Encode(s, a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(v.Names(toks), " "), "METER_OTHER") {
		t.Fatal("no METER_OTHER")
	}
	if _, _, err := v.Decode(toks); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeErrors(t *testing.T) {
	v := DefaultVocab()
	s := handScore()
	drums := true
	for name, a := range map[string]Attributes{
		"tempo":   {TempoBPM: 90, KeyTonic: -1, Density: -1, Style: -1},
		"meter":   {MeterNum: 3, MeterDen: 4, KeyTonic: -1, Density: -1, Style: -1},
		"program": {Programs: []int{0}, KeyTonic: -1, Density: -1, Style: -1}, // drums missing
		"length":  {Bars: 16, KeyTonic: -1, Density: -1, Style: -1},
	} {
		if _, err := v.Encode(s, a); !errors.Is(err, ErrMismatch) {
			t.Errorf("%s: err = %v, want ErrMismatch", name, err)
		}
	}
	ok := Attributes{TempoBPM: 121, MeterNum: 4, MeterDen: 4, Programs: []int{0, 5}, Drums: &drums, Bars: 2, KeyTonic: -1, Density: -1, Style: -1}
	if _, err := v.Encode(s, ok); err != nil {
		t.Errorf("consistent attributes: %v", err)
	}
	if _, err := v.Encode(&midi.Score{}, Unspecified()); err == nil {
		t.Error("zero ticks per beat: no error")
	}
	if _, err := v.Encode(nil, Unspecified()); err == nil {
		t.Error("nil score: no error")
	}
	long := &midi.Score{TicksPerBeat: 1, Tracks: []midi.Track{{Notes: []midi.Note{{Tick: 1 << 40, Dur: 1, Pitch: 1, Velocity: 1}}}}}
	if _, err := v.Encode(long, Unspecified()); !errors.Is(err, ErrTooLong) {
		t.Errorf("huge onset: err = %v", err)
	}
	long.Tracks[0].Notes[0].Tick = 4 * 5000 // 5000 bars of 4/4
	if _, err := v.Encode(long, Unspecified()); !errors.Is(err, ErrTooLong) {
		t.Errorf("5000 bars: err = %v", err)
	}
	// An empty score encodes to one empty bar and decodes.
	toks, err := v.Encode(&midi.Score{TicksPerBeat: 480}, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.Names(toks), " "); got != "BOS INSTRUMENT_0 STYLE_NONE SEP Bar TimeSig_4/4 Tempo_120-125 EOS" {
		t.Fatalf("empty: %s", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	v := mustVocab(t, ConfigV1()) // sequences without instruments; v2 below
	name := func(s string) uint16 {
		id, ok := v.Lookup(s)
		if !ok {
			t.Fatalf("no token %s", s)
		}
		return id
	}
	seq := func(names string) []uint16 {
		var out []uint16
		for _, f := range strings.Fields(names) {
			out = append(out, name(f))
		}
		return out
	}
	for _, bad := range []string{
		"SEP",
		"BOS KEY_C TEMPO_BIN_120-125 SEP",   // order
		"BOS INSTRUMENT_5 INSTRUMENT_2 SEP", // not ascending
		"BOS SEP Position_0",                // no bar
		"BOS SEP Bar Tempo_120-125",         // first bar needs TimeSig
		"BOS SEP Bar TimeSig_3/4 Tempo_120-125 Position_36",                       // beyond the bar
		"BOS SEP Bar TimeSig_4/4 Tempo_120-125 Position_4 Position_2",             // backwards
		"BOS SEP Bar TimeSig_4/4 Tempo_120-125 Position_4 Pitch_60",               // no program
		"BOS INSTRUMENT_0 SEP Bar TimeSig_4/4 Tempo_120-125 Position_0 Program_1", // not listed
		"BOS TEMPO_BIN_60-65 SEP Bar TimeSig_4/4 Tempo_120-125",                   // tempo contradicts prefix
		"BOS METER_3/4 SEP Bar TimeSig_4/4",                                       // meter contradicts prefix
		"BOS LENGTH_1-1 SEP Bar TimeSig_4/4 Tempo_120-125 Bar",                    // too many bars
		"BOS LENGTH_2-3 SEP Bar TimeSig_4/4 Tempo_120-125 EOS",                    // too few bars
		"BOS SEP Bar TimeSig_4/4 Tempo_120-125 EOS Bar",                           // after EOS
	} {
		_, _, err := v.Decode(seq(bad))
		if !errors.Is(err, ErrNotAllowed) {
			t.Errorf("%s: err = %v, want ErrNotAllowed", bad, err)
		}
	}
	// Stopping early and trailing PAD are fine; a cut note is dropped.
	for _, good := range []string{
		"",
		"BOS KEY_Am",
		"BOS SEP Bar TimeSig_4/4 Tempo_120-125 Position_0 Program_0 Pitch_60 Velocity_3",
		"BOS SEP Bar TimeSig_4/4 Tempo_120-125 EOS PAD PAD",
	} {
		s, _, err := v.Decode(seq(good))
		if err != nil {
			t.Errorf("%q: %v", good, err)
		} else if s.NoteCount() != 0 {
			t.Errorf("%q: %d notes", good, s.NoteCount())
		}
	}
	if _, _, err := v.Decode([]uint16{v.BOS, 65000}); !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), "?65000") {
		t.Errorf("out-of-range id: %v", err)
	}
	// Version 2: SEP only after an instrument; GENRE between METER and
	// INSTRUMENT.
	v = DefaultVocab()
	for _, c := range []struct {
		seq string
		ok  bool
	}{
		{"BOS SEP", false},
		{"BOS KEY_C SEP", false},
		{"BOS KEY_C GENRE_rock SEP", false},
		{"BOS INSTRUMENT_DRUMS SEP", true},
		{"BOS METER_4/4 GENRE_rock INSTRUMENT_0 SEP Bar TimeSig_4/4 Tempo_120-125 EOS", true},
		{"BOS INSTRUMENT_0 GENRE_rock SEP", false},
		{"BOS GENRE_rock GENRE_pop INSTRUMENT_0 SEP", false},
	} {
		var toks []uint16
		for _, f := range strings.Fields(c.seq) {
			id, ok := v.Lookup(f)
			if !ok {
				t.Fatalf("no token %s", f)
			}
			toks = append(toks, id)
		}
		_, a, err := v.Decode(toks)
		if (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.seq, err, c.ok)
		}
		if c.ok && strings.Contains(c.seq, "GENRE_rock") && a.Genre != "rock" {
			t.Errorf("%s: genre %q", c.seq, a.Genre)
		}
	}
}

// Tracks whose notes are far from tick order (the fallback sort) or
// interleaved encode as their sorted versions.
func TestEncodeUnsortedTracks(t *testing.T) {
	v := DefaultVocab()
	sorted := &midi.Score{TicksPerBeat: 480}
	for tr := 0; tr < 5; tr++ {
		track := midi.Track{Program: tr * 10}
		for i := 0; i < 300; i++ {
			track.Notes = append(track.Notes, midi.Note{Tick: int64(i*120 + tr*40), Dur: 100, Pitch: uint8(40 + (i*7+tr)%40), Velocity: 90})
		}
		sorted.Tracks = append(sorted.Tracks, track)
	}
	want, err := v.Encode(sorted, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	shuffled := &midi.Score{TicksPerBeat: 480}
	for _, tr := range sorted.Tracks {
		c := tr
		c.Notes = slices.Clone(tr.Notes)
		slices.Reverse(c.Notes)
		shuffled.Tracks = append(shuffled.Tracks, c)
	}
	got, err := v.Encode(shuffled, Unspecified())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("reversed tracks encode differently")
	}
}
