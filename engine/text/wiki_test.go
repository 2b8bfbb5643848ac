package text

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amtstudio/amt/engine/midi"
)

// fakeWiki serves /page/summary/TITLE like the MediaWiki REST API and
// records when each request arrived.
type fakeWiki struct {
	mu    sync.Mutex
	times []time.Time
	paths []string
}

func (f *fakeWiki) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.times = append(f.times, time.Now())
	f.paths = append(f.paths, r.URL.EscapedPath())
	f.mu.Unlock()
	title := strings.TrimPrefix(r.URL.Path, "/api/rest_v1/page/summary/")
	w.Header().Set("Content-Type", "application/json")
	switch title {
	case "Greensleeves":
		w.Write([]byte(`{"type":"standard","title":"Greensleeves","extract":"\"Greensleeves\" is a traditional English folk song."}`))
	case "Mercury":
		w.Write([]byte(`{"type":"disambiguation","title":"Mercury","extract":"Mercury may refer to:"}`))
	case "Broken":
		w.WriteHeader(http.StatusInternalServerError)
	case "Garbage":
		w.Write([]byte(`{not json`))
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"type":"https://mediawiki.org/wiki/HyperSwitch/errors/not_found"}`))
	}
}

func TestWikiSummaryRateLimitAndCache(t *testing.T) {
	t.Parallel()
	fake := &fakeWiki{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cache := FileCache{Dir: filepath.Join(t.TempDir(), "summaries")}
	w, err := NewWiki(WikiOptions{Endpoint: srv.URL + "/api/rest_v1", Cache: cache, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := w.Summary(ctx, "Greensleeves")
	if err != nil || got != `"Greensleeves" is a traditional English folk song.` {
		t.Fatalf("Summary = %q, %v", got, err)
	}
	if got, err := w.Summary(ctx, "Mercury"); err != nil || got != "" {
		t.Errorf("disambiguation page: %q, %v (want empty)", got, err)
	}
	if got, err := w.Summary(ctx, "Nowhere Tune"); err != nil || got != "" {
		t.Errorf("missing page: %q, %v (want empty)", got, err)
	}
	// Three requests, at least 1 s apart although 1 ms was asked. The times
	// are when the server saw each request, so a loaded machine's scheduling
	// delay of the earlier one can shrink a gap: allow 100 ms of it. An
	// unlimited client would show gaps of a few milliseconds.
	fake.mu.Lock()
	times := append([]time.Time(nil), fake.times...)
	paths := append([]string(nil), fake.paths...)
	fake.mu.Unlock()
	if len(times) != 3 {
		t.Fatalf("%d requests, want 3", len(times))
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 900*time.Millisecond {
			t.Errorf("requests %d and %d only %v apart", i-1, i, gap)
		}
	}
	if paths[2] != "/api/rest_v1/page/summary/Nowhere_Tune" {
		t.Errorf("path %q: spaces become underscores", paths[2])
	}
	// Cached answers (found and not found) make no request, also in a new
	// Wiki over the same file cache.
	w2, _ := NewWiki(WikiOptions{Endpoint: srv.URL + "/api/rest_v1", Cache: cache})
	for _, title := range []string{"Greensleeves", "Nowhere Tune", "Mercury"} {
		if _, err := w2.Summary(ctx, title); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ := w2.Summary(ctx, "Greensleeves"); !strings.Contains(s, "folk song") {
		t.Errorf("cached summary %q", s)
	}
	fake.mu.Lock()
	n := len(fake.times)
	fake.mu.Unlock()
	if n != 3 {
		t.Errorf("%d requests after cached lookups, want 3", n)
	}
}

func TestWikiErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&fakeWiki{})
	defer srv.Close()
	if _, err := NewWiki(WikiOptions{Endpoint: "ftp://x"}); err == nil {
		t.Error("ftp endpoint accepted")
	}
	w, err := NewWiki(WikiOptions{Endpoint: srv.URL + "/api/rest_v1/"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.Summary(ctx, "Broken"); !errors.Is(err, ErrWiki) || !strings.Contains(err.Error(), "500") {
		t.Errorf("HTTP 500: %v", err)
	}
	// Errors are not cached; the next call asks again (after the interval).
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Summary(cctx, "Garbage"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
	tctx, cancel2 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel2()
	if _, err := w.Summary(tctx, "Garbage"); !errors.Is(err, ErrWiki) || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("bad JSON: %v", err)
	}
}

// TestCollectorSummaries checks the collector asks only for real titles and
// records failures as warnings.
func TestCollectorSummaries(t *testing.T) {
	t.Parallel()
	fake := &fakeWiki{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	root := writeTree(t, map[string]string{
		"index.csv":     "file,title\ngs.mid,Greensleeves\nbr.mid,Broken\n",
		"gs.mid":        "",
		"br.mid":        "",
		"some_tune.mid": "",
	})
	w, _ := NewWiki(WikiOptions{Endpoint: srv.URL + "/api/rest_v1"})
	c, err := NewCollector(root, CollectorOptions{Summaries: w})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gs := c.Info(ctx, filepath.Join(root, "gs.mid"), nil)
	if !strings.Contains(gs.Summary, "folk song") {
		t.Errorf("summary %q", gs.Summary)
	}
	if !strings.Contains(Caption(gs, midiMetadataZero()), "traditional English folk song") {
		t.Error("caption lacks the summary")
	}
	br := c.Info(ctx, filepath.Join(root, "br.mid"), nil)
	if br.Summary != "" || len(br.Warnings) != 1 {
		t.Errorf("failed summary: %q warnings %q", br.Summary, br.Warnings)
	}
	c.Info(ctx, filepath.Join(root, "some_tune.mid"), nil) // file-name title: no request
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.paths) != 2 {
		t.Errorf("requests %v, want only the two real titles", fake.paths)
	}
}

func midiMetadataZero() (m midi.Metadata) { return m }

// TestWikiStopsAfterFailures: after MaxWikiFailures requests in a row fail
// (no network, the endpoint down), the Wiki answers at once with an error
// instead of asking again: an offline import must not wait out a time-out
// per file.
func TestWikiStopsAfterFailures(t *testing.T) {
	t.Parallel()
	fake := &fakeWiki{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	w, err := NewWiki(WikiOptions{Endpoint: srv.URL + "/api/rest_v1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < MaxWikiFailures; i++ {
		if _, err := w.Summary(ctx, "Broken"); !errors.Is(err, ErrWiki) {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	start := time.Now()
	_, err = w.Summary(ctx, "Greensleeves")
	if !errors.Is(err, ErrWiki) || !strings.Contains(err.Error(), "in a row failed") || time.Since(start) > 100*time.Millisecond {
		t.Errorf("after %d failures: %v in %v", MaxWikiFailures, err, time.Since(start))
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.paths) != MaxWikiFailures {
		t.Errorf("%d requests, want %d", len(fake.paths), MaxWikiFailures)
	}
}
