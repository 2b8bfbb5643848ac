package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/nn"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/storage"
)

// ErrNoModel is returned when no model was chosen and the binary embeds no
// default model.
var ErrNoModel = errors.New("no default model in this build: train one in Training or choose a model folder")

// Model is a loaded model folder: the network on a backend (the CPU's
// unless moved with OnDevice) and its vocabulary.
type Model struct {
	Dir   string
	Net   *gpt.Model
	Vocab *token.Vocab
	be    nn.Backend
	// fineTuned: the folder holds a finished fine-tune (lineage.json), which
	// decodes with FineTuneLevers unless a request names its levers.
	fineTuned bool
	// Exact turns compact decoding off: samplers step with the float32
	// weights and cache instead of gpt.Compact's int8 weights and
	// half-precision cache (3× slower or more on a CPU; docs/MODEL.md,
	// decoding item 7). Models on a GPU, and CPUs without AVX2, always step
	// in float32.
	Exact bool
	ck    *compactCache // shared with the model's lanes

	samplers sync.Pool // *gpt.Sampler, kept between requests (newSampler)
}

type compactCache struct {
	once sync.Once
	k    *gpt.Compact
}

var compactMu sync.Mutex

// compactWeights is the compact snapshot of m's weights, made once.
func (m *Model) compactWeights() *gpt.Compact {
	compactMu.Lock()
	if m.ck == nil {
		m.ck = &compactCache{}
	}
	c := m.ck
	compactMu.Unlock()
	c.once.Do(func() { c.k = m.Net.Compact() })
	return c.k
}

// newSampler is a sampler with the model's training window: compact on a
// CPU backend with AVX2 unless m.Exact. Call release when done with it: samplers are
// kept for the next request (each holds a float32 activation set for its
// prefills, about 140 MB for the small preset at 1,024 tokens, which took 6%
// of a piece's time to allocate and clear anew).
func (m *Model) newSampler() (s *gpt.Sampler, release func()) {
	_, onCPU := m.be.(*cpu.Backend)
	// without AVX2 the portable kernels are slower than float32 OpenBLAS
	compact := onCPU && !m.Exact && cpu.CompactSIMD() >= 1
	for {
		v := m.samplers.Get()
		if v == nil {
			break
		}
		if x := v.(*gpt.Sampler); x.Compact() == compact {
			s = x
			break
		}
	}
	if s == nil {
		if compact {
			s = m.Net.NewCompactSampler(0, m.compactWeights())
		} else {
			s = m.Net.NewSampler(0)
		}
	}
	return s, func() { m.samplers.Put(s) }
}

// LoadModel reads a model folder (config.json, model.safetensors,
// vocab.json) onto a CPU backend.
func LoadModel(dir string) (*Model, error) {
	v, err := token.LoadVocab(filepath.Join(dir, gpt.VocabFile))
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	if c, err := gpt.ReadConfig(filepath.Join(dir, gpt.ConfigFile)); err == nil {
		// The weights are read whole, then copied into the model.
		w := c.TrainContext
		if w <= 0 {
			w = c.NPositions
		}
		if err := checkMemory("model "+dir, c.InferenceBytes(w)+4*int64(c.NumParams())); err != nil {
			return nil, err
		}
	}
	be := cpu.New()
	m, err := gpt.Load(be, dir)
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	if m.Config.VocabSize != v.Size() {
		be.Close()
		return nil, fmt.Errorf("model %s: model vocabulary %d differs from vocab.json's %d", dir, m.Config.VocabSize, v.Size())
	}
	return &Model{Dir: dir, Net: m, Vocab: v, be: be, fineTuned: IsFineTune(dir)}, nil
}

// levers resolves a request's decoding levers against the model: unset,
// a finished fine-tune decodes with FineTuneLevers (the default levers
// steer toward the default model's corpora: app/train_finetune.go says
// what they cost a tuned model), other models with DefaultLevers.
func (m *Model) levers(l Levers) Levers {
	if l&LeversSet != 0 || m == nil || !m.fineTuned {
		return l
	}
	return FineTuneLevers | LeversSet
}

// Close frees the backend.
func (m *Model) Close() {
	if m != nil && m.be != nil {
		m.closeLanes()
		m.be.Close()
		m.be = nil
	}
}

