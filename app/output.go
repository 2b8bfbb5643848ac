package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shirou/gopsutil/v3/disk"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/userfile"
)

// Outputs: every file a user names for writing (a MIDI file, a WAV, stems,
// a piano roll, a snapshot, a JSON report) goes through WriteOutput, and
// every folder a user names for writing (an export, a model, rolls,
// profiles) is checked by CheckOutputDir, whether the window or the
// command line asks. What the path names decides how it is written:
//
//   - "-" is standard output, written as a stream (`amt generate … -o - |
//     amt render - -o out.wav`).
//   - A path that does not exist, or a regular file, is written
//     atomically: a temporary file in the same folder, synced, renamed
//     over it. Nothing is ever written outside the destination's folder.
//   - A symlink is followed: the file it leads to is replaced atomically
//     in that file's own folder, and the link stays a link (a link to a
//     stream is written as that stream). A dangling symlink and a loop are
//     refused: a link names where to write, and there is no such place.
//   - A named pipe or a character device (/dev/stdout, a terminal,
//     /dev/null, /dev/full) is written through as a stream:
//     opened without creating or truncating anything, a pipe waited on
//     until its reader comes or the work is stopped; its write errors
//     (ENOSPC on /dev/full, EPIPE) fail the command. Standard output
//     named by path (/dev/stdout, /proc/self/fd/1) is standard output.
//   - A folder is refused, and so are a block device (a disk is never
//     the place for a MIDI file) and a socket (it cannot be opened). Commands check their outputs with
//     CheckOutput before any work, so `--wav DIR` fails at once, not after
//     a piece was generated.
//
// A stream cannot seek back: a WAV written to one announces its length in
// its header up front (audio.NewWAVStreamWriter), which may add up to
// synth.MaxTail of silence at its end.
//
// An output never replaces what the same command reads, nor another of its
// outputs: commands check their files with CheckApart before any work
// (`amt generate --continue in.mid --wav in.mid` used to turn the user's
// MIDI file into a WAV). "The same file" is the same file, not the same
// string: os.SameFile where both exist (a symlink or a hard link to the
// input is the input), the cleaned absolute path, its folder's symlinks
// resolved, where one does not exist yet. Streams ("-", pipes, devices)
// are never the same file as anything: they are read or written through.

// StdoutPath names standard output as an output (and as an input:
// ReadMIDI).
const StdoutPath = "-"

// output is where a path leads.
type output struct {
	stdout bool   // os.Stdout itself
	stream string // a stream to open (a pipe, a device, a socket)
	file   string // a regular file (existing or not) to replace atomically
}

func (o output) isStream() bool { return o.stdout || o.stream != "" }

// resolveOutput says where writing path leads, or why it cannot be
// written. It changes nothing.
func resolveOutput(path string) (output, error) {
	switch path {
	case "":
		return output{}, fmt.Errorf("%w: no output file named", ErrUsage)
	case StdoutPath:
		return output{stdout: true}, nil
	}
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		di, err := os.Stat(dir)
		switch {
		case err != nil:
			return output{}, fmt.Errorf("output %s: its folder %s: %w", path, dir, err)
		case !di.IsDir():
			return output{}, fmt.Errorf("output %s: %s is a %s, not a folder", path, dir, userfile.Kind(di.Mode()))
		}
		return output{file: path}, nil
	}
	if err != nil {
		return output{}, fmt.Errorf("output %s: %w", path, err)
	}
	fi, target := li, path
	if li.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return output{}, fmt.Errorf("output %s: a dangling symlink (what it points to does not exist): name the file itself", path)
			}
			return output{}, fmt.Errorf("output %s: a symlink that cannot be followed: %w", path, err)
		}
		if fi.Mode().IsRegular() && !isStdout(fi) {
			if target, err = filepath.EvalSymlinks(path); err != nil {
				return output{}, fmt.Errorf("output %s: a symlink that cannot be followed: %w", path, err)
			}
		}
	}
	m := fi.Mode()
	switch {
	case isStdout(fi):
		return output{stdout: true}, nil
	case m.IsRegular():
		return output{file: target}, nil
	case m.IsDir():
		return output{}, fmt.Errorf("output %s is a folder: name a file in it", path)
	case userfile.IsStream(m):
		return output{stream: path}, nil
	}
	return output{}, fmt.Errorf("output %s is a %s: refusing to write over it", path, userfile.Kind(m))
}

// isStdout reports whether fi is the file standard output writes to.
func isStdout(fi fs.FileInfo) bool {
	so, err := os.Stdout.Stat()
	return err == nil && os.SameFile(fi, so)
}

// CheckOutput reports why path cannot be written as WriteOutput would
// write it (a folder, a block device, a dangling symlink, a missing
// folder), before any work; nil when it can.
func CheckOutput(path string) error {
	_, err := resolveOutput(path)
	return err
}

// OutputIsStream reports whether writing path writes a stream (standard
// output, a pipe, a device), not a file: no file name extension is asked
// of it, and there is no folder beside it for stems.
func OutputIsStream(path string) bool {
	o, err := resolveOutput(path)
	return err == nil && o.isStream()
}

// OutputIsStdout reports whether writing path writes the process's
// standard output ("-", /dev/stdout): a command then prints its report on
// standard error, so the stream stays whole.
func OutputIsStdout(path string) bool {
	o, err := resolveOutput(path)
	return err == nil && o.stdout
}

