package pipeline

import (
	"fmt"
	"math"
)

// Verdict reads a run's stage statistics and names the bottleneck (disk-
// bound, CPU-bound, a CPU-bound stage, blocked on writes, or starved) with
// concrete suggestions. Utilization of a stage is its busy time over
// workers × the streaming wall time.
func Verdict(r *Report, cfg Config) (string, []string) {
	cfg.fill()
	wall := r.PipelineSeconds
	if r.Processed == 0 || wall <= 0 {
		return "none: no new or changed files", nil
	}
	find := func(name string) *StageStats {
		for i := range r.Stages {
			if r.Stages[i].Name == name {
				return &r.Stages[i]
			}
		}
		return nil
	}
	util := func(s *StageStats) float64 {
		if s == nil || s.Workers == 0 {
			return 0
		}
		return s.BusySeconds / (float64(s.Workers) * wall)
	}
	flow := []string{StageRead, StageParse, StageText, StageEmbed, StageTokenize, StageWrite}
	var best *StageStats
	var cpuBusy float64
	for _, n := range flow {
		s := find(n)
		if s == nil {
			continue
		}
		if n != StageRead && n != StageWrite { // those wait on the disk
			cpuBusy += s.BusySeconds
		}
		if best == nil || util(s) > util(best) {
			best = s
		}
	}
	if best == nil {
		return "unknown: no stage statistics", nil
	}
	cpuUtil := cpuBusy / (float64(cfg.Cores) * wall)
	u := util(best)
	pct := func(x float64) int { return int(math.Round(100 * x)) }
	var verdict string
	var sug []string
	mib := float64(r.Bytes) / (1 << 20)
	fitsRAM := cfg.FreeRAM == 0 || uint64(r.Bytes) < cfg.FreeRAM/4
	switch {
	case best.Name == StageRead && u >= 0.5 && cpuUtil < 0.85:
		verdict = fmt.Sprintf("disk-bound: read busy %d%% with %d worker(s)", pct(u), best.Workers)
		if r.Mode == Stream && fitsRAM {
			sug = append(sug, fmt.Sprintf("use preload: the corpus (%.1f MiB) fits in RAM", mib))
		}
		if r.Mode != MMap {
			sug = append(sug, "use mmap: later runs reuse the pre-processed arrays of unchanged content")
		}
		sug = append(sug, fmt.Sprintf("raise read workers from %d to %d", best.Workers, 2*best.Workers))
	case cpuUtil >= 0.85:
		verdict = fmt.Sprintf("CPU-bound: %d cores %d%% busy; slowest stage %s (%d%%)", cfg.Cores, pct(cpuUtil), best.Name, pct(u))
		if r.Mode != MMap {
			sug = append(sug, "use mmap: later runs skip parsing and tokenizing content seen before")
		}
		sug = append(sug, "more workers will not help: every core is busy")
	case best.Name == StageWrite && u >= 0.5:
		verdict = fmt.Sprintf("blocked: the write stage (shard files, fsync, commit) is busy %d%%", pct(u))
		sug = append(sug, fmt.Sprintf("raise the batch size from %d to %d items per commit", cfg.BatchItems, 2*cfg.BatchItems))
	case best.Name != StageRead && best.Name != StageWrite && u >= 0.7:
		verdict = fmt.Sprintf("CPU-bound stage: %s busy %d%% with %d worker(s)", best.Name, pct(u), best.Workers)
		if best.Workers < cfg.Cores {
			sug = append(sug, fmt.Sprintf("raise %s workers from %d to %d", best.Name, best.Workers, best.Workers+1))
		}
	default:
		verdict = fmt.Sprintf("starved: no stage is saturated (busiest %s at %d%%, CPU %d%%)", best.Name, pct(u), pct(cpuUtil))
		if wall < 0.05 {
			sug = append(sug, "the run is too short to load the stages: nothing to tune")
		}
	}
	for _, n := range flow {
		s := find(n)
		if s == nil || s == best || s.Workers == 0 {
			continue
		}
		if out := s.WaitOutSeconds / (float64(s.Workers) * wall); out >= 0.5 {
			sug = append(sug, fmt.Sprintf("%s is blocked %d%% of the time waiting for the next stage", s.Name, pct(out)))
		}
	}
	if len(sug) == 0 {
		sug = append(sug, "no change suggested")
	}
	return verdict, sug
}
