package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
)

// BarStarts returns the start tick of every bar of sc before its end (its
// EndTick, or just after its last onset when later) and, last, the end of
// its last bar: bar b (1-based) spans [starts[b-1], starts[b]). Bars are
// counted as the tokenizer counts them (midi.BarLines: from the first
// meter change, 4/4 when there is none; a change takes effect at the next
// bar line), which is how Continue and Regenerate count them; the piano
// roll numbers bars the same way, so the bars a user selects there are the
// bars PlayOptions.LoopFrom and Regenerate take.
func BarStarts(sc *midi.Score) []int64 {
	if sc == nil || sc.TicksPerBeat <= 0 {
		return nil
	}
	end := scoreEnd(sc)
	if end <= 0 {
		return nil
	}
	for n := 64; ; n *= 2 {
		lines := midi.BarLines(sc, n)
		if len(lines) == 0 {
			return nil
		}
		if len(lines) < n || lines[len(lines)-1] >= end || n >= maxBars {
			k := sort.Search(len(lines), func(i int) bool { return lines[i] >= end })
			last := end
			if k < len(lines) {
				last = lines[k]
			}
			if k > maxBars {
				k, last = maxBars, lines[maxBars]
			}
			return append(lines[:k:k], last)
		}
	}
}

// maxBars bounds BarStarts (as the piano roll does).
const maxBars = 100000

// scoreEnd is where sc's bars stop: its EndTick, or just after its last
// onset when later (the piano roll's rule).
func scoreEnd(sc *midi.Score) int64 {
	end := sc.EndTick
	for _, t := range sc.Tracks {
		for _, n := range t.Notes {
			end = max(end, n.Tick+1)
		}
	}
	return end
}

// PlayOptions configure PlayScore.
type PlayOptions struct {
	// Render chooses the synthesizer (SoundFont, Builtin, Reverb,
	// SampleRate); Input names the piece in messages. Output is ignored.
	Render RenderOptions
	Mix    []TrackMix // nil: every track as written
	// LoopFrom..LoopTo (bars, 1-based, inclusive; BarStarts) play over and
	// over until ctx ends; 0: the whole piece once.
	LoopFrom, LoopTo int
	// Tempo is the playback speed: 1 (or 0) as written, 0.25–4.
	Tempo float64
	// Start is where to start, in the score's seconds (a playback
	// restarted after a change goes on from where it was); in a loop it is
	// moved into the loop.
	Start float64
	// OnStart (may be nil) is told the synthesizer once the sound starts.
	OnStart func(*RenderResult)
}

// Tempo limits of PlayOptions.Tempo.
const (
	MinPlayTempo = 0.25
	MaxPlayTempo = 4.0
)

// maxLoopRepeats bounds how often one clip repeats a loop before PlayScore
// prepares the next clip (the notes of a clip are held in memory).
const (
	maxLoopRepeats = 64
	maxClipNotes   = 200000
)

// playClip is what PlayScore plays for o: sc mixed, cut from o.Start (or
// the loop's start) to the end (or the loop's end, then the loop repeated
// a few times), at o.Tempo. back maps a time in the clip (seconds) to the
// time in sc it plays (seconds), for the playhead.
func playClip(sc *midi.Score, o PlayOptions) (clip *midi.Score, back func(sec float64) float64, err error) {
	if sc == nil || sc.TicksPerBeat <= 0 {
		return nil, nil, fmt.Errorf("play: no score")
	}
	tempo := o.Tempo
	if tempo == 0 {
		tempo = 1
	}
	if !(tempo >= MinPlayTempo && tempo <= MaxPlayTempo) {
		return nil, nil, fmt.Errorf("%w: tempo ×%g outside ×%g–×%g", ErrUsage, tempo, MinPlayTempo, MaxPlayTempo)
	}
	mixed, err := MixScore(sc, o.Mix)
	if err != nil {
		return nil, nil, err
	}
	bars := BarStarts(sc)
	t0, t1 := int64(0), scoreEnd(sc)
	loop := o.LoopFrom != 0 || o.LoopTo != 0
	if loop {
		nb := len(bars) - 1
		if o.LoopFrom < 1 || o.LoopTo < o.LoopFrom || o.LoopTo > nb {
			return nil, nil, fmt.Errorf("%w: loop bars %d–%d: the piece has bars 1–%d", ErrUsage, o.LoopFrom, o.LoopTo, nb)
		}
		t0, t1 = bars[o.LoopFrom-1], bars[o.LoopTo]
	}
	ts := int64(math.Round(tickAt(sc, o.Start)))
	if ts < t0 || ts >= t1 {
		ts = t0
	}
	first := t1 - ts // ticks of the first pass
	span := t1 - t0
	out := &midi.Score{Format: 1, TicksPerBeat: sc.TicksPerBeat, Title: sc.Title}
	out.Tracks = make([]midi.Track, len(mixed.Tracks))
	for i, tr := range mixed.Tracks {
		tr.Notes = nil
		out.Tracks[i] = tr
	}
	at := int64(0)
	add := func(a, b int64) int {
		n := 0
		out.Tempos = append(out.Tempos, midi.TempoChange{Tick: at, MicrosPerBeat: scaledTempo(sc.TempoAt(a), tempo)})
		for _, t := range sc.Tempos {
			if t.Tick > a && t.Tick < b {
				out.Tempos = append(out.Tempos, midi.TempoChange{Tick: at + t.Tick - a, MicrosPerBeat: scaledTempo(t.MicrosPerBeat, tempo)})
			}
		}
		for i, tr := range mixed.Tracks {
			for _, nt := range tr.Notes {
				if nt.Tick < a || nt.Tick >= b {
					continue
				}
				nt.Tick = at + nt.Tick - a
				if loop {
					nt.Dur = min(nt.Dur, at+(b-a)-nt.Tick) // a loop does not ring into its next pass
				}
				nt.Start, nt.Duration = 0, 0
				out.Tracks[i].Notes = append(out.Tracks[i].Notes, nt)
				n++
			}
		}
		at += b - a
		return n
	}
	n := add(ts, t1)
	if loop {
		for r := 0; r < maxLoopRepeats && n < maxClipNotes; r++ {
			n += add(t0, t1)
		}
	}
	out.EndTick = at
	out.ComputeSeconds()
	back = func(sec float64) float64 {
		c := int64(math.Round(tickAt(out, sec)))
		var orig int64
		switch {
		case c < first || !loop:
			orig = ts + c
		default:
			orig = t0 + (c-first)%span
		}
		return sc.TickToSeconds(orig)
	}
	return out, back, nil
}

