package examples

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/nn/cpu"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train"
	"github.com/amtstudio/amt/engine/train/condition"
)

// midiPieces encodes the repository's test MIDI files (engine/midi/testdata)
// with measured attributes, as ingestion does.
func midiPieces(t *testing.T, v *token.Vocab) [][]uint16 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "midi", "testdata", "*.mid"))
	if err != nil || len(files) < 3 {
		t.Fatalf("test MIDI files: %v (%d)", err, len(files))
	}
	var out [][]uint16
	for _, f := range files {
		s, err := midi.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, toks)
	}
	return out
}

func testOptions(v *token.Vocab) Options {
	vj, _ := v.MarshalJSON()
	return Options{Context: 48, Train: 22, Val: 7, Batch: 4, Seed: 9, ValFrac: 0.3, ShardExamples: 8,
		VocabJSON: vj, VocabSize: v.Size(), PAD: int(v.PAD), BOS: int(v.BOS), EOS: int(v.EOS), SEP: int(v.SEP),
		Conditioning: condition.DefaultOptions()}
}

// Every exported example is, token for token, the row engine/train's
// Fill makes for it: example i of a split is row i mod Batch of batch
// i div Batch, drawn from the split engine/train makes with the run's seed
// (validation: its validation seed). Inputs are row[:T], targets row[1:]
// up to the example's length.
func TestExportIsExactlyFill(t *testing.T) {
	v := token.DefaultVocab()
	data := train.NewDataset(midiPieces(t, v))
	o := testOptions(v)
	b := condition.New(v, condition.DefaultOptions())
	dir := t.TempDir()
	var calls int
	o.Progress = func(done, total int) {
		calls++
		if done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	}
	m, err := Write(context.Background(), dir, data, b, o)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("no progress reported")
	}
	set, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Verify(); err != nil {
		t.Fatal(err)
	}
	if len(set.Splits["train"].Shards) != 3 || set.Splits["train"].Examples != 22 || set.Splits["val"].Examples != 7 {
		t.Fatalf("splits %+v", set.Splits)
	}
	trainSplit, valSplit := data.Split(o.ValFrac, o.Seed)
	if set.Splits["train"].Pieces != trainSplit.Pieces() || set.Splits["val"].Pieces != valSplit.Pieces() || valSplit.Pieces() == 0 {
		t.Fatalf("pieces %d/%d, engine split %d/%d", set.Splits["train"].Pieces, set.Splits["val"].Pieces, trainSplit.Pieces(), valSplit.Pieces())
	}
	T, B := o.Context, o.Batch
	in, tg := make([]int32, B*T), make([]int32, B*T)
	row := make([]uint32, T+1)
	for _, c := range []struct {
		name  string
		split *train.Split
		seed  uint64
	}{{"train", trainSplit, o.Seed}, {"val", valSplit, o.Seed ^ 0x5bd1e995}} {
		sp := m.Splits[c.name]
		var tokens int64
		for i := 0; i < sp.Examples; i++ {
			if i%B == 0 {
				if err := b.Fill(c.split, uint64(i/B), c.seed, B, T, in, tg); err != nil {
					t.Fatal(err)
				}
			}
			L, err := set.Row(c.name, i, row)
			if err != nil {
				t.Fatal(err)
			}
			tokens += int64(L)
			r := i % B
			for j := 0; j < T; j++ {
				want := tg[r*T+j]
				got := int32(row[j+1])
				if j+1 >= L {
					got = -1
				}
				if int32(row[j]) != in[r*T+j] || got != want {
					t.Fatalf("%s example %d position %d: input %d target %d, Fill gives %d, %d", c.name, i, j, row[j], got, in[r*T+j], want)
				}
			}
		}
		if tokens != sp.Tokens || sp.Targets != tokens-int64(sp.Examples) {
			t.Errorf("%s: manifest counts %d tokens, %d targets; rows hold %d tokens", c.name, sp.Tokens, sp.Targets, tokens)
		}
	}
	var cond condition.Options
	if err := json.Unmarshal(m.Conditioning, &cond); err != nil || !reflect.DeepEqual(cond, condition.DefaultOptions()) {
		t.Errorf("conditioning recorded as %s (%v)", m.Conditioning, err)
	}
}

