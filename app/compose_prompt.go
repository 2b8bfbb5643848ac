package app

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/decoding"
	"github.com/amtstudio/amt/engine/eval"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/text"
	"github.com/amtstudio/amt/engine/token"
)

// DefaultBars is the length of a generated piece when neither the prompt
// nor the caller names one.
const DefaultBars = 16

// PromptRequest is one prompt-driven generation (the path of `amt generate
// "PROMPT"`, the prompt suite and the Compose screen).
type PromptRequest struct {
	Prompt string
	// Attrs, when set, replaces the attributes read from the prompt.
	Attrs *token.Attributes
	// Bars, when > 0, overrides the prompt's length; else the prompt's, else
	// DefaultBars. The piece has exactly this many bars.
	Bars        int
	Seed        uint64
	Temperature float64 // 0: DefaultSampling's
	TopK        int
	TopP        float64 // 0: DefaultSampling's
	MaxTokens   int     // 0: enough for the bars
	// KeyBias lowers the logits of pitches outside the requested key's
	// scale by this much (decoding.KeyBias); 0: the model alone.
	KeyBias float32
	// RhythmBias raises the logits of the positions where the previous
	// bar started pitched notes (decoding.RhythmBias; 0: none).
	RhythmBias float32
	// Candidates is how many pieces to sample at most (0 or 1: one); the
	// one that meets the most requested attributes (eval.Adhere) is kept,
	// the earliest on a tie, and sampling stops at the first that meets
	// them all. Candidate i samples with seed Seed + i·0x9E3779B97F4A7C15
	// and key bias KeyBias·(1 + i/2) (candidateRequest), so the first is the
	// single-sample piece and the result still depends only on the request. Candidates are sampled side by side on the
	// machine's cores (compose_lanes.go); the result is the same as one by one.
	Candidates int
	// Form is the form of the piece (decoding.Forms; "" or "auto": by
	// genre and length, decoding.PlanForm): later sections restate
	// earlier ones.
	Form string
	// Levers are the decoding levers of issue 24 (compose_levers.go; 0:
	// DefaultLevers).
	Levers Levers
	// Critic judges candidates under LeverCritic (nil: DefaultCritic).
	Critic *Critic
	// OnToken (may be nil) sees the count of tokens sampled so far (over
	// all candidates).
	OnToken func(n int)
	// Choices replace the mood, ensemble or dynamics the prompt's words
	// imply (the Compose screen's chips; compose_understand.go).
	Choices text.Choices

	// understood is the prompt as read for Seed, when the caller read it
	// already (Compose: for its progress total); nil: GenerateFromPrompt
	// reads it.
	understood *Understanding
	register   [2]int // pitches the pitched parts are pulled into (Understand); 0 0: none
	// seedMix is what the words mean, hashed (text.Resolution.SeedMix):
	// each candidate samples with its seed mixed with it.
	seedMix uint64
}

// DefaultCandidates is how many pieces the prompt path samples at most to
// find one that meets every requested attribute (PromptRequest.Candidates):
// six since compact decoding made each one about 4× cheaper.
const DefaultCandidates = 6

// Forms are the form names a request may give.
var Forms = decoding.Forms

// PromptResult is a generated piece with what was asked and what it has.
type PromptResult struct {
	Score     *midi.Score
	Requested token.Attributes // forced (instruments mapped to trained programs)
	Decoded   token.Attributes // the sequence's prefix as sampled
	Measured  MeasuredAttributes
	Metrics   eval.Metrics
	Adherence eval.Adherence
	Tokens    []uint16
	New       int     // tokens sampled for this piece
	Sampled   int     // tokens sampled over the candidates tried (those dropped unfinished in a wave not counted)
	Tried     int     // candidates sampled (PromptRequest.Candidates)
	Seconds   float64 // wall time of the request: every candidate sampled, decoded and judged (side by side, compose_lanes.go)
	Form      decoding.Plan
	Restated  int    // tokens restated by the form
	Levers    Levers // the decoding levers in force (compose_levers.go; resolved, never 0 for the defaults)
	// Understood is what the prompt was read as: explicit and implied
	// attributes with their sources, the words not used (compose_understand.go).
	Understood *Understanding
}

