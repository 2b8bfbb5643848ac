package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/storage"
)

// TestIngestOnlineText: the "Fetch text about pieces online" setting makes
// an ingestion put Wikipedia summaries of the titles into the captions;
// with it off (the default) no request is made at all. It did nothing
// before: NewWiki had no caller and the setting was never read.
func TestIngestOnlineText(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/page/summary/Greensleeves") {
			w.Write([]byte(`{"type":"standard","extract":"Greensleeves is a traditional English folk song."}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	requests := func() int { mu.Lock(); defer mu.Unlock(); return len(asked) }

	root := t.TempDir()
	s := &midi.Score{Format: 1, TicksPerBeat: 96, Title: "Greensleeves", EndTick: 384,
		Tempos: []midi.TempoChange{{MicrosPerBeat: 500000}},
		Tracks: []midi.Track{{Notes: []midi.Note{{Tick: 0, Dur: 96, Pitch: 64, Velocity: 80}, {Tick: 96, Dur: 288, Pitch: 67, Velocity: 80}}}}}
	if err := midi.WriteFile(filepath.Join(root, "gs.mid"), s); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	caption := func(project string) string {
		var c string
		st.View(func(tx *bolt.Tx) error {
			p, err := storage.ProjectByName(tx, project)
			if err != nil {
				return err
			}
			dss, _ := storage.Datasets(tx, p.ID)
			it, err := storage.ItemByPath(tx, dss[0].ID, "gs.mid")
			if err == nil {
				c = it.Caption
			}
			return err
		})
		return c
	}
	ctx := context.Background()
	if _, err := Ingest(ctx, st, IngestOptions{Project: "off", Dir: root, WikiEndpoint: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if n := requests(); n != 0 || strings.Contains(caption("off"), "folk song") {
		t.Fatalf("setting off: %d requests, caption %q", n, caption("off"))
	}
	// The user turns it on in Settings.
	if err := st.Update(func(tx *bolt.Tx) error {
		return storage.SetSetting(tx, SettingStudio, StudioSettings{OnlineText: true})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Ingest(ctx, st, IngestOptions{Project: "on", Dir: root, WikiEndpoint: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if n := requests(); n != 1 || !strings.Contains(caption("on"), "traditional English folk song") {
		t.Fatalf("setting on: %d requests %v, caption %q", n, asked, caption("on"))
	}
	// Cached in the store: another import of the title asks nothing.
	if _, err := Ingest(ctx, st, IngestOptions{Project: "again", Dir: root, WikiEndpoint: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if n := requests(); n != 1 || !strings.Contains(caption("again"), "folk song") {
		t.Errorf("cached: %d requests, caption %q", n, caption("again"))
	}
	if ents, _ := os.ReadDir(filepath.Join(st.Dir, storage.CacheDir, "wiki")); len(ents) == 0 {
		t.Error("no summary cached in the store")
	}
}
