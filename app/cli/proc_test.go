//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/safetensors"
)

// The tests of this file run the command line as a process, as a user's
// shell would: the test binary re-executes itself as `amt` (TestMain,
// with the wiring of main.go: app.RunCommand around Main), so pipes,
// standard output, devices and signals are the real ones.

// mainArgsEnv carries the arguments of the re-executed `amt` (JSON).
const mainArgsEnv = "AMT_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if a := os.Getenv(mainArgsEnv); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			panic(err)
		}
		os.Exit(app.RunCommand(os.Stderr, func(ctx context.Context) int {
			return Main(ctx, &Env{Stdout: os.Stdout, Stderr: os.Stderr}, args)
		}))
	}
	os.Exit(m.Run())
}

// amt returns a command running `amt args...` in a process of its own,
// with its temporary folder in tmp (bench train's scratch folder lands
// there).
func amt(t *testing.T, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(b), "TMPDIR="+tmp)
	return cmd
}

// exitCode is the process's exit status (-1: killed by a signal).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -2
}

// leftovers lists, under the roots, what a stopped command must not
// leave: temporary files (".NAME.PID-N.tmp"), export scratch folders
// (".pieces-…") and bench train's scratch folders ("amt-bench-train-…").
func leftovers(t *testing.T, roots ...string) []string {
	t.Helper()
	var out []string
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			n := d.Name()
			if strings.HasSuffix(n, ".tmp") || strings.HasPrefix(n, ".pieces-") || strings.HasPrefix(n, "amt-bench-train-") {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// runAmt runs a command to its end (at most limit: none of these waits
// on anything) and returns its exit code, stdout and stderr.
func runAmt(t *testing.T, limit time.Duration, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := amt(t, t.TempDir(), args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err), so.Bytes(), se.String()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("amt %s: still running after %v (killed): it hangs", strings.Join(args, " "), limit)
	}
	return 0, nil, ""
}

// TestStreamsThroughPipes: `amt generate … -o - | amt render - -o out.wav`
// gives the WAV that rendering the same piece from a file gives; -o
// /dev/stdout writes the same MIDI bytes as -o FILE, with the report on
// standard error; a WAV and a PNG to standard output are whole files.
func TestStreamsThroughPipes(t *testing.T) {
	dir := t.TempDir()
	const prompt = "a short folk tune in D major, 2 bars"
	file := filepath.Join(dir, "file.mid")
	if code, _, se := runAmt(t, 2*time.Minute, nil, "generate", prompt, "--seed", "3", "-o", file); code != 0 {
		t.Fatalf("generate -o file: exit %d: %s", code, se)
	}
	want, _ := os.ReadFile(file)

	// generate -o - | render - -o piped.wav
	gen := amt(t, dir, "generate", prompt, "--seed", "3", "-o", "-")
	ren := amt(t, dir, "render", "-", "-o", filepath.Join(dir, "piped.wav"), "--builtin")
	pipe, err := gen.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ren.Stdin = pipe
	var genErr, renOut, renErr bytes.Buffer
	gen.Stderr, ren.Stdout, ren.Stderr = &genErr, &renOut, &renErr
	if err := gen.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ren.Start(); err != nil {
		t.Fatal(err)
	}
	gerr, rerr := gen.Wait(), ren.Wait()
	if gerr != nil || rerr != nil {
		t.Fatalf("pipeline: generate %v (%s), render %v (%s)", gerr, genErr.String(), rerr, renErr.String())
	}
	if !strings.Contains(genErr.String(), "wrote -:") {
		t.Errorf("generate's report is not on stderr: %q", genErr.String())
	}
	if code, _, se := runAmt(t, time.Minute, nil, "render", file, "-o", filepath.Join(dir, "file.wav"), "--builtin"); code != 0 {
		t.Fatalf("render file: exit %d: %s", code, se)
	}
	piped, _ := os.ReadFile(filepath.Join(dir, "piped.wav"))
	fromFile, _ := os.ReadFile(filepath.Join(dir, "file.wav"))
	if len(piped) == 0 || !bytes.Equal(piped, fromFile) {
		t.Errorf("render - gave %d bytes, render FILE %d: they differ", len(piped), len(fromFile))
	}

	// -o /dev/stdout into a pipe: the same MIDI bytes; the report on stderr.
	code, so, se := runAmt(t, 2*time.Minute, nil, "generate", prompt, "--seed", "3", "-o", "/dev/stdout")
	if code != 0 || !bytes.Equal(so, want) || !strings.Contains(se, "wrote /dev/stdout") {
		t.Errorf("-o /dev/stdout: exit %d, %d bytes (want %d, equal %v), stderr %q", code, len(so), len(want), bytes.Equal(so, want), se)
	}

	// A WAV to standard output: its header announces the frames that follow.
	code, so, se = runAmt(t, time.Minute, nil, "render", file, "-o", "-", "--builtin", "--json")
	if code != 0 || len(so) < 44 || string(so[:4]) != "RIFF" || string(so[36:40]) != "data" {
		t.Fatalf("render -o -: exit %d, %d bytes, stderr %q", code, len(so), se)
	}
	if riff, data := le32(so[4:]), le32(so[40:]); int(riff) != len(so)-8 || int(data) != len(so)-44 {
		t.Errorf("render -o -: RIFF size %d, data %d; the stream has %d bytes", riff, data, len(so))
	}
	if !strings.Contains(se, `"output": "-"`) {
		t.Errorf("render -o - --json: the report is not on stderr: %q", se)
	}
	// A piano roll to standard output.
	code, so, se = runAmt(t, time.Minute, nil, "roll", file, "-o", "-")
	if code != 0 || !bytes.HasPrefix(so, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("roll -o -: exit %d, %d bytes, stderr %q", code, len(so), se)
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// TestOutputsRefusedOrStreamed: `--wav DIR` and `-o DIR` fail before any
// work with a message naming the folder, write nothing anywhere (the
// audit saw a temporary file in the folder's parent, /); a full device
// fails the command with ENOSPC and stays a device; /dev/null takes the
// output; a symlink's target is replaced and the link stays.
func TestOutputsRefusedOrStreamed(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	os.Mkdir(dir, 0o755)
	const prompt = "a short folk tune in D major, 2 bars"
	start := time.Now()
	code, _, se := runAmt(t, time.Minute, nil, "generate", prompt, "-o", filepath.Join(dir, "x.mid"), "--wav", dir)
	if code == 0 || !strings.Contains(se, dir) || !strings.Contains(se, "is a folder") {
		t.Errorf("--wav DIR: exit %d, %q", code, se)
	}
	if len(listDir(t, dir)) != 0 || len(listDir(t, root)) != 1 {
		t.Errorf("--wav DIR wrote %v in the folder, %v beside it", listDir(t, dir), listDir(t, root))
	}
	if code, _, se = runAmt(t, time.Minute, nil, "render", "-", "-o", dir); code == 0 || !strings.Contains(se, "is a folder") {
		t.Errorf("render -o DIR: exit %d, %q", code, se)
	}
	if code, _, se = runAmt(t, time.Minute, nil, "roll", "x.mid", "-o", dir); code == 0 || !strings.Contains(se, "is a folder") {
		t.Errorf("roll -o DIR: exit %d, %q", code, se)
	}
	if d := time.Since(start); d > 30*time.Second { // generous: refusing is instant, generating a piece is not
		t.Errorf("three refusals took %v: the work ran before the check", d)
	}

	file := filepath.Join(dir, "piece.mid")
	if code, _, se := runAmt(t, 2*time.Minute, nil, "generate", prompt, "-o", file); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, se)
	}
	full := filepath.Join(dir, "full")
	if syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7) == nil { // a private /dev/full: the shared one is never written
		for _, args := range [][]string{{"generate", prompt, "-o", full}, {"render", file, "-o", full, "--builtin"}, {"roll", file, "-o", full}} {
			code, _, se := runAmt(t, 2*time.Minute, nil, args...)
			if code != 1 || !strings.Contains(se, "no space left on device") {
				t.Errorf("%s -o FULL: exit %d, %q", args[0], code, se)
			}
			if fi, err := os.Lstat(full); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Fatalf("%s replaced the device node: %v %v", args[0], fi.Mode(), err)
			}
		}
	} else {
		t.Log("mknod refused (not root?): the full-device case is skipped")
	}
	if code, so, se := runAmt(t, time.Minute, nil, "render", file, "-o", "/dev/null", "--builtin"); code != 0 || !strings.Contains(string(so), "/dev/null") {
		t.Errorf("render -o /dev/null: exit %d, %s", code, se)
	}
	target := filepath.Join(root, "target.wav")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.wav")
	os.Symlink(target, link)
	if code, _, se := runAmt(t, time.Minute, nil, "render", file, "-o", link, "--builtin"); code != 0 {
		t.Errorf("render -o LINK: exit %d, %s", code, se)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); !bytes.HasPrefix(b, []byte("RIFF")) {
		t.Errorf("the link's target holds %q…, not the WAV", b[:min(len(b), 8)])
	}
	if l := leftovers(t, root); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

