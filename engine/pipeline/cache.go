package pipeline

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/amtstudio/amt/engine/token"
)

// The mmap-mode cache is one file of pre-processed arrays keyed by content
// hash:
//
//	header  "AMTPRE01" count:u64
//	index   count × (sha256:[32]byte offset:u64 length:u64), sorted by hash
//	records at 8-byte aligned offsets:
//	        tokens:u32 styleIndex:i32 dim:u32 attrsLen:u32 metaLen:u32 captionLen:u32
//	        tokens × u16 (padded to 4 bytes), dim × f32, attrs JSON, meta JSON, caption
//
// all little-endian. On a little-endian machine tokens and embeddings are
// used in place from the mapping, with no copy and no parsing.
const cacheMagic = "AMTPRE01"

const (
	cacheHeader = 16
	cacheEntry  = 48
	cacheRecHdr = 24
)

// ErrBadCache marks a cache file that does not follow the format; the run
// then ignores it and rebuilds it.
var ErrBadCache = errors.New("bad cache file")

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
		c.close()
		return nil, fmt.Errorf("pipeline: cache %s: %w: header", path, ErrBadCache)
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

func (c *cache) entry(i int) (key []byte, off, length uint64) {
	e := c.data[cacheHeader+i*cacheEntry:]
	return e[:32], binary.LittleEndian.Uint64(e[32:]), binary.LittleEndian.Uint64(e[40:])
}

// record returns the raw record for a hex hash, or nil.
func (c *cache) record(hash string) []byte {
	if c == nil || c.n == 0 {
		return nil
	}
	var key [32]byte
	if _, err := hex.Decode(key[:], []byte(hash)); err != nil {
		return nil
	}
	i := sort.Search(c.n, func(i int) bool { k, _, _ := c.entry(i); return bytes.Compare(k, key[:]) >= 0 })
	if i == c.n {
		return nil
	}
	k, off, length := c.entry(i)
	if !bytes.Equal(k, key[:]) || off+length > uint64(len(c.data)) || off%8 != 0 {
		return nil
	}
	return c.data[off : off+length]
}

// lookup decodes the record for hash; ok is false on a miss or a malformed
// record (which the run then recomputes).
func (c *cache) lookup(hash string) (cached, bool) {
	r := c.record(hash)
	if len(r) < cacheRecHdr {
		return cached{}, false
	}
	le := binary.LittleEndian
	nt, si, dim := int(le.Uint32(r)), int(int32(le.Uint32(r[4:]))), int(le.Uint32(r[8:]))
	na, nm, nc := int(le.Uint32(r[12:])), int(le.Uint32(r[16:])), int(le.Uint32(r[20:]))
	tb := (2*nt + 3) &^ 3
	if cacheRecHdr+tb+4*dim+na+nm+nc != len(r) {
		return cached{}, false
	}
	var out cached
	p := r[cacheRecHdr:]
	out.Tokens = u16s(p[:2*nt])
	p = p[tb:]
	out.Embedding = f32s(p[:4*dim])
	p = p[4*dim:]
	if err := json.Unmarshal(p[:na], &out.Attrs); err != nil {
		return cached{}, false
	}
	out.Meta = append(json.RawMessage(nil), p[na:na+nm]...)
	out.Caption = string(p[na+nm : na+nm+nc])
	out.StyleIndex = si
	return out, true
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
			k, off, length := old.entry(i)
			var kk [32]byte
			copy(kk[:], k)
			if seen[kk] || off+length > uint64(len(old.data)) {
				continue
			}
			recs = append(recs, rec{kk, old.data[off : off+length]})
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
		out = append(out, r.data...)
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
	}
	return writeAtomic(path, out)
}