// SampleSettings control sampling.
type SampleSettings struct {
	MaxTokens   int     // new tokens at most; 0: 1024
	Temperature float64 // 0: greedy
	TopK        int     // 0: all
	TopP        float64 // 1 (or 0): off
	Seed        uint64
}

// Generated is what GenerateScore returns.
type Generated struct {
	Score   *midi.Score
	Attrs   token.Attributes // as decoded from the sequence's prefix
	Tokens  []uint16         // the whole sequence, prompt included
	New     int              // tokens sampled
	Seconds float64
}

// GenerateScore samples one piece from m under the token grammar. With
// force nil the prefix is BOS SEP (the model-only form of `amt generate`;
// BOS alone, the prefix left to the model, in a vocabulary whose
// instruments are required);
// otherwise the attributes force sets are mandatory in the prefix and the
// unset ones are sampled by the model. onToken (may be nil) sees the count
// of tokens sampled so far.
func GenerateScore(ctx context.Context, m *Model, force *token.Attributes, s SampleSettings, onToken func(n int)) (*Generated, error) {
	v := m.Vocab
	g := v.NewGrammar()
	var prompt []uint16
	switch {
	case force == nil && !v.Config().InstrumentsRequired:
		prompt = v.Prefix(token.Unspecified())
	case force == nil:
		// A v2 vocabulary always lists the instruments: the model samples
		// the whole prefix.
		prompt = []uint16{v.BOS}
	default:
		prompt = []uint16{v.BOS}
	}
	fa, shift := m.toFrame(token.Unspecified(), s.Seed)
	if force != nil {
		fa, shift = m.toFrame(*force, s.Seed)
		g.Force(fa)
	}
	if s.MaxTokens <= 0 {
		s.MaxTokens = 1024
	}
	opts := gpt.SampleOptions{MaxTokens: s.MaxTokens, Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP,
		Seed: s.Seed, EOS: int(v.EOS), Constraint: g}
	if onToken != nil {
		n := 0
		opts.OnToken = func(uint16) error { n++; onToken(n); return nil }
	}
	start := time.Now()
	smp, release := m.newSampler()
	defer release()
	toks, err := smp.Generate(ctx, prompt, opts)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	secs := time.Since(start).Seconds()
	all := moveTokens(v, append(append([]uint16(nil), prompt...), toks...), shift)
	sc, attrs, err := v.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("generate: decode: %w", err)
	}
	return &Generated{Score: sc, Attrs: attrs, Tokens: all, New: len(toks), Seconds: secs}, nil
}

// ComposeRequest is one generation from the Compose screen.
type ComposeRequest struct {
	Project string // "" : DefaultProject
	Prompt  string
	// Attrs, when set, replaces the attributes read from the prompt (the
	// screen's chips after the user's edits); unset ones are left to the
	// model, and Bars 0 means DefaultBars.
	Attrs *token.Attributes
	// ModelDir is a model folder; "" means the embedded default model
	// (DefaultModel).
	ModelDir string
	// Form is the piece's form (Forms; "" : auto, by genre and length).
	Form string
	// Choices replace the mood, ensemble or dynamics the prompt's words
	// imply (the screen's chips); unset attributes in Attrs are filled from
	// the words for the seed (Understand).
	Choices Choices
	// SampleSettings: MaxTokens 0 is enough for the bars, Temperature 0 is
	// greedy, TopP 0 is DefaultTopP.
	SampleSettings
	// Progress (may be nil) is called with tokens sampled and the most.
	Progress func(done, total int)
}

// ComposeResult is a stored generated piece with its evaluation.
type ComposeResult struct {
	Piece     PieceRow
	Score     *midi.Score
	Requested token.Attributes // what was forced
	Decoded   token.Attributes // what the piece's prefix says
	Tokens    int
	Seconds   float64
	Metrics   *eval.Metrics
	Adherence *eval.Adherence
}

// models caches loaded models by folder, so a second generation does not
// read the weights again.
var models struct {
	sync.Mutex
	m map[string]*Model
}