// TestInputsNeverHang names, as the file to read of each command, a named
// pipe with no writer, /dev/zero, a symlink to /dev/zero and a folder: each
// command ends by itself with an error naming the file. A pipe whose writer
// stays silent is a stream still to come: SIGTERM ends the command within
// 2 s with status 143.
func TestInputsNeverHang(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.mid")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	zlink := filepath.Join(dir, "zero.mid")
	os.Symlink("/dev/zero", zlink)
	model := t.TempDir()
	if err := app.WriteRandomModel(model, "tiny", 3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	commands := map[string]func(in string) []string{
		"inspect":  func(in string) []string { return []string{"inspect", in} },
		"tokenize": func(in string) []string { return []string{"tokenize", in} },
		"eval":     func(in string) []string { return []string{"eval", in} },
		"render":   func(in string) []string { return []string{"render", in, "-o", out + ".wav", "--builtin"} },
		"play":     func(in string) []string { return []string{"play", in, "--builtin"} },
		"roll":     func(in string) []string { return []string{"roll", in, "-o", out + ".png"} },
		"continue": func(in string) []string {
			return []string{"generate", "--model", model, "--continue", in, "-o", out + ".mid"}
		},
		"regenerate": func(in string) []string {
			return []string{"generate", "--model", model, "--regenerate", "1-2", in, "-o", out + ".mid"}
		},
		"wavcheck":  func(in string) []string { return []string{"wavcheck", in} },
		"suite":     func(string) []string { return []string{"eval-model", "--suite", fifo, "--model", model} },
		"attrs":     func(string) []string { return []string{"eval", "--attrs", "@" + fifo, zlink} },
		"soundfont": func(in string) []string { return []string{"render", "x.mid", "--soundfont", in, "-o", out + ".wav"} },
		"vocab":     func(in string) []string { return []string{"tokenize", "x.mid", "--vocab", in} },
	}
	for name, args := range commands {
		for _, in := range []string{fifo, "/dev/zero", zlink, dir} {
			code, _, se := runAmt(t, 60*time.Second, nil, args(in)...)
			if code == 0 || code > 2 {
				t.Errorf("%s %s: exit %d, %q", name, in, code, se)
			}
		}
	}
	// A silent writer: the read waits for data until the signal.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, name := range []string{"inspect", "render", "continue"} {
		code, took := stopAfter(t, amt(t, dir, commands[name](fifo)...), 300*time.Millisecond, syscall.SIGTERM)
		if code != 143 || took > 2*time.Second {
			t.Errorf("%s reading a silent pipe: SIGTERM gave exit %d after %v, want 143 within 2 s", name, code, took)
		}
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("temporary files left: %v", l)
	}
}

