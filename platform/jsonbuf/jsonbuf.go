// Package jsonbuf encodes values exactly as encoding/json.Marshal does, into
// buffers reused through a pool: for encodings that are garbage as soon as
// they are copied or hashed (an event's JSON before its record copies it,
// or before its content hash is taken), which were a few per cent of the
// normaliser's allocations.
package jsonbuf

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Encoder writes json.Marshal's bytes into a buffer it reuses. Not safe for
// concurrent use: take one with Get, give it back with Put.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxKept is the largest buffer Put keeps: one huge value must not pin its
// memory in the pool.
const maxKept = 64 << 10

var pool = sync.Pool{New: func() any {
	e := &Encoder{}
	e.enc = json.NewEncoder(&e.buf) // escapes HTML as Marshal does
	return e
}}

// Get returns an Encoder from the pool.
func Get() *Encoder { return pool.Get().(*Encoder) }

// Put gives e back; neither e nor what it returned may be used after.
func Put(e *Encoder) {
	if e.buf.Cap() > maxKept {
		return
	}
	pool.Put(e)
}

// Marshal returns json.Marshal(v)'s bytes, valid until e's next Marshal or
// its Put.
func (e *Encoder) Marshal(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	// Encode ends each value with a newline that Marshal does not write.
	return bytes.TrimSuffix(e.buf.Bytes(), []byte{'\n'}), nil
}
