package condition

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// pieces encodes the first n files of a corpus with measured attributes.
func pieces(t *testing.T, name string, n int) [][]uint16 {
	t.Helper()
	v := token.DefaultVocab()
	files := corpus.MIDIFiles(t, name)
	var out [][]uint16
	for _, f := range files {
		if len(out) == n {
			break
		}
		s, err := midi.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
		if err != nil {
			continue
		}
		out = append(out, toks)
	}
	return out
}

func mustDecode(t *testing.T, v *token.Vocab, toks []uint16) *midi.Score {
	t.Helper()
	s, _, err := v.Decode(toks)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// attrs reads the prefix of an example back (token.Decode of the prefix).
func attrs(t *testing.T, v *token.Vocab, ex []uint16) token.Attributes {
	t.Helper()
	sep := slices.Index(ex, v.SEP)
	_, a, err := v.Decode(ex[:sep+1])
	if err != nil {
		t.Fatalf("prefix %v: %v", v.Names(ex[:sep+1]), err)
	}
	return a
}

// Every example is grammatical, and its prefix tells the truth about its
// window: first tempo, first meter, the programs played, the bars left to
// the piece's end (LENGTH), and the window's key (the piece's key moved by
// the window's transposition when the window has few notes). Openings and endings (with EOS) come at their rates.
func TestExamplesDescribeTheirWindow(t *testing.T) {
	for _, frame := range []bool{false, true} {
		t.Run(fmt.Sprintf("tonic frame %v", frame), func(t *testing.T) { testExamplesDescribe(t, frame) })
	}
}

func testExamplesDescribe(t *testing.T, frame bool) {
	v := token.DefaultVocab()
	ps := append(pieces(t, corpus.Nottingham, 20), pieces(t, corpus.OpenMSX, 5)...)
	o := DefaultOptions()
	o.DropProb, o.DropAllProb = 0, 0
	o.TonicFrame = frame
	framed, agree := 0, 0
	b := New(v, o)
	rng := rand.New(rand.NewPCG(1, 2))
	keys := map[int]bool{}
	progs := map[int]bool{}
	tempoBins := map[int]bool{}
	starts, ends := 0, 0
	for i := 0; i < 400; i++ {
		p := ps[i%len(ps)]
		ex, info, err := b.example(p, rng, 512)
		if err != nil {
			t.Fatal(err)
		}
		if len(ex) > 512 {
			t.Fatalf("example of %d tokens, want ≤ 512", len(ex))
		}
		s, dec, err := v.Decode(ex)
		if err != nil {
			t.Fatalf("example %d does not decode: %v", i, err)
		}
		if info.bar == 0 {
			starts++
		}
		if ex[len(ex)-1] == v.EOS {
			ends++
			if lo, hi := v.LengthRange(v.LengthBin(info.bars - info.bar)); dec.Bars != lo || s.EndTick == 0 || hi < lo {
				t.Fatalf("example %d: ends, LENGTH %d, bars left %d", i, dec.Bars, info.bars-info.bar)
			}
		}
		pk := midi.Analyze(mustDecode(t, v, p)).EstimatedKey // the piece's key as ingestion measured it
		if lo, _ := v.LengthRange(v.LengthBin(info.bars - info.bar)); dec.Bars != lo {
			t.Fatalf("example %d: LENGTH %d, %d bars left from bar %d", i, dec.Bars, info.bars-info.bar, info.bar)
		}
		a := attrs(t, v, ex)
		if s.NoteCount() == 0 {
			continue // a window of rests (a piece's silent end) describes nothing
		}
		if a.TempoBPM <= 0 || a.KeyTonic < 0 && !frame || a.MeterNum == 0 || a.Programs == nil || a.Bars == 0 || a.Density < 0 {
			t.Fatalf("example %d: attribute missing without dropout: %+v", i, a)
		}
		if got := 60e6 / float64(s.TempoAt(0)); v.TempoBin(got) != v.TempoBin(a.TempoBPM) {
			t.Fatalf("example %d: window starts at %.1f bpm, prefix says %.1f", i, got, a.TempoBPM)
		}
		if len(s.Meters) == 0 || s.Meters[0].Num != a.MeterNum || s.Meters[0].Den != a.MeterDen {
			t.Fatalf("example %d: window meter %v, prefix %d/%d", i, s.Meters, a.MeterNum, a.MeterDen)
		}
		var played []int
		drums := false
		for _, tr := range s.Tracks {
			if tr.IsDrum {
				drums = true
			} else {
				played = append(played, tr.Program)
			}
		}
		slices.Sort(played)
		if !slices.Equal(played, a.Programs) || drums != *a.Drums {
			t.Fatalf("example %d: window plays %v drums %v, prefix says %v drums %v", i, played, drums, a.Programs, *a.Drums)
		}
		pitched := 0
		for _, tr := range s.Tracks {
			if !tr.IsDrum {
				pitched += len(tr.Notes)
			}
		}
		switch k := midi.EstimateKey(s); {
		case o.TonicFrame && pitched == 0:
			if a.KeyTonic >= 0 {
				t.Fatalf("example %d: no pitched notes, framed as %d minor %v", i, a.KeyTonic, a.KeyMinor)
			}
		case o.TonicFrame:
			// C major or A minor, by the window's key as cut before the
			// other augmentations; the cut after re-voicing may move a
			// borderline estimate, so most windows, not all, estimate it.
			if !(a.KeyTonic == 0 && !a.KeyMinor || a.KeyTonic == 9 && a.KeyMinor) {
				t.Fatalf("example %d: tonic frame labelled %d minor %v", i, a.KeyTonic, a.KeyMinor)
			}
			if pitched >= o.WindowKeyNotes {
				framed++
				if k.Tonic == a.KeyTonic && k.Minor == a.KeyMinor {
					agree++
				}
			} else if len(played) > 0 && pitched > 0 && a.KeyMinor != pk.Minor {
				t.Fatalf("example %d: %d notes, piece key %v, framed as minor %v", i, pitched, pk, a.KeyMinor)
			}
		case o.WindowKey && pitched >= o.WindowKeyNotes: // the window's own key
			if k.Tonic != a.KeyTonic || k.Minor != a.KeyMinor {
				t.Fatalf("example %d: window's notes in %v, prefix %d minor %v", i, k, a.KeyTonic, a.KeyMinor)
			}
		case len(played) > 0:
			if (pk.Tonic+info.shift+12)%12 != a.KeyTonic || pk.Minor != a.KeyMinor {
				t.Fatalf("example %d: piece key %v moved by %d, prefix %d minor %v", i, pk, info.shift, a.KeyTonic, a.KeyMinor)
			}
		}
		keys[token.KeyIndex(a.KeyTonic, a.KeyMinor)] = true
		tempoBins[v.TempoBin(a.TempoBPM)] = true
		for _, p := range a.Programs {
			progs[p] = true
		}
	}
	// Augmentation reaches every key (the frame's two) and a wide spread of
	// tempi and programs.
	switch {
	case !frame && len(keys) < 22:
		t.Errorf("%d of 24 keys seen in 400 examples", len(keys))
	case frame && (len(keys) != 2 || framed < 200 || agree < framed*95/100):
		t.Errorf("tonic frame: keys %v; %d of %d windows estimate their label", keys, agree, framed)
	}
	if len(tempoBins) < 15 {
		t.Errorf("%d tempo bins seen", len(tempoBins))
	}
	if len(progs) < 40 {
		t.Errorf("%d programs seen", len(progs))
	}
	// StartProb 0.2 and EndProb 0.15 on top of the uniform draw.
	if starts < 60 || ends < 50 {
		t.Errorf("%d openings and %d endings in 400 examples", starts, ends)
	}
	t.Logf("400 examples: %d keys, %d tempo bins, %d programs, %d openings, %d endings; framed %d, estimate = label %d", len(keys), len(tempoBins), len(progs), starts, ends, framed, agree)
}

// Dropout leaves each attribute out at about its rate, instruments as a
// whole.
func TestDropout(t *testing.T) {
	v := token.DefaultVocab()
	ps := pieces(t, corpus.Nottingham, 10)
	o := DefaultOptions()
	o.DropProb, o.DropAllProb = 0.3, 0
	b := New(v, o)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 2000
	missing := map[string]int{}
	for i := 0; i < n; i++ {
		ex, err := b.Example(ps[i%len(ps)], rng, 256)
		if err != nil {
			t.Fatal(err)
		}
		a := attrs(t, v, ex)
		if a.TempoBPM == 0 {
			missing["tempo"]++
		}
		if a.KeyTonic < 0 {
			missing["key"]++
		}
		if a.Programs == nil {
			missing["instruments"]++
		}
		if a.Style >= 0 {
			t.Fatalf("STYLE in an example: %v", v.Names(ex[:12]))
		}
	}
	for name, k := range missing {
		if r := float64(k) / n; r < 0.25 || r > 0.35 {
			t.Errorf("%s dropped in %.1f%% of examples, want about 30%%", name, 100*r)
		}
	}
	// Version 2 always lists the instruments.
	if len(missing) != 2 || missing["instruments"] != 0 {
		t.Errorf("dropped: %v", missing)
	}
}

// Fill is a pure function of (split, k, seed) and pads with target −1.
func TestFillDeterministicAndPadded(t *testing.T) {
	v := token.DefaultVocab()
	ps := pieces(t, corpus.Nottingham, 8)
	ds := train.NewDataset(ps)
	tr, _ := ds.Split(0, 1)
	b := New(v, DefaultOptions())
	const B, T = 4, 1024
	in1, tg1 := make([]int32, B*T), make([]int32, B*T)
	in2, tg2 := make([]int32, B*T), make([]int32, B*T)
	if err := b.Fill(tr, 7, 9, B, T, in1, tg1); err != nil {
		t.Fatal(err)
	}
	if err := b.Fill(tr, 7, 9, B, T, in2, tg2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in1, in2) || !slices.Equal(tg1, tg2) {
		t.Fatal("same batch number gave different batches")
	}
	b.Fill(tr, 8, 9, B, T, in2, tg2)
	if slices.Equal(in1, in2) {
		t.Fatal("batches 7 and 8 are equal")
	}
	for r := 0; r < B; r++ {
		row, tg := in1[r*T:(r+1)*T], tg1[r*T:(r+1)*T]
		if row[0] != int32(v.BOS) {
			t.Fatalf("row %d starts with %s", r, v.Name(uint16(row[0])))
		}
		for j := 0; j+1 < T; j++ {
			if tg[j] >= 0 && tg[j] != row[j+1] {
				t.Fatalf("row %d: target %d is %d, next input %d", r, j, tg[j], row[j+1])
			}
			if row[j] == int32(v.PAD) && tg[j] != -1 {
				t.Fatalf("row %d: padding at %d has target %d", r, j, tg[j])
			}
		}
	}
}

// FillRow gives row r of Fill's batch whatever the batch size: a stream
// asking for single examples by number sees the batches Fill makes.
func TestFillRowIsFillsRow(t *testing.T) {
	v := token.DefaultVocab()
	tr, _ := train.NewDataset(pieces(t, corpus.Nottingham, 8)).Split(0, 1)
	b := New(v, DefaultOptions())
	const B, T = 5, 256
	in, tg := make([]int32, B*T), make([]int32, B*T)
	if err := b.Fill(tr, 3, 11, B, T, in, tg); err != nil {
		t.Fatal(err)
	}
	ri, rt := make([]int32, T), make([]int32, T)
	for r := 0; r < B; r++ {
		if err := b.FillRow(tr, 3, 11, r, T, ri, rt); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ri, in[r*T:(r+1)*T]) || !slices.Equal(rt, tg[r*T:(r+1)*T]) {
			t.Fatalf("row %d of FillRow differs from Fill's", r)
		}
	}
	// and a smaller batch holds the same first rows
	small, smallTg := make([]int32, 2*T), make([]int32, 2*T)
	b.Fill(tr, 3, 11, 2, T, small, smallTg)
	if !slices.Equal(small, in[:2*T]) {
		t.Fatal("batch of 2 is not the first two rows of the batch of 5")
	}
}

