package app

import (
	"runtime"
	"sync"

	"github.com/amtstudio/amt/engine/nn/cpu"
)

// Sampling lanes: the candidates of one request (PromptRequest.Candidates)
// are sampled side by side, one per core, each on its own copy of the
// weights on a one-worker CPU backend. One sampler gains almost nothing from
// a second worker (a step is a chain of small matrix-vector products: on the
// 2-core dev machine, 376 tokens/s with one worker, 390 with two), so
// candidates in parallel use the cores a lone sampler leaves idle. The
// result is the one sequential sampling gives, bit for bit: the CPU
// forward pass is the same for any worker count (checked by
// TestParallelCandidatesMatchSequential), candidates are judged in their
// order, and the first that meets every attribute ends the search; those
// sampled beside it in the same wave are dropped. Lanes are made on first
// use and kept with the model; Close frees them.

// MaxLanes bounds the candidates sampled at once.
const MaxLanes = 4

// laneLimit is MaxLanes but for benchmarks that compare with one lane.
var laneLimit = MaxLanes

type laneSet struct {
	mu    sync.Mutex
	extra []*Model
}

var modelLanes sync.Map // *Model → *laneSet

// lanes returns up to k models that may sample at the same time: m itself
// and copies on one-worker CPU backends, at most GOMAXPROCS and MaxLanes in
// all. A model on another backend (a GPU, OnDevice) has one lane, as has a
// machine whose memory would not hold another copy.
func (m *Model) lanes(k int) []*Model {
	k = min(k, runtime.GOMAXPROCS(0), laneLimit)
	out := []*Model{m}
	if k <= 1 {
		return out
	}
	if _, ok := m.be.(*cpu.Backend); !ok {
		return out
	}
	v, _ := modelLanes.LoadOrStore(m, &laneSet{})
	ls := v.(*laneSet)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if !m.Exact {
		m.compactWeights() // made once, shared by the lanes
	}
	for len(ls.extra) < k-1 {
		c := m.Net.Config
		w := c.TrainContext
		if w <= 0 {
			w = c.NPositions
		}
		if checkMemory("a sampling lane", c.InferenceBytes(w)+4*int64(c.NumParams())) != nil {
			break
		}
		be := cpu.NewWorkers(1)
		net, err := m.Net.CopyOnto(be, c, m.Dir)
		if err != nil {
			be.Close()
			break
		}
		ls.extra = append(ls.extra, &Model{Dir: m.Dir, Net: net, Vocab: m.Vocab, be: be, Exact: m.Exact, ck: m.ck})
	}
	for _, x := range ls.extra {
		x.Exact = m.Exact // as the model decodes now
	}
	return append(out, ls.extra[:min(len(ls.extra), k-1)]...)
}

// closeLanes frees m's lanes.
func (m *Model) closeLanes() {
	v, ok := modelLanes.LoadAndDelete(m)
	if !ok {
		return
	}
	ls := v.(*laneSet)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, x := range ls.extra {
		x.Close()
	}
	ls.extra = nil
}
