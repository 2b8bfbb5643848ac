package app

import (
	"github.com/amtstudio/amt/engine/eval"
)

// Since issue 25 a suite piece's request holds what the prompt's words
// imply as well as what it names (Understand), so the suite's adherence
// counts implied tempi, modes and drums too. ExplicitAdherence is the
// adherence to what the prompt names alone (Understanding.Named), the
// figure that compares with the runs before the words implied anything.

// explicitAdherence scores a piece against the attributes its prompt
// names, as the prompt path finishes them (bars > 0 overrides the length,
// as the suite's request does).
func explicitAdherence(u *Understanding, bars int, m *eval.Metrics) eval.Adherence {
	return eval.Adhere(finishRequest(u.Named, bars), m)
}