func TestOptionSetters(t *testing.T) {
	o := DefaultOptions()
	if err := o.SetKeyLabels("piece"); err != nil || o.WindowKey {
		t.Errorf("piece: %v %v", err, o.WindowKey)
	}
	if err := o.SetKeyFrame("absolute"); err != nil || o.TonicFrame {
		t.Errorf("absolute: %v %v", err, o.TonicFrame)
	}
	if err := o.SetKeyLabels("window"); err != nil || !o.WindowKey {
		t.Errorf("window: %v", err)
	}
	if err := o.SetKeyFrame("tonic"); err != nil || !o.TonicFrame {
		t.Errorf("tonic: %v", err)
	}
	if err := o.SetKeyLabels("song"); err == nil || !strings.Contains(err.Error(), `"song"`) {
		t.Errorf("song: %v", err)
	}
	if err := o.SetKeyFrame("relative"); err == nil || !strings.Contains(err.Error(), `"relative"`) {
		t.Errorf("relative: %v", err)
	}
	if err := o.SetStartProb(0.9); err == nil || !strings.Contains(err.Error(), "0.9") {
		t.Errorf("start 0.9 with endings 0.15: %v", err)
	}
	if err := o.SetStartProb(-1); err != nil || o.StartProb != DefaultOptions().StartProb {
		t.Errorf("start -1: %v %v", err, o.StartProb)
	}
	if err := o.SetStartProb(0.6); err != nil || o.StartProb != 0.6 {
		t.Errorf("start 0.6: %v %v", err, o.StartProb)
	}
	if err := o.SetSourceWeights("arranged=0.25, pop909=2"); err != nil || len(o.SourceWeight) != 2 ||
		o.SourceWeight["arranged"] != 0.25 || o.SourceWeight["pop909"] != 2 {
		t.Errorf("arranged=0.25, pop909=2: %v %v", err, o.SourceWeight)
	}
	for _, bad := range []string{"arranged", "=1", "arranged=-1", "arranged=NaN", "arranged=+Inf", "a=1,a=2", "a=x"} {
		if err := o.SetSourceWeights(bad); err == nil {
			t.Errorf("%q accepted: %v", bad, o.SourceWeight)
		}
	}
	if err := o.SetSourceWeights(""); err != nil || o.SourceWeight != nil {
		t.Errorf("empty: %v %v", err, o.SourceWeight)
	}
}

