package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amtstudio/amt/engine/decoding"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
)

// Continuation and bar regeneration (issue 13): the user's music primes
// the model with its measured attributes as the prefix (tempo, key, meter,
// its instruments, LENGTH as the bars left), the last bars that fit in
// half the model's window as context (decoding.RefillBars), and the model
// writes on. The user's notes are never touched: new notes are mapped from
// the decoded window onto the file's own bar lines (midi.BarLines) and
// added to its tracks; regeneration removes only the notes that start in
// the bars it re-samples.

// ContinueRequest is the user's music and what to do with it.
type ContinueRequest struct {
	Project  string      // "" : DefaultProject
	ModelDir string      // "" : the embedded default model
	Score    *midi.Score // the user's music
	Source   string      // its file name, for errors and the stored piece
	Bars     int         // Continue: bars to add (1..MaxContinueBars)
	From, To int         // Regenerate: bars to re-sample, 1-based, inclusive
	Form     string      // unused here (Compose only)
	SampleSettings
	// Candidates: Regenerate samples this many (0: DefaultRegenerateCandidates)
	// and keeps the one under which the music after the range is most
	// likely.
	Candidates int
	Progress   func(done, total int)
}

const (
	// MaxContinueBars bounds one continuation.
	MaxContinueBars = 64
	// DefaultRegenerateCandidates: re-sampled ranges tried per request.
	DefaultRegenerateCandidates = 4
	// regenerateFollow: bars after the range whose likelihood scores a candidate.
	regenerateFollow = 4
)

// ErrNoMusic is returned for a file with no bars of notes to work from.
var ErrNoMusic = errors.New("no notes to continue from")

// errStop ends sampling at a bar line (Regenerate).
var errStop = errors.New("stop")

// primed is the user's music encoded for the model.
type primed struct {
	toks   []uint16 // BOS … body (EOS dropped)
	attrs  token.Attributes
	sep    int
	barAt  []int   // index in toks of each bar's Bar token
	starts []int64 // the file's bar lines, one more than bars
	shift  int     // toks were moved by −shift into the model's key frame (compose_keyframe.go)
}

// frame moves the music into m's key frame; what the model writes after it
// is moved back by p.shift.
func (p *primed) frame(m *Model) {
	p.shift = m.primeShift(p.attrs)
	p.toks = moveTokens(m.Vocab, p.toks, -p.shift)
}

func prime(v *token.Vocab, s *midi.Score, source string) (*primed, error) {
	if s == nil || s.NoteCount() == 0 {
		return nil, fmt.Errorf("%s: %w", source, ErrNoMusic)
	}
	toks, a, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot encode the music: %w", source, err)
	}
	if n := len(toks); n > 0 && toks[n-1] == v.EOS {
		toks = toks[:n-1]
	}
	p := &primed{toks: toks, attrs: a, sep: slices.Index(toks, v.SEP)}
	for i := p.sep + 1; i < len(toks); i++ {
		if toks[i] == v.Bar {
			p.barAt = append(p.barAt, i)
		}
	}
	if p.sep < 0 || len(p.barAt) == 0 {
		return nil, fmt.Errorf("%s: %w", source, ErrNoMusic)
	}
	p.starts = midi.BarLines(s, len(p.barAt)+MaxContinueBars+1)
	if len(p.starts) < len(p.barAt)+1 {
		return nil, fmt.Errorf("%s: the meter map gives %d bar lines for %d bars", source, len(p.starts), len(p.barAt))
	}
	// A file that ends exactly on a bar line encodes an empty bar there,
	// which is not a bar of the file: a 16-bar piece continued by 4 would
	// come back with 21.
	for n := len(p.barAt); n > 1 && p.starts[n-1] >= s.EndTick && s.EndTick > 0; n-- {
		p.toks = p.toks[:p.barAt[n-1]]
		p.barAt = p.barAt[:n-1]
	}
	return p, nil
}

// window is hist cut to the model's context as a training example would
// be: the prefix with LENGTH set to the bars left (total counts from bar 0
// of hist), then whole bars from the earliest that fits in budget tokens.
// first is the piece's bar the window starts at.
func window(v *token.Vocab, hist []uint16, budget, total, sep int, barAt []int) (w []uint16, first int, err error) {
	if len(barAt) == 0 { // the prefix alone
		w = append([]uint16(nil), hist...)
		return w, 0, nil
	}
	w = decoding.RefillBars(v, hist, budget, total)
	kept := 0
	for _, t := range w[sep+1:] {
		if t == v.Bar {
			kept++
		}
	}
	if kept == 0 || w[sep+1] != v.Bar {
		return nil, 0, fmt.Errorf("one bar is longer than the model's window of %d tokens", budget)
	}
	return w, len(barAt) - kept, nil
}

