package storage

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Project groups datasets, training runs and generated pieces.
type Project struct {
	ID      uint64    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// Dataset is one imported folder of MIDI files within a project. Its token
// shards live in ShardDir (relative to the store) with a vocab.json, in the
// format `amt train --data` reads.
type Dataset struct {
	ID        uint64    `json:"id"`
	ProjectID uint64    `json:"project_id"`
	Name      string    `json:"name"`
	Root      string    `json:"root"` // absolute folder the files were imported from
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// VocabHash identifies the vocabulary the shards were encoded with.
	VocabHash string `json:"vocab_hash,omitempty"`
	Styles    int    `json:"styles"` // number of style groups of the last clustering
}

// datasetRecord is a Dataset as stored: a name or folder that is not
// UTF-8 is also kept as bytes (see itemRecord), so a folder imported from
// an old disk is found again when imported again.
type datasetRecord struct {
	*Dataset
	NameBytes []byte `json:"name_bytes,omitempty"`
	RootBytes []byte `json:"root_bytes,omitempty"`
}

func (r *datasetRecord) exact() *Dataset {
	if r.NameBytes != nil {
		r.Name = string(r.NameBytes)
	}
	if r.RootBytes != nil {
		r.Root = string(r.RootBytes)
	}
	return r.Dataset
}

// ShardDir is the dataset's shard folder relative to the store.
func (d *Dataset) ShardDir() string { return fmt.Sprintf("%s/ds-%06d", ShardsDir, d.ID) }

// EnsureProject returns the project called name, creating it if needed.
func EnsureProject(tx *bolt.Tx, name string) (*Project, error) {
	if p, err := ProjectByName(tx, name); err == nil {
		return p, nil
	}
	return CreateProject(tx, name)
}

// CreateProject adds a project; a name in use gives ErrExists.
func CreateProject(tx *bolt.Tx, name string) (*Project, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("storage: project name is empty")
	}
	idx := tx.Bucket(bucketProjectByName)
	if idx.Get([]byte(name)) != nil {
		return nil, fmt.Errorf("storage: project %q: %w", name, ErrExists)
	}
	id, err := nextID(tx, bucketProjects)
	if err != nil {
		return nil, err
	}
	p := &Project{ID: id, Name: name, Created: time.Now().UTC()}
	if err := putRecord(tx, bucketProjects, id, p); err != nil {
		return nil, err
	}
	return p, idx.Put([]byte(name), itob(id))
}

// ProjectByName finds a project; ErrNotFound if there is none.
func ProjectByName(tx *bolt.Tx, name string) (*Project, error) {
	v := tx.Bucket(bucketProjectByName).Get([]byte(strings.TrimSpace(name)))
	if v == nil {
		return nil, fmt.Errorf("storage: project %q: %w", name, ErrNotFound)
	}
	return get[Project](tx, bucketProjects, btoi(v))
}

// Projects lists all projects in creation order.
func Projects(tx *bolt.Tx) ([]Project, error) {
	return filter(tx, bucketProjects, func(*Project) bool { return true })
}

// PutDataset inserts d (ID 0: a new id is assigned) or updates it.
func PutDataset(tx *bolt.Tx, d *Dataset) error {
	isNew, err := assignID(tx, bucketDatasets, &d.ID)
	if err != nil {
		return err
	}
	if isNew {
		d.Created = time.Now().UTC()
	}
	d.Updated = time.Now().UTC()
	return putRecord(tx, bucketDatasets, d.ID, datasetRecord{Dataset: d, NameBytes: exactBytes(d.Name), RootBytes: exactBytes(d.Root)})
}

// GetDataset reads one dataset.
func GetDataset(tx *bolt.Tx, id uint64) (*Dataset, error) {
	r := datasetRecord{Dataset: new(Dataset)}
	if err := getRecord(tx, bucketDatasets, id, &r); err != nil {
		return nil, err
	}
	return r.exact(), nil
}

// Datasets lists a project's datasets in creation order.
func Datasets(tx *bolt.Tx, projectID uint64) ([]Dataset, error) {
	var out []Dataset
	err := each(tx, bucketDatasets, func(_ uint64, r *datasetRecord) bool {
		if d := r.exact(); d.ProjectID == projectID {
			out = append(out, *d)
		}
		return true
	})
	return out, err
}

// DatasetByRoot finds the project's dataset imported from root. A root
// that is not UTF-8 also matches the lossy form a store written before
// names were kept byte-exact recorded (each bad byte as U+FFFD), so that
// folder's dataset is found again, not imported afresh: the first such
// dataset, which the caller then records with its exact root.
func DatasetByRoot(tx *bolt.Tx, projectID uint64, root string) (*Dataset, error) {
	ds, err := Datasets(tx, projectID)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		if ds[i].Root == root {
			return &ds[i], nil
		}
	}
	if lossy := jsonLossy(root); lossy != root {
		for i := range ds {
			if ds[i].Root == lossy {
				return &ds[i], nil
			}
		}
	}
	return nil, fmt.Errorf("storage: dataset from %s: %w", root, ErrNotFound)
}

// jsonLossy is s as a JSON round trip returns it: every byte that is not
// part of valid UTF-8 becomes U+FFFD.
func jsonLossy(s string) string {
	if exactBytes(s) == nil {
		return s
	}
	var out string
	b, _ := json.Marshal(s)
	if json.Unmarshal(b, &out) != nil {
		return s
	}
	return out
}

// DatasetByName finds the project's dataset called name.
func DatasetByName(tx *bolt.Tx, projectID uint64, name string) (*Dataset, error) {
	ds, err := Datasets(tx, projectID)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		if ds[i].Name == name {
			return &ds[i], nil
		}
	}
	return nil, fmt.Errorf("storage: dataset %q: %w", name, ErrNotFound)
}

// UniqueDatasetName returns base, or base-2, base-3 … if taken in the project.
func UniqueDatasetName(tx *bolt.Tx, projectID uint64, base string) (string, error) {
	ds, err := Datasets(tx, projectID)
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, d := range ds {
		taken[d.Name] = true
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name, nil
}
