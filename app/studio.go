package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/storage"
)

// Settings keys kept in the store besides SettingSoundFont and
// SettingIngestWorkers.
const (
	SettingStudio = "studio.settings" // a StudioSettings as JSON
)

// DefaultProject is the project the Compose screen stores pieces in and the
// Datasets screen opens first.
const DefaultProject = "default"

// StudioSettings are the user's choices the window keeps in the store.
type StudioSettings struct {
	SoundFont string `json:"soundfont"` // .sf2 path; "" discovers one, else the built-in synth
	// Workers is the worker count for ingestion stages and CPU training;
	// 0: one per core.
	Workers int `json:"workers"`
	// OnlineText allows fetching text (Wikipedia summaries) while
	// ingesting; off by default.
	OnlineText bool   `json:"online_text"`
	Theme      string `json:"theme"` // "system" (""), "light" or "dark"
}

// Studio is what the desktop window owns: the open store and the use cases
// over it. Its methods are safe for concurrent use (bbolt serialises
// writers).
type Studio struct {
	Store *storage.Store
	Home  string
}

// OpenStudio opens the data directory home ("": $AMT_HOME or the user data
// folder) and makes sure the default project exists.
func OpenStudio(home string) (*Studio, error) {
	return studioOver(OpenStore(home))
}

// OpenExistingStore opens the data directory home for a command that only
// reads: a home that holds no store (a mistyped --home) is an error
// naming it ("no AMT Studio data at DIR", wrapping storage.ErrNoStore),
// and nothing is created there.
func OpenExistingStore(home string) (*storage.Store, error) {
	return storage.OpenExisting(home)
}

// OpenExistingStudio is OpenStudio over an existing store only (see
// OpenExistingStore).
func OpenExistingStudio(home string) (*Studio, error) {
	return studioOver(OpenExistingStore(home))
}

// studioOver makes sure the default project exists in st.
func studioOver(st *storage.Store, err error) (*Studio, error) {
	if err != nil {
		return nil, err
	}
	if st.ReadOnly() { // a read-only or full disk: browse what is there
		return &Studio{Store: st, Home: st.Dir}, nil
	}
	if err := st.Update(func(tx *bolt.Tx) error {
		_, err := storage.EnsureProject(tx, DefaultProject)
		return err
	}); err != nil {
		st.Close()
		return nil, fmt.Errorf("studio: %w", err)
	}
	return &Studio{Store: st, Home: st.Dir}, nil
}

// Close closes the store.
func (s *Studio) Close() error { return s.Store.Close() }

// Settings reads the settings (defaults where none were saved).
func (s *Studio) Settings() (StudioSettings, error) {
	var out StudioSettings
	err := s.Store.View(func(tx *bolt.Tx) error {
		_, err := storage.Setting(tx, SettingStudio, &out)
		if err != nil {
			return err
		}
		var sf string
		if ok, err := storage.Setting(tx, SettingSoundFont, &sf); err == nil && ok {
			out.SoundFont = sf
		}
		return nil
	})
	return out, err
}

// SaveSettings stores the settings. The SoundFont also goes under
// SettingSoundFont (what `amt render` reads) and Workers under
// SettingIngestWorkers (what Ingest reads).
func (s *Studio) SaveSettings(v StudioSettings) error {
	if v.Workers < 0 {
		return fmt.Errorf("settings: workers must be ≥ 0, got %d", v.Workers)
	}
	switch v.Theme {
	case "", "system", "light", "dark":
	default:
		return fmt.Errorf("settings: theme %q (system, light or dark)", v.Theme)
	}
	if v.SoundFont != "" {
		if fi, err := os.Stat(v.SoundFont); err != nil {
			return fmt.Errorf("settings: SoundFont: %w", err)
		} else if fi.IsDir() {
			return fmt.Errorf("settings: SoundFont %s is a folder", v.SoundFont)
		}
	}
	return s.Store.Update(func(tx *bolt.Tx) error {
		if err := storage.SetSetting(tx, SettingStudio, v); err != nil {
			return err
		}
		if err := storage.SetSetting(tx, SettingSoundFont, v.SoundFont); err != nil {
			return err
		}
		w := v.Workers
		return storage.SetSetting(tx, SettingIngestWorkers, map[string]int{"read": w, "parse": w, "text": w, "embed": w, "tokenize": w})
	})
}

// Workers is the settings' worker count, or the core count when unset.
func (v StudioSettings) WorkerCount() int {
	if v.Workers > 0 {
		return v.Workers
	}
	return runtime.NumCPU()
}

