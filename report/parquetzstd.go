package report

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// parquetZstd is the zstd codec a ParquetWriter compresses its pages
// with. The library's (compress/zstd) keeps its encoders in a sync.Pool,
// which two garbage collections empty, and a new encoder's history is
// sized by its 8 MiB window (up to 16 MiB): allocated afresh again and
// again on a long run (30 MB of the peak on a corpus of 500 KB ids, as
// on a million firings). This one holds one encoder for the writer's
// life, with a 1 MiB window (a page is 256 KiB, a value rarely more):
// about 2 MiB. Its frames are standard zstd; readers decode them with
// their own codec.
type parquetZstd struct {
	encOnce, decOnce sync.Once
	enc              *zstd.Encoder
	dec              *zstd.Decoder
	encErr, decErr   error
}

// parquetZstdWindow is the encoder's window (a power of two).
const parquetZstdWindow = 1 << 20

func (c *parquetZstd) String() string { return "ZSTD" }

func (c *parquetZstd) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode returns src compressed, in dst's memory when it fits (the
// compress.Codec contract, as the library's codec does).
func (c *parquetZstd) Encode(dst, src []byte) ([]byte, error) {
	c.encOnce.Do(func() {
		// EncodeAll is safe for concurrent use; with a concurrency of 1
		// callers take turns on one encoder's state.
		c.enc, c.encErr = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(parquetZstdWindow),
			zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
	})
	if c.encErr != nil {
		return dst[:0], c.encErr
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// Decode returns src decompressed, in dst's memory when it fits; the
// writer reads its pages back only for bloom filters, which it has none
// of, so the decoder is made only if asked for.
func (c *parquetZstd) Decode(dst, src []byte) ([]byte, error) {
	c.decOnce.Do(func() { c.dec, c.decErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)) })
	if c.decErr != nil {
		return dst[:0], c.decErr
	}
	return c.dec.DecodeAll(src, dst[:0])
}

// Close releases the encoder and the decoder, if made.
func (c *parquetZstd) Close() {
	c.encOnce.Do(func() {})
	c.decOnce.Do(func() {})
	if c.enc != nil {
		c.enc.Close()
	}
	if c.dec != nil {
		c.dec.Close()
	}
}
