package app

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"time"

	"gitlab.com/gomidi/midi/v2/smf"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/userfile"
)

// BenchMIDIOptions configures BenchMIDI.
type BenchMIDIOptions struct {
	Corpus string // folder searched recursively for .mid/.midi
	// MinSeconds is the least time each timed pass runs (passes repeat
	// over the files until it is reached); 0 means 1 s.
	MinSeconds float64
}

// BenchMIDIResult is the JSON object `amt bench midi` prints. Every rate is
// files per second on ONE core (GOMAXPROCS 1 during the timing), from files
// already in memory, so the disk is not measured.
type BenchMIDIResult struct {
	Corpus string `json:"corpus"`
	Files  int    `json:"files"`
	Errors int    `json:"errors"` // files that fail to parse or encode
	// Parse is midi.Parse + midi.Prepare (parse + metadata, with meter
	// inference and re-barring); ParseNoMeter is midi.Parse + midi.Analyze,
	// the same without the meter inference (the rate before it existed).
	ParseFilesPerSecond        float64 `json:"parse_files_per_second"`
	ParseNoMeterFilesPerSecond float64 `json:"parse_no_meter_files_per_second"`
	// Rebarred counts the files whose declared meter gave way.
	Rebarred int `json:"rebarred"`
	// Tokenize is Score → tokens (measure + encode), parse excluded.
	TokenizeFilesPerSecond float64 `json:"tokenize_files_per_second"`
	// Baseline is gomidi's plain smf.ReadFrom of the same bytes, same run.
	BaselineFilesPerSecond float64 `json:"baseline_files_per_second"`
	ParseVsBaseline        float64 `json:"parse_vs_baseline"`
	TokenizeVsBaseline     float64 `json:"tokenize_vs_baseline"`
	RoundTripNoteMatch     float64 `json:"roundtrip_note_match"`
	RoundTripExact         float64 `json:"roundtrip_exact"`
	Notes                  int     `json:"notes"`
	TokensPerFile          float64 `json:"tokens_per_file"`
	Bytes                  int64   `json:"bytes"`
	GoVersion              string  `json:"go_version"`
	Seconds                float64 `json:"seconds"`
}

// BenchMIDI loads every MIDI file of a corpus into memory, then times
// gomidi's reader, our parser with metadata, and the tokenizer, each on one
// core, and checks the round trip of every file.
func BenchMIDI(ctx context.Context, opts BenchMIDIOptions) (*BenchMIDIResult, error) {
	start := time.Now()
	paths, err := corpus.List(opts.Corpus)
	if err != nil {
		return nil, fmt.Errorf("bench midi: %w", err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("bench midi: no .mid files under %s", opts.Corpus)
	}
	minDur := time.Duration(opts.MinSeconds * float64(time.Second))
	if minDur <= 0 {
		minDur = time.Second
	}
	r := &BenchMIDIResult{Corpus: opts.Corpus, Files: len(paths), GoVersion: runtime.Version()}
	data := make([][]byte, len(paths))
	for i, p := range paths {
		if data[i], err = userfile.ReadRegular(ctx, p, midi.MaxFileSize); err != nil { // bounded, stoppable
			return nil, fmt.Errorf("bench midi: %w", err)
		}
		r.Bytes += int64(len(data[i]))
	}

	// Untimed pass: parse, measure, round trip; keep the good scores.
	v := token.DefaultVocab()
	scores := make([]*midi.Score, 0, len(paths))
	metas := make([]midi.Metadata, 0, len(paths))
	var rt token.RoundTrip
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := midi.Parse(p, data[i])
		if err != nil {
			r.Errors++
			continue
		}
		m := midi.Prepare(s)
		if m.Rebarred {
			r.Rebarred++
		}
		one, _, err := v.CheckRoundTrip(s, v.Measure(s, m))
		if err != nil {
			r.Errors++
			continue
		}
		rt.Add(one)
		scores = append(scores, s)
		metas = append(metas, m)
	}
	r.Notes = rt.Notes
	r.RoundTripNoteMatch = rt.Rate()
	r.RoundTripExact = 1
	if rt.Notes > 0 {
		r.RoundTripExact = float64(rt.Exact) / float64(rt.Notes)
	}
	if len(scores) > 0 {
		r.TokensPerFile = float64(rt.Tokens) / float64(len(scores))
	}

	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	runtime.GC()

	// timed repeats f over n items until minDur has passed; it returns
	// items per second.
	timed := func(n int, f func(i int)) (float64, error) {
		if n == 0 {
			return 0, nil
		}
		done := 0
		t0 := time.Now()
		for {
			for i := 0; i < n; i++ {
				f(i)
			}
			done += n
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if el := time.Since(t0); el >= minDur {
				return float64(done) / el.Seconds(), nil
			}
		}
	}
	var rd bytes.Reader
	if r.BaselineFilesPerSecond, err = timed(len(data), func(i int) {
		rd.Reset(data[i])
		smf.ReadFrom(&rd) // errors counted by our parser above; gomidi's are its own
	}); err != nil {
		return nil, err
	}
	if r.ParseFilesPerSecond, err = timed(len(data), func(i int) {
		if s, err := midi.Parse(paths[i], data[i]); err == nil {
			midi.Prepare(s)
		}
	}); err != nil {
		return nil, err
	}
	if r.ParseNoMeterFilesPerSecond, err = timed(len(data), func(i int) {
		if s, err := midi.Parse(paths[i], data[i]); err == nil {
			midi.Analyze(s)
		}
	}); err != nil {
		return nil, err
	}
	var buf []uint16
	if r.TokenizeFilesPerSecond, err = timed(len(scores), func(i int) {
		buf, _, _ = v.AppendEncodeMeasured(buf[:0], scores[i], metas[i])
	}); err != nil {
		return nil, err
	}
	if r.BaselineFilesPerSecond > 0 {
		r.ParseVsBaseline = r.ParseFilesPerSecond / r.BaselineFilesPerSecond
		r.TokenizeVsBaseline = r.TokenizeFilesPerSecond / r.BaselineFilesPerSecond
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}