// stopAfter starts cmd, sends sig after wait, and returns its exit code
// and how long it took to end after the signal.
func stopAfter(t *testing.T, cmd *exec.Cmd, wait time.Duration, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	return stopWhen(t, cmd, wait, nil, sig)
}

// stopWhen is stopAfter that, when ready is not nil, waits instead until
// ready accepts a line the command printed on stderr (at most a minute):
// how far work has gone is read from the command, not guessed from the
// clock (a fast machine ingested all 3,000 files of
// TestSignalsStopLongCommands within its 1.5 s wait).
func stopWhen(t *testing.T, cmd *exec.Cmd, wait time.Duration, ready func(line string) bool, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	var (
		mu sync.Mutex
		se bytes.Buffer
	)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			mu.Lock()
			se.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !once && ready != nil && ready(sc.Text()) {
				once = true
				close(seen)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	done := make(chan error, 1)
	go func() {
		<-read // Wait closes the pipe: every line read first
		done <- cmd.Wait()
	}()
	timer := time.After(wait)
	if ready != nil {
		timer = time.After(time.Minute)
	}
	select {
	case err := <-done:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%v ended by itself (exit %d) before the signal: %s", cmd.Env[len(cmd.Env)-2], exitCode(err), se.String())
	case <-seen:
	case <-timer:
		if ready != nil {
			cmd.Process.Kill()
			<-done
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%v never printed the line awaited: %s", cmd.Env[len(cmd.Env)-2], se.String())
		}
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	select {
	case err := <-done:
		return exitCode(err), time.Since(sent)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		return -1, time.Since(sent)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// writeCorpus writes n small distinct MIDI files (64 notes each) under dir
// in 50 folders, plainly (no sync: a test's corpus).
func writeCorpus(t *testing.T, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		s := &midi.Score{Format: 1, TicksPerBeat: 96, Title: fmt.Sprintf("Tune %d", i),
			Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 400000 + 10*i}},
			Meters: []midi.MeterChange{{Tick: 0, Num: 4, Den: 4}}}
		tr := midi.Track{Program: i % 128}
		for k := 0; k < 64; k++ {
			tr.Notes = append(tr.Notes, midi.Note{Tick: int64(k * 96), Dur: 90, Pitch: uint8(60 + (k*5+i)%24), Velocity: 80})
		}
		s.Tracks, s.EndTick = []midi.Track{tr}, 64*96
		var b bytes.Buffer
		if err := s.Write(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%02d/t%05d.mid", i%50, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// longScore is an hour of quarter notes at 120 bpm: minutes of rendering.
func longScore(t *testing.T, path string) {
	t.Helper()
	s := &midi.Score{Format: 1, TicksPerBeat: 96, Tempos: []midi.TempoChange{{Tick: 0, MicrosPerBeat: 500000}}}
	tr := midi.Track{}
	for k := 0; k < 7200; k++ {
		tr.Notes = append(tr.Notes, midi.Note{Tick: int64(k * 96), Dur: 90, Pitch: uint8(48 + k%24), Velocity: 80})
	}
	s.Tracks, s.EndTick = []midi.Track{tr}, 7200*96
	if err := midi.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
}

// TestSignalsStopLongCommands starts each long command on work that
// takes many seconds, signals it mid-way (SIGTERM, or SIGINT as Ctrl-C
// does), and checks that it ends within 2 s (a generous bound: the
// commands stop in milliseconds, and app.RunCommand abandons what is still
// running after app.StopGrace, 750 ms) with status 143 (130), leaves no
// temporary file or scratch folder anywhere it wrote, writes no partial
// output, and keeps what it had committed: the store opens and lists its
// items, an ingestion run again completes, a training checkpoint reads.
func TestSignalsStopLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the long commands take a minute in all")
	}
	root := t.TempDir()
	p := func(n string) string { return filepath.Join(root, n) }
	tmp := p("tmp")
	os.Mkdir(tmp, 0o755)

	corpus := p("corpus")
	writeCorpus(t, corpus, 3000)
	syscall.Mkfifo(filepath.Join(corpus, "pipe.mid"), 0o644) // the audit's hang, skipped now
	os.Symlink("/dev/zero", filepath.Join(corpus, "zero.mid"))
	shard := p("shard")
	os.Mkdir(shard, 0o755)
	testfiles.Shard(t, shard)
	long := p("long.mid")
	longScore(t, long)
	suite := p("suite.txt")
	os.WriteFile(suite, []byte(strings.Repeat("a waltz in G\na rock song with drums, 16 bars\na fast reel\n", 30)), 0o644)
	small := p("small")
	testfiles.Corpus(t, small, 30)
	exHome := p("exhome")
	if code, _, se := runCLI("ingest", small, "--project", "x", "--home", exHome); code != 0 {
		t.Fatalf("ingest for the export: %d %s", code, se)
	}

	home := p("home")
	cases := []struct {
		name  string
		sig   syscall.Signal
		wait  time.Duration
		args  []string
		check func(t *testing.T)
	}{
		{"ingest", syscall.SIGTERM, 0, []string{"ingest", corpus, "--project", "p", "--home", home, "--batch", "8", "--progress"}, func(t *testing.T) {
			code, so, se := runAmt(t, time.Minute, nil, "datasets", "--project", "p", "--home", home, "--json")
			var ds struct {
				Datasets []struct{ Items, OK int }
			}
			if code != 0 || json.Unmarshal(so, &ds) != nil || len(ds.Datasets) != 1 || ds.Datasets[0].Items == 0 || ds.Datasets[0].Items >= 3000 {
				t.Errorf("after the stop: datasets exit %d, %s %s: want the batches committed before it", code, so, se)
			}
			code, so, se = runAmt(t, 2*time.Minute, nil, "ingest", corpus, "--project", "p", "--home", home, "--json")
			var sum IngestSummary
			if code != 0 || json.Unmarshal(so, &sum) != nil || sum.Unchanged == 0 || sum.OK+sum.Unchanged != 3000 || sum.Skipped != 2 {
				t.Errorf("ingesting again: exit %d, %+v, %s", code, sum, se)
			}
		}},
		{"train", syscall.SIGINT, 2 * time.Second, []string{"train", "--data", shard, "--out", p("model"), "--preset", "tiny", "--steps", "1000000",
			"--batch", "2", "--context", "32", "--checkpoint-every", "10", "--val-every", "0"}, func(t *testing.T) {
			if _, _, err := safetensors.Read(filepath.Join(p("model"), "checkpoint.safetensors")); err != nil {
				t.Errorf("the last checkpoint: %v", err)
			}
		}},
		{"generate", syscall.SIGTERM, 1500 * time.Millisecond, []string{"generate", "a long pop song with drums and piano, 160 bars", "--candidates", "16",
			"-o", p("g.mid"), "--wav", p("g.wav")}, func(t *testing.T) {
			if _, err := os.Stat(p("g.mid")); err == nil {
				t.Error("a piece was written")
			}
		}},
		{"render", syscall.SIGTERM, time.Second, []string{"render", long, "-o", p("long.wav")}, func(t *testing.T) {
			if _, err := os.Stat(p("long.wav")); err == nil {
				t.Error("a partial WAV was written")
			}
		}},
		{"eval-model", syscall.SIGTERM, 2 * time.Second, []string{"eval-model", "--suite", suite, "--corpus", "stored", "--save", p("s.json"), "--rolls", p("rolls")}, func(t *testing.T) {
			if _, err := os.Stat(p("s.json")); err == nil {
				t.Error("a report was saved")
			}
		}},
		{"bench train", syscall.SIGTERM, 1500 * time.Millisecond, []string{"bench", "train", "--data", shard, "--steps", "10000", "--preset", "tiny", "--context", "32"}, nil}, // app.MaxBenchTrainSteps
		{"bench synth", syscall.SIGINT, time.Second, []string{"bench", "synth", "--file", long, "--min-seconds", "60"}, nil},
		{"bench engine", syscall.SIGTERM, time.Second, []string{"bench", "engine", "--repeat", "100"}, nil},
		{"datasets export", syscall.SIGTERM, 1500 * time.Millisecond, []string{"datasets", "--project", "x", "--home", exHome, "--export-examples", p("ex"),
			"--examples", "5000000", "--context", "64"}, func(t *testing.T) {
			if code, _, se := runAmt(t, time.Minute, nil, "datasets", "--project", "x", "--home", exHome); code != 0 {
				t.Errorf("the store after the stop: exit %d, %s", code, se)
			}
		}},
	}
	// Commands stopped on what they print rather than after their wait.
	ready := map[string]func(line string) bool{
		"ingest": func(line string) bool {
			// "ingest 412/3002 PATH": stopped once batches are committed,
			// long before the end.
			f := strings.Fields(line)
			if len(f) < 2 || f[0] != "ingest" {
				return false
			}
			n, err := strconv.Atoi(strings.SplitN(f[1], "/", 2)[0])
			return err == nil && n >= 400
		},
	}
	want := map[syscall.Signal]int{syscall.SIGTERM: 143, syscall.SIGINT: 130}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, took := stopWhen(t, amt(t, tmp, c.args...), c.wait, ready[c.name], c.sig)
			t.Logf("%s: exit %d, %v after %v", c.name, code, took, c.sig)
			if code != want[c.sig] || took > 2*time.Second {
				t.Errorf("%v: exit %d after %v, want %d within 2 s", c.sig, code, took, want[c.sig])
			}
			if l := leftovers(t, root); len(l) > 0 {
				t.Errorf("left behind: %v", l)
			}
			if c.check != nil {
				c.check(t)
			}
		})
	}
}
