package text

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// SummaryCache keeps encyclopedia summaries between runs. The store
// implements it; MemoryCache and FileCache are the ones this package
// offers. An empty summary is a remembered "no article".
type SummaryCache interface {
	GetSummary(key string) (summary string, ok bool, err error)
	PutSummary(key, summary string) error
}

// MemoryCache is a SummaryCache in memory, safe for concurrent use.
type MemoryCache struct {
	mu sync.Mutex
	m  map[string]string
}

// NewMemoryCache returns an empty in-memory cache.
func NewMemoryCache() *MemoryCache { return &MemoryCache{m: map[string]string{}} }

// GetSummary implements SummaryCache.
func (c *MemoryCache) GetSummary(key string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[key]
	return s, ok, nil
}

// PutSummary implements SummaryCache.
func (c *MemoryCache) PutSummary(key, summary string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = summary
	return nil
}

// FileCache is a SummaryCache in a folder: one small JSON file per key,
// named by the key's SHA-256, written atomically.
type FileCache struct{ Dir string }

type fileCacheEntry struct {
	Key     string `json:"key"`
	Summary string `json:"summary"`
}

func (c FileCache) path(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(c.Dir, hex.EncodeToString(h[:16])+".json")
}

// GetSummary implements SummaryCache.
func (c FileCache) GetSummary(key string) (string, bool, error) {
	data, err := os.ReadFile(c.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("text: summary cache: %w", err)
	}
	var e fileCacheEntry
	if err := json.Unmarshal(data, &e); err != nil || e.Key != key {
		return "", false, nil // damaged or colliding entry: fetch again
	}
	return e.Summary, true, nil
}

// PutSummary implements SummaryCache.
func (c FileCache) PutSummary(key, summary string) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("text: summary cache: %w", err)
	}
	data, err := json.Marshal(fileCacheEntry{Key: key, Summary: summary})
	if err != nil {
		return err
	}
	return writeAtomic(c.path(key), data)
}

// writeAtomic writes data to path through a temporary file in the same
// folder, synced and renamed into place.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("text: write %s: %w", path, err)
	}
	return nil
}

// DefaultWikiEndpoint is the English Wikipedia REST API.
const DefaultWikiEndpoint = "https://en.wikipedia.org/api/rest_v1"

// MinWikiInterval is the least time between two requests to the endpoint.
const MinWikiInterval = time.Second

// WikiOptions configure NewWiki.
type WikiOptions struct {
	// Endpoint is the MediaWiki REST base; summaries are fetched from
	// Endpoint + "/page/summary/" + TITLE. "" means DefaultWikiEndpoint.
	Endpoint string
	// Cache keeps answers (and "no article") between calls; nil means an
	// in-memory cache.
	Cache SummaryCache
	// Client is the HTTP client; nil means one with a 15 s timeout.
	Client *http.Client
	// Interval between requests; values under MinWikiInterval are raised
	// to it.
	Interval time.Duration
	// UserAgent identifies the app to the endpoint, as Wikimedia asks.
	UserAgent string
}

// Wiki fetches short encyclopedia summaries of titles through the MediaWiki
// REST API, at most one request per Interval (≥ 1 s) and each title once.
// It is safe for concurrent use.
type Wiki struct {
	endpoint string
	cache    SummaryCache
	client   *http.Client
	interval time.Duration
	agent    string

	mu       sync.Mutex
	next     time.Time // earliest start of the next request
	failures int       // requests failed in a row
	lastErr  error
}

// MaxWikiFailures is how many requests in a row may fail (no network, the
// endpoint down) before a Wiki stops asking for the rest of its life: an
// import of 900 files offline must not wait out 900 time-outs.
const MaxWikiFailures = 3

// ErrWiki marks a failed summary request (network, HTTP status, bad JSON).
var ErrWiki = errors.New("text: summary request failed")

// NewWiki returns a summary fetcher.
func NewWiki(opts WikiOptions) (*Wiki, error) {
	ep := strings.TrimRight(opts.Endpoint, "/")
	if ep == "" {
		ep = DefaultWikiEndpoint
	}
	u, err := url.Parse(ep)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("text: summary endpoint %q is not an http(s) URL", opts.Endpoint)
	}
	w := &Wiki{endpoint: ep, cache: opts.Cache, client: opts.Client, interval: opts.Interval, agent: opts.UserAgent}
	if w.cache == nil {
		w.cache = NewMemoryCache()
	}
	if w.client == nil {
		w.client = &http.Client{Timeout: 15 * time.Second}
	}
	if w.interval < MinWikiInterval {
		w.interval = MinWikiInterval
	}
	if w.agent == "" {
		w.agent = "AMTStudio/0.1 (local music app)"
	}
	return w, nil
}

// wait reserves the next request slot and sleeps until it comes.
func (w *Wiki) wait(ctx context.Context) error {
	w.mu.Lock()
	now := time.Now()
	start := w.next
	if start.Before(now) {
		start = now
	}
	w.next = start.Add(w.interval)
	w.mu.Unlock()
	d := time.Until(start)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Summary returns the lead extract of the article titled title, "" when
// there is none (a missing page or a disambiguation page). Answers are
// cached; errors are not.
func (w *Wiki) Summary(ctx context.Context, title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", nil
	}
	key := w.endpoint + "|" + title
	if s, ok, err := w.cache.GetSummary(key); err == nil && ok {
		return s, nil
	}
	w.mu.Lock()
	off, last := w.failures >= MaxWikiFailures, w.lastErr
	w.mu.Unlock()
	if off {
		return "", fmt.Errorf("%w: %s: not asked, %d requests in a row failed (last: %v)", ErrWiki, title, MaxWikiFailures, last)
	}
	if err := w.wait(ctx); err != nil {
		return "", err
	}
	sum, err := w.fetch(ctx, title)
	if ctx.Err() == nil {
		w.mu.Lock()
		if err != nil {
			w.failures++
			w.lastErr = err
		} else {
			w.failures = 0
		}
		w.mu.Unlock()
	}
	if err != nil {
		return "", err
	}
	if err := w.cache.PutSummary(key, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// fetch makes one request for title.
func (w *Wiki) fetch(ctx context.Context, title string) (string, error) {
	u := w.endpoint + "/page/summary/" + url.PathEscape(strings.ReplaceAll(title, " ", "_"))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrWiki, title, err)
	}
	req.Header.Set("User-Agent", w.agent)
	req.Header.Set("Accept", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrWiki, title, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrWiki, title, err)
	}
	var sum string
	switch {
	case resp.StatusCode == http.StatusNotFound:
		// No article: remember it.
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("%w: %s: HTTP %s", ErrWiki, title, resp.Status)
	default:
		var page struct {
			Type    string `json:"type"`
			Extract string `json:"extract"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return "", fmt.Errorf("%w: %s: invalid JSON: %w", ErrWiki, title, err)
		}
		if page.Type != "disambiguation" {
			sum = strings.TrimSpace(page.Extract)
		}
	}
	return sum, nil
}
