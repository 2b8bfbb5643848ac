package pipeline

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/amtstudio/amt/engine/token"
)

// The mmap-mode cache is one file of pre-processed arrays keyed by content
// hash:
//
//	header  "AMTPRE02" count:u64
//	index   count × (sha256:[32]byte offset:u64 length:u64 crc:u32 pad:u32), sorted by hash
//	records at 8-byte aligned offsets:
//	        tokens:u32 styleIndex:i32 dim:u32 attrsLen:u32 metaLen:u32 captionLen:u32
//	        tokens × u16 (padded to 4 bytes), dim × f32, attrs JSON, meta JSON, caption
//
// all little-endian. crc is the CRC-32C (Castagnoli) of the entry's hash and
// record bytes: an entry is used only when it matches, so bit rot or a bad
// copy makes the run rebuild that entry from its file (with a note) rather
// than store tokens beyond the vocabulary or fail on broken JSON (issue 37;
// version 01 had no checksum and is rebuilt whole). On a little-endian
// machine tokens and embeddings are used in place from the mapping, with no
// copy and no parsing.
const cacheMagic = "AMTPRE02"

const (
	cacheHeader = 16
	cacheEntry  = 56
	cacheRecHdr = 24
)

// ErrBadCache marks a cache file that does not follow the format, or an
// entry of it that fails its checksum or does not decode; the run then
// rebuilds the file or the entry.
var ErrBadCache = errors.New("bad cache file")

// badEntry says why one entry of a cache cannot be used; it is an
// ErrBadCache.
type badEntry string

func (e badEntry) Error() string      { return string(e) }
func (badEntry) Is(target error) bool { return target == ErrBadCache }

func badEntryf(format string, a ...any) error { return badEntry(fmt.Sprintf(format, a...)) }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// entrySum is the checksum an index entry holds for its key and record.
func entrySum(key, rec []byte) uint32 {
	return crc32.Update(crc32.Checksum(key, castagnoli), castagnoli, rec)
}

type cache struct {
	data  []byte // the mapping (or file bytes)
	unmap func() error
	n     int
}

type cached struct {
	Tokens     []uint16
	StyleIndex int
	Embedding  []float32
	Attrs      token.Attributes
	Meta       json.RawMessage
	Caption    string
}

// openCache maps path; a missing file gives an empty cache.
func openCache(path string) (*cache, error) {
	data, unmap, err := mapFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &cache{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pipeline: cache %s: %w", path, err)
	}
	c := &cache{data: data, unmap: unmap}
	if len(data) < cacheHeader || string(data[:8]) != cacheMagic {
		why := "header"
		if len(data) >= 8 && string(data[:6]) == cacheMagic[:6] {
			why = fmt.Sprintf("format %q, this build writes %q", data[:8], cacheMagic)
		}
		c.close() // data is unmapped from here
		return nil, fmt.Errorf("pipeline: cache %s: %w: %s", path, ErrBadCache, why)
	}
	n := binary.LittleEndian.Uint64(data[8:])
	if n > uint64(len(data)) || cacheHeader+n*cacheEntry > uint64(len(data)) {
		c.close()
		return nil, fmt.Errorf("pipeline: cache %s: %w: %d entries do not fit", path, ErrBadCache, n)
	}
	c.n = int(n)
	return c, nil
}

func (c *cache) close() {
	if c != nil && c.unmap != nil {
		c.unmap()
		c.unmap = nil
	}
	if c != nil {
		c.data = nil
	}
}

func (c *cache) entry(i int) (key []byte, off, length uint64, sum uint32) {
	e := c.data[cacheHeader+i*cacheEntry:]
	le := binary.LittleEndian
	return e[:32], le.Uint64(e[32:]), le.Uint64(e[40:]), le.Uint32(e[48:])
}

// span returns entry i's record when it lies in the file, is aligned and
// matches its checksum.
func (c *cache) span(i int) ([]byte, error) {
	key, off, length, sum := c.entry(i)
	if off%8 != 0 || off > uint64(len(c.data)) || length > uint64(len(c.data))-off {
		return nil, badEntryf("entry at %d+%d outside the file's %d bytes", off, length, len(c.data))
	}
	r := c.data[off : off+length]
	if got := entrySum(key, r); got != sum {
		return nil, badEntryf("damaged (checksum %08x, the index says %08x)", got, sum)
	}
	return r, nil
}

// lookup decodes the record for a hex hash. ok is false on a miss; err
// (wrapping ErrBadCache) says why an entry that is there cannot be used: a
// checksum that does not match, a layout or JSON that does not decode. The
// run recomputes the item in both cases.
func (c *cache) lookup(hash string) (out cached, ok bool, err error) {
	if c == nil || c.n == 0 {
		return cached{}, false, nil
	}
	var key [32]byte
	if _, err := hex.Decode(key[:], []byte(hash)); err != nil {
		return cached{}, false, nil
	}
	i := sort.Search(c.n, func(i int) bool { k, _, _, _ := c.entry(i); return bytes.Compare(k, key[:]) >= 0 })
	if i == c.n {
		return cached{}, false, nil
	}
	if k, _, _, _ := c.entry(i); !bytes.Equal(k, key[:]) {
		return cached{}, false, nil
	}
	r, err := c.span(i)
	if err != nil {
		return cached{}, false, err
	}
	out, err = decodeRecord(r)
	return out, err == nil, err
}

