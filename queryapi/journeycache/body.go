package journeycache

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"sync"
)

// Body is one answer of GET /subscription/equipment kept compressed: the
// JSON up to the per-request dateOfRequest value,
//
//	{"results":[…],"count":N,"dateOfRequest":
//
// as a raw DEFLATE stream ended by a sync flush (byte-aligned, not final).
// A gzip response is that stream between a gzip header and a final stored
// block holding the date and the closing brace, then the trailer: the
// results are compressed once, not per request. Uncompressed answers
// inflate it (about 10x smaller than the JSON).
type Body struct {
	deflate []byte
	crc     uint32 // CRC-32 of the uncompressed prefix
	size    uint32 // its length
	// Count is the number of results; ETag the weak tag of the results.
	Count int
	ETag  string
	// ident is the uncompressed prefix while Identities keeps it.
	ident *identity
}

var writers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression)
	return w
}}

var readers sync.Pool

// Encode builds the Body of results (a JSON array) holding count results.
func Encode(results []byte, count int) (Body, error) {
	prefix := make([]byte, 0, len(results)+48)
	prefix = append(prefix, `{"results":`...)
	prefix = append(prefix, results...)
	prefix = append(prefix, `,"count":`...)
	prefix = strconv.AppendInt(prefix, int64(count), 10)
	prefix = append(prefix, `,"dateOfRequest":`...)
	var out bytes.Buffer
	out.Grow(len(prefix)/8 + 64)
	w := writers.Get().(*flate.Writer)
	defer writers.Put(w)
	w.Reset(&out)
	if _, err := w.Write(prefix); err != nil {
		return Body{}, fmt.Errorf("journeycache: compress: %w", err)
	}
	if err := w.Flush(); err != nil {
		return Body{}, fmt.Errorf("journeycache: compress: %w", err)
	}
	// Weak: the tag covers the results, not dateOfRequest.
	sum := sha256.Sum256(results)
	return Body{deflate: bytes.Clone(out.Bytes()), crc: crc32.ChecksumIEEE(prefix), size: uint32(len(prefix)),
		Count: count, ETag: `W/"` + hex.EncodeToString(sum[:12]) + `"`, ident: &identity{}}, nil
}

// Size is what the body holds in memory.
// (Its uncompressed form, when Identities keeps it, counts there.)
func (b Body) Size() int64 { return int64(len(b.deflate)+len(b.ETag)) + 96 }

// gzipHeader: no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// AppendGzip appends the whole answer, with suffix (the date and the
// closing brace) after the cached results, as one gzip member.
func (b Body) AppendGzip(dst, suffix []byte) []byte {
	dst = append(dst, gzipHeader...)
	dst = append(dst, b.deflate...)
	n := uint16(len(suffix)) // a few dozen bytes: one stored block
	dst = append(dst, 1, byte(n), byte(n>>8), byte(^n), byte(^n>>8))
	dst = append(dst, suffix...)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Update(b.crc, crc32.IEEETable, suffix))
	return binary.LittleEndian.AppendUint32(dst, b.size+uint32(len(suffix)))
}

// finalBlock ends a sync-flushed stream: an empty final stored block.
var finalBlock = []byte{1, 0, 0, 0xff, 0xff}

// AppendJSON appends the whole answer uncompressed, suffix after the results.
func (b Body) AppendJSON(dst, suffix []byte) ([]byte, error) {
	src := io.MultiReader(bytes.NewReader(b.deflate), bytes.NewReader(finalBlock))
	r, _ := readers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(src)
	} else if err := r.(flate.Resetter).Reset(src, nil); err != nil {
		return dst, fmt.Errorf("journeycache: inflate: %w", err)
	}
	defer readers.Put(r)
	out := bytes.NewBuffer(dst)
	out.Grow(int(b.size) + len(suffix))
	if _, err := out.ReadFrom(r); err != nil {
		return dst, fmt.Errorf("journeycache: inflate: %w", err)
	}
	out.Write(suffix)
	return out.Bytes(), nil
}