// The same seed writes the same bytes; another seed other examples.
func TestExportDeterministicBySeed(t *testing.T) {
	v := token.DefaultVocab()
	data := train.NewDataset(midiPieces(t, v))
	o := testOptions(v)
	write := func(seed uint64) *Manifest {
		o.Seed = seed
		m, err := Write(context.Background(), t.TempDir(), data, condition.New(v, condition.DefaultOptions()), o)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := write(3), write(3), write(4)
	ha, _ := json.Marshal(a)
	hb, _ := json.Marshal(b)
	if string(ha) != string(hb) {
		t.Fatalf("two exports with seed 3 differ:\n%s\n%s", ha, hb)
	}
	if a.Splits["train"].Shards[0].TokensSHA256 == c.Splits["train"].Shards[0].TokensSHA256 {
		t.Fatal("seeds 3 and 4 exported the same examples")
	}
}

// recorder is a train.Examples that records the seeds and splits it is
// asked for and fills windows from the start of the split.
type recorder struct {
	mu     sync.Mutex
	seeds  map[uint64]int
	pieces map[uint64]int
}

func (r *recorder) Fill(split *train.Split, k, seed uint64, B, T int, in, tg []int32) error {
	r.mu.Lock()
	r.seeds[seed]++
	r.pieces[seed] = split.Pieces()
	r.mu.Unlock()
	var toks []uint16
	for i := 0; i < split.Pieces() && len(toks) < T+1; i++ {
		toks = split.AppendPiece(toks, i)
	}
	for b := 0; b < B; b++ {
		for j := 0; j < T; j++ {
			in[b*T+j], tg[b*T+j] = int32(toks[j]), int32(toks[j+1])
		}
	}
	return nil
}

// engine/train draws training batches with the run's seed and validation
// batches with seed ^ ValSeedXor, from the split Dataset.Split makes: the
// export relies on both.
func TestValidationSeedMatchesTrain(t *testing.T) {
	v := token.DefaultVocab()
	data := train.NewDataset(midiPieces(t, v))
	cfg, err := gpt.Preset("tiny", v.Size())
	if err != nil {
		t.Fatal(err)
	}
	be := cpu.NewWorkers(1)
	defer be.Close()
	m, err := gpt.New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(1)
	rec := &recorder{seeds: map[uint64]int{}, pieces: map[uint64]int{}}
	const seed, valFrac = 21, 0.3
	_, err = train.Run(context.Background(), m, data, train.Options{Steps: 2, Batch: 1, Context: 16, ValFrac: valFrac,
		ValBatches: 1, Seed: seed, OutDir: t.TempDir(), Examples: rec})
	if err != nil {
		t.Fatal(err)
	}
	trainSplit, valSplit := data.Split(valFrac, seed)
	if rec.seeds[seed] < 2 || rec.seeds[seed^ValSeedXor] < 1 || len(rec.seeds) != 2 {
		t.Fatalf("engine/train asked for seeds %v; the export uses %d and %d", rec.seeds, seed, seed^ValSeedXor)
	}
	if rec.pieces[seed] != trainSplit.Pieces() || rec.pieces[seed^ValSeedXor] != valSplit.Pieces() {
		t.Fatalf("engine/train's splits hold %d/%d pieces, Dataset.Split %d/%d", rec.pieces[seed], rec.pieces[seed^ValSeedXor], trainSplit.Pieces(), valSplit.Pieces())
	}
}

// fixed is a train.Examples whose rows are given (in, tg per row).
type fixed struct{ in, tg [][]int32 }

func (f fixed) Fill(_ *train.Split, k, _ uint64, B, T int, in, tg []int32) error {
	for b := 0; b < B; b++ {
		r := (int(k)*B + b) % len(f.in)
		copy(in[b*T:(b+1)*T], f.in[r])
		copy(tg[b*T:(b+1)*T], f.tg[r])
	}
	return nil
}

// Padded rows keep their length; rows that are not a shifted sequence
// (a target after the end, a target unlike the next input, a token outside
// the vocabulary) are refused with the batch and row named.
func TestRowsPaddedAndRefused(t *testing.T) {
	const pad = 0
	data := train.NewDataset([][]uint16{{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 6, 7, 9}})
	o := Options{Context: 4, Train: 2, Batch: 2, VocabJSON: []byte("{}"), VocabSize: 10, PAD: pad}
	good := fixed{in: [][]int32{{1, 5, 6, 7}, {1, 5, pad, pad}}, tg: [][]int32{{5, 6, 7, 8}, {5, -1, -1, -1}}}
	dir := t.TempDir()
	if _, err := Write(context.Background(), dir, data, good, o); err != nil {
		t.Fatal(err)
	}
	set, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]uint32, 5)
	for i, want := range [][]uint32{{1, 5, 6, 7, 8}, {1, 5, pad, pad, pad}} {
		L, err := set.Row("train", i, row)
		if err != nil || L != []int{5, 2}[i] || !equal(row, want) {
			t.Fatalf("row %d: %v length %d (%v), want %v", i, row, L, err, want)
		}
	}
	for name, f := range map[string]fixed{
		"after the sequence (ended": {in: [][]int32{{1, 5, 6, 7}}, tg: [][]int32{{5, -1, 7, 8}}},
		"not the next input":        {in: [][]int32{{1, 5, 6, 7}}, tg: [][]int32{{5, 7, 7, 8}}},
		"outside the vocabulary":    {in: [][]int32{{1, 5, 6, 7}}, tg: [][]int32{{5, 6, 7, 12}}},
		"is not PAD":                {in: [][]int32{{1, 5, 3, 3}}, tg: [][]int32{{5, -1, -1, -1}}},
	} {
		_, err := Write(context.Background(), t.TempDir(), data, f, o)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "batch 0 row 0") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func equal(a, b []uint32) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A damaged folder is refused with the file named: a shard of the wrong
