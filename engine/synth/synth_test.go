package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

const timGM = "/usr/share/sounds/sf2/TimGM6mb.sf2"

func timFont(t testing.TB) *SoundFont {
	t.Helper()
	if _, err := os.Stat(timGM); err != nil {
		t.Skipf("TimGM6mb not installed (%v): apt-get install timgm6mb-soundfont", err)
	}
	sf, err := LoadSoundFontCached(timGM)
	if err != nil {
		t.Fatal(err)
	}
	return sf
}

// oneTrack is a Score of notes (pitch, start s, duration s) at velocity 100.
func oneTrack(program int, drum bool, notes ...[3]float64) *midi.Score {
	tr := midi.Track{Program: program, IsDrum: drum}
	if drum {
		tr.Channel = 9
	}
	for _, n := range notes {
		tr.Notes = append(tr.Notes, midi.Note{Pitch: uint8(n[0]), Velocity: 100, Start: n[1], Duration: n[2]})
	}
	return &midi.Score{TicksPerBeat: 480, Tracks: []midi.Track{tr}}
}

type namedRenderer struct {
	name string
	r    func(t *testing.T) Renderer
}

// pianos are the three synthesizers under test on their piano preset.
var pianos = []namedRenderer{
	{"fixture-sine", func(t *testing.T) Renderer { return NewSoundFontRenderer(fixtureFont(t), Options{}) }},
	{"TimGM6mb", func(t *testing.T) Renderer { return NewSoundFontRenderer(timFont(t), Options{}) }},
	{"builtin", func(t *testing.T) Renderer { return NewBuiltinRenderer(Options{}) }},
}

func render(t *testing.T, r Renderer, s *midi.Score) *PCM {
	t.Helper()
	p, err := r.Render(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseFixture(t *testing.T) {
	sf := fixtureFont(t)
	if sf.Name != "Fixture Sine" || sf.Version != [2]uint16{2, 4} {
		t.Errorf("name %q version %v, want Fixture Sine 2.4", sf.Name, sf.Version)
	}
	if len(sf.Data) != fixLen+46 || len(sf.Samples) != 1 || len(sf.Presets) != 3 {
		t.Fatalf("data %d samples %d presets %d, want %d 1 3", len(sf.Data), len(sf.Samples), len(sf.Presets), fixLen+46)
	}
	if got := sf.Point(25); math.Abs(float64(got)-0.5) > 1e-4 { // quarter cycle of 0.5·sin
		t.Errorf("data[25] = %v, want 0.5", got)
	}
	h := sf.Samples[0]
	if h.Start != 0 || h.End != fixLen || h.LoopStart != fixLoopStart || h.LoopEnd != fixLoopEnd || h.SampleRate != fixRate || h.OriginalPitch != 69 {
		t.Errorf("sample header %+v", h)
	}
	p := sf.Preset(0, 0)
	if p.Name != "Sine" || len(p.Regions) != 1 {
		t.Fatalf("preset 0:0 = %q with %d regions", p.Name, len(p.Regions))
	}
	g := p.Regions[0].Gen
	// Local zone replaced the global coarse tune; the global release stays.
	if g[genCoarseTune] != 0 || g[genReleaseVolEnv] != int32(secToTC(fixRelease)) || g[genSampleModes] != 1 {
		t.Errorf("instrument precedence: coarse %d release %d modes %d", g[genCoarseTune], g[genReleaseVolEnv], g[genSampleModes])
	}
	if up := sf.Preset(0, 1).Regions[0].Gen; up[genCoarseTune] != 12 {
		t.Errorf("preset zone must add to the instrument: coarse %d, want 12", up[genCoarseTune])
	}
	if kit := sf.Preset(128, 0); kit.Name != "Kit" || kit.Regions[0].Gen[genSampleModes] != 0 {
		t.Errorf("drum kit: %q", kit.Name)
	}
	// GM fallbacks: unknown program → bank 0 program fallback → first preset;
	// unknown kit → kit 0.
	if sf.Preset(128, 25).Name != "Kit" || sf.Preset(0, 40).Name != "Sine" {
		t.Errorf("fallbacks: %q %q", sf.Preset(128, 25).Name, sf.Preset(0, 40).Name)
	}
}

func TestParseErrors(t *testing.T) {
	good := fixtureSF2()
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotSoundFont},
		{"wav", append([]byte("RIFF\x04\x00\x00\x00WAVE"), make([]byte, 16)...), ErrNotSoundFont},
		{"truncated", good[:len(good)-100], ErrCorrupt},
		{"no pdta", good[:len(good)/2], ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSoundFont(c.name+".sf2", c.data)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.name+".sf2") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	// A bag index pointing past the generators.
	bad := append([]byte(nil), good...)
	i := bytes_Index(bad, "pbag")
	bad[i+8] = 0xff
	if _, err := ParseSoundFont("bad.sf2", bad); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad pbag: err = %v", err)
	}
}

