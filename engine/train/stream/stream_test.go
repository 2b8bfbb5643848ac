package stream

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/corpus"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/engine/pipeline"
	"github.com/amtstudio/amt/engine/token"
	"github.com/amtstudio/amt/engine/train/examples"
)

// shards writes real pieces (the first Nottingham tunes when ../shared/data
// is there, else engine/midi/testdata's files) as two dataset exports side
// by side, each with its vocab.json, as make model's data folder holds them.
func shards(t testing.TB) string { return shardsOf(t, corpus.Nottingham) }

func shardsOf(t testing.TB, name string) string {
	t.Helper()
	var files []string
	if corpus.Dir() != "" {
		if all, err := corpus.List(filepath.Join(corpus.Dir(), name)); err == nil && len(all) >= 16 {
			files = all[:16]
		}
	}
	if files == nil {
		files, _ = filepath.Glob(filepath.Join("..", "..", "midi", "testdata", "*.mid"))
		t.Logf("real corpora absent: %d MIDI files of engine/midi/testdata", len(files))
	}
	v := token.DefaultVocab()
	var pieces [][]uint16
	for _, f := range files {
		s, err := midi.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if toks, _, err := v.AppendEncodeMeasured(nil, s, midi.Analyze(s)); err == nil {
			pieces = append(pieces, toks)
		}
	}
	if len(pieces) < 4 {
		t.Fatalf("only %d pieces encode", len(pieces))
	}
	dir := filepath.Join(t.TempDir(), "shards")
	h := len(pieces) / 2
	for i, part := range [][][]uint16{pieces[:h], pieces[h:]} {
		sub := filepath.Join(dir, fmt.Sprintf("corpus%d", i))
		if _, err := pipeline.WriteShard(sub, "shard-00000", part); err != nil {
			t.Fatal(err)
		}
		if err := v.Save(filepath.Join(sub, examples.VocabFile)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testSpec(dir string) Spec {
	s := DefaultSpec()
	s.Shards, s.Context, s.Batch, s.Seed, s.SplitSeed, s.ValFrac, s.Workers = dir, 96, 4, 3, 7, 0.2, 3
	return s
}

// client is the Go side of the protocol, as cluster/examples.py reads it.
type client struct {
	t   *testing.T
	w   *io.PipeWriter
	r   *io.PipeReader
	h   Header
	err chan error
}

func serve(t *testing.T, ctx context.Context, src *Source) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, r: outR, err: make(chan error, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := src.Serve(ctx, inR, outW)
		outW.CloseWithError(io.EOF)
		c.err <- err
	}()
	// When the test ends (failed or not), the server ends before the shards
	// are closed (register src.Close with t.Cleanup before calling serve).
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-done
	})
	var head [12]byte
	if _, err := io.ReadFull(outR, head[:]); err != nil || string(head[:4]) != "AMTS" || binary.LittleEndian.Uint32(head[4:]) != Version {
		t.Fatalf("header %q: %v", head, err)
	}
	hj := make([]byte, binary.LittleEndian.Uint32(head[8:]))
	io.ReadFull(outR, hj)
	if err := json.Unmarshal(hj, &c.h); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *client) send(line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("send %q: %v", line, err)
	}
}

// answer reads one answer: the rows as the files store them and the
// lengths, or the error message.
func (c *client) answer() (rows [][]byte, lengths []uint32, msg string) {
	c.t.Helper()
	var h [12]byte
	if _, err := io.ReadFull(c.r, h[:]); err != nil || string(h[:4]) != "AMTR" {
		c.t.Fatalf("answer header %q: %v", h, err)
	}
	n := int(binary.LittleEndian.Uint32(h[8:]))
	if binary.LittleEndian.Uint32(h[4:]) != 0 {
		b := make([]byte, n)
		io.ReadFull(c.r, b)
		return nil, nil, string(b)
	}
	lb := make([]byte, 4*n)
	io.ReadFull(c.r, lb)
	for i := range n {
		lengths = append(lengths, binary.LittleEndian.Uint32(lb[4*i:]))
	}
	w := 2 * c.h.RowTokens
	for range n {
		row := make([]byte, w)
		if _, err := io.ReadFull(c.r, row); err != nil {
			c.t.Fatal(err)
		}
		rows = append(rows, row)
	}
	return rows, lengths, ""
}

