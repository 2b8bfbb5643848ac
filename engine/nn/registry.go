package nn

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Backend registry, in the manner of ollama's ml.RegisterBackend: each
// backend package registers an opener in its init, so callers pick a device
// by name ("cpu", "cuda") or let OpenBackend choose ("auto": the registered
// backend with the highest priority that opens, else the next, with the
// reasons of the ones that failed). nn itself imports no backend.

// Opener opens a backend; it returns an error (wrapping ErrNoBackend when the
// device or its libraries are absent) instead of panicking.
type Opener func() (Backend, error)

type registered struct {
	name     string
	priority int
	open     Opener
}

var (
	regMu    sync.Mutex
	registry = map[string]registered{}
)

// RegisterBackend makes a backend available under name. Higher priority wins
// under "auto" (cuda registers 100, cpu 0). Registering a name twice panics,
// as database/sql does: it is a programming error in an init function.
func RegisterBackend(name string, priority int, open Opener) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("nn: RegisterBackend called twice for " + name)
	}
	registry[name] = registered{name: name, priority: priority, open: open}
}

// IsRegistered reports whether a backend of that name is registered.
func IsRegistered(name string) bool {
	regMu.Lock()
	defer regMu.Unlock()
	_, ok := registry[name]
	return ok
}

// BackendNames lists the registered backends, highest priority first.
func BackendNames() []string {
	var names []string
	for _, r := range sortedBackends() {
		names = append(names, r.name)
	}
	return names
}

func sortedBackends() []registered {
	regMu.Lock()
	defer regMu.Unlock()
	rs := make([]registered, 0, len(registry))
	for _, r := range registry {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].priority != rs[j].priority {
			return rs[i].priority > rs[j].priority
		}
		return rs[i].name < rs[j].name
	})
	return rs
}

// Choice tells which backend OpenBackend picked and why.
type Choice struct {
	Requested string // what the caller asked for ("auto", "cpu", "cuda")
	Name      string // the backend opened
	// Reason is one line for the user: "cuda: NVIDIA H100 80GB HBM3 (sm_90)"
	// or "cpu (cuda unavailable: no NVIDIA driver: libcuda.so.1 not found)".
	Reason string
	// Skipped holds the error of every higher-priority backend that failed.
	Skipped []error
}

// ErrUnknownDevice is returned for a device name that no backend registered.
var ErrUnknownDevice = errors.New("nn: unknown device")

// ParseDevice checks a --device value: "auto", "" (auto) or a registered name.
func ParseDevice(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return "auto", nil
	}
	if IsRegistered(s) {
		return s, nil
	}
	return "", fmt.Errorf("%w %q (one of auto, %s)", ErrUnknownDevice, s, strings.Join(BackendNames(), ", "))
}

// OpenBackend opens the backend named device ("cpu", "cuda"), or with "auto"
// (or "") the highest-priority registered backend that opens, falling back in
// priority order. Naming a device that fails to open is an error (no silent
// fallback when the user asked for it).
func OpenBackend(device string) (Backend, Choice, error) {
	dev, err := ParseDevice(device)
	if err != nil {
		return nil, Choice{Requested: device}, err
	}
	ch := Choice{Requested: dev}
	if dev != "auto" {
		var r registered
		for _, x := range sortedBackends() {
			if x.name == dev {
				r = x
			}
		}
		be, err := r.open()
		if err != nil {
			return nil, ch, fmt.Errorf("nn: open %s: %w", dev, err)
		}
		ch.Name, ch.Reason = dev, describe(be, dev)
		return be, ch, nil
	}
	for _, r := range sortedBackends() {
		be, err := r.open()
		if err != nil {
			ch.Skipped = append(ch.Skipped, fmt.Errorf("%s unavailable: %w", r.name, err))
			continue
		}
		ch.Name = r.name
		ch.Reason = describe(be, r.name)
		if len(ch.Skipped) > 0 {
			var why []string
			for _, e := range ch.Skipped {
				why = append(why, e.Error())
			}
			ch.Reason += " (" + strings.Join(why, "; ") + ")"
		}
		return be, ch, nil
	}
	if len(ch.Skipped) == 0 {
		return nil, ch, fmt.Errorf("%w: no backend registered (import engine/nn/cpu or engine/nn/device)", ErrNoBackend)
	}
	return nil, ch, fmt.Errorf("%w: %w", ErrNoBackend, errors.Join(ch.Skipped...))
}

// Describer is implemented by backends that can say more than their name
// (the CUDA backend names the GPU and its compute capability).
type Describer interface{ Describe() string }

func describe(be Backend, name string) string {
	if d, ok := be.(Describer); ok {
		return d.Describe()
	}
	return name
}
