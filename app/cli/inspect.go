package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

func init() {
	c := &Command{
		Name:    "inspect",
		Usage:   "inspect FILE.mid [--json] [--compact]",
		Summary: "print a MIDI file's metadata (tempo, meter, key, instruments, notes, …)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		asJSON := fs.Bool("json", false, "print the metadata as one JSON object")
		compact := fs.Bool("compact", false, "with --json: on one line instead of indented")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return fmt.Errorf("%w: want one MIDI file, got %d arguments", ErrUsage, len(pos))
		}
		s, m, err := app.OpenMIDI(pos[0]) // as ingestion sees it: re-barred when the declared meter gives way
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			if !*compact {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(m)
		}
		return printInspect(env.Stdout, pos[0], s, m)
	}
	Register(c)
}

// printInspect writes the metadata and the track list as aligned text.
func printInspect(w io.Writer, path string, s *midi.Score, m midi.Metadata) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k string, format string, v ...any) {
		fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, v...)...)
	}
	row("file", "%s", Safe(path))
	if m.Title != "" {
		row("title", "%s", Safe(m.Title)) // text from the file: no escape sequence reaches the terminal
	}
	row("format", "%d (%d track chunks, %d instrument tracks)", m.Format, m.SMFTracks, m.Tracks)
	row("ticks per beat", "%d", m.TicksPerBeat)
	row("duration", "%s (%.1f bars)", clock(m.DurationSeconds), m.Bars)
	row("tempo", "%.1f bpm (median %.1f, %d changes)", m.TempoBPM, m.MedianTempoBPM, m.TempoChanges)
	row("time signature", "%s", m.TimeSignature)
	row("declared meter", "%s", meterOrNone(m.DeclaredMeter))
	row("inferred meter", "%s", inferredMeter(m))
	key := m.Key.String()
	if m.DeclaredKey != nil {
		key += fmt.Sprintf(" (declared; estimate %s, r=%.2f)", m.EstimatedKey, m.KeyConfidence)
	} else {
		key += fmt.Sprintf(" (estimated, r=%.2f)", m.KeyConfidence)
	}
	row("key", "%s", key)
	var progs []string
	for _, p := range m.Programs {
		progs = append(progs, fmt.Sprintf("%d %s", p, midi.ProgramName(p)))
	}
	if m.HasDrums {
		progs = append(progs, "drums")
	}
	row("instruments", "%s", strings.Join(progs, ", "))
	row("families", "%s", strings.Join(m.Families, ", "))
	row("notes", "%d (%.2f per second)", m.Notes, m.NotesPerSecond)
	if m.Notes > 0 {
		row("pitch range", "%d–%d", m.PitchMin, m.PitchMax)
	}
	row("polyphony", "%.2f mean, %d max", m.Polyphony, m.MaxPolyphony)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Tracks) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tsource\tchannel\tinstrument\tnotes\tname")
	for i, t := range s.Tracks {
		inst := fmt.Sprintf("%d %s", t.Program, midi.ProgramName(t.Program))
		if t.IsDrum {
			inst = fmt.Sprintf("drums (kit %d)", t.Program)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%d\t%s\n", i, t.Source, t.Channel+1, inst, len(t.Notes), Safe(t.Name))
	}
	return tw.Flush()
}

func meterOrNone(s string) string {
	if s == "" {
		return "none (no time signature)"
	}
	return s
}

// inferredMeter says what meter inference found and did.
func inferredMeter(m midi.Metadata) string {
	s := m.InferredMeter
	if m.IrregularBars > 0 {
		s += fmt.Sprintf(" with %d short bars", m.IrregularBars)
	}
	s += fmt.Sprintf(", confidence %.2f; ", m.MeterConfidence)
	if m.Rebarred {
		s += "re-barred (" + m.MeterReason + ")"
		if m.RebarShift > 0 {
			s += fmt.Sprintf(", every event %d ticks later", m.RebarShift)
		}
		return s
	}
	return s + "not re-barred (" + m.MeterReason + ")"
}

// clock formats seconds as m:ss.s.
func clock(sec float64) string {
	m := int(sec) / 60
	return fmt.Sprintf("%d:%04.1f", m, sec-float64(m*60))
}