// The stream's example i is the exported files' row i, for both splits,
// whatever the order of asking, with requests sent ahead of the answers;
// the export is today's writer (examples.Write, what `amt datasets
// --export-examples` runs) over the same pieces and builder.
func TestStreamRowsAreExportedRows(t *testing.T) {
	src, err := Open(testSpec(shards(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	h := src.Header()
	if h.Splits["train"].Pieces == 0 || h.Splits["val"].Pieces == 0 || h.MaxRows < 64 {
		t.Fatalf("header %+v", h)
	}
	dir := t.TempDir()
	sp := src.spec
	if _, err := examples.Write(context.Background(), dir, src.Dataset(), src.Builder(), examples.Options{Context: sp.Context,
		Train: 22, Val: 9, Batch: sp.Batch, Seed: sp.Seed, SplitSeed: sp.SplitSeed, ValFrac: sp.ValFrac, VocabJSON: src.VocabJSON(),
		VocabSize: src.Vocab().Size(), PAD: int(src.Vocab().PAD), Conditioning: src.Conditioning()}); err != nil {
		t.Fatal(err)
	}
	set, err := examples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fileRow := func(split string, i int) ([]byte, uint32) {
		row := make([]uint32, set.RowTokens)
		L, err := set.Row(split, i, row)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 2*len(row))
		for j, x := range row {
			binary.LittleEndian.PutUint16(b[2*j:], uint16(x))
		}
		return b, uint32(L)
	}
	c := serve(t, context.Background(), src)
	if c.h.Conditioning == nil || c.h.VocabJSON != string(src.VocabJSON()) || c.h.SplitSeed != 7 || c.h.Splits["val"].Seed != 3^examples.ValSeedXor {
		t.Fatalf("header %+v", c.h)
	}
	reqs := []struct {
		split string
		line  string
		idx   []int
	}{
		{"train", "train 0+22", seq(0, 22)},
		{"val", "val 0+9", seq(0, 9)},
		{"train", "train 17 3 5+2 0", []int{17, 3, 5, 6, 0}},
		{"val", "val 8 1", []int{8, 1}},
	}
	for _, r := range reqs { // all sent before any answer is read
		c.send(r.line)
	}
	for _, r := range reqs {
		rows, lengths, msg := c.answer()
		if msg != "" || len(rows) != len(r.idx) {
			t.Fatalf("%q: %d rows, %q", r.line, len(rows), msg)
		}
		for j, i := range r.idx {
			want, L := fileRow(r.split, i)
			if !bytes.Equal(rows[j], want) || lengths[j] != L {
				t.Fatalf("%q: %s example %d differs from the exported row (length %d, file %d)", r.line, r.split, i, lengths[j], L)
			}
		}
	}
	c.w.Close()
	if err := <-c.err; err != nil {
		t.Fatalf("end of input: %v", err)
	}
}

func seq(a, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = a + i
	}
	return s
}

// One worker or several, the same bytes; examples far beyond any export
// (no wrap-around) are built too.
func TestStreamWorkersGiveTheSameBytes(t *testing.T) {
	dir := shards(t)
	var got [][]byte
	for _, w := range []int{1, 4} {
		spec := testSpec(dir)
		spec.Workers = w
		src, err := Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		c := serve(t, context.Background(), src)
		c.send("train 1000000+12 9007199254740000")
		rows, lengths, msg := c.answer()
		if msg != "" || len(rows) != 13 || lengths[12] < 2 {
			t.Fatalf("%d workers: %d rows %q", w, len(rows), msg)
		}
		got = append(got, bytes.Join(rows, nil))
		c.w.Close()
		<-c.err
		src.Close()
	}
	if !bytes.Equal(got[0], got[1]) {
		t.Fatal("1 and 4 workers built different rows")
	}
}

// Bad requests get an error answer naming the value, and the server
// stops with that error; a split without pieces is named.
func TestStreamBadRequests(t *testing.T) {
	dir := shards(t)
	for _, c := range []struct{ line, want string }{
		{"test 1", `split "test"`},
		{"train x", `"x"`},
		{"train 3+0", `"3+0"`},
		{"train", "want a split"},
		{"val 9007199254740993", `"9007199254740993"`},
		{"train 0+100000", "more than"},
		{strings.Repeat("1", 2<<20), "longer than"},
	} {
		src, err := Open(testSpec(dir))
		if err != nil {
			t.Fatal(err)
		}
		cl := serve(t, context.Background(), src)
		// The server stops reading at the error: the rest of a long line
		// would block an unbuffered pipe (an OS pipe fails the write once
		// the server has exited).
		go io.WriteString(cl.w, c.line+"\n")
		_, _, msg := cl.answer()
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "request 1") {
			t.Errorf("%q: answer %q, want %q", clip(c.line), msg, c.want)
		}
		if err := <-cl.err; !errors.Is(err, ErrRequest) {
			t.Errorf("%q: Serve returned %v", clip(c.line), err)
		}
		src.Close()
	}
	spec := testSpec(dir)
	spec.ValFrac = 0
	src, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	cl := serve(t, context.Background(), src)
	cl.send("val 0")
	if _, _, msg := cl.answer(); !strings.Contains(msg, "val split has no pieces") || !strings.Contains(msg, "validation share 0") {
		t.Errorf("val without pieces: %q", msg)
	}
}