func cachedModel(dir string) (*Model, error) {
	models.Lock()
	defer models.Unlock()
	if m, ok := models.m[dir]; ok {
		return m, nil
	}
	m, err := LoadModel(dir)
	if err != nil {
		return nil, err
	}
	if models.m == nil {
		models.m = map[string]*Model{}
	}
	models.m[dir] = m
	return m, nil
}

// modelAt is the model of a folder, cached ("" : the embedded default).
func modelAt(dir string) (*Model, error) {
	if dir == "" {
		return DefaultModel()
	}
	return cachedModel(dir)
}

// ModelChoice is one entry of Compose's Model list.
type ModelChoice struct {
	Label string
	Dir   string // absolute; "" : the embedded default model
	RunID uint64 // the training run that wrote it (0: none)
	// Lineage of a finished fine-tune (base, dataset, steps, date).
	Lineage *Lineage
}

// ComposeModels lists the models of a project that Compose offers besides
// the default model, newest first: each finished fine-tune under its
// dataset's name, and the runs trained from random weights that have
// weights. A fine-tune that is still running, was stopped or failed is
// left out: its folder's model is a best-so-far, not the finished one.
func (s *Studio) ComposeModels(project string) ([]ModelChoice, error) {
	runs, err := s.TrainRuns(project)
	if err != nil {
		return nil, err
	}
	var out []ModelChoice
	for _, r := range runs {
		dir := s.Store.Abs(r.ModelDir)
		if r.ModelDir == "" || !HasModelWeights(dir) {
			continue
		}
		switch {
		case r.Lineage != nil && r.Status == storage.RunDone:
			out = append(out, ModelChoice{Label: FineTuneLabel(r.Lineage, r.ID), Dir: dir, RunID: r.ID, Lineage: r.Lineage})
		case isFineTuneRun(r):
			// unfinished fine-tune: not listed
		default:
			out = append(out, ModelChoice{Label: fmt.Sprintf("Training run %d (%s)", r.ID, r.Status), Dir: dir, RunID: r.ID})
		}
	}
	return out, nil
}

// isFineTuneRun reports whether a stored run starts from a trained model.
func isFineTuneRun(r storage.TrainRun) bool {
	var cfg TrainJobConfig
	return r.Lineage != nil || (json.Unmarshal(r.Config, &cfg) == nil && cfg.Spec.From != "")
}

// ForgetModel drops a cached model (after its folder was rewritten by
// training).
func ForgetModel(dir string) {
	models.Lock()
	defer models.Unlock()
	if m, ok := models.m[dir]; ok {
		m.Close()
		delete(models.m, dir)
	}
}

