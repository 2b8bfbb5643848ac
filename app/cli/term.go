package cli

import (
	"io"
	"os"
)

// isTerminal reports whether w is a terminal (a character device), where
// a progress line redrawn with carriage returns belongs; to a file or a
// pipe such a line would leave a run of overwritten fragments.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
