package replay

// Input bytes: counted and hashed, decompressed (pooled gzip, zstd), split in lines.

import (
	"bufio"
	stdgzip "compress/gzip"
	"context"
	"errors"
	"hash"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// countingReader counts (and, with h, hashes) the bytes read through it;
// once ctx is done it reads no more (a long line or a gzip stream is many
// reads between two lines).
type countingReader struct {
	r   io.Reader
	ctx context.Context
	h   hash.Hash
	n   int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.h != nil {
		c.h.Write(p[:n])
	}
	return n, err
}

// Compressed input is recognised by its first bytes, whatever its name.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Read buffers (1 MiB) and decoders are kept on free lists rather than in
// a sync.Pool, which the GC empties: a corpus is thousands of files, and
// zeroing a fresh buffer per file (page faults included) cost 6-11% of
// analyze. The lists hold what the busiest moment used, one buffer per
// reading worker (two with a decoder), up to freeMax of each.
const freeMax = 64

var (
	freeReaders = make(FreeList[*bufio.Reader], freeMax)
	freeGzip    = make(FreeList[*gzip.Reader], freeMax)
	freeZstd    = make(FreeList[*zstd.Decoder], freeMax)
)

// FreeList is a bounded free list of values to reuse (read buffers,
// decoders, slot chunks here; the rules' released steppers): what Get
// finds was put by an earlier user; what Put finds no room for is left to
// its caller. Neither ever blocks.
type FreeList[T any] chan T

// Get returns a value put earlier, if any.
func (l FreeList[T]) Get() (v T, ok bool) {
	select {
	case v = <-l:
		return v, true
	default:
		return v, false
	}
}

// Put keeps v for a later Get, if there is room; it says whether there was.
func (l FreeList[T]) Put(v T) bool {
	select {
	case l <- v:
		return true
	default:
		return false
	}
}

func getReader(r io.Reader) *bufio.Reader {
	if br, ok := freeReaders.Get(); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, 1<<20)
}

func putReader(br *bufio.Reader) {
	br.Reset(nil) // drop the file
	freeReaders.Put(br)
}

// getGzip reads through github.com/klauspost/compress/gzip, which decodes
// at some 25% less CPU than compress/gzip, the same streams (multi-member
// included) with the same errors.
func getGzip(r io.Reader) (*gzip.Reader, error) {
	zr, ok := freeGzip.Get()
	var err error
	if ok {
		if err = zr.Reset(r); err != nil {
			putGzip(zr)
		}
	} else {
		zr, err = gzip.NewReader(r)
	}
	return zr, stdGzipErr(err)
}

// stdGzipErr gives a header error compress/gzip's values, as callers
// (errors.Is) and messages knew them: its ErrHeader, and a header cut
// short is an unexpected EOF (the magic bytes were there), not io.EOF.
func stdGzipErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gzip.ErrHeader):
		return stdgzip.ErrHeader
	case errors.Is(err, gzip.ErrChecksum):
		return stdgzip.ErrChecksum
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

func putGzip(zr *gzip.Reader) { freeGzip.Put(zr) }

// corruptMember says err is a compressed member's checksum failing: its
// bytes were handed on before the check, and are not to be trusted.
func corruptMember(err error) bool {
	return errors.Is(err, stdgzip.ErrChecksum) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zstd.ErrCRCMismatch)
}

// zstdMaxWindow bounds a zstd stream's window (what decoding holds):
// 128 MiB, zstd's own limit without --long=31 (a frame asking for more is
// an error, not a memory blow-up).
const zstdMaxWindow = 128 << 20

func getZstd(r io.Reader) (*zstd.Decoder, error) {
	if zr, ok := freeZstd.Get(); ok {
		if err := zr.Reset(r); err != nil {
			putZstd(zr)
			return nil, err
		}
		return zr, nil
	}
	// One goroutine per stream: the workers already read files in
	// parallel.
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
}

func putZstd(zr *zstd.Decoder) {
	zr.Reset(nil) // drop the file
	if !freeZstd.Put(zr) {
		zr.Close()
	}
}

// lineReader yields lines of any length up to max. A line that fits the
// read buffer is returned in place; a longer one is never held: it streams
// through a compactor (longline.go) and comes back as its compacted form,
// with long set.
type lineReader struct {
	r    *bufio.Reader
	max  int
	line int
	comp compactor

	long    bool // the last line was compacted
	broken  bool // ... and is not one JSON object
	first   byte // ... its first and last non-space bytes
	last    byte
	tooLong string // ... and this kept field exceeded MaxFieldBytes
}

// next returns the next line without its line end (nil at a clean end).
// err is io.EOF with the final line when the input does not end in '\n'.
// A line is too long when its content, line end excluded, exceeds max.
func (l *lineReader) next() (line []byte, lineNo int, tooLong bool, err error) {
	l.long, l.broken, l.tooLong = false, false, ""
	n := 0 // bytes of this line read so far
	for {
		chunk, e := l.r.ReadSlice('\n')
		n += len(chunk)
		if n > l.max+2 { // room for "\r\n"
			tooLong = true
		}
		if e == bufio.ErrBufferFull {
			if !l.long {
				l.long = true
				l.comp.reset()
			}
			if !tooLong {
				l.comp.feed(chunk)
			}
			continue
		}
		if n == 0 && e != nil {
			return nil, l.line, false, e
		}
		l.line++
		if tooLong {
			return nil, l.line, true, e
		}
		end := lineEndBytes(chunk)
		if !l.long {
			line = chunk[:len(chunk)-end]
			if len(line) > l.max {
				return nil, l.line, true, e
			}
			return line, l.line, false, e
		}
		if n-end > l.max {
			return nil, l.line, true, e
		}
		l.comp.feed(chunk[:len(chunk)-end])
		line, ok := l.comp.end()
		l.broken, l.first, l.last, l.tooLong = !ok, l.comp.first, l.comp.last, l.comp.tooLong
		return line, l.line, false, e
	}
}

// lineEndBytes counts the '\r' and '\n' bytes that end b, as
// bytes.TrimRight(b, "\r\n") trims them (without building its byte set
// at every line).
func lineEndBytes(b []byte) int {
	n := 0
	for n < len(b) && (b[len(b)-1-n] == '\n' || b[len(b)-1-n] == '\r') {
		n++
	}
	return n
}

// inputGauge tells how much of its input a read has taken: the bytes
// read from the input as stored (below a decompressor) and, for a
// regular file, its size, stat'ed when first asked (a read of a small
// file never asks).
type inputGauge struct {
	read  *int64
	file  io.Reader     // the input as opened: an *os.File, or one in an endOnce
	ahead *bufio.Reader // what reads the file, its buffer read ahead of the reader (nil when compressed)
}

// fraction is the part of the input read so far, 0 when unknown.
func (g inputGauge) fraction() float64 {
	r := g.file
	if e, ok := r.(*endOnce); ok {
		r = e.r
	}
	if s, ok := r.(*spoolReader); ok {
		r = s.r // standard input redirected from a file has a size
	}
	var size int64
	switch f := r.(type) {
	case interface{ size() (int64, bool) }: // fdFile
		n, ok := f.size()
		if !ok {
			return 0
		}
		size = n
	case *os.File:
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0
		}
		size = fi.Size()
	}
	if g.read == nil || size <= 0 {
		return 0
	}
	read := *g.read
	if g.ahead != nil {
		read -= int64(g.ahead.Buffered())
	}
	return min(1, float64(read)/float64(size))
}