// decodeRecord reads one record (whose checksum matched).
func decodeRecord(r []byte) (cached, error) {
	if len(r) < cacheRecHdr {
		return cached{}, badEntryf("a record of %d bytes", len(r))
	}
	le := binary.LittleEndian
	nt, si, dim := uint64(le.Uint32(r)), int(int32(le.Uint32(r[4:]))), uint64(le.Uint32(r[8:]))
	na, nm, nc := uint64(le.Uint32(r[12:])), uint64(le.Uint32(r[16:])), uint64(le.Uint32(r[20:]))
	tb := (2*nt + 3) &^ 3
	if cacheRecHdr+tb+4*dim+na+nm+nc != uint64(len(r)) {
		return cached{}, badEntryf("a record's fields do not add up to its %d bytes", len(r))
	}
	if si < -1 || si >= int(nt) {
		return cached{}, badEntryf("STYLE at %d of %d tokens", si, nt)
	}
	var out cached
	p := r[cacheRecHdr:]
	out.Tokens = u16s(p[:2*nt])
	p = p[tb:]
	out.Embedding = f32s(p[:4*dim])
	p = p[4*dim:]
	if err := json.Unmarshal(p[:na], &out.Attrs); err != nil {
		return cached{}, badEntryf("attributes: %v", err)
	}
	if meta := p[na : na+nm]; !json.Valid(meta) {
		return cached{}, badEntryf("metadata is not JSON")
	}
	out.Meta = append(json.RawMessage(nil), p[na:na+nm]...)
	out.Caption = string(p[na+nm : na+nm+nc])
	out.StyleIndex = si
	return out, nil
}

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// u16s views b as little-endian uint16s, in place where the machine allows.
func u16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%2 == 0 {
		return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
	}
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

func f32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// encodeRecord builds one record from a processed item.
func encodeRecord(it *Item) ([]byte, error) {
	attrs, err := json.Marshal(it.Attrs)
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(it.Meta)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	b := make([]byte, 0, cacheRecHdr+2*len(it.Tokens)+4+4*len(it.Embedding)+len(attrs)+len(meta)+len(it.Caption))
	b = le.AppendUint32(b, uint32(len(it.Tokens)))
	b = le.AppendUint32(b, uint32(int32(it.StyleIndex)))
	b = le.AppendUint32(b, uint32(len(it.Embedding)))
	b = le.AppendUint32(b, uint32(len(attrs)))
	b = le.AppendUint32(b, uint32(len(meta)))
	b = le.AppendUint32(b, uint32(len(it.Caption)))
	b = appendU16s(b, it.Tokens)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	for _, f := range it.Embedding {
		b = le.AppendUint32(b, math.Float32bits(f))
	}
	b = append(b, attrs...)
	b = append(b, meta...)
	return append(b, it.Caption...), nil
}

// writeCache writes the old cache's records plus add (hex hash → record)
// to path atomically. Records of add replace old ones with the same hash.
func writeCache(path string, old *cache, add map[string][]byte) error {
	type rec struct {
		key  [32]byte
		data []byte
	}
	var recs []rec
	seen := map[[32]byte]bool{}
	for h, d := range add {
		var k [32]byte
		if _, err := hex.Decode(k[:], []byte(h)); err != nil {
			continue
		}
		seen[k] = true
		recs = append(recs, rec{k, d})
	}
	if old != nil {
		for i := 0; i < old.n; i++ {
			k, _, _, _ := old.entry(i)
			var kk [32]byte
			copy(kk[:], k)
			if seen[kk] {
				continue
			}
			r, err := old.span(i)
			if err != nil {
				continue // damaged: rebuilt when its file is read again
			}
			seen[kk] = true // a key twice (a damaged index) is kept once
			recs = append(recs, rec{kk, r})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return bytes.Compare(recs[i].key[:], recs[j].key[:]) < 0 })
	size := cacheHeader + cacheEntry*len(recs)
	for _, r := range recs {
		size += (len(r.data) + 7) &^ 7
	}
	out := make([]byte, cacheHeader+cacheEntry*len(recs), size)
	copy(out, cacheMagic)
	binary.LittleEndian.PutUint64(out[8:], uint64(len(recs)))
	for i, r := range recs {
		e := out[cacheHeader+i*cacheEntry:]
		copy(e, r.key[:])
		binary.LittleEndian.PutUint64(e[32:], uint64(len(out)))
		binary.LittleEndian.PutUint64(e[40:], uint64(len(r.data)))
		binary.LittleEndian.PutUint32(e[48:], entrySum(r.key[:], r.data))
		out = append(out, r.data...)
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
	}
	return writeAtomic(path, out)
}
