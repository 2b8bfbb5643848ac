// Package cluster_test runs the PyTorch trainer of this folder end to end
// against the app: MIDI files are ingested and exported as ready examples
// (`amt datasets --export-examples`), cluster/train.py trains a tiny model
// on them in one process and under torchrun with two gloo ranks, and the
// model comes back into amt, whose logits must match PyTorch's.
//
// It needs PyTorch (Debian's python3-torch, which `make setup` installs) and
// skips with a message saying so when there is none. $AMT_PYTHON names the
// interpreter to use; otherwise /usr/bin/python3, then python3 on PATH.
package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/cli"
	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/gpt"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/train/condition"
	"github.com/amtstudio/amt/engine/train/examples"
)

// findTorch returns a Python interpreter that imports torch (with gloo)
// and numpy, or "" and why not.
func findTorch() (string, string) {
	var cands []string
	if p := os.Getenv("AMT_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	var why []string
	for _, p := range cands {
		out, err := exec.Command(p, "-c", "import numpy, torch, torch.distributed as d; assert d.is_available() and d.is_gloo_available(); print(torch.__version__)").CombinedOutput()
		if err == nil {
			return p, strings.TrimSpace(string(out))
		}
		why = append(why, fmt.Sprintf("%s: %v", p, lastLine(string(out), err)))
	}
	return "", strings.Join(why, "; ")
}

func lastLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return err.Error()
	}
	return s
}

// midiInput copies a few MIDI files into a folder: Nottingham tunes from the
// real corpora when they are beside the checkout, else the repository's
// own test files.
func midiInput(t *testing.T) string {
	t.Helper()
	var files []string
	if corpus.Dir() != "" {
		all, err := corpus.List(filepath.Join(corpus.Dir(), corpus.Nottingham))
		if err == nil && len(all) >= 8 {
			files = all[:8]
		}
	}
	if files == nil {
		var err error
		if files, err = filepath.Glob(filepath.Join("..", "engine", "midi", "testdata", "*.mid")); err != nil || len(files) == 0 {
			t.Fatalf("no MIDI files: %v", err)
		}
		t.Logf("real corpora absent: using the %d MIDI files of engine/midi/testdata", len(files))
	}
	dir := filepath.Join(t.TempDir(), "midi")
	os.MkdirAll(dir, 0o755)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	return dir
}

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var so, se bytes.Buffer
	if code := cli.Main(context.Background(), &cli.Env{Stdout: &so, Stderr: &se}, args); code != 0 {
		t.Fatalf("amt %s: exit %d\n%s%s", strings.Join(args, " "), code, so.String(), se.String())
	}
	return so.String()
}

// pyRun runs the interpreter with args in this folder, one thread per
// process (two ranks share the two cores of CI). A run that outlives its
// 150 s (they take seconds) is killed and tried once more, on a fresh
// rendezvous port: torchrun once hung after both ranks had finished (rank
// 0 printed "done", then nothing for 5 minutes) under a loaded make test.
func pyRun(t *testing.T, python string, args ...string) string {
	t.Helper()
	for attempt := 1; ; attempt++ {
		out, hung, err := pyRunOnce(python, args)
		if err == nil {
			return out
		}
		if !hung || attempt == 2 {
			t.Fatalf("%s %s: %v (attempt %d)\n%s", python, strings.Join(args, " "), err, attempt, out)
		}
		t.Logf("%s %s: %v after %v: killed, trying again on another port\n%s", python, strings.Join(args, " "), err, pyRunLimit, out)
		args = slices.Clone(args)
		for i := range args {
			if i > 0 && args[i-1] == "--rdzv_endpoint" {
				args[i] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
			}
		}
	}
}

// pyRunLimit bounds one pyRun attempt.
const pyRunLimit = 150 * time.Second

