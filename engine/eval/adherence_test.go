package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

func TestTempoBin(t *testing.T) {
	// Edges 40/60/70/90/110/140/160/210; an edge belongs to the bin above.
	for _, c := range []struct {
		bpm  float64
		want int
	}{
		{10, 0}, {39.9, 0}, {40, 1}, {59.99, 1}, {60, 2}, {69, 2}, {70, 3},
		{89, 3}, {90, 4}, {109, 4}, {110, 5}, {120, 5}, {139.9, 5}, {140, 6},
		{159, 6}, {160, 7}, {209, 7}, {210, 8}, {300, 8},
	} {
		if got := TempoBin(c.bpm); got != c.want {
			t.Errorf("TempoBin(%v) = %d, want %d", c.bpm, got, c.want)
		}
	}
	if len(TempoBinNames) != len(TempoEdges)+1 {
		t.Errorf("%d names for %d bins", len(TempoBinNames), len(TempoEdges)+1)
	}
}

func is(t *testing.T, name string, got *bool, want bool) {
	t.Helper()
	if got == nil {
		t.Errorf("%s not checked, want %v", name, want)
	} else if *got != want {
		t.Errorf("%s = %v, want %v", name, *got, want)
	}
}

// measured builds Metrics by hand; every program plays a part (4 notes in
// every bar), and with drums they play in every bar.
func measured(tempo float64, key midi.Key, num, den int, bars float64, progs []int, drums bool) *Metrics {
	share := math.NaN()
	if drums {
		share = 1
	}
	m := &Metrics{TempoBPM: tempo, Key: key, MeterNum: num, MeterDen: den, Bars: bars, Programs: progs, HasDrums: drums, DrumBarShare: share,
		MeasuredBars: int(bars)}
	for _, p := range progs {
		m.Parts = append(m.Parts, Part{Program: p, Notes: 4 * int(bars), Bars: int(bars)})
	}
	return m
}

func TestAdhereTempo(t *testing.T) {
	req := token.Unspecified()
	req.TempoBPM = 120 // bin 5 (110–140)
	for _, c := range []struct {
		got     float64
		tb, tbt bool
	}{
		{130, true, true},   // bin 5
		{100, false, true},  // bin 4: adjacent
		{150, false, true},  // bin 6: adjacent
		{165, false, false}, // bin 7: two away
		{85, false, false},  // bin 3
	} {
		a := Adhere(req, measured(c.got, midi.Key{}, 4, 4, 8, nil, false))
		is(t, "tb", a.TB, c.tb)
		is(t, "tbt", a.TBT, c.tbt)
		if a.Checked != 1 {
			t.Errorf("checked %d, want 1 (only tempo requested)", a.Checked)
		}
	}
}

func TestAdhereKey(t *testing.T) {
	aMinor := token.Unspecified()
	aMinor.KeyTonic, aMinor.KeyMinor = 9, true
	cMajor := token.Unspecified()
	cMajor.KeyTonic = 0
	fsMajor := token.Unspecified()
	fsMajor.KeyTonic = 6 // F# major = Gb major (enharmonic: same pitch class)
	for _, c := range []struct {
		name    string
		req     token.Attributes
		got     midi.Key
		ck, ckd bool
	}{
		{"A minor as A minor", aMinor, midi.Key{Tonic: 9, Minor: true}, true, true},
		{"A minor as C major (relative)", aMinor, midi.Key{Tonic: 0}, false, true},
		{"A minor as A major (parallel)", aMinor, midi.Key{Tonic: 9}, false, false},
		{"A minor as E minor", aMinor, midi.Key{Tonic: 4, Minor: true}, false, false},
		{"C major as A minor (relative)", cMajor, midi.Key{Tonic: 9, Minor: true}, false, true},
		{"C major as C minor", cMajor, midi.Key{Tonic: 0, Minor: true}, false, false},
		{"F# major as Gb major", fsMajor, midi.Key{Tonic: 6}, true, true},
		{"F# major as Eb minor (relative of Gb)", fsMajor, midi.Key{Tonic: 3, Minor: true}, false, true},
		{"C major, no notes", cMajor, midi.Key{Tonic: -1}, false, false},
	} {
		a := Adhere(c.req, measured(120, c.got, 4, 4, 8, nil, false))
		is(t, c.name+" ck", a.CK, c.ck)
		is(t, c.name+" ckd", a.CKD, c.ckd)
	}
}

