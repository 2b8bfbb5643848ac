package app

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/amtstudio/amt/engine/midi"
)

// TrackMix is how one track of a score sounds when it plays or is
// exported: the window's track list and the --mute/--solo/--volume flags of
// `amt play` and `amt render` fill it. Build a mix with DefaultMix: the
// zero TrackMix is a silent track.
type TrackMix struct {
	Mute bool `json:"mute,omitempty"`
	Solo bool `json:"solo,omitempty"`
	// Volume scales the track's note velocities: 0 is silent, 1 as
	// written, up to MaxTrackVolume (velocities stop at 127). A velocity
	// is the only loudness a Score carries; with a SoundFont a softer
	// note is also a little darker, as on the instrument.
	Volume float64 `json:"volume"`
}

// MaxTrackVolume is the largest TrackMix.Volume.
const MaxTrackVolume = 1.5

// DefaultMix is every track of sc as written: none muted or soloed, volume 1.
func DefaultMix(sc *midi.Score) []TrackMix {
	if sc == nil {
		return nil
	}
	m := make([]TrackMix, len(sc.Tracks))
	for i := range m {
		m[i].Volume = 1
	}
	return m
}

// Audible reports whether track i sounds under mix: not muted, not silent,
// and soloed when any track is.
func Audible(mix []TrackMix, i int) bool {
	if i < 0 || i >= len(mix) {
		return false
	}
	solo := false
	for _, t := range mix {
		solo = solo || t.Solo
	}
	t := mix[i]
	return !t.Mute && t.Volume > 0 && (!solo || t.Solo)
}

// MixScore returns sc as mix makes it sound: the tracks that are not
// Audible are left out and the rest have their velocities scaled by their
// volume (at least 1, at most 127). sc is not changed; a nil mix returns sc
// itself.
func MixScore(sc *midi.Score, mix []TrackMix) (*midi.Score, error) {
	if mix == nil || sc == nil {
		return sc, nil
	}
	if len(mix) != len(sc.Tracks) {
		return nil, fmt.Errorf("mix: %d track settings for %d tracks", len(mix), len(sc.Tracks))
	}
	out := *sc
	out.Tracks = nil
	for i, tr := range sc.Tracks {
		v := mix[i].Volume
		if math.IsNaN(v) || v < 0 || v > MaxTrackVolume {
			return nil, fmt.Errorf("mix: track %d: volume %g outside 0–%g", i+1, v, MaxTrackVolume)
		}
		if !Audible(mix, i) {
			continue
		}
		if v != 1 {
			notes := make([]midi.Note, len(tr.Notes))
			for k, n := range tr.Notes {
				n.Velocity = uint8(min(127, max(1, math.Round(float64(n.Velocity)*v))))
				notes[k] = n
			}
			tr.Notes = notes
		}
		out.Tracks = append(out.Tracks, tr)
	}
	return &out, nil
}

// SetProgram returns a copy of sc whose track (0-based) plays General MIDI
// program (0–127); the notes are shared with sc. A drum track has no
// program to change.
func SetProgram(sc *midi.Score, track, program int) (*midi.Score, error) {
	if sc == nil || track < 0 || track >= len(sc.Tracks) {
		return nil, fmt.Errorf("set instrument: no track %d", track+1)
	}
	if program < 0 || program > 127 {
		return nil, fmt.Errorf("set instrument: track %d: program %d outside 0–127", track+1, program)
	}
	if sc.Tracks[track].IsDrum {
		return nil, fmt.Errorf("set instrument: track %d is the drum track (channel 10)", track+1)
	}
	out := *sc
	out.Tracks = append([]midi.Track(nil), sc.Tracks...)
	out.Tracks[track].Program = program
	return &out, nil
}

// TrackLabel names track i of sc as the track list and the stems do: its
// General MIDI instrument, "Drums" for the drum track.
func TrackLabel(sc *midi.Score, i int) string {
	t := sc.Tracks[i]
	if t.IsDrum {
		return "Drums"
	}
	return midi.ProgramName(t.Program)
}

// Stem is one track of a score alone, as ExportStems writes it.
type Stem struct {
	Track int    // index in the score
	Label string // TrackLabel
	Score *midi.Score
}

