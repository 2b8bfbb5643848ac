package nn

import (
	"errors"
	"strings"
	"testing"
)

// fakeBackend satisfies Backend by embedding it; only Name is called.
type fakeBackend struct {
	Backend
	name string
}

func (f fakeBackend) Name() string { return f.name }

func TestOpenBackendPriorityAndFallback(t *testing.T) {
	errGone := errors.New("gone")
	RegisterBackend("t-hi", 1000, func() (Backend, error) { return nil, errGone })
	RegisterBackend("t-mid", 999, func() (Backend, error) { return fakeBackend{name: "t-mid"}, nil })
	be, ch, err := OpenBackend("auto")
	if err != nil {
		t.Fatal(err)
	}
	if be.Name() != "t-mid" || ch.Name != "t-mid" || len(ch.Skipped) != 1 || !errors.Is(ch.Skipped[0], errGone) {
		t.Fatalf("got %s, %+v", be.Name(), ch)
	}
	if ch.Reason != "t-mid (t-hi unavailable: gone)" {
		t.Errorf("reason %q", ch.Reason)
	}
	if _, _, err := OpenBackend("t-hi"); !errors.Is(err, errGone) || !strings.Contains(err.Error(), "open t-hi") {
		t.Errorf("named failing backend: %v", err)
	}
	if _, err := ParseDevice("nope"); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("ParseDevice(nope) = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("duplicate registration did not panic")
		}
	}()
	RegisterBackend("t-mid", 1, nil)
}