func bytes_Index(b []byte, s string) int { return strings.Index(string(b), s) }

func TestParseTimGM6mb(t *testing.T) {
	sf := timFont(t)
	melodic := 0
	for _, p := range sf.Presets {
		if p.Bank == 0 {
			melodic++
		}
		for _, r := range p.Regions {
			h := sf.Samples[r.Sample]
			if h.End > uint32(len(sf.Data)) || h.Start > h.End {
				t.Fatalf("preset %q: sample %q out of range", p.Name, h.Name)
			}
		}
	}
	if melodic != 128 {
		t.Errorf("%d bank-0 presets, want the 128 GM programs", melodic)
	}
	if k := sf.Preset(128, 0); k.Bank != 128 || len(k.Regions) < 40 {
		t.Errorf("drum kit: bank %d, %d regions", k.Bank, len(k.Regions))
	}
}

func TestA4Peak(t *testing.T) {
	for _, pr := range pianos {
		t.Run(pr.name, func(t *testing.T) {
			p := render(t, pr.r(t), oneTrack(0, false, [3]float64{69, 0, 1}))
			mag, bin := spectrum(p, 1000, 1<<15)
			if f := peakHz(mag, bin, 50, 8000); math.Abs(f-440)/440 > 0.01 {
				t.Errorf("strongest peak %.2f Hz, want 440 ± 1%%", f)
			}
		})
	}
}

func TestCMajorChord(t *testing.T) {
	chord := []float64{261.63, 329.63, 392.00} // C4 E4 G4
	others := []float64{293.66, 311.13, 349.23, 369.99, 415.30}
	for _, pr := range pianos[1:] {
		t.Run(pr.name, func(t *testing.T) {
			p := render(t, pr.r(t), oneTrack(0, false, [3]float64{60, 0, 1}, [3]float64{64, 0, 1}, [3]float64{67, 0, 1}))
			mag, bin := spectrum(p, 1000, 1<<15)
			top := 0.0
			for _, m := range mag {
				top = max(top, m)
			}
			weakest := math.Inf(1)
			for _, f := range chord {
				m := bandMax(mag, bin, f, 20)
				weakest = min(weakest, m)
				if m < 0.1*top {
					t.Errorf("fundamental %.1f Hz: %.3g, below 10%% of the strongest peak %.3g", f, m, top)
				}
			}
			for _, f := range others {
				if m := bandMax(mag, bin, f, 20); m > 0.2*weakest {
					t.Errorf("%.1f Hz (not in the chord) at %.3g, weakest chord note %.3g", f, m, weakest)
				}
			}
		})
	}
}

// TestNoteOffSilence: a note released at 0.5 s is silent within the
// release time (plus a control block).
func TestNoteOffSilence(t *testing.T) {
	tim := func(t *testing.T) float64 {
		r := timFont(t).Preset(0, 0).Regions
		rel := 0.0
		for _, reg := range r {
			if reg.KeyLo <= 69 && 69 <= reg.KeyHi {
				rel = math.Exp2(float64(reg.Gen[genReleaseVolEnv]) / 1200)
			}
		}
		return rel
	}
	cases := []struct {
		nr      namedRenderer
		release func(t *testing.T) float64
	}{
		{pianos[0], func(*testing.T) float64 { return fixRelease }},
		{pianos[1], tim},
		{pianos[2], func(*testing.T) float64 { return timbres[tPiano].release }},
	}
	for _, c := range cases {
		t.Run(c.nr.name, func(t *testing.T) {
			r := c.nr.r(t)
			rel := c.release(t)
			p := render(t, r, oneTrack(0, false, [3]float64{69, 0, 0.5}))
			if before := rmsRange(p, 0.4, 0.5); before < 1e-3 {
				t.Fatalf("note not sounding before note-off: rms %.2g", before)
			}
			after := rmsRange(p, 0.5+rel+0.005, 0.5+rel+1)
			if after > 1e-4 {
				t.Errorf("rms %.2g after the %.3f s release, want silence", after, rel)
			}
			if end := p.Seconds(); end > 0.5+rel+0.05 {
				t.Errorf("render runs to %.3f s, voices should end by %.3f s", end, 0.5+rel)
			}
		})
	}
}