func TestFitPrograms(t *testing.T) {
	// A part from G3 to E5 fits violin? No (violin starts at G3=55: fits);
	// cello (36–76) does not hold E5=76+... 76 is its top: fits with slack.
	fit := FitPrograms(55, 88)
	if !slices.Contains(fit, 40) || slices.Contains(fit, 42) || slices.Contains(fit, 58) {
		t.Fatalf("55..88 fits %v: want violin, not cello or tuba", fit)
	}
	if !slices.Contains(FitPrograms(30, 50), 32) || slices.Contains(FitPrograms(30, 50), 40) {
		t.Fatal("a bass line must fit the bass, not the violin")
	}
	for p := 120; p < 128; p++ {
		if slices.Contains(FitPrograms(60, 72), p) {
			t.Fatalf("sound effect %d is a re-voicing target", p)
		}
	}
}

// modulating is a hand-made piano piece of 2·half bars in 4/4: the first
// half plays I–IV–V–I of C major (triads and the scale in quarter notes),
// the second the same a major third down, in A♭ major.
func modulating(half int) *midi.Score {
	const tpb = 480
	s := &midi.Score{TicksPerBeat: tpb, Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}},
		Meters: []midi.MeterChange{{Num: 4, Den: 4}}}
	tr := midi.Track{Program: 0}
	chords := [][3]int{{0, 4, 7}, {5, 9, 12}, {7, 11, 14}, {0, 4, 7}}
	scale := []int{0, 2, 4, 5, 7, 9, 11, 12}
	for bar := 0; bar < 2*half; bar++ {
		root := 60
		if bar >= half {
			root = 56 // A♭
		}
		t0 := int64(bar * 4 * tpb)
		for _, p := range chords[bar%4] {
			tr.Notes = append(tr.Notes, midi.Note{Tick: t0, Dur: 4 * tpb, Pitch: uint8(root - 12 + p), Velocity: 70})
		}
		for b := 0; b < 4; b++ {
			p := scale[(bar*4+b)%len(scale)]
			if b == 0 {
				p = chords[bar%4][0] + 12
			}
			tr.Notes = append(tr.Notes, midi.Note{Tick: t0 + int64(b*tpb), Dur: tpb, Pitch: uint8(root + p), Velocity: 90})
		}
	}
	s.Tracks = []midi.Track{tr}
	s.EndTick = int64(2 * half * 4 * tpb)
	return s
}

