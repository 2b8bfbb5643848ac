//go:build unix

package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/amtstudio/amt/engine/midi"
)

// TestCheckApart: an output is refused when it is an input or another
// output as a file, whatever the string (the same path, a relative path
// through "..", a symlink or a hard link to it, a folder reached through
// a symlinked folder, a file not written yet named twice), and is not when
// it is another file or a stream ("-", a pipe, /dev/null) however named.
func TestCheckApart(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, "in.mid")
	other := filepath.Join(root, "other.mid")
	for _, f := range []string{in, other} {
		if err := os.WriteFile(f, []byte("MThd"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(sub, "link.wav")
	hard := filepath.Join(sub, "hard.wav")
	subLink := filepath.Join(root, "via")
	fifo := filepath.Join(root, "fifo")
	for _, err := range []error{os.Symlink(in, link), os.Link(in, hard), os.Symlink(sub, subLink), syscall.Mkfifo(fifo, 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(sub, "..", "in.mid"))
	if err != nil {
		t.Fatal(err)
	}
	newOut := filepath.Join(sub, "new.wav")
	for _, c := range []struct {
		name     string
		ins      []string
		outs     []string
		refusing string // "" : accepted; else the message names these
	}{
		{"the input itself", []string{in}, []string{in}, "-o " + in + " is the same file as the input " + in},
		{"relative through ..", []string{in}, []string{rel}, "the input " + in},
		{"symlink to the input", []string{in}, []string{link}, "-o " + link},
		{"hard link to the input", []string{in}, []string{hard}, "-o " + hard},
		{"input through a symlink", []string{link}, []string{in}, "the input " + link},
		{"two outputs, one file", nil, []string{newOut, filepath.Join(subLink, "new.wav")}, "one would replace the other"},
		{"two outputs, same name", nil, []string{other, other}, "one would replace the other"},
		{"another file", []string{in}, []string{other, newOut}, ""},
		{"stdin and stdout", []string{"-"}, []string{"-"}, ""},
		{"a pipe in and out", []string{fifo}, []string{fifo}, ""},
		{"/dev/null twice", []string{"/dev/null"}, []string{"/dev/null", "/dev/null"}, ""},
		{"nothing named", []string{""}, []string{"", ""}, ""},
	} {
		var ins, outs []FileArg
		for _, p := range c.ins {
			ins = append(ins, FileArg{"the input", p})
		}
		for i, p := range c.outs {
			outs = append(outs, FileArg{[]string{"-o", "--wav"}[i], p})
		}
		err := CheckApart(ins, outs)
		switch {
		case c.refusing == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.refusing != "" && (!errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.refusing)):
			t.Errorf("%s: %v, want a usage error naming %q", c.name, err, c.refusing)
		}
	}
	if _, err := os.Stat(newOut); !os.IsNotExist(err) {
		t.Errorf("checking created %s", newOut)
	}
}

// ExportStems (the window's Export stems and render --stems) writes no
// stem over the file it renders: a stem rendered again with stems names
// its own first stem like itself. It is refused before any stem is
// written, and the input keeps its bytes.
func TestExportStemsKeepsInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "engine", "midi", "testdata", "fifo.mid"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := midi.Parse("fifo.mid", src)
	if err != nil {
		t.Fatal(err)
	}
	// fifo.mid's one track is an Acoustic Grand Piano: its stem of base
	// "s" is s-01-acoustic-grand-piano.
	in := filepath.Join(dir, "s-01-acoustic-grand-piano.mid")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ExportStems(context.Background(), sc, dir, "s", StemOptions{WAV: true, Render: RenderOptions{Input: in, Builtin: true}})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "stem "+in) {
		t.Errorf("stems over their input: %v, want a usage error naming %s", err, in)
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, src) {
		t.Errorf("the input changed (%d bytes, was %d)", len(got), len(src))
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("files written: %v", names)
	}
	// Under another base the same export writes its two files.
	files, err := ExportStems(context.Background(), sc, dir, "t", StemOptions{WAV: true, Render: RenderOptions{Input: in, Builtin: true}})
	if err != nil || len(files) != 2 {
		t.Errorf("stems t: %v %v", files, err)
	}
}
