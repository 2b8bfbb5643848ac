package monitor

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// settleGoroutines waits for the goroutine count to fall to at most n.
func settleGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("goroutines = %d, want <= %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
}

func TestSamplerEmitsAndStops(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(context.Background(), Options{Interval: 40 * time.Millisecond, NoGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	var prev time.Time
	for i := 0; i < 4; i++ {
		select {
		case smp, ok := <-s.Samples():
			if !ok {
				t.Fatal("channel closed early")
			}
			if !smp.Time.After(prev) {
				t.Errorf("sample %d time %v not after %v", i, smp.Time, prev)
			}
			prev = smp.Time
			if smp.CPUPercent < 0 || smp.CPUPercent > 100 || smp.RAMTotal == 0 || smp.RAMPercent > 100 {
				t.Errorf("sample %d out of range: %+v", i, smp)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no sample within 5 s")
		}
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
	s.Stop()
	s.Stop() // idempotent
	for range s.Samples() {
		// drain what was buffered; the range ends because the channel is closed
	}
	settleGoroutines(t, before)
}

func TestSamplerCancelledByContext(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Options{Interval: 20 * time.Millisecond, NoGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	<-s.Samples()
	cancel()
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("sampler still running 5 s after cancel")
	}
	s.Stop() // after the context ended: returns at once
	settleGoroutines(t, before)
}

func TestSamplerDropsOldestWhenConsumerLags(t *testing.T) {
	s, err := Start(context.Background(), Options{Interval: 10 * time.Millisecond, NoGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Dropped() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	if s.Dropped() == 0 {
		t.Fatal("nothing dropped although nobody read for many intervals")
	}
	var got []Sample
	for smp := range s.Samples() {
		got = append(got, smp)
	}
	if len(got) == 0 || len(got) > samplerBuffer {
		t.Fatalf("buffered %d samples, want 1..%d", len(got), samplerBuffer)
	}
	for i := 1; i < len(got); i++ {
		if !got[i].Time.After(got[i-1].Time) {
			t.Errorf("buffered samples out of order")
		}
	}
}