// newNotes maps the notes of decoded (a window whose bar 0 is the piece's
// bar first) that start at or after window bar from onto the file's ticks,
// grouped by (drum, program, channel).
func newNotes(v *token.Vocab, decoded *midi.Score, src *midi.Score, p *primed, first, from int) []midi.Track {
	dl := midi.BarLines(decoded, from+1)
	if len(dl) <= from {
		return nil
	}
	cut := dl[from]
	origin := p.starts[first]
	scale := float64(src.TicksPerBeat) / float64(decoded.TicksPerBeat)
	var out []midi.Track
	for _, tr := range decoded.Tracks {
		var t midi.Track
		t.Name, t.Channel, t.Program, t.IsDrum = tr.Name, tr.Channel, tr.Program, tr.IsDrum
		for _, n := range tr.Notes {
			if n.Tick < cut {
				continue
			}
			n.Tick = origin + int64(math.Round(float64(n.Tick)*scale))
			n.Dur = max(1, int64(math.Round(float64(n.Dur)*scale)))
			t.Notes = append(t.Notes, n)
		}
		if len(t.Notes) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// merge adds tracks' notes to a copy of s, each into the track of the same
// drum flag and program (a new track when there is none), keeping notes
// whose keep(track, note) is true.
func merge(s *midi.Score, add []midi.Track, keep func(n midi.Note) bool) *midi.Score {
	out := *s
	out.Tracks = make([]midi.Track, len(s.Tracks))
	for i, tr := range s.Tracks {
		tr.Notes = slices.DeleteFunc(slices.Clone(tr.Notes), func(n midi.Note) bool { return keep != nil && !keep(n) })
		out.Tracks[i] = tr
	}
	used := map[int]bool{}
	for _, tr := range s.Tracks {
		used[tr.Channel] = true
	}
	for _, a := range add {
		i := slices.IndexFunc(out.Tracks, func(t midi.Track) bool { return t.IsDrum == a.IsDrum && (a.IsDrum || t.Program == a.Program) })
		if i < 0 {
			ch := 9
			if !a.IsDrum {
				ch = -1
				for c := 0; c < 16; c++ {
					if c != 9 && !used[c] {
						ch = c
						break
					}
				}
				if ch < 0 {
					ch = 15 // all channels taken: share the last one
				}
			}
			used[ch] = true
			out.Tracks = append(out.Tracks, midi.Track{Name: trackName(a), Channel: ch, Program: a.Program, IsDrum: a.IsDrum, Source: -1})
			i = len(out.Tracks) - 1
		}
		out.Tracks[i].Notes = append(out.Tracks[i].Notes, a.Notes...)
		slices.SortStableFunc(out.Tracks[i].Notes, func(x, y midi.Note) int { return int(x.Tick - y.Tick) })
	}
	for _, tr := range out.Tracks {
		for _, n := range tr.Notes {
			out.EndTick = max(out.EndTick, n.Tick+n.Dur)
		}
	}
	out.ComputeSeconds()
	return &out
}

func trackName(t midi.Track) string {
	if t.IsDrum {
		return "Drums"
	}
	return midi.ProgramName(t.Program)
}

// sampleOpts are the sampling settings of a continuation.
func sampleOpts(v *token.Vocab, s SampleSettings, seed uint64, c gpt.Constraint) gpt.SampleOptions {
	temp, topP := s.Temperature, s.TopP
	if temp == 0 {
		temp = DefaultTemperature
	}
	if topP == 0 {
		topP = DefaultTopP
	}
	return gpt.SampleOptions{MaxTokens: 32768, Temperature: temp, TopK: s.TopK, TopP: topP, Seed: seed, EOS: int(v.EOS), Constraint: c}
}

// ContinueScore writes bars new bars after the music of src (named source
// in errors) with model m: the result is src, untouched, plus the new
// bars.
func ContinueScore(ctx context.Context, m *Model, src *midi.Score, source string, bars int, s SampleSettings, onToken func(int)) (*PromptResult, error) {
	if bars < 1 || bars > MaxContinueBars {
		return nil, fmt.Errorf("continue: --bars %d: want 1..%d", bars, MaxContinueBars)
	}
	v := m.Vocab
	p, err := prime(v, src, source)
	if err != nil {
		return nil, fmt.Errorf("continue: %w", err)
	}
	p.frame(m)
	sampler, release := m.newSampler()
	defer release()
	orig := len(p.barAt)
	w, first, err := window(v, p.toks, sampler.W/2, orig+bars, p.sep, p.barAt)
	if err != nil {
		return nil, fmt.Errorf("continue: %s: %w", source, err)
	}
	inWindow := orig - first + bars
	c := decoding.NewBars(v, v.NewGrammar(), inWindow)
	opts := sampleOpts(v, s, s.Seed, c)
	opts.Adjust = c.Adjust
	opts.Refill = func(hist []uint16) []uint16 { return decoding.RefillBars(v, hist, sampler.W/2, inWindow) }
	opts.MaxTokens = min(max(1024, bars*400), 32768)
	if onToken != nil {
		n := 0
		opts.OnToken = func(uint16) error { n++; onToken(n); return nil }
	}
	start := time.Now()
	toks, err := sampler.Generate(ctx, w, opts)
	if err != nil {
		return nil, fmt.Errorf("continue: %s: %w", source, err)
	}
	all := moveTokens(v, append(append([]uint16(nil), w...), toks...), p.shift)
	dec, _, err := v.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("continue: decode: %w", err)
	}
	add := newNotes(v, dec, src, p, first, orig-first)
	end := p.starts[orig+bars] // the new bars end on the file's bar line
	for i := range add {
		add[i].Notes = slices.DeleteFunc(add[i].Notes, func(n midi.Note) bool { return n.Tick >= end })
		for j := range add[i].Notes {
			n := &add[i].Notes[j]
			n.Dur = min(n.Dur, end-n.Tick)
		}
	}
	out := merge(src, add, nil)
	return finishResult(out, p.attrs, orig+bars, all, len(toks), time.Since(start).Seconds())
}

// finishResult measures a joined piece.
func finishResult(sc *midi.Score, a token.Attributes, bars int, all []uint16, n int, secs float64) (*PromptResult, error) {
	a.Bars = bars
	r := &PromptResult{Score: sc, Requested: a, Decoded: a, Tokens: all, New: n, Sampled: n, Tried: 1, Seconds: secs}
	if err := r.measure(); err != nil {
		return nil, err
	}
	return r, nil
}

// RegenerateScore re-samples bars from..to (1-based, inclusive) of src:
// the music before them is the context, candidates are scored by the
// log-likelihood the model gives the music after them (up to 4 bars), and
// the best replaces the notes that start in the range; everything else is
// kept as it is.
func RegenerateScore(ctx context.Context, m *Model, src *midi.Score, source string, from, to int, s SampleSettings, candidates int, onToken func(int)) (*PromptResult, error) {
	v := m.Vocab
	p, err := prime(v, src, source)
	if err != nil {
		return nil, fmt.Errorf("regenerate: %w", err)
	}
	p.frame(m)
	orig := len(p.barAt)
	if from < 1 || to < from || to > orig {
		return nil, fmt.Errorf("%w: --regenerate %d-%d: %s has bars 1-%d", ErrUsage, from, to, source, orig)
	}
	if candidates <= 0 {
		candidates = DefaultRegenerateCandidates
	}
	sampler, release := m.newSampler()
	defer release()
	hist := p.toks[:p.barAt[from-1]] // prefix and the bars before the range
	w, first, err := window(v, hist, sampler.W/2, orig, p.sep, p.barAt[:from-1])
	if err != nil {
		return nil, fmt.Errorf("regenerate: %s: %w", source, err)
	}
	var follow []uint16 // the music after the range, from its bar line
	if to < orig {
		end := len(p.toks)
		if to+regenerateFollow < orig {
			end = p.barAt[to+regenerateFollow]
		}
		follow = p.toks[p.barAt[to]:end]
	} else {
		candidates = 1 // nothing after the range to judge by
	}
	inWindow := to - first // bars of the window up to the end of the range
	type cand struct {
		toks []uint16
		ll   float64
	}
	var best *cand
	sampled := 0
	start := time.Now()
	for k := range candidates {
		c := decoding.NewBars(v, v.NewGrammar(), 0)
		opts := sampleOpts(v, s, s.Seed+uint64(k)*0x9E3779B97F4A7C15, c)
		opts.Refill = func(hist []uint16) []uint16 { return decoding.RefillBars(v, hist, sampler.W/2, orig-first) }
		opts.MaxTokens = min(max(1024, (to-from+1)*400), 32768)
		n := 0
		opts.OnToken = func(t uint16) error {
			n++
			if onToken != nil {
				onToken(sampled + n)
			}
			if t == v.Bar && c.Bars() > inWindow { // the bar after the range opens: done
				return errStop
			}
			return nil
		}
		toks, err := sampler.Generate(ctx, w, opts)
		sampled += n
		if err != nil && !errors.Is(err, errStop) {
			return nil, fmt.Errorf("regenerate: %s: %w", source, err)
		}
		if len(toks) > 0 && (toks[len(toks)-1] == v.Bar || toks[len(toks)-1] == v.EOS) {
			toks = toks[:len(toks)-1]
		}
		cd := &cand{toks: toks}
		if len(follow) > 0 {
			if cd.ll, err = logLikelihood(sampler, v, append(append(slices.Clone(w), toks...), follow...), len(w)+len(toks), orig-first); err != nil {
				return nil, fmt.Errorf("regenerate: %s: %w", source, err)
			}
		}
		if best == nil || cd.ll > best.ll {
			best = cd
		}
	}
	all := moveTokens(v, append(append([]uint16(nil), w...), best.toks...), p.shift)
	dec, _, err := v.Decode(all)
	if err != nil {
		return nil, fmt.Errorf("regenerate: decode: %w", err)
	}
	lo, hi := p.starts[from-1], p.starts[to]
	add := newNotes(v, dec, src, p, first, from-1-first)
	for i := range add { // notes of the re-sampled bars only
		add[i].Notes = slices.DeleteFunc(add[i].Notes, func(n midi.Note) bool { return n.Tick >= hi })
	}
	out := merge(src, add, func(n midi.Note) bool { return n.Tick < lo || n.Tick >= hi })
	return finishResult(out, p.attrs, orig, all, sampled, time.Since(start).Seconds())
}

// logLikelihood is the log-probability the model gives seq[from:] after
// seq[:from] (natural log), the whole cut to the window as a refill would.
func logLikelihood(s *gpt.Sampler, v *token.Vocab, seq []uint16, from, total int) (float64, error) {
	if len(seq) > s.W {
		cut := decoding.RefillBars(v, seq[:from], s.W/2, total)
		rest := seq[from:]
		if len(cut)+len(rest) > s.W {
			rest = rest[:s.W-len(cut)]
		}
		seq, from = append(cut, rest...), len(cut)
	}
	logits, err := s.Prefill(seq[:from])
	if err != nil {
		return 0, err
	}
	ll := 0.0
	for i := from; i < len(seq); i++ {
		ll += logSoftmax(logits, int(seq[i]))
		if i+1 < len(seq) {
			if logits, err = s.Step(seq[i]); err != nil {
				return 0, err
			}
		}
	}
	return ll, nil
}

func logSoftmax(logits []float32, i int) float64 {
	mx := float64(logits[0])
	for _, x := range logits {
		mx = math.Max(mx, float64(x))
	}
	sum := 0.0
	for _, x := range logits {
		sum += math.Exp(float64(x) - mx)
	}
	return float64(logits[i]) - mx - math.Log(sum)
}

// ParseBarRange reads "A-B" (or "A") as 1-based bars.
func ParseBarRange(s string) (from, to int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		b = a
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(a))
	to, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return 0, 0, fmt.Errorf("bar range %q: want A-B with 1 ≤ A ≤ B", s)
	}
	return from, to, nil
}