// pyRunOnce runs python with args; hung says it was killed at pyRunLimit.
func pyRunOnce(python string, args []string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), pyRunLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "PYTHONDONTWRITEBYTECODE=1")
	// On timeout kill torchrun's whole process group (its workers hold the
	// output pipe), and stop waiting for the pipe soon after.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err != nil && ctx.Err() != nil, err
}

// freePort is a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type logLine struct {
	Step    int      `json:"step"`
	Loss    float64  `json:"loss"`
	ValLoss *float64 `json:"val_loss"`
	World   int      `json:"world_size"`
}

func readLog(t *testing.T, dir string) []logLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s/log.jsonl: %v", dir, err)
		}
		out = append(out, l)
	}
	return out
}

func TestTorchrunTrainsAModelAmtPlays(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the cluster trainer's end-to-end test starts PyTorch processes")
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	ctx := context.Background()
	st, err := app.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Ingest(ctx, st, app.IngestOptions{Project: "p", Dir: midiInput(t), Dataset: "d"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Export: the CLI writes a complete, verified folder.
	exDir := filepath.Join(work, "examples")
	const T, batch = 64, 8
	runCLI(t, "datasets", "--project", "p", "--dataset", "d", "--home", home, "--export-examples", exDir,
		"--examples", "64", "--val-examples", "16", "--context", strconv.Itoa(T), "--batch", strconv.Itoa(batch), "--seed", "3")
	var se bytes.Buffer
	if code := cli.Main(ctx, &cli.Env{Stdout: &se, Stderr: &se}, []string{"datasets", "--project", "p", "--home", home,
		"--export-examples", filepath.Join(work, "bad"), "--context", "1"}); code != 2 || !strings.Contains(se.String(), "--context") {
		t.Errorf("export with context 1: exit %d, %q; want a usage error (2)", code, se.String())
	}
	set, err := examples.Open(exDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Verify(); err != nil {
		t.Fatal(err)
	}
	if set.Splits["train"].Examples != 64 || set.Splits["val"].Examples != 16 || set.Context != T {
		t.Fatalf("manifest %+v", set.Manifest)
	}

	python, version := findTorch()
	if python == "" {
		t.Skipf("PyTorch not found (%s): install Debian's python3-torch (make setup does) to run the cluster trainer", version)
	}
	t.Logf("PyTorch %s at %s", version, python)
	common := []string{"--examples", exDir, "--steps", "6", "--batch", strconv.Itoa(batch), "--preset", "tiny",
		"--val-every", "3", "--val-examples", "16", "--checkpoint-every", "0", "--seed", "5"}
	// torch 1.13's torchrun needs explicit stream settings under Python
	// 3.11 (docs/CLUSTER.md); they are valid for every version.
	// Not --standalone: it always takes port 29400, so two test runs on one
	// machine (or anything else on that port) met in one rendezvous and
	// hung. A free port and an id of this run's own instead.
	torchrun := []string{"-m", "torch.distributed.run", "--redirects", "1", "--tee", "1", "--log_dir", filepath.Join(work, "torchrun"),
		"--nnodes", "1", "--rdzv_backend", "c10d", "--rdzv_endpoint", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"--rdzv_id", fmt.Sprintf("amt-test-%d", os.Getpid()), "--nproc_per_node", "2", "train.py"}

	one := filepath.Join(work, "one")
	pyRun(t, python, append([]string{"train.py", "--out", one, "--verify"}, common...)...)
	// A new run into a used folder starts its log again (the checks below
	// read 6 steps, not 12): pyRun's retry after a hung torchrun does this.
	pyRun(t, python, append([]string{"train.py", "--out", one}, common...)...)
	ddp := filepath.Join(work, "ddp")
	out := pyRun(t, python, append(append(torchrun, "--out", ddp), common...)...)
	if !strings.Contains(out, "world 2 (gloo on cpu)") {
		t.Fatalf("torchrun did not train on two gloo ranks:\n%s", out)
	}
	// The same run stopped after 3 steps and resumed with 2 micro-batches
	// per rank: the checkpoint restores weights and AdamW moments, and the
	// loss does not depend on how the global batch is divided.
	res := filepath.Join(work, "resumed")
	pyRun(t, python, append(append(torchrun, "--out", res, "--stop-after", "3"), common...)...)
	pyRun(t, python, append(append(torchrun, "--out", res, "--resume", "--accum", "2"), common...)...)

	// A changed byte in an example file stops --verify, naming the file.
	bad := filepath.Join(work, "damaged")
	os.MkdirAll(bad, 0o755)
	ents, _ := os.ReadDir(exDir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(exDir, e.Name()))
		if e.Name() == "train-00000.tokens.bin" {
			b[100] ^= 1
		}
		os.WriteFile(filepath.Join(bad, e.Name()), b, 0o644)
	}
	cmd := exec.Command(python, "train.py", "--examples", bad, "--out", filepath.Join(work, "bad-out"), "--steps", "1", "--preset", "tiny", "--verify")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "train-00000.tokens.bin: sha256") {
		t.Errorf("training on a damaged export with --verify: %v\n%s", err, out)
	}

	l1, l2, l3 := readLog(t, one), readLog(t, ddp), readLog(t, res)
	if len(l1) != 6 || len(l2) != 6 || len(l3) != 6 || l2[0].World != 2 || l1[0].World != 1 {
		t.Fatalf("logs of %d, %d, %d steps", len(l1), len(l2), len(l3))
	}
	worst := 0.0
	for i := range l1 {
		for _, other := range []logLine{l2[i], l3[i]} {
			d := math.Abs(other.Loss-l1[i].Loss) / l1[i].Loss
			worst = max(worst, d)
			if other.Step != i+1 || d > 1e-5 {
				t.Errorf("step %d: loss %.7f (step %d), one process %.7f", i+1, other.Loss, other.Step, l1[i].Loss)
			}
		}
	}
	if l1[5].ValLoss == nil || l2[5].ValLoss == nil || math.Abs(*l1[5].ValLoss-*l2[5].ValLoss) > 1e-5**l1[5].ValLoss {
		t.Errorf("validation losses %v, %v", l1[5].ValLoss, l2[5].ValLoss)
	}
	if l1[5].Loss >= l1[0].Loss {
		t.Errorf("training did not lower the loss: %.4f → %.4f", l1[0].Loss, l1[5].Loss)
	}
	t.Logf("losses %.4f → %.4f; largest relative difference of the DDP and resumed runs from one process: %.2g", l1[0].Loss, l1[5].Loss, worst)

	// The model comes back: amt loads the folder as `amt generate --model`
	// and the model picker do, and its logits on a validation example match
	// PyTorch's reading of the same files.
	m, err := app.LoadModel(ddp)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Net.Config.TrainContext != T {
		t.Errorf("config.json: trained context %d, want %d", m.Net.Config.TrainContext, T)
	}
	// The key frame of the examples travels to the model (app/compose_keyframe.go):
	// the export records the builder's options, train.py writes
	// amt_key_frame from them.
	wantFrame := ""
	if condition.DefaultOptions().TonicFrame {
		wantFrame = gpt.KeyFrameTonic
	}
	if m.Net.Config.KeyFrame != wantFrame {
		t.Errorf("config.json: key frame %q, want %q", m.Net.Config.KeyFrame, wantFrame)
	}
	row := make([]uint32, T+1)
	L, err := set.Row("val", 0, row)
	if err != nil {
		t.Fatal(err)
	}
	n := min(L, T)
	toks := make([]int32, n)
	ids := make([]string, n)
	for i := range toks {
		toks[i] = int32(row[i])
		ids[i] = strconv.Itoa(int(row[i]))
	}
	ref := filepath.Join(work, "logits.safetensors")
	pyRun(t, python, "logits.py", "--model", ddp, "--tokens", strings.Join(ids, ","), "--out", ref)
	want, _, err := gpt.ReadSafetensors(ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Net.Forward(toks, nil, 1, n); err != nil {
		t.Fatal(err)
	}
	V := m.Net.Config.VocabSize
	got := make([]float32, n*V)
	m.Net.Logits(got)
	wl := want["logits"].Data
	if len(wl) != len(got) {
		t.Fatalf("PyTorch gave %d logits, amt %d", len(wl), len(got))
	}
	worst = 0
	for i := range got {
		d := math.Abs(float64(got[i] - wl[i]))
		worst = max(worst, d)
		if d > 1e-4 {
			t.Fatalf("logit %d (position %d, token %d): amt %v, PyTorch %v", i, i/V, i%V, got[i], wl[i])
		}
	}
	t.Logf("logits of %d positions × %d tokens: largest difference %.2g", n, V, worst)

	mid := filepath.Join(work, "g.mid")
	runCLI(t, "generate", "--model", ddp, "--tokens", "200", "--seed", "2", "-o", mid)
	if _, err := midi.ReadFile(mid); err != nil {
		t.Fatalf("the generated MIDI does not parse: %v", err)
	}
}

// TestMain lets the test binary stand in for amt: with AMT_TEST_AS_AMT=1
// it runs its arguments as the amt command line (cli.Main, stdin
// included), so cluster/train.py --shards can start `TESTBINARY examples
// --serve` as its example source without building the window.
func TestMain(m *testing.M) {
	if os.Getenv("AMT_TEST_AS_AMT") == "1" {
		os.Exit(cli.Main(context.Background(), &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// The floor of issue 26: a 2-rank run on exported token shards alone (each
// rank's examples built as it asks, by `amt examples --serve`) reproduces
// the losses of the run on pre-built examples (`amt examples --write` of
// the same shards: today's export format and writer, the same rows
// `amt datasets --export-examples` writes for those pieces, see
// app.TestExportExamplesIsShardExamples). Also: a stream run stopped and
// resumed with other micro-batches continues the same curve, and the
// trainer names a missing or failing example source.
func TestShardsStreamReproducesExportedExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the cluster trainer's end-to-end test starts PyTorch processes")
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	ctx := context.Background()
	st, err := app.OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Ingest(ctx, st, app.IngestOptions{Project: "p", Dir: midiInput(t), Dataset: "d"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	shards := filepath.Join(work, "shards")
	runCLI(t, "datasets", "--project", "p", "--dataset", "d", "--home", home, "--export", shards)
	const T, batch = 64, 8
	exDir := filepath.Join(work, "examples")
	runCLI(t, "examples", "--shards", shards, "--write", exDir, "--examples", "64", "--val-examples", "16",
		"--context", strconv.Itoa(T), "--batch", strconv.Itoa(batch), "--seed", "3")
	if desc := runCLI(t, "examples", "--shards", shards, "--context", strconv.Itoa(T), "--seed", "3"); !strings.Contains(desc, "train with: torchrun") {
		t.Errorf("amt examples without a mode printed %q", desc)
	}

	python, version := findTorch()
	if python == "" {
		t.Skipf("PyTorch not found (%s): install Debian's python3-torch (make setup does) to run the cluster trainer", version)
	}
	t.Logf("PyTorch %s at %s", version, python)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AMT_TEST_AS_AMT", "1") // the example source is this binary as amt
	source := self + " examples"
	common := []string{"--steps", "6", "--batch", strconv.Itoa(batch), "--preset", "tiny",
		"--val-every", "3", "--val-examples", "16", "--checkpoint-every", "0", "--seed", "5"}
	stream := []string{"--shards", shards, "--source", source, "--context", strconv.Itoa(T), "--example-seed", "3", "--loader-workers", "2"}
	torchrun := func(tag string) []string {
		return []string{"-m", "torch.distributed.run", "--redirects", "1", "--tee", "1", "--log_dir", filepath.Join(work, "torchrun-"+tag),
			"--nnodes", "1", "--rdzv_backend", "c10d", "--rdzv_endpoint", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
			"--rdzv_id", fmt.Sprintf("amt-test-%d-%s", os.Getpid(), tag), "--nproc_per_node", "2", "train.py"}
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	pre := filepath.Join(work, "pre")
	pyRun(t, python, cat(torchrun("pre"), []string{"--examples", exDir, "--out", pre}, common)...)
	str := filepath.Join(work, "stream")
	out := pyRun(t, python, cat(torchrun("stream"), []string{"--out", str}, stream, common)...)
	if !strings.Contains(out, "world 2 (gloo on cpu)") || !strings.Contains(out, "built as asked") {
		t.Fatalf("the stream run did not train on two gloo ranks from a source:\n%s", out)
	}
	res := filepath.Join(work, "resumed")
	pyRun(t, python, cat([]string{"train.py", "--out", res, "--stop-after", "3"}, stream, common)...)
	pyRun(t, python, cat(torchrun("resumed"), []string{"--out", res, "--resume", "--accum", "2"}, stream, common)...)

	lp, ls, lr := readLog(t, pre), readLog(t, str), readLog(t, res)
	if len(lp) != 6 || len(ls) != 6 || len(lr) != 6 || ls[0].World != 2 {
		t.Fatalf("logs of %d, %d, %d steps", len(lp), len(ls), len(lr))
	}
	worst := 0.0
	for i := range lp {
		for _, c := range []struct {
			l   logLine
			tol float64
		}{{ls[i], 1e-6}, {lr[i], 1e-5}} {
			d := math.Abs(c.l.Loss-lp[i].Loss) / lp[i].Loss
			if c.tol == 1e-6 {
				worst = max(worst, d)
			}
			if c.l.Step != i+1 || d > c.tol {
				t.Errorf("step %d: stream loss %.7f (step %d), pre-built %.7f", i+1, c.l.Loss, c.l.Step, lp[i].Loss)
			}
		}
	}
	if lp[5].ValLoss == nil || ls[5].ValLoss == nil || math.Abs(*lp[5].ValLoss-*ls[5].ValLoss) > 1e-6**lp[5].ValLoss {
		t.Errorf("validation losses: pre-built %v, stream %v", ptrVal(lp[5].ValLoss), ptrVal(ls[5].ValLoss))
	}
	t.Logf("losses %.4f → %.4f; largest relative difference of the 2-rank stream run from the pre-built one: %.2g", lp[0].Loss, lp[5].Loss, worst)
	// The model of the stream run carries the shards' vocabulary and the
	// key frame of its conditioning.
	m, err := app.LoadModel(str)
	if err != nil {
		t.Fatal(err)
	}
	if m.Net.Config.KeyFrame != gpt.KeyFrameTonic || m.Net.Config.TrainContext != T {
		t.Errorf("stream model: key frame %q, context %d", m.Net.Config.KeyFrame, m.Net.Config.TrainContext)
	}
	m.Close()
	for _, f := range []string{"vocab.json"} {
		a, _ := os.ReadFile(filepath.Join(shards, f))
		b, _ := os.ReadFile(filepath.Join(str, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s of the stream model differs from the shards'", f)
		}
	}

	// A source that cannot start, and one that refuses its options, are
	// named by the trainer.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--source", filepath.Join(work, "no-such-amt")}, "no-such-amt"},
		{[]string{"--source", source, "--context", "1"}, "context 1"},
	} {
		cmd := exec.Command(python, cat([]string{"train.py", "--shards", shards, "--out", filepath.Join(work, "bad"), "--steps", "1", "--preset", "tiny"}, c.args)...)
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("train.py %v: %v\n%s", c.args, err, out)
		}
	}
}

func ptrVal(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