// Projects lists the projects by name.
func (s *Studio) Projects() ([]storage.Project, error) {
	var out []storage.Project
	err := s.Store.View(func(tx *bolt.Tx) error {
		var err error
		out, err = storage.Projects(tx)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Datasets lists a project's datasets with their counts (none for a
// project that does not exist yet).
func (s *Studio) Datasets(project string) ([]DatasetSummary, error) {
	list, err := ListDatasets(s.Store, project)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return list, err
}

// ItemRow is one file of a dataset as the items table shows it.
type ItemRow struct {
	storage.Item
	Meta *midi.Metadata // nil for a failed item
	Abs  string         // the file on disk
}

// Items lists a dataset's items with their decoded metadata, in import
// order.
func (s *Studio) Items(datasetID uint64) ([]ItemRow, error) {
	var out []ItemRow
	err := s.Store.View(func(tx *bolt.Tx) error {
		ds, err := storage.GetDataset(tx, datasetID)
		if err != nil {
			return err
		}
		return storage.Items(tx, datasetID, func(it *storage.Item) bool {
			r := ItemRow{Item: *it, Abs: filepath.Join(ds.Root, filepath.FromSlash(it.Path))}
			if len(it.Meta) > 0 {
				var m midi.Metadata
				if json.Unmarshal(it.Meta, &m) == nil {
					r.Meta = &m
				}
			}
			out = append(out, r)
			return true
		})
	})
	if err != nil {
		return nil, fmt.Errorf("items of dataset %d: %w", datasetID, err)
	}
	return out, nil
}

// LastIngestRun is the newest ingestion run of a dataset (nil if none).
func (s *Studio) LastIngestRun(project string, datasetID uint64) (*storage.IngestRun, error) {
	var out *storage.IngestRun
	err := s.Store.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		runs, err := storage.IngestRuns(tx, p.ID)
		if err != nil {
			return err
		}
		for i := len(runs) - 1; i >= 0; i-- {
			if runs[i].DatasetID == datasetID {
				r := runs[i]
				out = &r
				return nil
			}
		}
		return nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return out, err
}

// PieceRow is a generated piece (with its Rating, 0: not rated) and the
// absolute path of its MIDI file.
type PieceRow struct {
	storage.Piece
	Abs string
}

// Pieces lists a project's generated pieces, newest first.
func (s *Studio) Pieces(project string) ([]PieceRow, error) {
	var out []PieceRow
	err := s.Store.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		ps, err := storage.Pieces(tx, p.ID)
		if err != nil {
			return err
		}
		for i := len(ps) - 1; i >= 0; i-- {
			out = append(out, PieceRow{Piece: ps[i], Abs: s.Store.Abs(ps[i].File)})
		}
		return nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return out, err
}

// RatePiece stores a rating 1–5 of a piece (0 clears it); errors wrap
// storage.ErrBadRating or storage.ErrNotFound.
func (s *Studio) RatePiece(id uint64, rating int) error {
	return s.Store.Update(func(tx *bolt.Tx) error { return storage.RatePiece(tx, id, rating) })
}

// DeletePiece removes a generated piece: its record, then its MIDI file.
func (s *Studio) DeletePiece(id uint64) error { return s.Store.DeletePiece(id) }

// TrainRuns lists a project's training runs, newest first.
func (s *Studio) TrainRuns(project string) ([]storage.TrainRun, error) {
	var out []storage.TrainRun
	err := s.Store.View(func(tx *bolt.Tx) error {
		p, err := storage.ProjectByName(tx, project)
		if err != nil {
			return err
		}
		out, err = storage.TrainRuns(tx, p.ID)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

// RunMetrics returns a training run's metric series by name (train_loss,
// val_loss, tokens_per_s) as steps and values.
func (s *Studio) RunMetrics(runID uint64) (map[string][2][]float64, error) {
	out := map[string][2][]float64{}
	err := s.Store.View(func(tx *bolt.Tx) error {
		ms, err := storage.Metrics(tx, runID, "")
		if err != nil {
			return err
		}
		for _, m := range ms {
			xy := out[m.Name]
			xy[0] = append(xy[0], float64(m.Step))
			xy[1] = append(xy[1], m.Value)
			out[m.Name] = xy
		}
		return nil
	})
	return out, err
}

// CreateProject creates a project (storage.ErrExists if the name is taken).
func (s *Studio) CreateProject(name string) error {
	return s.Store.Update(func(tx *bolt.Tx) error {
		_, err := storage.CreateProject(tx, name)
		return err
	})
}