// MeasuredAttributes are the attributes as measured from the generated
// score (what evaluation checks), in the shape of the request.
type MeasuredAttributes struct {
	TempoBPM float64 `json:"tempo_bpm"`
	Key      string  `json:"key"`
	KeyTonic int     `json:"key_tonic"`
	KeyMinor bool    `json:"key_minor"`
	MeterNum int     `json:"meter_num"`
	MeterDen int     `json:"meter_den"`
	Programs []int   `json:"programs"`
	Drums    bool    `json:"drums"`
	Bars     float64 `json:"bars"`
}

// finishRequest finishes the attributes a piece is asked with: requested
// programs mapped onto programs the model was trained on
// (decoding.NearestPrograms), style left to the model, and the length
// (bars > 0 overrides; default DefaultBars).
func finishRequest(a token.Attributes, bars int) token.Attributes {
	if a.Programs != nil {
		a.Programs = decoding.NearestPrograms(a.Programs)
		if len(a.Programs) == 0 && (a.Drums == nil || !*a.Drums) {
			a.Programs = nil // an empty list names nothing: left to the model
		}
	}
	a.Style = -1
	if bars > 0 {
		a.Bars = bars
	}
	if a.Bars <= 0 {
		a.Bars = DefaultBars
	}
	return a
}

// GenerateFromPrompt samples a piece that follows the prompt: the
// attributes it names are forced in the prefix (the model samples or skips
// the others), the grammar allows only the requested programs, the piece
// has exactly the requested bars, and when the model's window fills the
// prefix stays pinned (decoding.Refill). The caller serialises calls on
// one model.
func GenerateFromPrompt(ctx context.Context, m *Model, req PromptRequest) (*PromptResult, error) {
	// The request, read once for the seed (compose_understand.go): the limits, the
	// candidates and the result share the one understanding.
	// The limits are checked before the model is touched (a request the
	// model cannot serve is refused even without one).
	u := req.understood
	if u == nil {
		var v *token.Vocab // nil: the default vocabulary's density bins
		if m != nil {
			v = m.Vocab
		}
		read := Understand(UnderstandRequest{Prompt: req.Prompt, Seed: req.Seed, Bars: req.Bars, Attrs: req.Attrs, Choices: req.Choices}, v)
		u = &read
	}
	if err := checkPromptRequest(req, u); err != nil { // app/limits.go
		return nil, err
	}
	if m == nil {
		return nil, ErrNoModel
	}
	req = req.resolved(u)
	req.Levers = m.levers(req.Levers) // a fine-tuned model's own default (compose.go)
	// A form that does not fit the piece's length (--form AABA with 4
	// bars) is the request's mistake: said before any sampling.
	if req.Form != "" && req.Form != "auto" {
		if _, err := decoding.PlanForm(req.Form, "", finishRequest(*req.Attrs, req.Bars).Bars); err != nil {
			return nil, fmt.Errorf("%w: --form %s: %v", ErrUsage, req.Form, err)
		}
	}
	n := max(req.Candidates, 1)
	// Under the critic at least CriticCandidates are sampled, and a tie on
	// the attributes met goes to the one it finds most real.
	critic, minTried := req.Critic, 0
	if req.Levers.Resolve()&LeverCritic != 0 && n > 1 {
		if critic == nil {
			var err error
			if critic, err = DefaultCritic(); err != nil {
				return nil, err
			}
		}
		minTried = min(CriticCandidates, n)
	}
	lanes := m.lanes(n)
	var progress sync.Mutex
	sampled := 0
	start := time.Now()
	// Candidates run on free lanes in index order (compose_lanes.go). Once
	// candidate j meets every attribute, no candidate after j can be kept:
	// those running are cancelled and none is started. The pieces before
	// j run to the end, and the result is judged in order below, as one by
	// one.
	res := make([]*PromptResult, n)
	errs := make([]error, n)
	cancels := make([]context.CancelFunc, n)
	type finish struct{ i, lane int }
	finished := make(chan finish, n)
	free := make([]int, len(lanes))
	for i := range free {
		free[i] = len(lanes) - 1 - i // lane 0 first
	}
	stop, next, running := n, 0, 0
	for {
		for len(free) > 0 && next < stop {
			i, lane := next, free[len(free)-1]
			free = free[:len(free)-1]
			r := candidateRequest(req, i)
			if req.OnToken != nil {
				r.OnToken = func(int) {
					progress.Lock()
					sampled++
					req.OnToken(sampled)
					progress.Unlock()
				}
			}
			cctx, cancel := context.WithCancel(ctx)
			cancels[i] = cancel
			go func() {
				res[i], errs[i] = generateOne(cctx, lanes[lane], r)
				finished <- finish{i, lane}
			}()
			next++
			running++
		}
		if running == 0 {
			break
		}
		f := <-finished
		running--
		free = append(free, f.lane)
		cancels[f.i]()
		if f.i < stop && (errs[f.i] != nil || res[f.i].Adherence.Met == res[f.i].Adherence.Checked) {
			stop = f.i + 1
			if errs[f.i] == nil {
				stop = max(stop, minTried)
			}
			for k := stop; k < next; k++ {
				cancels[k]()
			}
		}
	}
	var best *PromptResult
	bestScore := math.Inf(1)
	tokens := 0
	for i := range stop {
		if errs[i] != nil {
			return nil, errs[i]
		}
		tokens += res[i].New
		score := math.Inf(1)
		if critic != nil {
			if f, err := eval.PieceFeatures(res[i].Score, res[i].Requested.Bars); err == nil {
				score = critic.Score(f)
			}
		}
		if best == nil || res[i].Adherence.Met > best.Adherence.Met || res[i].Adherence.Met == best.Adherence.Met && score < bestScore {
			best, bestScore = res[i], score
		}
		best.Tried = i + 1
		if best.Adherence.Met == best.Adherence.Checked && i+1 >= minTried {
			break
		}
	}
	// Dynamics reach the notes by shaping the velocities the model wrote
	// (text.ShapeVelocities keeps their accents; meaning.go says why not
	// an attribute).
	if u.Velocity > 0 {
		text.ShapeVelocities(best.Score, u.Velocity)
		if err := best.measure(); err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
	}
	best.Understood = u
	best.Seconds, best.Sampled = time.Since(start).Seconds(), tokens
	return best, nil
}

