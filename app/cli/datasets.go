package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "datasets",
		Usage:   "datasets --project NAME [--json] [--failed] [--export DIR --dataset NAME] [--export-examples DIR --dataset NAME [--examples N --seed S ...]] [--home DIR]",
		Summary: "list a project's datasets and counts; export one as token shards + vocab.json, or as ready training examples for cluster/train.py",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		project := fs.String("project", "", "project name")
		asJSON := fs.Bool("json", false, "print JSON")
		failed := fs.Bool("failed", false, "also list the failed files and their errors")
		export := fs.String("export", "", "write the dataset's shards and vocab.json into this folder")
		dataset := fs.String("dataset", "", "dataset to export (default: the only one)")
		exportEx := fs.String("export-examples", "", "write the dataset's conditioned training examples (as engine/train builds them) into this folder for cluster/train.py (docs/CLUSTER.md)")
		exSpec := examplesFlags(fs)
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
		st, err := app.OpenExistingStore(*home) // it only reads: a mistyped --home is refused, not created
		if err != nil {
			return err
		}
		defer st.Close()
		list, err := app.ListDatasets(st, *project)
		if err != nil {
			return err
		}
		if *export != "" || *exportEx != "" {
			name := *dataset
			if name == "" {
				if len(list) != 1 {
					return fmt.Errorf("%w: project %q has %d datasets; name one with --dataset", ErrUsage, *project, len(list))
				}
				name = list[0].Name
			}
			if *exportEx != "" {
				return runExportExamples(ctx, env, st, *project, name, *exportEx, exSpec(), *asJSON)
			}
			n, err := app.ExportDataset(ctx, st, *project, name, *export)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "exported dataset %q: %d shard pairs and vocab.json in %s\n", Safe(name), n, Safe(*export))
			return nil
		}
		var fails []app.FailedItem
		if *failed {
			if fails, err = app.FailedItems(st, list); err != nil {
				return err
			}
		}
		if *asJSON {
			out := struct {
				Project  string               `json:"project"`
				Datasets []app.DatasetSummary `json:"datasets"`
				Failed   []app.FailedItem     `json:"failed,omitempty"`
			}{*project, list, fails}
			if out.Datasets == nil {
				out.Datasets = []app.DatasetSummary{}
			}
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tITEMS\tOK\tFAILED\tTOKENS\tSHARDS\tSTYLES\tROOT")
		for _, d := range list {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", d.ID, Safe(d.Name), d.Items, d.OK, d.Failed, d.Tokens, d.Shards, d.Styles, Safe(d.Root))
		}
		tw.Flush()
		for _, f := range fails {
			fmt.Fprintf(env.Stdout, "failed: %s/%s: %s\n", Safe(f.Dataset), Safe(f.Path), Safe(f.Error))
		}
		return nil
	}
	Register(c)
}
