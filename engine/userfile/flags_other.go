//go:build !unix

package userfile

import "os"

const (
	readFlags        = os.O_RDONLY
	writeStreamFlags = os.O_WRONLY
)

func noReader(err error) bool { return false }

func isLoop(err error) bool { return false }