// size, a file name leaving the folder, a changed byte (Verify), a length
// beyond the row.
func TestOpenRefusesDamage(t *testing.T) {
	v := token.DefaultVocab()
	data := train.NewDataset(midiPieces(t, v))
	src := t.TempDir()
	if _, err := Write(context.Background(), src, data, condition.New(v, condition.DefaultOptions()), testOptions(v)); err != nil {
		t.Fatal(err)
	}
	copyDir := func() string {
		d := t.TempDir()
		ents, _ := os.ReadDir(src)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(src, e.Name()))
			os.WriteFile(filepath.Join(d, e.Name()), b, 0o644)
		}
		return d
	}
	editManifest := func(d string, f func(m map[string]any)) {
		b, _ := os.ReadFile(filepath.Join(d, ManifestFile))
		var m map[string]any
		json.Unmarshal(b, &m)
		f(m)
		b, _ = json.Marshal(m)
		os.WriteFile(filepath.Join(d, ManifestFile), b, 0o644)
	}
	d := copyDir()
	os.Truncate(filepath.Join(d, "train-00001.tokens.bin"), 10)
	if _, err := Open(d); !errors.Is(err, ErrBadExamples) || !strings.Contains(err.Error(), "train-00001.tokens.bin") {
		t.Errorf("truncated shard: %v", err)
	}
	d = copyDir()
	editManifest(d, func(m map[string]any) { m["vocab"].(map[string]any)["file"] = "../vocab.json" })
	if _, err := Open(d); !errors.Is(err, ErrBadExamples) || !strings.Contains(err.Error(), "plain file name") {
		t.Errorf("vocabulary outside the folder: %v", err)
	}
	d = copyDir()
	editManifest(d, func(m map[string]any) { m["version"] = 99 })
	if _, err := Open(d); !errors.Is(err, ErrBadExamples) || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("future version: %v", err)
	}
	d = copyDir()
	p := filepath.Join(d, "val-00000.tokens.bin")
	b, _ := os.ReadFile(p)
	b[5] ^= 1
	os.WriteFile(p, b, 0o644)
	set, err := Open(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Verify(); !errors.Is(err, ErrBadExamples) || !strings.Contains(err.Error(), "val-00000.tokens.bin") {
		t.Errorf("changed byte: %v", err)
	}
	d = copyDir()
	p = filepath.Join(d, "train-00000.lengths.bin")
	b, _ = os.ReadFile(p)
	b[4], b[5] = 0xff, 0xff
	os.WriteFile(p, b, 0o644)
	set, _ = Open(d)
	if _, err := set.Row("train", 1, make([]uint32, 49)); !errors.Is(err, ErrBadExamples) {
		t.Errorf("length beyond the row: %v", err)
	}
}

// A cancelled export stops with the context's error and leaves no
// manifest (the folder is not mistaken for a complete export).
func TestExportCancelled(t *testing.T) {
	v := token.DefaultVocab()
	data := train.NewDataset(midiPieces(t, v))
	dir := t.TempDir()
	o := testOptions(v)
	if _, err := Write(context.Background(), dir, data, condition.New(v, condition.DefaultOptions()), o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o.Progress = func(done, total int) {
		if done >= 8 {
			cancel()
		}
	}
	if _, err := Write(ctx, dir, data, condition.New(v, condition.DefaultOptions()), o); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled export: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("manifest after a cancelled export: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