func TestPresetGeneratorsAddAndDrumBank(t *testing.T) {
	r := NewSoundFontRenderer(fixtureFont(t), Options{})
	cases := []struct {
		name string
		s    *midi.Score
		want float64
	}{
		{"preset coarse +12", oneTrack(1, false, [3]float64{69, 0, 1}), 880},
		{"drum kit bank 128 +7", oneTrack(0, true, [3]float64{69, 0, 1}), 440 * math.Exp2(7.0/12)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mag, bin := spectrum(render(t, r, c.s), 0, 1<<14)
			if f := peakHz(mag, bin, 50, 8000); math.Abs(f-c.want)/c.want > 0.01 {
				t.Errorf("peak %.1f Hz, want %.1f", f, c.want)
			}
		})
	}
}

// liveRender drives a Synth directly for dur seconds.
func liveRender(s Synth, dur float64) *PCM {
	n := int(dur * float64(s.SampleRate()))
	p := &PCM{SampleRate: s.SampleRate(), Channels: 2, Samples: make([]float32, 2*n)}
	s.Process(p.Samples)
	return p
}

func TestPitchBendAndSustain(t *testing.T) {
	for _, mk := range []namedRenderer{pianos[0], pianos[2]} {
		t.Run(mk.name, func(t *testing.T) {
			s := mk.r(t).NewSynth()
			s.Program(0, 0, false)
			s.PitchBend(0, 8191) // +2 semitones
			s.NoteOn(0, 69, 100)
			mag, bin := spectrum(liveRender(s, 0.5), 0, 1<<14)
			want := 440 * math.Exp2(2*8191.0/8192/12)
			if f := peakHz(mag, bin, 50, 8000); math.Abs(f-want)/want > 0.005 {
				t.Errorf("bent peak %.1f Hz, want %.1f", f, want)
			}
			s.Control(0, 64, 127)
			s.NoteOff(0, 69)
			held := liveRender(s, 1)
			if r := rmsRange(held, 0.9, 1); r < 1e-3 && mk.name == "fixture-sine" {
				t.Errorf("sustain pedal down: rms %.2g a second after note-off", r)
			}
			if s.Active() == 0 {
				t.Fatal("pedal down, voice gone")
			}
			s.Control(0, 64, 0)
			liveRender(s, 1)
			if s.Active() != 0 {
				t.Errorf("%d voices sound a second after the pedal was released", s.Active())
			}
		})
	}
}

func TestVoiceStealing(t *testing.T) {
	for _, mk := range []func() Synth{
		func() Synth { return NewSoundFontSynth(fixtureFont(t), Options{MaxVoices: 4}) },
		func() Synth { return NewBuiltinSynth(Options{MaxVoices: 4}) },
	} {
		s := mk()
		for k := 60; k < 72; k++ {
			s.NoteOn(0, k, 90)
			liveRender(s, 0.01)
			if s.Active() > 4 {
				t.Fatalf("%d voices, limit 4", s.Active())
			}
		}
		if s.Active() != 4 {
			t.Errorf("%d voices after 12 held notes, want 4", s.Active())
		}
		// The newest note survived stealing.
		mag, bin := spectrum(liveRender(s, 0.3), 0, 1<<13)
		if m := bandMax(mag, bin, 440*math.Exp2(float64(71-69)/12), 30); m == 0 {
			t.Error("newest note stolen")
		}
	}
}