// Open names what is wrong: no vocabulary, two different ones, options.
func TestOpenErrors(t *testing.T) {
	dir := shards(t)
	bad := func(mod func(*Spec), want string) {
		t.Helper()
		s := testSpec(dir)
		mod(&s)
		if _, err := Open(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
	bad(func(s *Spec) { s.Context = 1 }, "context 1")
	bad(func(s *Spec) { s.Batch = 0 }, "batch 0")
	bad(func(s *Spec) { s.ValFrac = 1 }, "validation share 1")
	bad(func(s *Spec) { s.KeyFrame = "relative" }, `"relative"`)
	bad(func(s *Spec) { s.KeyLabels = "song" }, `"song"`)
	bad(func(s *Spec) { s.StartProb = 0.95 }, "0.95")
	bad(func(s *Spec) { s.Shards = filepath.Join(dir, "nothing") }, "nothing")
	other := filepath.Join(dir, "corpus1", examples.VocabFile)
	b, _ := os.ReadFile(other)
	os.WriteFile(other, append(b, ' '), 0o644)
	bad(func(s *Spec) {}, "corpus1/vocab.json differ")
	os.Remove(filepath.Join(dir, "corpus0", examples.VocabFile))
	os.Remove(other)
	bad(func(s *Spec) {}, "no vocab.json")
}

// A cancelled context ends Serve while the client keeps asking; a client
// that went away (its end of the pipe closed) ends it with the write error.
func TestStreamCancelAndVanishedClient(t *testing.T) {
	src, err := Open(testSpec(shards(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	c := serve(t, ctx, src)
	c.send("train 0+8")
	c.answer()
	cancel()
	select {
	case err := <-c.err:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	c = serve(t, context.Background(), src)
	c.r.Close()
	c.send("train 0+8")
	select {
	case err := <-c.err:
		if err == nil || !strings.Contains(err.Error(), "write") {
			t.Errorf("vanished client: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when the client went away")
	}
}

// BenchmarkRow: one worker building conditioned examples of 1,024 tokens
// (the default model's context) from 16 POP909 pieces (long piano pieces
// that fill the window; Nottingham's tunes are shorter); tokens/s counts
// the examples' real tokens (no padding): what one source thread feeds a
// rank.
func BenchmarkRow(b *testing.B) {
	dir := shardsOf(b, corpus.POP909)
	spec := testSpec(dir)
	spec.Context, spec.Batch = 1024, 16
	src, err := Open(spec)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	row := make([]byte, 2*1025)
	in, tg := make([]int32, 1024), make([]int32, 1024)
	b.ResetTimer()
	tokens := 0
	for i := 0; i < b.N; i++ {
		L, err := src.Row("train", uint64(i), row, in, tg)
		if err != nil {
			b.Fatal(err)
		}
		tokens += L
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(tokens)/float64(b.N), "tokens/example")
}
