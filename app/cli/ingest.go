package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/token"
)

// IngestSummary is the JSON `amt ingest --json` prints.
type IngestSummary struct {
	RunID       uint64                 `json:"run_id"`
	Project     string                 `json:"project"`
	Dataset     string                 `json:"dataset"`
	Mode        app.IngestMode         `json:"mode"`
	Workers     app.IngestWorkers      `json:"workers"`
	Files       int                    `json:"files"`
	Processed   int                    `json:"processed"`
	OK          int                    `json:"ok"`
	Failed      int                    `json:"failed"`
	Unchanged   int                    `json:"unchanged"`
	Cached      int                    `json:"cached"`
	Removed     int                    `json:"removed"`
	Styles      int                    `json:"styles"`
	Bytes       int64                  `json:"bytes"`
	Seconds     float64                `json:"seconds"`
	Stages      []app.IngestStageStats `json:"stages"`
	Bottleneck  string                 `json:"bottleneck"`
	Suggestions []string               `json:"suggestions"`

	// Rebarred counts the files re-barred to the meter inferred from their
	// notes (RebarredFiles: the first pipeline.MaxRebarredFiles).
	Rebarred      int      `json:"rebarred"`
	RebarredFiles []string `json:"rebarred_files,omitempty"`

	// Skipped counts the entries named like MIDI files that are not
	// regular files (a named pipe, a device, a dangling symlink): never
	// opened. SkippedFiles lists the first of them with their kind.
	Skipped      int                 `json:"skipped"`
	SkippedFiles []app.IngestSkipped `json:"skipped_files,omitempty"`

	// CacheRebuilt counts the damaged mmap-cache entries rebuilt from
	// their files; CacheNotes says what was wrong (the file, then the
	// first entries); CacheFile is the cache.
	CacheRebuilt int      `json:"cache_rebuilt"`
	CacheNotes   []string `json:"cache_notes,omitempty"`
	CacheFile    string   `json:"cache_file,omitempty"`
}

func summarize(project string, res *app.IngestResult) IngestSummary {
	r := res.Report
	return IngestSummary{RunID: res.RunID, Project: project, Dataset: res.Dataset, Mode: r.Mode, Workers: r.Workers,
		Files: r.Files, Processed: r.Processed, OK: r.OK, Failed: r.Failed, Unchanged: r.Unchanged, Cached: r.Cached,
		Removed: r.Removed, Styles: r.Styles, Bytes: r.Bytes, Seconds: r.Seconds, Stages: r.Stages,
		Bottleneck: r.Bottleneck, Suggestions: r.Suggestions, Rebarred: r.Rebarred, RebarredFiles: r.RebarredFiles,
		Skipped: r.Skipped, SkippedFiles: r.SkippedFiles,
		CacheRebuilt: r.CacheRebuilt, CacheNotes: r.CacheNotes, CacheFile: r.CacheFile}
}

// writeStageTable prints stage statistics as an aligned table.
func writeStageTable(w io.Writer, stages []app.StageStat) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tworkers\titems\tbusy s\twait s\tMiB\tqueue mean\tqueue max\t")
	for _, s := range stages {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%.2f\t%.1f\t%d\t\n", Safe(s.Name), s.Workers, s.Items,
			s.BusySeconds, s.WaitSeconds, float64(s.Bytes)/(1<<20), s.QueueMean, s.QueueMax)
	}
	tw.Flush()
}

func toStageStats(in []app.IngestStageStats) []app.StageStat {
	out := make([]app.StageStat, len(in))
	for i, s := range in {
		out[i] = app.StageStat{Name: s.Name, Workers: s.Workers, BusySeconds: s.BusySeconds,
			WaitSeconds: s.WaitSeconds, Items: s.Items, Bytes: s.Bytes, QueueMean: s.QueueMean, QueueMax: s.QueueMax}
	}
	return out
}

