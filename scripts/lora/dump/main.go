// Command dump writes the exact fine-tune batches of `amt train --from`
// for a folder of MIDI files (the default model's vocabulary and key frame,
// engine/train/condition's examples, the fine-tune's 80/20 split by piece)
// as raw little-endian int32 files, so that scripts/lora/compare.py can
// train full fine-tuning and low-rank adapters in PyTorch on the same
// examples (docs/MODEL.md, "Fine-tuning").
//
//	go run ./scripts/lora/dump --data DIR --out DIR [--train-batches 60] [--val-batches 8] [--batch 4] [--context 512]
//
// OUT gets train_inputs.i32, train_targets.i32 (batches × batch × context),
// val_inputs.i32, val_targets.i32 and meta.json. A target of −1 is padding
// (no loss).
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/amtstudio/amt/assets"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

func main() {
	data := flag.String("data", "", "folder of MIDI files")
	out := flag.String("out", "", "output folder")
	nTrain := flag.Int("train-batches", 60, "training batches")
	nVal := flag.Int("val-batches", 8, "validation batches")
	B := flag.Int("batch", 4, "sequences a batch")
	T := flag.Int("context", 512, "tokens a sequence")
	seed := flag.Uint64("seed", 1, "seed of the examples")
	flag.Parse()
	if err := run(*data, *out, *nTrain, *nVal, *B, *T, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "dump:", err)
		os.Exit(1)
	}
}

func run(data, out string, nTrain, nVal, B, T int, seed uint64) error {
	v, err := token.ParseVocab(assets.ModelVocab)
	if err != nil {
		return err
	}
	var c gpt.Config
	if err := json.Unmarshal(assets.ModelConfig, &c); err != nil {
		return err
	}
	tok := func(path string) ([]uint16, error) {
		s, err := midi.ReadFile(path)
		if err != nil {
			return nil, err
		}
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Prepare(s))
		return toks, err
	}
	ds, err := train.OpenDir(data, v.Size(), tok)
	if err != nil {
		return err
	}
	defer ds.Close()
	tr, val := ds.Split(train.FineTuneValFrac, train.FineTuneSplitSeed)
	co := condition.DefaultOptions()
	co.TonicFrame = c.KeyFrame == gpt.KeyFrameTonic
	ex := condition.New(v, co)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	write := func(name string, split *train.Split, n int, seed uint64) error {
		in, tg := make([]int32, B*T), make([]int32, B*T)
		var bi, bt []byte
		for k := 0; k < n; k++ {
			if err := ex.Fill(split, uint64(k), seed, B, T, in, tg); err != nil {
				return err
			}
			for i := range in {
				bi = binary.LittleEndian.AppendUint32(bi, uint32(in[i]))
				bt = binary.LittleEndian.AppendUint32(bt, uint32(tg[i]))
			}
		}
		if err := os.WriteFile(filepath.Join(out, name+"_inputs.i32"), bi, 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(out, name+"_targets.i32"), bt, 0o644)
	}
	// The seeds train.Run gives the loader and validation.
	if err := write("train", tr, nTrain, seed); err != nil {
		return err
	}
	if err := write("val", val, nVal, seed^0x5bd1e995); err != nil {
		return err
	}
	meta, _ := json.MarshalIndent(map[string]any{"data": data, "batch": B, "context": T, "train_batches": nTrain, "val_batches": nVal,
		"train_pieces": tr.Pieces(), "val_pieces": val.Pieces(), "train_tokens": tr.Tokens(), "vocab_size": v.Size(), "seed": seed}, "", "  ")
	return os.WriteFile(filepath.Join(out, "meta.json"), meta, 0o644)
}