// Under WindowKey, KEY is the key of the window the model sees, as
// evaluation would estimate it from the decoded example (transposition
// included): windows of a piece that moves from C major to A♭ major are
// labelled by where they are, while the piece's key labels them all alike.
// Windows with too few pitched notes keep the piece's key.
func TestWindowKeyLabels(t *testing.T) {
	v := token.DefaultVocab()
	s := modulating(16)
	piece, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
	if err != nil {
		t.Fatal(err)
	}
	pk := midi.Analyze(s).EstimatedKey
	for _, window := range []bool{false, true} {
		o := DefaultOptions()
		o.DropProb, o.DropAllProb, o.TempoProb, o.RevoiceProb = 0, 0, 0, 0
		o.WindowKey, o.TonicFrame = window, false
		b := New(v, o)
		rng := rand.New(rand.NewPCG(3, 4))
		late, early := 0, 0
		for i := 0; i < 200; i++ {
			ex, info, err := b.example(piece, rng, 160) // about 3 bars
			if err != nil {
				t.Fatal(err)
			}
			a := attrs(t, v, ex)
			got := token.KeyIndex(a.KeyTonic, a.KeyMinor)
			if !window {
				if want := token.KeyIndex(pk.Tonic+info.shift+12, pk.Minor); got != want {
					t.Fatalf("piece labels: window at bar %d labelled %d, piece key %v moved by %d", info.bar, got, pk, info.shift)
				}
				continue
			}
			dec := mustDecode(t, v, ex)
			if n := len(dec.Tracks[0].Notes); n < 16 {
				if want := token.KeyIndex(pk.Tonic+info.shift+12, pk.Minor); got != want {
					t.Fatalf("window labels: window at bar %d with %d notes labelled %d, piece key %v moved by %d", info.bar, n, got, pk, info.shift)
				}
				continue
			}
			k := midi.EstimateKey(dec)
			if want := token.KeyIndex(k.Tonic, k.Minor); got != want {
				t.Fatalf("window labels: window at bar %d labelled %d, its decoded notes estimate %v", info.bar, got, k)
			}
			// Windows wholly inside one half are in that half's key.
			switch tonic := (a.KeyTonic - info.shift + 24) % 12; {
			case info.bar+3 < 16 && info.bar > 0:
				early++
				if tonic != 0 || a.KeyMinor {
					t.Fatalf("window at bar %d (C major half, shift %d) labelled %d minor %v", info.bar, info.shift, a.KeyTonic, a.KeyMinor)
				}
			case info.bar >= 16:
				late++
				if tonic != 8 || a.KeyMinor {
					t.Fatalf("window at bar %d (A♭ major half, shift %d) labelled %d minor %v", info.bar, info.shift, a.KeyTonic, a.KeyMinor)
				}
			}
		}
		if window && (late < 20 || early < 20) {
			t.Fatalf("%d windows in the C half, %d in the A♭ half: too few to judge", early, late)
		}
	}
	// Too few pitched notes: the piece's key.
	o := DefaultOptions()
	o.DropProb, o.DropAllProb, o.TempoProb, o.RevoiceProb, o.TransposeProb = 0, 0, 0, 0, 0
	o.WindowKey, o.WindowKeyNotes, o.TonicFrame = true, 1000, false
	ex, _, err := New(v, o).example(piece, rand.New(rand.NewPCG(5, 6)), 160)
	if err != nil {
		t.Fatal(err)
	}
	if a := attrs(t, v, ex); a.KeyTonic != pk.Tonic || a.KeyMinor != pk.Minor {
		t.Fatalf("a window under WindowKeyNotes labelled %d minor %v, piece key %v", a.KeyTonic, a.KeyMinor, pk)
	}
}

