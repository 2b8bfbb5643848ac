//go:build unix

package userfile

import (
	"errors"
	"os"
	"syscall"
)

// readFlags open a file to read without waiting for a FIFO's writer.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// writeStreamFlags open a stream to write: never creating or truncating,
// and failing at once (ENXIO) when a FIFO has no reader, instead of
// waiting in open(2) where nothing could stop it.
const writeStreamFlags = os.O_WRONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// noReader reports the error of opening a FIFO with no reader to write.
func noReader(err error) bool { return errors.Is(err, syscall.ENXIO) }

// isLoop reports a symlink loop (ELOOP).
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
