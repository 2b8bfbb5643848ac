package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"github.com/amtstudio/amt/engine/userfile"
)

// bbolt's file layout, as far as precheck reads it: two meta pages at the
// start (page 0 and 1), each a 16-byte page header (id, flags, count,
// overflow) then the meta: magic, version, page size, flags, root bucket
// (root page, sequence), freelist page, high-water page id, txid, checksum
// (FNV-64a of the meta before it).
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltFreelistFlag = 0x10
	boltMetaSize     = 64 // magic … txid, before the checksum
)

type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64
	txid     uint64
}

// precheck reads the database's meta pages and checks what bbolt would
// otherwise trust blindly at open: the file holds every page the meta
// declares, and the freelist and root pages it points to say they are
// those pages. A database that fails is ErrCorrupt, before bbolt (which
// panics, or faults on a truncated map, and keeps its lock when it does)
// reads it. A missing or empty file passes: Open creates it.
func precheck(path string) error {
	f, _, err := userfile.OpenRegular(path) // a FIFO named amt.db would hold open(2) forever
	if os.IsNotExist(err) {
		return nil
	}
	if errors.Is(err, userfile.ErrNotRegular) {
		return fmt.Errorf("storage: %w: %w", ErrCorrupt, err)
	}
	if err != nil {
		return nil // bbolt reports it
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("storage: %s: %w: %s", path, ErrCorrupt, fmt.Sprintf(format, a...))
	}
	head := make([]byte, 16+boltMetaSize+8)
	if _, err := f.ReadAt(head, 0); err != nil {
		return bad("%d bytes, too short for a database header", fi.Size())
	}
	m0, ok0 := parseMeta(head)
	if !ok0 && m0.pageSize == 0 {
		return bad("not a bbolt database (no valid meta page at the start)")
	}
	var best *boltMeta
	if ok0 {
		best = &m0
	}
	if ps := int64(m0.pageSize); ps >= 512 && ps <= 1<<20 {
		if _, err := f.ReadAt(head, ps); err == nil {
			if m1, ok := parseMeta(head); ok && (best == nil || m1.txid > best.txid) {
				best = &m1
			}
		}
	}
	if best == nil {
		return bad("both meta pages are damaged")
	}
	ps := int64(best.pageSize)
	if need := int64(best.pgid) * ps; fi.Size() < need {
		return bad("the file is %d bytes, its header declares %d (truncated)", fi.Size(), need)
	}
	for _, pg := range []struct {
		id   uint64
		what string
	}{{best.freelist, "freelist"}, {best.root, "root"}} {
		if pg.id == ^uint64(0) && pg.what == "freelist" {
			continue // not stored (NoFreelistSync)
		}
		if pg.id < 2 || pg.id >= best.pgid {
			return bad("%s page %d outside the %d pages", pg.what, pg.id, best.pgid)
		}
		var h [16]byte
		if _, err := f.ReadAt(h[:], int64(pg.id)*ps); err != nil && err != io.EOF {
			return bad("%s page %d unreadable: %v", pg.what, pg.id, err)
		}
		if id := binary.LittleEndian.Uint64(h[:]); id != pg.id {
			return bad("%s page %d says it is page %d", pg.what, pg.id, id)
		}
		if flags := binary.LittleEndian.Uint16(h[8:]); pg.what == "freelist" && flags&boltFreelistFlag == 0 {
			return bad("freelist page %d is not marked as one (flags %#x)", pg.id, flags)
		}
	}
	return nil
}

// parseMeta decodes a meta page (header included); ok reports a valid
// magic, version and checksum. pageSize is filled whenever the magic is
// right, so the second meta can be found when the first is damaged.
func parseMeta(b []byte) (m boltMeta, ok bool) {
	le := binary.LittleEndian
	meta := b[16:]
	if le.Uint32(meta) != boltMagic {
		return m, false
	}
	m.pageSize = le.Uint32(meta[8:])
	m.root = le.Uint64(meta[16:])
	m.freelist = le.Uint64(meta[32:])
	m.pgid = le.Uint64(meta[40:])
	m.txid = le.Uint64(meta[48:])
	h := fnv.New64a()
	h.Write(meta[:56])
	if le.Uint32(meta[4:]) != boltVersion || le.Uint64(meta[56:]) != h.Sum64() {
		return m, false
	}
	return m, true
}
