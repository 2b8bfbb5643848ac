package app

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// The embedded model loads and matches its vocabulary.
func TestDefaultModelLoads(t *testing.T) {
	m, err := loadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Net.Config.VocabSize != m.Vocab.Size() || m.Net.Config.TrainContext <= 0 {
		t.Fatalf("config %+v, vocabulary %d", m.Net.Config, m.Vocab.Size())
	}
	if d, err := DefaultModel(); err != nil || d != mustDefault(t) {
		t.Fatalf("DefaultModel is not shared: %v", err)
	}
}

func mustDefault(t *testing.T) *Model {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func BenchmarkDefaultModelLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, err := loadEmbedded()
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}

// What the prompt forces is what the piece has, whatever the weights: the
// grammar pins the first tempo and meter to the request, allows only the
// requested programs, and the piece has exactly the requested bars, also
// when it is longer than the model's window (the prefix stays pinned). The
// MIDI file written parses back with every note.
func TestGenerateFromPromptForcesAttributes(t *testing.T) {
	m := mustDefault(t)
	cases := []struct {
		prompt string
		bars   int
	}{
		{"A slow waltz in F major for string quartet", 4},
		{"An energetic rock tune in E minor with electric guitar, bass and drums at 140 bpm", 3},
		{"A slip jig in 9/8 in E minor for flute", 2},
		{"A march in B flat major for brass band at 112 bpm", 40},
	}
	for i, c := range cases {
		r, err := GenerateFromPrompt(context.Background(), m, PromptRequest{Prompt: c.prompt, Bars: c.bars, Seed: uint64(i)})
		if err != nil {
			t.Fatalf("%q: %v", c.prompt, err)
		}
		req, mt := r.Requested, r.Metrics
		if req.TempoBPM > 0 && eval.TempoBin(mt.TempoBPM) != eval.TempoBin(req.TempoBPM) {
			t.Errorf("%q: tempo %.1f, asked %.1f", c.prompt, mt.TempoBPM, req.TempoBPM)
		}
		if req.MeterNum > 0 && (mt.MeterNum != req.MeterNum || mt.MeterDen != req.MeterDen) {
			t.Errorf("%q: meter %d/%d, asked %d/%d", c.prompt, mt.MeterNum, mt.MeterDen, req.MeterNum, req.MeterDen)
		}
		for _, p := range mt.Programs {
			if !slices.Contains(req.Programs, p) {
				t.Errorf("%q: plays program %d, asked %v", c.prompt, p, req.Programs)
			}
		}
		if mt.HasDrums && (req.Drums == nil || !*req.Drums) {
			t.Errorf("%q: drums not asked for", c.prompt)
		}
		if mt.Bars != float64(c.bars) {
			t.Errorf("%q: %.2f bars, asked %d", c.prompt, mt.Bars, c.bars)
		}
		var buf bytes.Buffer
		if err := r.Score.Write(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := midi.Parse("gen.mid", buf.Bytes())
		if err != nil || back.NoteCount() != r.Score.NoteCount() {
			t.Fatalf("%q: written MIDI reads back with error %v", c.prompt, err)
		}
	}
}

// The suite has at least 100 prompts and between them asks for every key,
// the MidiCaps tempo bins, several meters and many instrument families.
func TestPromptSuiteCoverage(t *testing.T) {
	prompts, err := ReadSuite(filepath.Join("..", DefaultSuite))
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) < 100 {
		t.Fatalf("%d prompts, want ≥ 100", len(prompts))
	}
	v := token.DefaultVocab()
	keys, bins, meters, fams := map[int]bool{}, map[int]bool{}, map[string]bool{}, map[int]bool{}
	drums := 0
	for _, p := range prompts {
		a := finishRequest(Understand(UnderstandRequest{Prompt: p}, v).Named, 0)
		if a.KeyTonic >= 0 {
			keys[token.KeyIndex(a.KeyTonic, a.KeyMinor)] = true
		}
		if a.TempoBPM > 0 {
			bins[eval.TempoBin(a.TempoBPM)] = true
		}
		if a.MeterNum > 0 {
			meters[token.Meter{Num: a.MeterNum, Den: a.MeterDen}.String()] = true
		}
		for _, pr := range a.Programs {
			fams[pr/8] = true
		}
		if a.Drums != nil && *a.Drums {
			drums++
		}
	}
	if len(keys) != 24 || len(bins) < 8 || len(meters) < 8 || len(fams) < 14 || drums < 10 {
		t.Fatalf("suite covers %d keys, %d tempo bins, %d meters %v, %d families, %d with drums", len(keys), len(bins), len(meters), meters, len(fams), drums)
	}
}

// TestCandidatesKeepTheBestAndStayDeterministic: the first candidate is the
// single sample; when it meets every requested attribute no other is drawn;
// when it misses one (found by trying seeds: a single sample keeps the key
// about 43% of the time), more candidates are drawn until one meets them all
// or four were tried, the kept one never meets fewer, and the same request
// gives the same piece.
func TestCandidatesKeepTheBestAndStayDeterministic(t *testing.T) {
	m := mustDefault(t)
	ctx := context.Background()
	// A prompt the single sample meets for some seeds and not others (the
	// key decides), with the embedded model: seeds 1–6 of one sample give
	// miss, hit, miss, hit, hit, miss (2026-11-25).
	const prompt = "a waltz in G major for piano, 8 bars"
	var hit, miss bool
	for seed := uint64(1); seed <= 20 && !(hit && miss); seed++ {
		req := PromptRequest{Prompt: prompt, Seed: seed, KeyBias: DefaultKeyBias, Candidates: 1}
		one, err := GenerateFromPrompt(ctx, m, req)
		if err != nil {
			t.Fatal(err)
		}
		req.Candidates = 4
		four, err := GenerateFromPrompt(ctx, m, req)
		if err != nil {
			t.Fatal(err)
		}
		if one.Tried != 1 || four.Tried < 1 || four.Tried > 4 {
			t.Fatalf("seed %d: tried %d and %d candidates", seed, one.Tried, four.Tried)
		}
		if one.Adherence.Met == one.Adherence.Checked {
			hit = true
			if four.Tried != 1 || !slices.Equal(four.Tokens, one.Tokens) {
				t.Errorf("seed %d: the first sample met everything, yet %d candidates were tried", seed, four.Tried)
			}
			continue
		}
		miss = true
		if four.Adherence.Met < one.Adherence.Met {
			t.Errorf("seed %d: 4 candidates meet %d attributes, one sample %d", seed, four.Adherence.Met, one.Adherence.Met)
		}
		if four.Adherence.Met < four.Adherence.Checked && four.Tried != 4 {
			t.Errorf("seed %d: stopped after %d candidates without meeting every attribute", seed, four.Tried)
		}
		if four.Tried > 1 && four.Sampled <= one.New {
			t.Errorf("seed %d: %d candidates but only %d tokens sampled in all", seed, four.Tried, four.Sampled)
		}
		again, err := GenerateFromPrompt(ctx, m, req)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(four.Tokens, again.Tokens) {
			t.Errorf("seed %d: same request, different pieces", seed)
		}
		t.Logf("seed %d: one sample meets %d/%d (key %s), best of %d meets %d/%d (key %s)", seed, one.Adherence.Met, one.Adherence.Checked,
			one.Measured.Key, four.Tried, four.Adherence.Met, four.Adherence.Checked, four.Measured.Key)
	}
	if !hit || !miss {
		t.Fatalf("in 20 seeds the single sample never (hit %v) or always (miss %v) met every attribute", hit, miss)
	}
}
