package ui

import "os"

// useReadableLocale gives Fyne a locale it can parse. Under the POSIX locale
// ("C", common on servers and in CI) Fyne logs "Error parsing user locale C"
// on every window; English is what "C" means for messages anyway. Only the
// variable that decides the locale is changed, and only when it says C/POSIX.
func useReadableLocale() {
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
