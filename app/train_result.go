package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
)

// TrainResult is the final JSON object of `amt train --json`.
type TrainResult struct {
	Params          int                `json:"params"`
	Preset          string             `json:"preset"`
	Steps           int                `json:"steps"`
	StartStep       int                `json:"start_step"`
	TokensPerSecond float64            `json:"tokens_per_second"`
	TrainLoss       float64            `json:"train_loss"`
	ValLoss         *float64           `json:"val_loss"` // null without validation pieces
	BestValLoss     *float64           `json:"best_val_loss"`
	PeakRSSMB       float64            `json:"peak_rss_mb"`
	StageSeconds    train.StageSeconds `json:"stage_seconds"`
	Seconds         float64            `json:"seconds"`
	TrainPieces     int                `json:"train_pieces"`
	ValPieces       int                `json:"val_pieces"`
	Skipped         int                `json:"skipped_files"`
	Out             string             `json:"out"`
	// Of a fine-tune: the base model, its held-out loss before the first
	// step (same batches as ValLoss), the step whose weights the model
	// holds, whether the held-out loss stopped it early, and its lineage
	// once it finished.
	From         string   `json:"from,omitempty"`
	BaseValLoss  *float64 `json:"base_val_loss,omitempty"`
	BestStep     int      `json:"best_step,omitempty"`
	EarlyStopped bool     `json:"early_stopped,omitempty"`
	Lineage      *Lineage `json:"lineage,omitempty"`
}

// trainVocab is DIR/vocab.json when the folder is a dataset export, else the
// default vocabulary.
func trainVocab(dir string) (*token.Vocab, error) {
	p := filepath.Join(dir, gpt.VocabFile)
	if _, err := os.Stat(p); err == nil {
		return token.LoadVocab(p)
	}
	return token.DefaultVocab(), nil
}

// midiTokenizer encodes a MIDI file with its measured attributes, re-barred
// as ingestion does (midi.Prepare).
func midiTokenizer(v *token.Vocab) train.Tokenizer {
	return func(path string) ([]uint16, error) {
		s, err := midi.ReadFile(path)
		if err != nil {
			return nil, err
		}
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Prepare(s))
		return toks, err
	}
}

// PeakRSSMB is the process's peak resident set (VmHWM) in MB; 0 where
// /proc is not available.
func PeakRSSMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}
