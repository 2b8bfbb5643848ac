package train

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/userfile"
)

// One run per output folder, and no run that silently undoes another's
// work: a second trainer writing the same folder replaced the first one's
// checkpoint (whose --resume then failed), and a fresh run replaced a
// checkpoint of hundreds of steps without a word.

// LockFile is the lock a run holds in its output folder. The lock is the
// kernel's (flock) on the open file, as bbolt locks the store's database:
// it goes away with the process however the process ends, so a lock file
// a killed run left behind is ignored. The file holds the holder's PID,
// to name it, and is removed when the run lets the folder go.
const LockFile = "train.lock"

var (
	// ErrInUse: another run (of this process or another) holds the
	// folder.
	ErrInUse = errors.New("in use by another training run")
	// ErrCheckpointExists: a fresh run (not Resume) into a folder holding
	// a checkpoint, without Overwrite.
	ErrCheckpointExists = errors.New("holds a checkpoint")
	// ErrNoStepsLeft: a resumed run whose Steps are at or below the
	// checkpoint's step.
	ErrNoStepsLeft = errors.New("nothing to train")
)

// maxStateHeader bounds the safetensors header read for a checkpoint's
// state: a checkpoint of the base preset has a header of a few KB; one of
// 128 layers, about 200 KB.
const maxStateHeader = 16 << 20

// Claim is an output folder held by one run: ClaimDir takes it, Release
// lets it go.
type Claim struct {
	Dir string
	// Step is the step of the checkpoint a resumed run continues from (0
	// for a fresh run).
	Step int
	lock *os.File
}

// ClaimDir makes dir, takes its lock and checks what a run of steps steps
// would do there: a fresh run (resume false) into a folder holding a
// checkpoint is refused unless overwrite (ErrCheckpointExists, naming the
// checkpoint's step); a resumed run needs a checkpoint below steps
// (ErrNoStepsLeft). Another run holding the folder is ErrInUse, naming its
// PID. Errors name the folder. Nothing in the folder is changed.
func ClaimDir(dir string, steps int, resume, overwrite bool) (*Claim, error) {
	if dir == "" {
		return nil, errors.New("train: no output folder")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	lockPath := filepath.Join(dir, LockFile)
	f, held, err := lockFile(lockPath)
	if err != nil {
		return nil, fmt.Errorf("train: lock %s: %w", lockPath, err)
	}
	if held {
		if pid := lockHolder(lockPath); pid != "" {
			return nil, fmt.Errorf("train: %s: %w (PID %s)", dir, ErrInUse, pid)
		}
		return nil, fmt.Errorf("train: %s: %w", dir, ErrInUse)
	}
	c := &Claim{Dir: dir, lock: f}
	// The holder's PID, to name it in another run's error; the lock is
	// held already, so a failed write only leaves the name out.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err := c.check(steps, resume, overwrite); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// check refuses a run that would undo the folder's work (ClaimDir).
func (c *Claim) check(steps int, resume, overwrite bool) error {
	path := filepath.Join(c.Dir, CheckpointFile)
	fi, err := os.Stat(path)
	switch {
	case resume:
		st, err := readState(path)
		if err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		if st.Step >= steps {
			return noStepsLeft(c.Dir, st.Step)
		}
		c.Step = st.Step
	case err != nil || !fi.Mode().IsRegular() || overwrite:
		// Nothing to lose: no checkpoint (a folder of that name fails
		// the first save, naming it), or the caller said so.
	default:
		st, err := readState(path)
		if err != nil {
			return fmt.Errorf("train: %s %w that does not read (%v): a fresh run would replace it", c.Dir, ErrCheckpointExists, err)
		}
		return fmt.Errorf("train: %s %w at step %d (%s): a fresh run would replace it", c.Dir, ErrCheckpointExists, st.Step, CheckpointFile)
	}
	return nil
}

func noStepsLeft(dir string, step int) error {
	return fmt.Errorf("train: resume %s: %w: its checkpoint is already at step %d (ask for more steps to train further)", dir, ErrNoStepsLeft, step)
}

// Release lets the folder go: the lock file is removed while still held,
// so a run that opened it meanwhile sees it replaced and takes the new one
// (lockFile).
func (c *Claim) Release() {
	if c == nil || c.lock == nil {
		return
	}
	unlockFile(filepath.Join(c.Dir, LockFile), c.lock)
	c.lock = nil
}

// Busy reports whether a training run (of this process or another) is
// writing dir now, with its PID where known. It creates nothing: a
// fine-tune reads its base folder this way before loading it, since a
// folder a run is writing may hold the weights of one step and the config
// of another for a moment, and its model files change under the reader.
func Busy(dir string) (pid string, busy bool) {
	path := filepath.Join(dir, LockFile)
	if !lockHeld(path) {
		return "", false
	}
	return lockHolder(path), true
}

// lockHolder is the PID written in a lock file, "" when unknown.
func lockHolder(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	pid := strings.TrimSpace(string(b))
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return pid
}

// readState reads the training state of a checkpoint from its safetensors
// header alone (bounded by maxStateHeader), not its tensors: a checkpoint
// of the base preset is 300 MB.
func readState(path string) (state, error) {
	var st state
	f, _, err := userfile.OpenRegular(path)
	if err != nil {
		return st, err
	}
	defer f.Close()
	var n [8]byte
	if _, err := io.ReadFull(f, n[:]); err != nil {
		return st, fmt.Errorf("%s: header length: %w", path, err)
	}
	hl := binary.LittleEndian.Uint64(n[:])
	if hl > maxStateHeader {
		return st, fmt.Errorf("%s: header of %d bytes, more than a checkpoint's limit of %d", path, hl, maxStateHeader)
	}
	h := make([]byte, hl)
	if _, err := io.ReadFull(f, h); err != nil {
		return st, fmt.Errorf("%s: header: %w", path, err)
	}
	var hdr struct {
		Meta map[string]string `json:"__metadata__"`
	}
	if err := json.Unmarshal(h, &hdr); err != nil {
		return st, fmt.Errorf("%s: header: %v", path, err)
	}
	if err := json.Unmarshal([]byte(hdr.Meta["amt_checkpoint"]), &st); err != nil {
		return st, fmt.Errorf("%s: no training state in the metadata: %v", path, err)
	}
	return st, nil
}