func TestAdhereInstrumentsAndASA(t *testing.T) {
	yes := true
	req := token.Attributes{
		TempoBPM: 120, KeyTonic: 0, MeterNum: 3, MeterDen: 4,
		Programs: []int{0, 40}, // Piano, Violin (Strings)
		Drums:    &yes, Bars: 32, Density: -1, Style: -1,
	}
	// Measured: 100 bpm (bin 4), D major, 4/4, 35 bars, Bright Piano (1,
	// Piano) + Acoustic Bass (32, Bass), drums.
	m := measured(100, midi.Key{Tonic: 2}, 4, 4, 35, []int{1, 32}, true)
	a := Adhere(req, m)
	is(t, "tb", a.TB, false)
	is(t, "tbt", a.TBT, true)
	is(t, "ck", a.CK, false)
	is(t, "ckd", a.CKD, false)
	is(t, "meter", a.Meter, false)
	is(t, "drums", a.Drums, true)
	// |35 − 32| = 3 ≤ 3.2 = 10% of 32.
	is(t, "length", a.Length, true)
	// Requested {Piano, Strings, Drums}, measured {Piano, Bass, Drums}:
	// 2 shared: precision 2/3, recall 2/3, F1 2/3; not all requested present.
	sc := a.Instruments
	if sc == nil {
		t.Fatal("instruments not scored")
	}
	near(t, "precision", sc.Precision, 2.0/3)
	near(t, "recall", sc.Recall, 2.0/3)
	near(t, "f1", sc.F1, 2.0/3)
	if strings.Join(sc.Requested, ",") != "Piano,Strings,Drums" || strings.Join(sc.Measured, ",") != "Piano,Bass,Drums" {
		t.Errorf("families %v / %v", sc.Requested, sc.Measured)
	}
	// Parts: the piano is answered by the Bright Piano (its family, not
	// requested otherwise), the violin by nothing: 1 of 2 real.
	if ps := a.Parts; ps == nil || ps.Requested != 2 || ps.Real != 1 || ps.Each[0].Played != 1 || ps.Each[1].Played != -1 {
		t.Errorf("parts %+v", a.Parts)
	}
	// Checked: tempo, key, meter, instruments, parts, drums, length = 7;
	// met: drums and length = 2.
	if a.Checked != 7 || a.Met != 2 {
		t.Errorf("checked/met %d/%d, want 7/2", a.Checked, a.Met)
	}
	near(t, "asa", float64(a.ASA), 2.0/7)

	// 36 bars is 4 away: more than 3.2.
	m.Bars = 36
	is(t, "length 36", Adhere(req, m).Length, false)

	// Precision 1/2, recall 1: F1 = 2·½·1/(1.5) = 2/3, instruments met.
	req2 := token.Unspecified()
	req2.Programs = []int{0}
	a2 := Adhere(req2, measured(120, midi.Key{}, 4, 4, 8, []int{0, 40}, false))
	near(t, "precision", a2.Instruments.Precision, 0.5)
	near(t, "recall", a2.Instruments.Recall, 1)
	near(t, "f1", a2.Instruments.F1, 2.0/3)
	if a2.Checked != 2 || a2.Met != 2 {
		t.Errorf("checked/met %d/%d, want 2/2 (instruments, parts)", a2.Checked, a2.Met)
	}

	// Nothing requested: nothing checked, ASA undefined (null in JSON).
	a3 := Adhere(token.Unspecified(), m)
	if a3.Checked != 0 || !math.IsNaN(float64(a3.ASA)) || a3.TB != nil || a3.Instruments != nil {
		t.Errorf("unspecified request: %+v", a3)
	}
	b, err := json.Marshal(a3)
	if err != nil || string(b) != `{"checked":0,"met":0,"asa":null}` {
		t.Errorf("json %s, %v", b, err)
	}

	// Summary over the three: TB 0/1, TBT 1/1, drums 1/1, instruments
	// averaged over the two pieces that requested programs, ASA over those
	// two with a request: (2/7 + 1)/2.
	s := SummarizeAdherence([]Adherence{a, a2, a3})
	if s.Pieces != 3 || s.TB.N != 1 || s.TB.Rate != 0 || s.TBT.Rate != 1 || s.Drums.N != 1 || s.InstrumentPieces != 2 {
		t.Errorf("summary %+v", s)
	}
	near(t, "mean precision", float64(s.Precision), (2.0/3+0.5)/2)
	near(t, "mean recall", float64(s.Recall), (2.0/3+1)/2)
	near(t, "mean asa", float64(s.ASA), (2.0/7+1)/2)
	// Parts: 3 requested over the two pieces, 2 real; one piece has all.
	if s.PartsRequested != 3 || s.PartsReal != 2 || s.PartsAll.N != 2 || s.PartsAll.Rate != 0.5 {
		t.Errorf("parts summary %d/%d, all %+v", s.PartsReal, s.PartsRequested, s.PartsAll)
	}
	near(t, "part share", float64(s.PartShare), 2.0/3)
	// Only the first piece asked for a key (D major measured for C major).
	if s.CK.N != 1 || s.CK.Rate != 0 || s.Meter.N != 1 {
		t.Errorf("CK %+v meter %+v, want 0 of 1", s.CK, s.Meter)
	}
}