// scaledTempo is a tempo (µs per quarter) played tempo times as fast.
func scaledTempo(mpb int, tempo float64) int {
	if mpb <= 0 {
		mpb = midi.DefaultMicrosPerBeat
	}
	return max(1, int(math.Round(float64(mpb)/tempo)))
}

// tickAt is the tick sounding sec seconds into s (the tempo map inverted).
func tickAt(s *midi.Score, sec float64) float64 {
	if sec <= 0 || s.TicksPerBeat <= 0 {
		return 0
	}
	tpb := float64(s.TicksPerBeat)
	lastTick, lastSec := int64(0), 0.0
	mpb := float64(midi.DefaultMicrosPerBeat)
	for _, t := range s.Tempos {
		if t.Tick > lastTick {
			seg := float64(t.Tick-lastTick) * mpb / 1e6 / tpb
			if lastSec+seg > sec {
				break
			}
			lastSec += seg
		}
		lastTick = t.Tick
		if t.MicrosPerBeat > 0 {
			mpb = float64(t.MicrosPerBeat)
		}
	}
	return float64(lastTick) + (sec-lastSec)*1e6/mpb*tpb
}

// PlayScore plays sc through the sound card as o says (a mix, a loop of
// bars, a tempo, a start), rendering block by block as it plays, until the
// end, or with a loop until ctx ends. progress (may be nil) is called about
// every 100 ms with the playhead in sc's own seconds (in a loop it jumps
// back at each pass). It returns audio.ErrNoDevice (wrapped) at once on a
// machine without a sound device, and an error wrapping ctx.Err() when
// stopped. The window's Play and `amt play` both come here.
func PlayScore(ctx context.Context, sc *midi.Score, o PlayOptions, progress func(sec float64)) (*RenderResult, error) {
	name := o.Render.Input
	if _, _, err := playClip(sc, o); err != nil { // bad options before the device
		return nil, fmt.Errorf("play %s: %w", name, err)
	}
	if err := audio.Available(); err != nil {
		return nil, fmt.Errorf("play %s: %w", name, err)
	}
	loop := o.LoopFrom != 0 || o.LoopTo != 0
	var res *RenderResult
	for pass := 0; ; pass++ {
		clip, back, err := playClip(sc, o)
		if err != nil {
			return res, fmt.Errorf("play %s: %w", name, err)
		}
		ro := o.Render
		ro.Output = ""
		st, r, err := StreamScore(clip, ro)
		if err != nil {
			return res, err
		}
		res = r
		p, err := audio.NewStreamPlayer(st)
		if err != nil {
			return res, fmt.Errorf("play %s: %w", name, err)
		}
		if pass == 0 && o.OnStart != nil {
			o.OnStart(res)
		}
		p.Play()
		ended := p.Wait(ctx, func(pos, _ time.Duration) {
			if progress != nil {
				progress(back(pos.Seconds()))
			}
		})
		perr := p.Err()
		p.Close()
		switch {
		case ctx.Err() != nil:
			return res, fmt.Errorf("play %s: stopped: %w", name, ctx.Err())
		case !ended && perr != nil:
			return res, fmt.Errorf("play %s: %w", name, perr)
		case !ended:
			return res, fmt.Errorf("play %s: %w", name, errors.New("the sound device stopped"))
		case !loop:
			return res, nil
		}
		o.Start = sc.TickToSeconds(BarStarts(sc)[o.LoopFrom-1]) // the next clip: the loop from its start
	}
}
