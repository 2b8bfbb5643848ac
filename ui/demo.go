package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

// writeDemoCorpus writes n small MIDI files with engine/midi's writer
// (melody over a bass line, varied tempo, key, meter and instruments, drums
// in every third) and one corrupt file into dir: the folder the tests and
// `amt snapshot` import.
func writeDemoCorpus(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	scale := []int{0, 2, 4, 5, 7, 9, 11, 12}
	for i := 0; i < n; i++ {
		meter := []int{4, 3, 6}[i%3]
		den := 4
		if meter == 6 {
			den = 8
		}
		beatTicks := 96 * 4 / den
		s := &midi.Score{Format: 1, TicksPerBeat: 96, Title: fmt.Sprintf("Demo tune %d", i+1),
			Tempos: []midi.TempoChange{{MicrosPerBeat: 300000 + 25000*(i%12)}},
			Meters: []midi.MeterChange{{Num: meter, Den: den}}}
		root := 55 + (i*5)%12
		lead := midi.Track{Name: "lead", Channel: 0, Program: []int{0, 40, 73, 24, 56, 11}[i%6]}
		bass := midi.Track{Name: "bass", Channel: 1, Program: []int{32, 33, 42}[i%3]}
		bars := 4 + i%5
		steps := bars * meter
		for k := 0; k < steps; k++ {
			p := root + 12 + scale[(k*3+i)%len(scale)]
			lead.Notes = append(lead.Notes, midi.Note{Tick: int64(k * beatTicks), Dur: int64(beatTicks - 6), Pitch: uint8(p), Velocity: uint8(70 + (k*7)%40)})
			if k%meter == 0 {
				bass.Notes = append(bass.Notes, midi.Note{Tick: int64(k * beatTicks), Dur: int64(meter*beatTicks - 10), Pitch: uint8(root - 12), Velocity: 80})
			}
		}
		s.Tracks = []midi.Track{lead, bass}
		if i%3 == 0 {
			dr := midi.Track{Name: "drums", Channel: 9, IsDrum: true}
			for k := 0; k < steps; k++ {
				pitch := uint8(42)
				if k%2 == 0 {
					pitch = 36
				}
				dr.Notes = append(dr.Notes, midi.Note{Tick: int64(k * beatTicks), Dur: 20, Pitch: pitch, Velocity: 90})
			}
			s.Tracks = append(s.Tracks, dr)
		}
		s.EndTick = int64(steps * beatTicks)
		if err := app.WriteMIDI(filepath.Join(dir, fmt.Sprintf("tune%02d.mid", i+1)), s); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "broken.mid"), []byte("MThd\x00\x00\x00\x06\x00\x01"), 0o644)
}

// buildDemoState fills the studio st with real state: an imported folder,
// a short training run of the tiny model, and a generated piece from it.
func buildDemoState(ctx context.Context, st *app.Studio, corpus string) error {
	if err := writeDemoCorpus(corpus, 24); err != nil {
		return err
	}
	ing, err := app.Ingest(ctx, st.Store, app.IngestOptions{Project: app.DefaultProject, Dir: corpus})
	if err != nil {
		return err
	}
	spec := app.DefaultTrainSpec()
	spec.Preset, spec.Steps, spec.Batch, spec.Context, spec.ValEvery, spec.CheckpointEvery, spec.LR = "tiny", 60, 4, 64, 10, 20, 3e-3
	j, err := st.StartTraining(app.TrainJobConfig{Dataset: ing.Dataset, Spec: spec})
	if err != nil {
		return err
	}
	for u := range j.Events() {
		if u.Kind != "step" && u.Kind != "start" {
			if u.Kind != app.RunDone {
				return fmt.Errorf("demo training ended %s: %v", u.Kind, u.Err)
			}
			break
		}
	}
	_, err = st.Compose(ctx, app.ComposeRequest{Prompt: "calm piano waltz in D minor, 90 bpm, 8 bars", ModelDir: j.ModelDir,
		SampleSettings: app.SampleSettings{MaxTokens: 700, Temperature: 1, TopP: 0.95, Seed: 3}})
	return err
}