func init() {
	c := &Command{
		Name:    "ingest",
		Usage:   "ingest DIR --project NAME [--mode stream|preload|mmap] [--workers N] [--batch N] [--mapping CSV] [--online-text] [--home DIR] [--json] [--progress]",
		Summary: "import a folder of MIDI files into a project's dataset (only new or changed files)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		project := fs.String("project", "", "project name (created if missing)")
		mode := fs.String("mode", "stream", "read mode: stream, preload or mmap")
		workers := fs.Int("workers", 0, "workers per stage (default: from the cores, or the ingest.workers setting)")
		batch := fs.Int("batch", 0, "items per commit and shard (default 256)")
		mapping := fs.String("mapping", "", "metadata CSV for captions (one row per file)")
		dataset := fs.String("dataset", "", "name of a new dataset (default: the folder's name)")
		home := fs.String("home", "", "data directory (default: $AMT_HOME or the user data folder)")
		asJSON := fs.Bool("json", false, "print one JSON object")
		progress := fs.Bool("progress", false, "print progress to stderr")
		genre := fs.String("genre", "", "genre of the pieces whose metadata names none (a genre word or family: pop, rock, folk, game…)")
		online := fs.Bool("online-text", false, "fetch Wikipedia summaries of the titles into the captions (default: the Settings screen's choice)")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return fmt.Errorf("%w: want one folder, got %d arguments", ErrUsage, len(pos))
		}
		if *project == "" {
			return fmt.Errorf("%w: --project is required", ErrUsage)
		}
		m, err := app.ParseIngestMode(*mode)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
		if err := app.FirstError(app.IntIn("workers", *workers, 0, 1024), app.IntIn("batch", *batch, 0, 1<<20)); err != nil {
			return err
		}
		if *genre != "" && app.GenreFamily(*genre) == "" {
			return fmt.Errorf("%w: --genre %q: not a genre word (families: %s)", ErrUsage, *genre, strings.Join(token.GenreFamilies, ", "))
		}
		st, err := app.OpenStore(*home)
		if err != nil {
			return err
		}
		defer st.Close()
		opts := app.IngestOptions{Project: *project, Dir: pos[0], Dataset: *dataset, Mode: m, BatchItems: *batch, MappingCSV: *mapping, OnlineText: *online, Genre: *genre}
		if *workers > 0 {
			opts.Workers = app.AllWorkers(*workers)
		}
		done := make(chan struct{})
		if *progress {
			ch := make(chan app.IngestEvent, 16)
			opts.Progress = ch
			go func() {
				defer close(done)
				last := time.Time{}
				for e := range ch {
					if time.Since(last) > 200*time.Millisecond || e.Stage != "ingest" {
						fmt.Fprintf(env.Stderr, "%s %d/%d %s\n", e.Stage, e.Done, e.Total, Safe(e.Path))
						last = time.Now()
					}
				}
			}()
		} else {
			close(done)
		}
		res, err := app.Ingest(ctx, st, opts)
		if opts.Progress != nil {
			close(opts.Progress)
		}
		<-done
		if res == nil || res.Report == nil {
			return err
		}
		sum := summarize(*project, res)
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			if e := enc.Encode(sum); e != nil {
				return e
			}
			return err
		}
		fmt.Fprintf(env.Stdout, "run %d: %s → project %q, dataset %q (%s mode)\n", sum.RunID, Safe(pos[0]), Safe(*project), Safe(sum.Dataset), sum.Mode)
		fmt.Fprintf(env.Stdout, "%d files: %d processed (%d ok, %d failed, %d from cache), %d unchanged, %d removed; %d style groups; %.2f s\n\n",
			sum.Files, sum.Processed, sum.OK, sum.Failed, sum.Cached, sum.Unchanged, sum.Removed, sum.Styles, sum.Seconds)
		writeSkipped(env.Stdout, sum.Skipped, sum.SkippedFiles)
		writeCacheNotes(env.Stdout, sum.CacheFile, sum.CacheRebuilt, sum.CacheNotes)
		writeRebarred(env.Stdout, sum.Rebarred, sum.RebarredFiles)
		writeStageTable(env.Stdout, toStageStats(sum.Stages))
		fmt.Fprintf(env.Stdout, "\nbottleneck: %s\n", sum.Bottleneck)
		for _, s := range sum.Suggestions {
			fmt.Fprintf(env.Stdout, "  - %s\n", s)
		}
		if sum.Failed > 0 {
			fmt.Fprintf(env.Stdout, "(amt datasets --project %s --failed lists the failed files)\n", shellQuote(*project))
		}
		return err
	}
	Register(c)
}

// writeSkipped lists the entries left out because they are not regular
// files (at most rebarredShown).
func writeSkipped(w io.Writer, n int, files []app.IngestSkipped) {
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "skipped: %d entries that are not regular files (never opened)\n", n)
	for i, f := range files {
		if i == rebarredShown {
			break
		}
		fmt.Fprintf(w, "  %s: %s\n", Safe(f.Path), f.Kind)
	}
	if n > min(len(files), rebarredShown) {
		fmt.Fprintf(w, "  … and %d more\n", n-min(len(files), rebarredShown))
	}
	fmt.Fprintln(w)
}

// writeCacheNotes says what was wrong with the mmap cache (the file, its
// damaged entries, at most rebarredShown of them) and that it was rebuilt.
func writeCacheNotes(w io.Writer, file string, n int, notes []string) {
	if len(notes) == 0 {
		return
	}
	if n > 0 {
		fmt.Fprintf(w, "cache: %d damaged entries rebuilt from their files", n)
		if file != "" {
			fmt.Fprintf(w, " (%s)", Safe(file))
		}
		fmt.Fprintln(w)
	}
	for i, s := range notes {
		if i == rebarredShown {
			break
		}
		fmt.Fprintf(w, "  %s\n", Safe(s))
	}
	if len(notes) > rebarredShown || n > len(notes) {
		fmt.Fprintf(w, "  … and more (--json lists the first %d)\n", len(notes))
	}
	fmt.Fprintln(w)
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " '\"$\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