// A drum request is met when drums play in at least 90% of the bars: one
// forced hit in a 16-bar piece is 1/16 and fails; a request for no drums
// is met only without any.
func TestAdhereDrumsShareOfBars(t *testing.T) {
	yes, no := true, false
	want, none := token.Unspecified(), token.Unspecified()
	want.Drums, none.Drums = &yes, &no
	for _, c := range []struct {
		share     float64 // NaN: no drums
		met, none bool
	}{
		{1, true, false},
		{0.9, true, false}, // the floor itself meets
		{15.0 / 16, true, false},
		{14.0 / 16, false, false},
		{1.0 / 16, false, false}, // one hit, as Bars.Require forces
		{math.NaN(), false, true},
	} {
		m := &Metrics{HasDrums: !math.IsNaN(c.share), DrumBarShare: c.share}
		a := Adhere(want, m)
		is(t, fmt.Sprintf("drums asked, share %v", c.share), a.Drums, c.met)
		wantShare := c.share
		if math.IsNaN(wantShare) {
			wantShare = 0
		}
		if a.DrumBars == nil {
			t.Fatalf("share %v: drum_bars not reported", c.share)
		}
		near(t, "drum_bars", float64(*a.DrumBars), wantShare)
		b := Adhere(none, m)
		is(t, fmt.Sprintf("no drums asked, share %v", c.share), b.Drums, c.none)
		if b.DrumBars != nil {
			t.Errorf("drum_bars reported without a drum request")
		}
	}
	// The summary's mean share is over the pieces that asked for drums.
	s := SummarizeAdherence([]Adherence{
		Adhere(want, &Metrics{HasDrums: true, DrumBarShare: 1}),
		Adhere(want, &Metrics{HasDrums: true, DrumBarShare: 0.5}),
		Adhere(none, &Metrics{}),
	})
	if s.DrumBarPieces != 2 || s.Drums.N != 3 {
		t.Errorf("drum pieces %d, drums n %d; want 2, 3", s.DrumBarPieces, s.Drums.N)
	}
	near(t, "mean drum bars", float64(s.DrumBars), 0.75)
	near(t, "drums rate", float64(s.Drums.Rate), 2.0/3) // 1 met, 0.5 not, none met
}

// Adherence of a measured score end to end: a C major scale at 120 bpm,
// 4/4, piano, 2 bars, against a prompt asking for exactly that.
func TestAdhereMeasuredScore(t *testing.T) {
	var ns []midi.Note
	for i, p := range []uint8{60, 62, 64, 65, 67, 69, 71, 72} {
		ns = append(ns, note(int64(12*i), 12, p))
	}
	m := mustMeasure(t, score(12, piano(ns...)))
	no := false
	req := token.Attributes{TempoBPM: 118, KeyTonic: 0, MeterNum: 4, MeterDen: 4, Programs: []int{4}, Drums: &no, Bars: 2, Density: -1, Style: -1}
	a := Adhere(req, &m)
	// The piano (program 0) answers the electric piano (4), its family:
	// 2 bars of 2, 4 notes a bar.
	if a.Checked != 7 || a.Met != 7 || a.ASA != 1 {
		t.Errorf("checked/met %d/%d asa %v, want 7/7 1: %+v", a.Checked, a.Met, a.ASA, a)
	}
	if a.Scale == nil || *a.Scale != 1 {
		t.Errorf("scale share %v, want 1 (a C major scale)", a.Scale)
	}
	// In A minor (natural + harmonic: A B C D E F G G#) the scale is all
	// in too; in G major 7 of 8 (F is out).
	req.KeyTonic = 7
	near(t, "G major scale share", float64(*Adhere(req, &m).Scale), 7.0/8)
	req.KeyTonic, req.KeyMinor = 9, true
	near(t, "A minor scale share", float64(*Adhere(req, &m).Scale), 1)
	s := SummarizeAdherence([]Adherence{a, Adhere(token.Unspecified(), &m)})
	near(t, "summary scale", float64(s.Scale), 1)
}
