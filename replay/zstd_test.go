package replay

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// rtZstd compresses data as the zstd tool would (one frame, with a
// checksum).
func rtZstd(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zstd input reads as the plain text does, long lines included, whatever
// the file is called: the magic bytes decide.
func TestReadZstd(t *testing.T) {
	plain := rtTurn("E", 1, "north", 0, "Dam", 0.9) + rtNoise(2<<20) + "\n" + rtTurn("E", 2, "n", 3, "Dam", 0.1)
	a := rtOne(t, plain)
	dir := t.TempDir()
	for _, name := range []string{"episode_log.jsonl.zst", "episode_log.jsonl", "x.log"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, rtZstd(t, []byte(plain)), 0o644); err != nil {
			t.Fatal(err)
		}
		eps, err := ReadFile(path, nil, Options{Strict: true})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%s: %v, %d episodes", name, err, len(eps))
		}
		b := eps[0]
		if b.RecordedTurns() != 2 || a.FinalScore() != b.FinalScore() || b.Diag.Lines != a.Diag.Lines {
			t.Errorf("%s: plain %d/%v/%d, zstd %d/%v/%d", name, a.RecordedTurns(), a.FinalScore(), a.Diag.Lines, b.RecordedTurns(), b.FinalScore(), b.Diag.Lines)
		}
	}
	// Concatenated frames (zstd appends so) read as one stream.
	two := append(rtZstd(t, []byte(rtTurn("E", 1, "n", 0, "Dam", 1))), rtZstd(t, []byte(rtTurn("E", 2, "n", 4, "Dam", 1)))...)
	if ep := rtOne(t, string(two)); ep.RecordedTurns() != 2 || ep.FinalScore() != 4 {
		t.Errorf("two frames: turns %d score %v", ep.RecordedTurns(), ep.FinalScore())
	}
	// On stdin too.
	eps, err := ReadFile("-", bytes.NewReader(rtZstd(t, []byte(plain))), Options{})
	if err != nil || len(eps) != 1 || eps[0].RecordedTurns() != 2 {
		t.Errorf("stdin: %v %v", err, rtIDs(eps))
	}
	if id := DefaultEpisodeID("runs/ep7/episode_log.jsonl.zst"); id != "ep7" {
		t.Errorf("DefaultEpisodeID: %q", id)
	}
}

// A truncated zstd stream keeps what was read and reports a problem, as a
// truncated gzip stream does.
func TestReadTruncatedZstd(t *testing.T) {
	var plain strings.Builder
	for n := 1; n <= 2000; n++ {
		plain.WriteString(rtTurn("E", n, "north", float64(n), "Dam", 0.5))
	}
	z := rtZstd(t, []byte(plain.String()))
	cut := z[:len(z)*2/3]
	eps, err := Read(bytes.NewReader(cut), "ep.jsonl.zst", "d", Options{})
	if err != nil {
		t.Fatalf("err %v", err)
	}
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	ep := eps[0]
	if n := ep.RecordedTurns(); n >= 2000 {
		t.Errorf("recorded %d turns from two thirds of the stream", n)
	}
	if ep.Diag.Skipped < 1 {
		t.Errorf("skipped %d", ep.Diag.Skipped)
	}
	rtWantProblem(t, ep.Diag, "ep.jsonl.zst:")
	_, err = Read(bytes.NewReader(cut), "ep.jsonl.zst", "d", Options{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || le.File != "ep.jsonl.zst" {
		t.Errorf("strict: %v", err)
	}
}

// zstd that cannot be decoded from its first frame is a file error, as a
// bad gzip header is; a later broken frame is a counted problem.
func TestReadCorruptZstd(t *testing.T) {
	z := rtZstd(t, []byte(rtTurn("E", 1, "north", 0, "Dam", 0.9)))
	z[len(z)-1] ^= 0xff // the frame checksum
	bad := append(rtZstd(t, []byte(rtTurn("E", 1, "n", 0, "Dam", 1))), "\x28\xb5\x2f\xfdnot zstd"...)
	for name, in := range map[string]string{
		"checksum":       string(z),
		"magic only":     "\x28\xb5\x2f\xfd",
		"garbage":        "\x28\xb5\x2f\xfdnot zstd at all\n" + rtTurn("E", 1, "n", 0, "Dam", 1),
		"half the frame": string(z[:len(z)/2]),
	} {
		eps, err := Read(strings.NewReader(in), "x.zst", "d", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "x.zst: not a readable zstd stream") || len(eps) != 0 {
			t.Errorf("%s: %v, %d episodes", name, err, len(eps))
		}
	}
	// A broken frame after a good one costs the rest, as a problem.
	eps, err := Read(bytes.NewReader(bad), "x.zst", "d", Options{})
	if err != nil || len(eps) != 1 || eps[0].RecordedTurns() != 1 || eps[0].Diag.Skipped != 1 {
		t.Fatalf("good then bad frame: %v, %d episodes", err, len(eps))
	}
	rtWantProblem(t, eps[0].Diag, "x.zst:")
}

// The hash of a zstd file is of its bytes as stored.
func TestReadZstdHash(t *testing.T) {
	z := rtZstd(t, []byte(rtTurn("E", 1, "n", 0, "Dam", 1)))
	_, st, err := ReadFileStats(context.Background(), "-", bytes.NewReader(z), Options{Hash: true})
	if err != nil || st.Bytes != int64(len(z)) || !strings.HasPrefix(st.Hash, "sha256:") {
		t.Errorf("%v %+v", err, st)
	}
}