// candidateRequest is candidate i of req: seed Seed + i·0x9E3779B97F4A7C15
// and a key bias that grows with i, KeyBias·(1 + i/2) (0.2, 0.3, … 0.7 at
// the default), so the first candidates are the model's own with a light
// push, and a request it keeps missing (mostly writing the relative key) is
// pushed harder only in the later ones. On the suite (docs/MODEL.md,
// 2026-11-26, fourth session), against one bias for all: CK 80.7% → 87.1%,
// pitch-class entropy −7.9% → −8.3%, last-bar pile-up 4.3% → 2.1%, 7% fewer
// tokens sampled. KeyBias 0 (the model alone) stays 0.
func candidateRequest(req PromptRequest, i int) PromptRequest {
	r := req
	r.Seed = req.Seed + uint64(i)*0x9E3779B97F4A7C15
	r.KeyBias = req.KeyBias * (1 + float32(i)/2)
	return r
}

// resolved is req as its candidates sample it, after its prompt was read
// as u: the attributes forced, explicit and implied, the meaning's seed mix
// and the register.
func (req PromptRequest) resolved(u *Understanding) PromptRequest {
	fa := u.Attrs
	req.Attrs = &fa
	req.seedMix = u.SampleSeed ^ req.Seed
	req.register = u.RegisterRange
	return req
}