// Compose generates a piece from a prompt on the prompt path of `amt
// generate "PROMPT"` (GenerateFromPrompt: forced attributes, exact bars,
// pinned prefix), so the window and the command line make the same piece
// from the same prompt, model and seed; it stores the piece (MIDI file in
// the store's pieces folder and a Piece record) with its evaluation.
func (s *Studio) Compose(ctx context.Context, req ComposeRequest) (*ComposeResult, error) {
	m, gen, err := composeOne(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.storeGenerated(req.Project, req.Prompt, req.Seed, m, gen)
}

// composeOne samples the piece Compose stores (Variations keeps it
// unstored until the user keeps it).
func composeOne(ctx context.Context, req ComposeRequest) (*Model, *PromptResult, error) {
	m, err := modelAt(req.ModelDir)
	if err != nil {
		return nil, nil, err
	}
	preq := PromptRequest{Prompt: req.Prompt, Attrs: req.Attrs, Seed: req.Seed, Temperature: req.Temperature,
		TopK: req.TopK, TopP: req.TopP, MaxTokens: req.MaxTokens, KeyBias: DefaultKeyBias, RhythmBias: DefaultRhythmBias, Candidates: DefaultCandidates, Form: req.Form, Choices: req.Choices}
	if preq.Temperature == 0 {
		preq.Temperature = 1e-9 // greedy, as amt generate --temperature 0
	}
	if req.Progress != nil {
		u := Understand(UnderstandRequest{Prompt: req.Prompt, Seed: req.Seed, Attrs: req.Attrs, Choices: req.Choices}, m.Vocab)
		preq.understood = &u
		total := req.MaxTokens
		if total <= 0 {
			total = promptMaxTokens(u.Attrs.Bars)
		}
		total *= preq.Candidates // the count runs on over the candidates
		preq.OnToken = func(n int) { req.Progress(n, total) }
	}
	// The model's sampler is not safe for concurrent use: one generation
	// per model at a time.
	m.genMu().Lock()
	gen, err := GenerateFromPrompt(ctx, m, preq)
	m.genMu().Unlock()
	if err != nil {
		return nil, nil, err
	}
	return m, gen, nil
}

// storeGenerated stores a generated piece (MIDI file in the store's pieces
// folder and a Piece record) in project ("" : DefaultProject) and returns
// it with its evaluation.
func (s *Studio) storeGenerated(projectName, prompt string, seed uint64, m *Model, gen *PromptResult) (*ComposeResult, error) {
	project := projectName
	if project == "" {
		project = DefaultProject
	}
	var buf bytes.Buffer
	if err := gen.Score.Write(&buf); err != nil {
		return nil, fmt.Errorf("compose: write MIDI: %w", err)
	}
	pc := &storage.Piece{Prompt: prompt, Attrs: gen.Requested, Model: m.Dir, Seed: int64(seed), Form: gen.Form.Name}
	err := s.Store.Update(func(tx *bolt.Tx) error {
		p, err := storage.EnsureProject(tx, project)
		if err != nil {
			return err
		}
		pc.ProjectID = p.ID
		if err := storage.PutPiece(tx, pc); err != nil {
			return err
		}
		pc.File = fmt.Sprintf("%s/%06d.mid", storage.PiecesDir, pc.ID)
		h, err := storage.WriteFileAtomic(s.Store.Abs(pc.File), buf.Bytes())
		if err != nil {
			return err
		}
		pc.Hash = h
		return storage.PutPiece(tx, pc)
	})
	if err != nil {
		if pc.File != "" {
			os.Remove(s.Store.Abs(pc.File))
		}
		return nil, fmt.Errorf("compose: store piece: %w", err)
	}
	mt, ad := gen.Metrics, gen.Adherence
	return &ComposeResult{Piece: PieceRow{Piece: *pc, Abs: s.Store.Abs(pc.File)}, Score: gen.Score, Requested: gen.Requested,
		Decoded: gen.Decoded, Tokens: gen.New, Seconds: gen.Seconds, Metrics: &mt, Adherence: &ad}, nil
}

// EvaluatePiece measures one piece and scores its adherence to the
// requested attributes (both nil when it cannot be measured).
func EvaluatePiece(s *midi.Score, req token.Attributes) (*eval.Metrics, *eval.Adherence) {
	mt, err := eval.Measure(s)
	if err != nil {
		return nil, nil
	}
	ad := eval.Adhere(req, &mt)
	return &mt, &ad
}

// genLocks serialise sampling per model.
var genLocks sync.Map

func (m *Model) genMu() *sync.Mutex {
	l, _ := genLocks.LoadOrStore(m, new(sync.Mutex))
	return l.(*sync.Mutex)
}

// OpenPiece reads a stored piece's MIDI file.
func (s *Studio) OpenPiece(p PieceRow) (*midi.Score, error) {
	return midi.ReadFile(p.Abs)
}

// WriteRandomModel writes a randomly initialised model of a preset with
// the default vocabulary into dir: the state tests and `amt snapshot`
// build on, and a way to try the screens before any training.
func WriteRandomModel(dir, preset string, seed uint64) error {
	v := token.DefaultVocab()
	cfg, err := gpt.Preset(preset, v.Size())
	if err != nil {
		return err
	}
	cfg.BOS, cfg.EOS = int(v.BOS), int(v.EOS)
	be := cpu.New()
	defer be.Close()
	m, err := gpt.New(be, cfg)
	if err != nil {
		return err
	}
	m.Init(seed)
	if err := m.Save(dir, "F32"); err != nil {
		return err
	}
	return v.Save(filepath.Join(dir, gpt.VocabFile))
}

// promptMaxTokens is GenerateFromPrompt's token budget for a piece of bars
// bars when the request sets none (the progress bar's 100%); it mirrors
// compose_prompt.go and only scales the progress bar.
func promptMaxTokens(bars int) int { return min(max(1024, bars*200), 32768) }