// Under TonicFrame every window is moved so that its own key (window
// labels) becomes C major or A minor and is labelled so: the decoded
// example estimates the key it is labelled with, and moving it back by the
// shift gives the part of the piece it came from (C major or A♭ major
// here).
func TestTonicFrame(t *testing.T) {
	v := token.DefaultVocab()
	s := modulating(16)
	piece, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.DropProb, o.DropAllProb, o.TempoProb, o.RevoiceProb = 0, 0, 0, 0
	o.WindowKey, o.TonicFrame = true, true
	b := New(v, o)
	rng := rand.New(rand.NewPCG(7, 8))
	shifts := map[int]bool{}
	judged := 0
	for i := 0; i < 200; i++ {
		ex, info, err := b.example(piece, rng, 160)
		if err != nil {
			t.Fatal(err)
		}
		a := attrs(t, v, ex)
		if !info.framed || !(a.KeyTonic == 0 && !a.KeyMinor || a.KeyTonic == 9 && a.KeyMinor) {
			t.Fatalf("window at bar %d (shift %d, framed %v) labelled %d minor %v, want C major or A minor", info.bar, info.shift, info.framed, a.KeyTonic, a.KeyMinor)
		}
		if info.shift < -11 || info.shift > 11 {
			t.Fatalf("shift %d", info.shift)
		}
		dec := mustDecode(t, v, ex)
		if len(dec.Tracks[0].Notes) < 16 {
			continue // labelled by the piece's key
		}
		judged++
		if k := midi.EstimateKey(dec); k.Tonic != a.KeyTonic || k.Minor != a.KeyMinor {
			t.Fatalf("window at bar %d framed by %d estimates %v, labelled %d minor %v", info.bar, info.shift, k, a.KeyTonic, a.KeyMinor)
		}
		shifts[info.shift] = true
		switch orig := (12 - info.shift%12) % 12; {
		case info.bar+3 < 16 && info.bar > 0 && orig != 0:
			t.Fatalf("window at bar %d of the C major half moved by %d", info.bar, info.shift)
		case info.bar >= 16 && orig != 8:
			t.Fatalf("window at bar %d of the A♭ major half moved by %d", info.bar, info.shift)
		}
	}
	if len(shifts) < 2 || judged < 100 {
		t.Fatalf("shifts %v over %d windows: both halves should be seen", shifts, judged)
	}
}

