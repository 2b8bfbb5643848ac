package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/gpt"
)

// TestRunRejectsBadOptions: every option out of range is an error naming
// it before any work (--lr NaN trained 10 steps to a NaN model and exited
// 0; --val-frac 2 and a batch of 100,000 were accepted).
func TestRunRejectsBadOptions(t *testing.T) {
	ds := NewDataset(patterned(20, 40, 24))
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.LR = math.NaN() }, "lr NaN"},
		{func(o *Options) { o.LR = math.Inf(1) }, "lr +Inf"},
		{func(o *Options) { o.LR = -1 }, "lr -1 outside 0 to 10"},
		{func(o *Options) { o.ValFrac = 2 }, "val-frac 2 outside 0 to 0.5"},
		{func(o *Options) { o.Batch = 100000 }, "batch 100000 outside 1 to 4096"},
		{func(o *Options) { o.Batch, o.Context = 4096, 4096 }, "more than the limit"},
		{func(o *Options) { o.Clip = math.NaN() }, "clip NaN"},
		{func(o *Options) { o.WeightDecay = -0.5 }, "weight-decay -0.5"},
		{func(o *Options) { o.Steps = -3 }, "steps -3"},
		{func(o *Options) { o.MinLR = 1 }, "min-lr 1 outside 0 to 0.003"},
		{func(o *Options) { o.Prefetch = 65 }, "prefetch 65 outside 1 to 64"},
		{func(o *Options) { o.LoaderWorkers = 65 }, "loader-workers 65 outside 1 to 64"},
	} {
		o := baseOpts(t.TempDir())
		c.edit(&o)
		_, err := Run(context.Background(), tiny(t, 24), ds, o)
		if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
		if files, _ := os.ReadDir(o.OutDir); len(files) != 0 {
			t.Errorf("%s: wrote %d files", c.want, len(files))
		}
	}
}

// TestRunStopsAtNaN: a loss that turns NaN stops the run at that step with
// ErrNonFinite, and no model or checkpoint is written from it.
func TestRunStopsAtNaN(t *testing.T) {
	m := tiny(t, 24)
	h := m.Params().Host()
	h[0] = float32(math.NaN()) // a token embedding
	for i := range h[:24*32] {
		h[i] = float32(math.NaN())
	}
	o := baseOpts(t.TempDir())
	o.Checkpoint = 1
	res, err := Run(context.Background(), m, NewDataset(patterned(20, 40, 24)), o)
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "step 1") || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("err %v, want ErrNonFinite at step 1", err)
	}
	if res.Steps != 0 {
		t.Errorf("%d steps counted", res.Steps)
	}
	for _, f := range []string{CheckpointFile, gpt.WeightsFile} {
		if _, err := os.Stat(filepath.Join(o.OutDir, f)); err == nil {
			t.Errorf("%s written from a NaN step", f)
		}
	}
}

// TestRunCleansStaleTemps: a checkpoint temp file left by a killed run (its
// PID gone) is removed when the next run starts in that folder.
func TestRunCleansStaleTemps(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	o := baseOpts(t.TempDir())
	o.Steps = 1
	stale := filepath.Join(o.OutDir, fmt.Sprintf(".%s.%d-77%s", CheckpointFile, cmd.Process.Pid, atomicfile.TempSuffix))
	if err := os.WriteFile(stale, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), tiny(t, 24), NewDataset(patterned(20, 40, 24)), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp %s still there: %v", stale, err)
	}
}

// TestShardTruncatedWhileMapped: a shard file cut short after it was
// mapped gives an error naming it (training died with SIGBUS, "unexpected
// fault address"), through Batch and through Read (the Examples path).
func TestShardTruncatedWhileMapped(t *testing.T) {
	dir := t.TempDir()
	writeShard(t, dir, "big", patterned(64, 1024, 24)) // 128 KB of tokens
	ds, err := OpenDir(dir, 24, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	tr, _ := ds.Split(0.1, 1)
	B, T := 4, 64
	in, tg, sc := make([]int32, B*T), make([]int32, B*T), make([]int32, T+1)
	if err := tr.Batch(0, 1, B, T, in, tg, sc); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "big.bin")
	if err := os.Truncate(bin, 0); err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k < 4; k++ {
		err := tr.Batch(k, 1, B, T, in, tg, sc)
		if !errors.Is(err, ErrBadShard) || !strings.Contains(err.Error(), bin) || !strings.Contains(err.Error(), "cut to 0 bytes") {
			t.Fatalf("batch %d after truncation: %v", k, err)
		}
	}
	err = tr.Read(func() error {
		var sum int
		for i := 0; i < tr.Pieces(); i++ {
			for _, v := range tr.AppendPiece(nil, i) {
				sum += int(v)
			}
		}
		return nil
	})
	if !errors.Is(err, ErrBadShard) || !strings.Contains(err.Error(), bin) {
		t.Fatalf("read after truncation: %v", err)
	}
	// A panic that is not a fault is not swallowed.
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the panic to pass through", r)
		}
	}()
	tr.Read(func() error { panic("boom") })
}

// TestSplitMovesTokensWithPiece: when no piece falls to validation by hash,
// one is moved there, and the training side's token count drops with it
// (it did not: a batch near the end read past the last piece, index out
// of range; found by FuzzShard).
func TestSplitMovesTokensWithPiece(t *testing.T) {
	tr, va := NewDataset(patterned(4, 40, 24)).Split(0.2, 1)
	if tr.Pieces() != 3 || va.Pieces() != 1 || tr.Tokens() != 120 || va.Tokens() != 40 {
		t.Fatalf("train %d pieces %d tokens, val %d pieces %d tokens; want 3/120 and 1/40", tr.Pieces(), tr.Tokens(), va.Pieces(), va.Tokens())
	}
	in, tg, sc := make([]int32, 2*8), make([]int32, 2*8), make([]int32, 9)
	for k := uint64(0); k < 200; k++ {
		if err := tr.Batch(k, 1, 2, 8, in, tg, sc); err != nil {
			t.Fatal(err)
		}
	}
}
