package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "report",
		Usage:   "report --project NAME [--run ID] [--json] [--home DIR]",
		Summary: "print an ingestion run's stage report (without --run: list the project's runs)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		project := fs.String("project", "", "project name")
		runArg := fs.String("run", "", "ingestion run id (see amt report --project NAME)")
		asJSON := fs.Bool("json", false, "print JSON")
		home := fs.String("home", "", "data directory (default: $AMT_HOME or the user data folder)")
		pos, err := ParseInterleaved(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 0 {
			return fmt.Errorf("%w: unexpected arguments %v", ErrUsage, pos)
		}
		if *project == "" {
			return fmt.Errorf("%w: --project is required", ErrUsage)
		}
		var runID uint64
		if *runArg != "" {
			if runID, err = strconv.ParseUint(*runArg, 10, 64); err != nil || runID == 0 {
				return fmt.Errorf("%w: --run %q is not a run id", ErrUsage, *runArg)
			}
		}
		st, err := app.OpenExistingStore(*home) // it only reads: a mistyped --home is refused, not created
		if err != nil {
			return err
		}
		defer st.Close()
		runs, err := app.IngestRuns(st, *project, runID)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			if runID != 0 {
				return enc.Encode(runs[0])
			}
			if runs == nil {
				runs = []app.IngestRun{}
			}
			return enc.Encode(runs)
		}
		if runID == 0 {
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tMODE\tFILES\tPROCESSED\tOK\tFAILED\tSECONDS\tBOTTLENECK")
			for _, r := range runs {
				files := strconv.Itoa(r.Files)
				if r.Status == app.RunInterrupted && r.Files == 0 {
					files = "?" // counted at the end, which never came
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.2f\t%s\n", r.ID, r.Started.Local().Format("2006-01-02 15:04:05"),
					Safe(r.Status), Safe(r.Mode), files, r.Processed, r.OK, r.Failed, r.Seconds, Safe(verdict(r))) // stored text
			}
			return tw.Flush()
		}
		r := runs[0]
		fmt.Fprintf(env.Stdout, "run %d (%s, %s mode, started %s)\n", r.ID, Safe(r.Status), Safe(r.Mode), r.Started.Local().Format("2006-01-02 15:04:05"))
		if r.Error != "" {
			fmt.Fprintf(env.Stdout, "error: %s\n", Safe(r.Error))
		}
		switch r.Status {
		case app.RunDone:
			fmt.Fprintf(env.Stdout, "%d files: %d processed (%d ok, %d failed), %d unchanged, %d removed; %.2f s\n\n",
				r.Files, r.Processed, r.OK, r.Failed, r.Unchanged, r.Removed, r.Seconds)
		case app.RunInterrupted:
			fmt.Fprintf(env.Stdout, "its process ended before the run did (killed, crashed, the machine stopped): %d files committed (%d ok, %d failed) are kept\n\n",
				r.Processed, r.OK, r.Failed)
		default:
			fmt.Fprintf(env.Stdout, "%d files: stopped before the end, %d committed (%d ok, %d failed) are kept, %d unchanged; %.2f s\n\n",
				r.Files, r.Processed, r.OK, r.Failed, r.Unchanged, r.Seconds)
		}
		writeCacheNotes(env.Stdout, "", r.CacheRebuilt, r.CacheNotes)
		writeRebarred(env.Stdout, r.Rebarred, r.RebarredFiles)
		if len(r.Stages) > 0 { // a killed run's were never written
			writeStageTable(env.Stdout, r.Stages)
			fmt.Fprintln(env.Stdout)
		}
		fmt.Fprintf(env.Stdout, "bottleneck: %s\n", Safe(verdict(r)))
		if r.Status == app.RunDone {
			for _, s := range r.Suggestions {
				fmt.Fprintf(env.Stdout, "  - %s\n", Safe(s))
			}
		}
		return nil
	}
	Register(c)
}

// verdict is a run's bottleneck verdict: the stored one for a finished
// run, else what the run was (earlier builds stored "none: no new or
// changed files" for a failed run, nothing for a killed one).
func verdict(r app.IngestRun) string {
	if r.Status == app.RunDone {
		return r.Bottleneck
	}
	return app.NotJudged(r.Status)
}

// rebarredShown bounds the re-barred files the text report lists.
const rebarredShown = 20

// writeRebarred lists the files whose declared meter gave way to the one
// inferred from their notes (at most rebarredShown; --json has them all
// up to pipeline.MaxRebarredFiles).
func writeRebarred(w io.Writer, n int, files []string) {
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "re-barred: %d files (declared meter replaced by the one inferred from the notes)\n", n)
	for i, f := range files {
		if i == rebarredShown {
			break
		}
		fmt.Fprintf(w, "  %s\n", Safe(f)) // a file name: any bytes
	}
	if n > min(len(files), rebarredShown) {
		fmt.Fprintf(w, "  … and %d more\n", n-min(len(files), rebarredShown))
	}
	fmt.Fprintln(w)
}
