//go:build linux && cgo

package audio

/*
#cgo pkg-config: alsa
#include <alsa/asoundlib.h>

// amtQuietALSA drops ALSA's own error printing: without a sound card libasound
// writes a dozen "cannot find card '0'" lines to stderr before oto returns
// the error, which device() already reports as ErrNoDevice with the reason.
static void amtQuietHandler(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static void amtQuietALSA(void) { snd_lib_error_set_handler(amtQuietHandler); }
*/
import "C"

func quietDriver() { C.amtQuietALSA() }