// SourceWeight scales the sampling weight of each piece by its shard's
// folder, on both sides of a split (the moved-piece cases included), and a
// split whose every piece weighs 0 is refused rather than sampled.
func TestSourceWeight(t *testing.T) {
	v := token.DefaultVocab()
	ps := pieces(t, corpus.Nottingham, 6)
	dir := t.TempDir()
	for _, src := range []struct {
		name string
		ps   [][]uint16
	}{{"human", ps[:2]}, {"arranged", ps[2:]}} {
		if err := os.Mkdir(filepath.Join(dir, src.name), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.WriteShard(filepath.Join(dir, src.name), "s", src.ps); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := train.OpenDir(dir, v.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if got := ds.Sources(); len(got) != 2 || got["human"] != 2 || got["arranged"] != 4 {
		t.Errorf("Sources() = %v, want human 2, arranged 4", got)
	}
	for _, frac := range []float64{0, 0.3} {
		tr, val := ds.Split(frac, 1)
		for _, split := range []*train.Split{tr, val} {
			seen := map[string]int{}
			for i := 0; i < split.Pieces(); i++ {
				seen[split.PieceSource(i)]++
			}
			plain := New(v, DefaultOptions()).cumWeights(split)
			o := DefaultOptions()
			o.SourceWeight = map[string]float64{"arranged": 0.25}
			cum := New(v, o).cumWeights(split)
			prev, prevPlain := 0.0, 0.0
			for i := range cum {
				w, wp := cum[i]-prev, plain[i]-prevPlain
				prev, prevPlain = cum[i], plain[i]
				want := wp
				if split.PieceSource(i) == "arranged" {
					want = wp / 4
				}
				if math.Abs(w-want) > 1e-12 {
					t.Errorf("frac %g: piece %d of %q weighs %g, want %g", frac, i, split.PieceSource(i), w, want)
				}
			}
			if frac == 0 && split == tr && (seen["human"] != 2 || seen["arranged"] != 4) {
				t.Errorf("sources %v, want 2 human and 4 arranged", seen)
			}
		}
	}
	tr, _ := ds.Split(0, 1)
	o := DefaultOptions()
	o.SourceWeight = map[string]float64{"arranged": 0, "human": 0}
	in, tg := make([]int32, 64), make([]int32, 64)
	if err := New(v, o).Fill(tr, 0, 1, 1, 64, in, tg); !errors.Is(err, train.ErrNoData) {
		t.Errorf("all weights 0: %v, want ErrNoData", err)
	}
	o.SourceWeight = map[string]float64{"arranged": 0}
	b := New(v, o)
	for k := uint64(0); k < 20; k++ {
		if err := b.Fill(tr, k, 1, 1, 64, in, tg); err != nil {
			t.Fatal(err)
		}
	}
}
