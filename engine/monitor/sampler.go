package monitor

import (
	"context"
	"sync"
	"time"
)

// DefaultInterval is the sampling interval when Options.Interval is 0.
const DefaultInterval = time.Second

// Sampler reads resources on an interval in a goroutine it owns and emits
// the Samples on a channel. The channel keeps the newest few Samples: when
// the consumer falls behind, the oldest waiting one is dropped, so the
// sampler never blocks and the consumer always sees recent values.
type Sampler struct {
	reader   *Reader
	interval time.Duration
	out      chan Sample
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once

	mu      sync.Mutex
	err     error // last read error, if any
	dropped int
}

// samplerBuffer is how many Samples wait in the channel at most.
const samplerBuffer = 4

// Start opens a Reader and starts sampling every opts.Interval until ctx is
// cancelled or Stop is called; then the channel is closed and NVML released.
// The first Sample arrives one interval after Start.
func Start(ctx context.Context, opts Options) (*Sampler, error) {
	r, err := NewReader(ctx, opts)
	if err != nil {
		return nil, err
	}
	iv := opts.Interval
	if iv <= 0 {
		iv = DefaultInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Sampler{reader: r, interval: iv, out: make(chan Sample, samplerBuffer), cancel: cancel, done: make(chan struct{})}
	go s.run(ctx)
	return s, nil
}

// Samples returns the channel of Samples; it is closed when the Sampler stops.
func (s *Sampler) Samples() <-chan Sample { return s.out }

// GPUError is nil when GPUs are sampled, else an error wrapping ErrNoGPU
// ("no GPU: <reason>").
func (s *Sampler) GPUError() error { return s.reader.GPUError() }

// Err returns the error of the most recent failed read, or nil.
func (s *Sampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Dropped returns how many Samples were dropped because the consumer was behind.
func (s *Sampler) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Stop ends sampling and waits until the goroutine has exited and the
// channel is closed. It is safe to call more than once and after ctx ends.
func (s *Sampler) Stop() {
	s.stopOnce.Do(s.cancel)
	<-s.done
}

// Done is closed when the sampling goroutine has exited.
func (s *Sampler) Done() <-chan struct{} { return s.done }

func (s *Sampler) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.out)
	defer s.reader.Close()
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		smp, err := s.reader.Read(ctx)
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		select {
		case s.out <- smp:
		default:
			// Full: drop the oldest waiting Sample. We are the only
			// sender, so after taking one the send cannot block.
			select {
			case <-s.out:
				s.mu.Lock()
				s.dropped++
				s.mu.Unlock()
			default:
			}
			s.out <- smp
		}
	}
}