// Continue extends the request's score by req.Bars bars and stores the
// joined piece (Compose's history) with its evaluation.
func (s *Studio) Continue(ctx context.Context, req ContinueRequest) (*ComposeResult, error) {
	return s.storeEdit(ctx, req, fmt.Sprintf("continue %s by %d bars", req.Source, req.Bars), func(m *Model, on func(int)) (*PromptResult, error) {
		return ContinueScore(ctx, m, req.Score, req.Source, req.Bars, req.SampleSettings, on)
	})
}

// Regenerate re-samples bars req.From..req.To of the request's score and
// stores the result.
func (s *Studio) Regenerate(ctx context.Context, req ContinueRequest) (*ComposeResult, error) {
	return s.storeEdit(ctx, req, fmt.Sprintf("regenerate bars %d-%d of %s", req.From, req.To, req.Source), func(m *Model, on func(int)) (*PromptResult, error) {
		return RegenerateScore(ctx, m, req.Score, req.Source, req.From, req.To, req.SampleSettings, req.Candidates, on)
	})
}

func (s *Studio) storeEdit(ctx context.Context, req ContinueRequest, what string, run func(*Model, func(int)) (*PromptResult, error)) (*ComposeResult, error) {
	m, err := modelAt(req.ModelDir)
	if err != nil {
		return nil, err
	}
	var on func(int)
	if req.Progress != nil {
		total := max(1024, max(req.Bars, req.To-req.From+1)*400)
		on = func(n int) { req.Progress(n, total) }
	}
	m.genMu().Lock()
	gen, err := run(m, on)
	m.genMu().Unlock()
	if err != nil {
		return nil, err
	}
	return s.storeGenerated(req.Project, what, req.Seed, m, gen)
}
