// Package locale gives Fyne a locale it can parse. Under the POSIX locale
// ("C", common on servers, in CI and in minimal containers) Fyne's lang
// package logs "Error parsing user locale C" from its init, on every run of
// every command. English is what "C" means for messages, so when the
// variable that decides the locale says C/POSIX it is set to en_US.UTF-8.
//
// This must happen before fyne.io/fyne/v2/lang initializes. Go initializes
// packages in import-path order among those whose imports are ready (spec,
// "Package initialization", Go ≥ 1.21); this package imports only os and its
// path sorts before github.com/jeandeaual/go-locale, which Fyne's lang
// imports, so its init always runs first. ui imports it.
package locale

import "os"

func init() { Fix() }

// Fix sets the deciding locale variable to en_US.UTF-8 when it names the
// POSIX locale; other locales are left alone.
func Fix() {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		switch os.Getenv(v) {
		case "":
			continue
		case "C", "POSIX", "C.UTF-8", "C.utf8":
			os.Setenv(v, "en_US.UTF-8")
		}
		return
	}
}