// generateOne samples one piece for GenerateFromPrompt.
func generateOne(ctx context.Context, m *Model, req PromptRequest) (*PromptResult, error) {
	v := m.Vocab
	a := finishRequest(*req.Attrs, req.Bars) // understood by GenerateFromPrompt
	// The model is asked in its key frame (compose_keyframe.go); what it writes is
	// moved back to the request before decoding.
	fa, shift := m.toFrame(a, req.Seed)
	levers := req.Levers.Resolve()
	d, err := decoding.NewPiece(v, decoding.Options{Request: a, Prefix: fa, Shift: shift, Levers: levers, Seed: req.Seed,
		Form: req.Form, KeyBias: req.KeyBias, RhythmBias: req.RhythmBias, Register: req.register})
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	temp, topP := req.Temperature, req.TopP
	if temp == 0 {
		temp = DefaultTemperature
	}
	if topP == 0 {
		topP = DefaultTopP
	}
	maxTok := req.MaxTokens
	if maxTok <= 0 {
		maxTok = promptMaxTokens(a.Bars)
	}
	s, release := m.newSampler()
	defer release()
	opts := gpt.SampleOptions{MaxTokens: maxTok, Temperature: temp, TopK: req.TopK, TopP: topP, Seed: req.Seed ^ req.seedMix,
		EOS: int(v.EOS), Constraint: d.Form, Force: d.Form.Force, Adjust: d.Bars.Adjust, Mask: d.Mask, Plain: d.Plain,
		Refill: func(hist []uint16) []uint16 { return decoding.RefillBars(v, hist, s.W/2, a.Bars) }}
	if req.OnToken != nil {
		n := 0
		opts.OnToken = func(uint16) error { n++; req.OnToken(n); return nil }
	}
	prompt := []uint16{v.BOS}
	start := time.Now()
	toks, err := s.Generate(ctx, prompt, opts)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	secs := time.Since(start).Seconds()
	all := moveTokens(v, append(append([]uint16(nil), prompt...), toks...), shift)
	sc, dec, err := v.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("generate: decode: %w", err)
	}
	clipToBars(sc, a.Bars)
	r := &PromptResult{Score: sc, Requested: a, Decoded: dec, Tokens: all, New: len(toks), Seconds: secs, Form: d.Plan, Restated: d.Form.Forced, Levers: levers | LeversSet}
	if err := r.measure(); err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	return r, nil
}

// measure fills Metrics, Adherence (to Requested) and Measured from Score.
func (r *PromptResult) measure() error {
	mt, err := eval.Measure(r.Score)
	if err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	r.Metrics = mt
	r.Adherence = eval.Adhere(r.Requested, &mt)
	r.Measured = MeasuredAttributes{TempoBPM: mt.TempoBPM, Key: mt.Key.String(), KeyTonic: mt.Key.Tonic, KeyMinor: mt.Key.Minor,
		MeterNum: mt.MeterNum, MeterDen: mt.MeterDen, Programs: append([]int{}, mt.Programs...), Drums: mt.HasDrums, Bars: mt.Bars}
	return nil
}

// PartsSummary says how the requested pitched instruments play, for a
// front end's report of a piece: "parts 3 of 3", or "parts 2 of 3 (Cello
// in 6% of the bars)" naming those without a real part (engine/eval,
// parts.go); "" when the request named no pitched instrument.
func PartsSummary(ad *Adherence) string {
	if ad == nil || ad.Parts == nil {
		return ""
	}
	ps := ad.Parts
	var miss []string
	for _, e := range ps.Each {
		if !e.Real {
			miss = append(miss, fmt.Sprintf("%s in %.0f%% of the bars", midi.ProgramName(e.Program), 100*float64(e.Bars)))
		}
	}
	out := fmt.Sprintf("parts %d of %d", ps.Real, ps.Requested)
	if len(miss) > 0 {
		out += " (" + strings.Join(miss, ", ") + ")"
	}
	return out
}

// clipToBars ends a decoded score at the end of bar n: notes still sounding
// there are cut, so the piece is exactly n bars long (a generated last bar
// may hold notes longer than what is left of it).
func clipToBars(s *midi.Score, n int) {
	if n <= 0 || s.TicksPerBeat <= 0 {
		return
	}
	end := int64(0)
	num, den, mi := 4, 4, 0
	for b := 0; b < n; b++ {
		for mi < len(s.Meters) && s.Meters[mi].Tick <= end {
			if s.Meters[mi].Num > 0 && s.Meters[mi].Den > 0 {
				num, den = s.Meters[mi].Num, s.Meters[mi].Den
			}
			mi++
		}
		end += int64(s.TicksPerBeat) * 4 * int64(num) / int64(den)
	}
	for ti := range s.Tracks {
		notes := s.Tracks[ti].Notes[:0]
		for _, nt := range s.Tracks[ti].Notes {
			if nt.Tick >= end {
				continue
			}
			if nt.Tick+nt.Dur > end {
				nt.Dur = end - nt.Tick
			}
			notes = append(notes, nt)
		}
		s.Tracks[ti].Notes = notes
	}
	// A sequence cut by the token limit ends before bar n: its end stays
	// where the decoded bars end, so the length check sees the shortfall.
	s.EndTick = min(s.EndTick, end)
	s.ComputeSeconds()
}