func TestStreamSeekAndCancel(t *testing.T) {
	r := NewBuiltinRenderer(Options{SampleRate: 48000})
	s := oneTrack(0, false, [3]float64{60, 0, 0.5}, [3]float64{64, 1, 0.5})
	st := r.Stream(s)
	if st.SampleRate() != 48000 || st.Length() != 72000 {
		t.Fatalf("rate %d length %d, want 48000 72000", st.SampleRate(), st.Length())
	}
	st.SeekFrame(47000)
	buf := make([]float32, 2*2000)
	if _, err := st.Read(buf); err != nil {
		t.Fatal(err)
	}
	if silent := rmsRange(&PCM{SampleRate: 48000, Channels: 2, Samples: buf}, 0, 0.02); silent > 1e-6 {
		t.Errorf("after seeking past the first note: rms %.2g before the second, want silence", silent)
	}
	for {
		if _, err := st.Read(buf); err == io.EOF {
			break
		}
	}
	if st.Position() < 72000 {
		t.Errorf("stream ended at %d, before the last note-off", st.Position())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Render(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled render: err = %v", err)
	}
}

func TestBuiltinDrums(t *testing.T) {
	r := NewBuiltinRenderer(Options{})
	for _, key := range []int{36, 38, 42, 46, 45, 49, 51, 56, 39, 37} {
		p := render(t, r, oneTrack(0, true, [3]float64{float64(key), 0, 0.1}))
		if rms := rmsRange(p, 0, 0.05); rms < 1e-3 {
			t.Errorf("drum key %d: rms %.2g, silent", key, rms)
		}
		if p.Seconds() > 8 {
			t.Errorf("drum key %d rings %.1f s", key, p.Seconds())
		}
	}
	// The kick is low, the closed hat high: compare spectral centroids.
	centroid := func(key int) float64 {
		mag, bin := spectrum(render(t, r, oneTrack(0, true, [3]float64{float64(key), 0, 0.1})), 0, 1<<12)
		var s, w float64
		for i, m := range mag {
			s += m * float64(i) * bin
			w += m
		}
		return s / w
	}
	if k, h := centroid(36), centroid(42); !(k < 300 && h > 3000) {
		t.Errorf("centroids: kick %.0f Hz (want < 300), hat %.0f Hz (want > 3000)", k, h)
	}
}

func TestNewDiscovery(t *testing.T) {
	if r, warn, err := New("", true, Options{}); err != nil || r.Name() != "built-in" || warn != nil {
		t.Errorf("--builtin: %v, %v", warn, err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.sf2")
	if err := os.WriteFile(good, fixtureSF2(), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, warn, err := New(good, false, Options{}); err != nil || warn != nil || !strings.Contains(r.Name(), "Fixture Sine") {
		t.Errorf("explicit path: %v, %v", warn, err)
	}
	bad := filepath.Join(dir, "broken.sf2")
	os.WriteFile(bad, []byte("RIFF\x10\x00\x00\x00sfbkLIST"), 0o644)
	if got := FindSoundFonts(dir); len(got) != 2 || filepath.Base(got[0]) != "broken.sf2" {
		t.Errorf("FindSoundFonts = %v", got)
	}
}

// TestNewExplicitSoundFontErrors: a SoundFont the user named that cannot be
// used is an error naming the file and the reason, never a silent fallback
// (it used to be a warning and exit 0).
func TestNewExplicitSoundFontErrors(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "picture.sf2")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	trunc := filepath.Join(dir, "truncated.sf2")
	os.WriteFile(trunc, fixtureSF2()[:3000], 0o644)
	folder := filepath.Join(dir, "folder.sf2")
	os.Mkdir(folder, 0o755)
	silent := filepath.Join(dir, "silent.sf2")
	os.WriteFile(silent, withSampleRange(t, fixtureSF2(), 1<<30, 1<<30+100), 0o644)
	for _, c := range []struct{ path, reason string }{
		{filepath.Join(dir, "missing.sf2"), "no such file"},
		{folder, "is a directory"},
		{png, "not a SoundFont"},
		{trunc, "corrupt"},
		{silent, "no playable sample"},
	} {
		r, _, err := New(c.path, false, Options{})
		if err == nil || r != nil || !strings.Contains(err.Error(), filepath.Base(c.path)) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: renderer %v, err %v; want an error naming the file and %q", filepath.Base(c.path), r, err, c.reason)
		}
	}
}

// TestSampleHeadersOutOfRange: a header running past the sample data is
// clamped, counted and reported in words.
func TestSampleHeadersOutOfRange(t *testing.T) {
	sf, err := ParseSoundFont("cut.sf2", withSampleRange(t, fixtureSF2(), 0, fixLen+46+5000))
	if err != nil {
		t.Fatal(err)
	}
	if sf.Unplayable != 1 || !strings.Contains(sf.Warning, "1 of 1 sample headers point outside the 2046 sample points") {
		t.Errorf("unplayable %d, warning %q", sf.Unplayable, sf.Warning)
	}
	path := filepath.Join(t.TempDir(), "cut.sf2")
	os.WriteFile(path, withSampleRange(t, fixtureSF2(), 0, fixLen+46+5000), 0o644)
	if r, warn, err := New(path, false, Options{}); err != nil || r == nil || warn == nil || !strings.Contains(warn.Error(), "cut.sf2") {
		t.Errorf("New: warn %v, err %v", warn, err)
	}
}

// withSampleRange rewrites the start and end of the fixture's one sample
// header.
func withSampleRange(t *testing.T, data []byte, start, end uint32) []byte {
	t.Helper()
	data = bytes.Clone(data)
	i := bytes.Index(data, []byte("sine440"))
	if i < 0 {
		t.Fatal("no sample header in the fixture")
	}
	binary.LittleEndian.PutUint32(data[i+20:], start)
	binary.LittleEndian.PutUint32(data[i+24:], end)
	return data
}

func pop909(t testing.TB) *midi.Score {
	p := filepath.Join(corpus.Path(t, corpus.POP909), "001", "001.mid")
	s, err := midi.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPOP909Levels(t *testing.T) {
	s := pop909(t)
	rs := []namedRenderer{pianos[1], pianos[2],
		{"TimGM6mb+fx", func(t *testing.T) Renderer {
			return NewSoundFontRenderer(timFont(t), Options{Reverb: true, Chorus: true, SampleRate: 48000})
		}}}
	for _, nr := range rs {
		t.Run(nr.name, func(t *testing.T) {
			p := render(t, nr.r(t), s)
			peak, rms := p.Peak(), p.RMS()
			knee := 0
			for _, v := range p.Samples {
				if math.Abs(float64(v)) > 0.75 {
					knee++
				}
			}
			t.Logf("%.1f s, peak %.3f, rms %.4f, %d samples in the limiter knee", p.Seconds(), peak, rms, knee)
			if peak > 1 || rms < 0.02 || rms > 0.3 {
				t.Errorf("peak %.3f (want ≤ 1), rms %.4f (want 0.02…0.3)", peak, rms)
			}
			if float64(knee) > 0.001*float64(len(p.Samples)) {
				t.Errorf("%d of %d samples limited: the mix is too hot", knee, len(p.Samples))
			}
			last := 0.0
			for _, tr := range s.Tracks {
				for _, n := range tr.Notes {
					last = max(last, n.Start+n.Duration)
				}
			}
			if d := p.Seconds() - last; d < 0 || d > MaxTail+0.1 {
				t.Errorf("rendered %.2f s; the last note ends at %.2f s", p.Seconds(), last)
			}
		})
	}
}

// BenchmarkRenderPOP909 renders POP909 song 001; x_realtime is audio
// seconds per CPU second (run with -cpu 1 for the one-core floor).
func BenchmarkRenderPOP909(b *testing.B) {
	s := pop909(b)
	for _, nr := range []struct {
		name string
		r    func() Renderer
	}{
		{"TimGM6mb", func() Renderer { return NewSoundFontRenderer(timFont(b), Options{}) }},
		{"TimGM6mb-fx", func() Renderer { return NewSoundFontRenderer(timFont(b), Options{Reverb: true, Chorus: true}) }},
		{"builtin", func() Renderer { return NewBuiltinRenderer(Options{}) }},
	} {
		b.Run(nr.name, func(b *testing.B) {
			r := nr.r()
			var sec float64
			for b.Loop() {
				p, err := r.Render(context.Background(), s)
				if err != nil {
					b.Fatal(err)
				}
				sec = p.Seconds()
			}
			b.ReportMetric(sec*float64(b.N)/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

func FuzzParseSF2(f *testing.F) {
	good := fixtureSF2()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:200])
	f.Add([]byte("RIFF\x00\x00\x00\x00sfbk"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzbudget.Check(t, len(data), func() {
			sf, err := ParseSoundFont("fuzz.sf2", data)
			if err != nil {
				return
			}
			// Whatever parses must play without panicking.
			s := NewSoundFontSynth(sf, Options{MaxVoices: 8})
			for _, p := range sf.Presets[:min(len(sf.Presets), 4)] {
				s.Program(0, p.Program, p.Bank == 128)
				s.NoteOn(0, 60, 100)
				s.NoteOn(0, 100, 20)
			}
			buf := make([]float32, 2*256)
			s.Process(buf)
			s.Control(0, 123, 0)
			s.Process(buf)
		})
	})
}

// TestOpenMSXLevels: a dense General MIDI arrangement with drums stays
// mostly below the limiter's knee with both synthesizers.
func TestOpenMSXLevels(t *testing.T) {
	files := corpus.MIDIFiles(t, corpus.OpenMSX)
	s, err := midi.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, nr := range pianos[1:] {
		t.Run(nr.name, func(t *testing.T) {
			p := render(t, nr.r(t), s)
			knee := 0
			for _, v := range p.Samples {
				if math.Abs(float64(v)) > 0.75 {
					knee++
				}
			}
			t.Logf("%s: peak %.3f, rms %.4f, %d samples in the knee", filepath.Base(files[0]), p.Peak(), p.RMS(), knee)
			if p.Peak() > 1 || p.RMS() < 0.02 || p.RMS() > 0.3 || float64(knee) > 0.005*float64(len(p.Samples)) {
				t.Errorf("peak %.3f, rms %.4f, %d of %d samples limited", p.Peak(), p.RMS(), knee, len(p.Samples))
			}
		})
	}
}
