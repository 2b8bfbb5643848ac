package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amtstudio/amt/app/internal/testfiles"
	"github.com/amtstudio/amt/engine/pipeline"
)

func TestIngestCommandsJSONAndReport(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	testfiles.Corpus(t, root, 16)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb}
	if code := Main(context.Background(), env, []string{"ingest", root, "--project", "p", "--home", home, "--json", "--mode", "preload", "--workers", "1"}); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, errb.String())
	}
	var sum struct {
		RunID       uint64   `json:"run_id"`
		Files       int      `json:"files"`
		OK          int      `json:"ok"`
		Failed      int      `json:"failed"`
		Seconds     float64  `json:"seconds"`
		Bottleneck  string   `json:"bottleneck"`
		Suggestions []string `json:"suggestions"`
		Stages      []struct {
			Name        string  `json:"name"`
			BusySeconds float64 `json:"busy_seconds"`
			WaitSeconds float64 `json:"wait_seconds"`
			Items       int     `json:"items"`
			QueueMean   float64 `json:"queue_mean"`
			QueueMax    int     `json:"queue_max"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if sum.Files != 17 || sum.OK != 16 || sum.Failed != 1 || sum.Seconds <= 0 || sum.Bottleneck == "" || len(sum.Suggestions) == 0 || len(sum.Stages) != 8 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Stages[2].Name != "parse" || sum.Stages[2].Items != 17 || sum.Stages[2].BusySeconds <= 0 {
		t.Errorf("parse stage %+v", sum.Stages[2])
	}
	out.Reset()
	if code := Main(context.Background(), env, []string{"datasets", "--project", "p", "--home", home, "--json", "--failed"}); code != 0 {
		t.Fatalf("datasets exit %d: %s", code, errb.String())
	}
	var ds struct {
		Datasets []struct {
			Name  string `json:"name"`
			Items int    `json:"items"`
			OK    int    `json:"ok"`
		} `json:"datasets"`
		Failed []struct{ Path, Error string } `json:"failed"`
	}
	if err := json.Unmarshal(out.Bytes(), &ds); err != nil || len(ds.Datasets) != 1 || ds.Datasets[0].Items != 17 || ds.Datasets[0].OK != 16 ||
		len(ds.Failed) != 1 || ds.Failed[0].Path != "broken.mid" || !strings.Contains(ds.Failed[0].Error, "broken.mid") {
		t.Errorf("datasets: %v %s", err, out.String())
	}
	out.Reset()
	if code := Main(context.Background(), env, []string{"report", "--project", "p", "--home", home, "--run", fmt.Sprint(sum.RunID)}); code != 0 {
		t.Fatalf("report exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"stage", "tokenize", "queue mean", "bottleneck:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	// Export: the folder holds shard pairs in the contract format and vocab.json.
	exp := filepath.Join(t.TempDir(), "export")
	out.Reset()
	if code := Main(context.Background(), env, []string{"datasets", "--project", "p", "--home", home, "--export", exp}); code != 0 {
		t.Fatalf("export exit %d: %s", code, errb.String())
	}
	ents, _ := os.ReadDir(exp)
	pieces := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".bin") {
			_, offs, err := pipeline.ReadShard(exp, strings.TrimSuffix(e.Name(), ".bin"))
			if err != nil {
				t.Fatal(err)
			}
			pieces += len(offs) - 1
		}
	}
	if pieces != 16 {
		t.Errorf("exported %d pieces, want 16", pieces)
	}
	if _, err := os.Stat(filepath.Join(exp, "vocab.json")); err != nil {
		t.Errorf("no vocab.json in the export: %v", err)
	}
	// Usage errors.
	for _, args := range [][]string{{"ingest", root}, {"ingest", "--project", "p"}, {"ingest", root, "--project", "p", "--mode", "fast"}, {"report", "--project", "p", "--run", "x"}} {
		if code := Main(context.Background(), env, append(args, "--home", home)); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