// Stems splits sc into one score per audible track under mix (nil: every
// track with notes), each with the whole tempo, meter and key map, so the
// stems line up when laid side by side.
func Stems(sc *midi.Score, mix []TrackMix) ([]Stem, error) {
	if mix == nil {
		mix = DefaultMix(sc)
	}
	mixed, err := MixScore(sc, mix)
	if err != nil {
		return nil, err
	}
	var out []Stem
	k := 0
	for i := range sc.Tracks {
		if !Audible(mix, i) {
			continue
		}
		tr := mixed.Tracks[k]
		k++
		if len(tr.Notes) == 0 {
			continue
		}
		one := *mixed
		one.Tracks = []midi.Track{tr}
		out = append(out, Stem{Track: i, Label: TrackLabel(sc, i), Score: &one})
	}
	return out, nil
}

// StemOptions configure ExportStems.
type StemOptions struct {
	Mix []TrackMix // nil: every track as written
	// WAV also renders each stem to a WAV with Render's synthesizer
	// (Render.Output is ignored).
	WAV    bool
	Render RenderOptions
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// StemFile is the file name of a stem: base, the track's number and its
// label, e.g. "piece-02-acoustic-bass.mid".
func StemFile(base string, s Stem, ext string) string {
	label := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(s.Label), "-"), "-")
	return fmt.Sprintf("%s-%02d-%s%s", base, s.Track+1, label, ext)
}

// StemPaths are the files ExportStems writes for sc and mix into dir, in
// its order: each stem's MIDI file, then with wav its WAV. A command checks
// them against its inputs (CheckApart) before any work.
func StemPaths(sc *midi.Score, mix []TrackMix, dir, base string, wav bool) ([]string, error) {
	stems, err := Stems(sc, mix)
	if err != nil {
		return nil, fmt.Errorf("stems: %w", err)
	}
	return stemPaths(stems, dir, base, wav), nil
}

func stemPaths(stems []Stem, dir, base string, wav bool) []string {
	var out []string
	for _, s := range stems {
		out = append(out, filepath.Join(dir, StemFile(base, s, ".mid")))
		if wav {
			out = append(out, filepath.Join(dir, StemFile(base, s, ".wav")))
		}
	}
	return out
}

// ExportStems writes each audible track of sc alone into dir as a MIDI
// file (and a WAV with o.WAV), named by StemFile; it returns the files
// written. Each write is atomic. It stops at the first error (the files
// written before it stay).
func ExportStems(ctx context.Context, sc *midi.Score, dir, base string, o StemOptions) ([]string, error) {
	stems, err := Stems(sc, o.Mix)
	if err != nil {
		return nil, fmt.Errorf("stems: %w", err)
	}
	if len(stems) == 0 {
		return nil, fmt.Errorf("stems: %w (every track is muted or empty)", ErrNoNotes)
	}
	if err := CheckOutputDir(dir); err != nil {
		return nil, fmt.Errorf("stems: %w", err)
	}
	// No stem may replace what the export reads (a stem of a stem is named
	// like its input), checked before the first is written.
	outs := []FileArg{}
	for _, p := range stemPaths(stems, dir, base, o.WAV) {
		outs = append(outs, FileArg{"stem", p})
	}
	if err := CheckApart([]FileArg{{"the input", o.Render.Input}, {"--soundfont", o.Render.SoundFont}}, outs); err != nil {
		return nil, fmt.Errorf("stems: %w", err)
	}
	var files []string
	for _, s := range stems {
		mid := filepath.Join(dir, StemFile(base, s, ".mid"))
		if err := WriteMIDI(mid, s.Score); err != nil {
			return files, fmt.Errorf("stems: %w", err)
		}
		files = append(files, mid)
		if !o.WAV {
			continue
		}
		ro := o.Render
		ro.Input, ro.Output = mid, filepath.Join(dir, StemFile(base, s, ".wav"))
		ro.Progress = nil
		if _, err := RenderScore(ctx, s.Score, ro); err != nil {
			return files, fmt.Errorf("stems: %w", err)
		}
		files = append(files, ro.Output)
	}
	return files, nil
}
