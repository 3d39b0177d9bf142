package replay

// Reading agents' records without encoding/json: a record is validated
// once (validValue, the ZorkGPT path's validating pass: exactly what
// json.Valid accepts, plus Python's NaN and infinities, read as null),
// then read in place. A rawValue is the bytes of one valid value; Get,
// Members and Elems walk them with the skips of jsonwalk.go (which trust
// the bytes, so they are never called on unvalidated input), and only the
// fields a reader asks for are unescaped or converted. The rare shapes
// whose exact Go reading matters byte for byte (a structured value read
// as text, compact and key-sorted as json.Marshal writes it) go through
// encoding/json: Any.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// rawValue is one valid JSON value, its bytes as written (no surrounding
// space). nil is an absent value.
type rawValue []byte

var (
	errRecordInvalid   = errors.New("invalid JSON")
	errRecordNotObject = errors.New("not a JSON object")
	errRecordTwoValues = errors.New("more than one JSON value on the line")
)

// parseRecord validates raw as one JSON value (space around it allowed)
// and returns it; the errors are decodeObject's (steps_ref_test.go, the
// encoding/json reading it replaced). wantObject refuses any
// other kind of value.
func parseRecord(raw []byte, wantObject bool) (rawValue, error) {
	i := skipSpace(raw, 0)
	end := validValue(raw, i)
	if end < 0 {
		// Distinguish "two values" from "invalid" as decodeObject did:
		// a valid first value followed by more than space.
		return nil, errRecordInvalid
	}
	if j := skipSpace(raw, end); j != len(raw) {
		return nil, errRecordTwoValues
	}
	v := rawValue(raw[i:end])
	if wantObject && v.Kind() != '{' {
		return nil, errRecordNotObject
	}
	return v, nil
}

// Kind is the value's first byte, numbers as '0': '{', '[', '"', 't',
// 'f', 'n' (null, NaN and the infinities: null once read), '0'; 0 when
// absent.
func (v rawValue) Kind() byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	case 'N', 'I':
		return 'n'
	case '-':
		if len(v) > 1 && v[1] == 'I' {
			return 'n'
		}
	}
	return '0'
}

// IsNull reports a null (or non-finite) value; an absent one is not null.
func (v rawValue) IsNull() bool { return v.Kind() == 'n' }

// Present reports a value that is there and not null, as a key holding
// something (map lookups' `v != nil`).
func (v rawValue) Present() bool { k := v.Kind(); return k != 0 && k != 'n' }

// Members calls fn with each member of an object, its key raw (esc when
// it holds an escape or invalid UTF-8: unescape with unquoteKey) and its value; fn returns
// false to stop. It does nothing for any other value.
func (v rawValue) Members(fn func(key []byte, esc bool, val rawValue) bool) {
	(*valueIndex)(nil).members(v, fn)
}

// Get returns the member named key of an object (nil when absent or v is
// not an object). When a key repeats, the last one is returned, as
// encoding/json and Python's json read it.
func (v rawValue) Get(key string) rawValue {
	var got rawValue
	v.Members(func(k []byte, esc bool, val rawValue) bool {
		if keyIs(k, esc, key) {
			got = val
		}
		return true
	})
	return got
}

// keyIs says the member key k (as Members gives it: esc when it holds
// escapes) is key.
func keyIs(k []byte, esc bool, key string) bool {
	if esc {
		return unquoteKey(k) == key
	}
	return string(k) == key
}

// Path follows keys into nested objects.
func (v rawValue) Path(keys ...string) rawValue {
	for _, k := range keys {
		if v = v.Get(k); v == nil {
			return nil
		}
	}
	return v
}

// Fields fills vals with the members named by keys in one pass over the
// object (the last of a repeated key); a key not there leaves nil.
func (v rawValue) Fields(keys []string, vals []rawValue) {
	for i := range vals {
		vals[i] = nil
	}
	v.Members(func(k []byte, esc bool, val rawValue) bool {
		setField(keys, vals, k, esc, val)
		return true
	})
}

// setField puts the member k (esc: written with escapes) in vals where
// keys names it: Fields' and valueIndex.fields' match of one member.
func setField(keys []string, vals []rawValue, k []byte, esc bool, val rawValue) {
	name := string(k) // not allocated: compared only
	if esc {
		name = unquoteKey(k)
	}
	for i, want := range keys {
		if name == want {
			vals[i] = val
		}
	}
}

// Elems calls fn with each element of an array and its index; fn returns
// false to stop. It does nothing for any other value.
func (v rawValue) Elems(fn func(i int, val rawValue) bool) {
	(*valueIndex)(nil).elems(v, fn)
}

// Len is the number of elements of an array (0 for anything else).
func (v rawValue) Len() int {
	n := 0
	v.Elems(func(int, rawValue) bool { n++; return true })
	return n
}

// Str reads a string value, unescaped as encoding/json unescapes it
// (invalid UTF-8 and lone surrogates as U+FFFD); ok is false for any
// other kind of value.
func (v rawValue) Str() (s string, ok bool) {
	if v.Kind() != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	return unquoteBody(body), true
}

// StrEq reports whether v is the string s, without allocating for the
// common case of a string written without escapes.
func (v rawValue) StrEq(s string) bool {
	if v.Kind() != '"' {
		return false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == s && utf8.ValidString(s)
	}
	got, _ := v.Str()
	return got == s
}

// Bool reads true or false; ok is false for anything else.
func (v rawValue) Bool() (b, ok bool) {
	switch v.Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// Number is a number's literal, as json.Number holds it ("" for any
// other kind of value).
func (v rawValue) Number() json.Number {
	if v.Kind() != '0' {
		return ""
	}
	return json.Number(v)
}

// Int reads an integral number written as an integer within int64.
func (v rawValue) Int() (int64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// Any decodes the value as decodeObject's values are: objects as
// map[string]any, numbers as json.Number, NaN and infinities as nil.
// It is the slow path, for the rare values read whole.
func (v rawValue) Any() any {
	switch v.Kind() {
	case 0, 'n':
		return nil
	case '"':
		s, _ := v.Str()
		return s
	case 't':
		return true
	case 'f':
		return false
	case '0':
		return json.Number(v)
	}
	raw := []byte(v)
	if san, ok := sanitizeNonFinite(raw); ok {
		raw = san
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil // not reached: v was validated
	}
	return out
}

// Text reads a value as asText does: a string as is, null or absent as
// "", anything else as its compact JSON with keys sorted (json.Marshal of
// the decoded value).
func (v rawValue) Text() string {
	switch v.Kind() {
	case 0, 'n':
		return ""
	case '"':
		s, _ := v.Str()
		return s
	case 't', 'f', '0':
		return string(v) // json.Marshal writes these literals as read
	}
	return asText(v.Any())
}

// unquoteKey unescapes an object key that holds an escape.
func unquoteKey(k []byte) string {
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	var s string
	if json.Unmarshal(q, &s) != nil {
		return string(k)
	}
	return s
}
