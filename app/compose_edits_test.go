package app

import "testing"

func TestEditsUndoRedo(t *testing.T) {
	var e Edits
	if _, ok := e.Current(); ok || e.CanUndo() || e.CanRedo() {
		t.Fatal("the zero Edits is not empty")
	}
	v := func(w string) PieceVersion { return PieceVersion{What: w} }
	what := func() string { c, _ := e.Current(); return c.What }
	e.Reset(v("generated"))
	e.Do(v("continued"))
	e.Do(v("bars 3–4"))
	if what() != "bars 3–4" || !e.CanUndo() || e.CanRedo() {
		t.Fatalf("after two changes: %q undo %v redo %v", what(), e.CanUndo(), e.CanRedo())
	}
	if u, ok := e.Undo(); !ok || u.What != "continued" {
		t.Fatalf("undo: %q %v", u.What, ok)
	}
	if u, _ := e.Undo(); u.What != "generated" || e.CanUndo() {
		t.Fatalf("second undo: %q, can undo %v", u.What, e.CanUndo())
	}
	if _, ok := e.Undo(); ok {
		t.Fatal("undo past the first version")
	}
	if r, ok := e.Redo(); !ok || r.What != "continued" {
		t.Fatalf("redo: %q %v", r.What, ok)
	}
	// A new change after an undo drops what was undone.
	e.Do(v("violin"))
	if e.CanRedo() || e.Len() != 3 || what() != "violin" {
		t.Fatalf("after a change: len %d, redo %v, current %q", e.Len(), e.CanRedo(), what())
	}
	if u, _ := e.Undo(); u.What != "continued" {
		t.Fatalf("undo after the change: %q", u.What)
	}
	// A new piece starts a new history.
	e.Reset(v("opened"))
	if e.Len() != 1 || e.CanUndo() || e.CanRedo() || what() != "opened" {
		t.Fatal("Reset kept the old history")
	}
	// The history holds at most MaxEdits versions, dropping the oldest.
	for i := 0; i < MaxEdits+10; i++ {
		e.Do(v("x"))
	}
	n := 0
	for e.CanUndo() {
		e.Undo()
		n++
	}
	if e.Len() != MaxEdits || n != MaxEdits-1 {
		t.Errorf("held %d versions, undid %d; want %d and %d", e.Len(), n, MaxEdits, MaxEdits-1)
	}
}