// WriteOutput writes the output a user named, path, through write, as
// the comment above says: atomically for a file (write gets the temporary
// *os.File, which can seek), as a stream otherwise (write gets a buffered
// writer that cannot; its errors, and a full device's, are returned). It
// returns ctx's error when ctx ends while a stream waits for its reader.
// Errors name the path.
func WriteOutput(ctx context.Context, path string, write func(w io.Writer) error) error {
	o, err := resolveOutput(path)
	if err != nil {
		return err
	}
	if o.file != "" {
		atomicfile.CleanStale(filepath.Dir(o.file)) // what a killed writer left there
		if err := atomicfile.Write(o.file, func(f *os.File) error { return write(f) }); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	var f *os.File
	if o.stdout {
		f = os.Stdout
	} else {
		if f, err = userfile.OpenStream(ctx, o.stream); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		defer f.Close()
	}
	bw := bufio.NewWriterSize(streamWriter{ctx, f}, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// streamWriter writes to a stream until ctx ends (userfile.WriteAll).
type streamWriter struct {
	ctx context.Context
	f   *os.File
}

func (w streamWriter) Write(b []byte) (int, error) {
	if err := userfile.WriteAll(w.ctx, w.f, b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// WriteOutputBytes is WriteOutput for content already in memory, stopped
// by Stopping's context.
func WriteOutputBytes(path string, data []byte) error {
	return WriteOutput(Stopping(), path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CheckOutputDir reports why dir cannot be the folder a command writes
// into (it is a file, a device, a dangling symlink); nil when it is a
// folder, a symlink to one, or does not exist yet (it is then created,
// with its parents).
func CheckOutputDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: no output folder named", ErrUsage)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(dir); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("output folder %s is a dangling symlink (what it points to does not exist)", dir)
		}
		return nil
	case err != nil:
		return fmt.Errorf("output folder %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("output folder %s is a %s, not a folder", dir, userfile.Kind(fi.Mode()))
	}
	return nil
}

// FileArg is a file a command reads or writes, with what named it, for
// messages: {"--wav", "song.wav"}, {"the input", "in.mid"}.
type FileArg struct {
	Name, Path string
}

// CheckApart refuses, as a usage error naming both, an output that is one
// of inputs or another of outputs (see "An output never replaces" above);
// empty paths, "-" and streams are skipped. Outputs that cannot be written
// at all are CheckOutput's to report: they are skipped here.
func CheckApart(inputs, outputs []FileArg) error {
	type named struct {
		FileArg
		id fileID
	}
	var ins, outs []named
	for _, in := range inputs {
		if id, ok := inputID(in.Path); ok {
			ins = append(ins, named{in, id})
		}
	}
	for _, o := range outputs {
		id, ok := outputID(o.Path)
		if !ok {
			continue
		}
		for _, in := range ins {
			if id.same(in.id) {
				return fmt.Errorf("%w: %s %s is the same file as %s %s, which this command reads: name another output", ErrUsage, o.Name, o.Path, in.Name, in.Path)
			}
		}
		for _, p := range outs {
			if id.same(p.id) {
				return fmt.Errorf("%w: %s %s is the same file as %s %s: one would replace the other; name two files", ErrUsage, o.Name, o.Path, p.Name, p.Path)
			}
		}
		outs = append(outs, named{o, id})
	}
	return nil
}

// fileID is what a path names, to compare with another (fileID.same).
type fileID struct {
	fi  fs.FileInfo // the file itself; nil where it does not exist (yet)
	abs string      // the cleaned absolute path, its folder's symlinks resolved
}

func (a fileID) same(b fileID) bool {
	if a.fi != nil && b.fi != nil {
		return os.SameFile(a.fi, b.fi)
	}
	return a.abs == b.abs
}

// outputID is where writing path leads (resolveOutput: a symlink to a
// file leads to that file); false for a stream or an output that cannot be
// written.
func outputID(path string) (fileID, bool) {
	if path == "" {
		return fileID{}, false
	}
	o, err := resolveOutput(path)
	if err != nil || o.isStream() {
		return fileID{}, false
	}
	return pathID(o.file), true
}

// inputID is what reading path reads; false for standard input and for
// anything but a regular file that exists or a path that does not (a
// pipe, a device, a folder).
func inputID(path string) (fileID, bool) {
	if path == "" || path == StdoutPath {
		return fileID{}, false
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fileID{}, false
	}
	return pathID(path), true
}

func pathID(path string) fileID {
	id := fileID{abs: filepath.Clean(path)}
	if fi, err := os.Stat(path); err == nil {
		id.fi = fi
	}
	if a, err := filepath.Abs(path); err == nil {
		id.abs = a
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(id.abs)); err == nil {
		id.abs = filepath.Join(d, filepath.Base(id.abs))
	}
	return id
}

// freeSpace returns the bytes the file system holding path has free for
// this user (statfs: blocks available to unprivileged users). A variable:
// tests stand in a small disk.
var freeSpace = func(path string) (uint64, error) {
	u, err := disk.Usage(path)
	if err != nil {
		return 0, err
	}
	return u.Free, nil
}

// checkFreeSpace refuses to write need bytes into dir (created later if
// absent: its nearest existing folder is asked) when its file system has
// less free, before any work; what names the work and the flags that size
// it. Where the file system does not say, the writes decide.
func checkFreeSpace(dir string, need int64, what string) error {
	p := filepath.Clean(dir)
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		up := filepath.Dir(p)
		if up == p {
			return nil
		}
		p = up
	}
	free, err := freeSpace(p)
	if err != nil {
		return nil
	}
	if need > 0 && uint64(need) > free {
		return fmt.Errorf("%s: needs %s in %s; its disk has %s free", what, fmtBytes(need), dir, fmtBytes(int64(min(free, 1<<62))))
	}
	return nil
}

// fmtBytes formats a size in bytes with a decimal unit (1.5 GB).
func fmtBytes(n int64) string {
	f, units := float64(n), []string{"bytes", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
