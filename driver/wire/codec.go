package wire

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// The hot messages (acquire, release and their replies) are encoded and
// decoded here without encoding/json's reflection, which was about a fifth
// of what a message cost each side. Each function gives exactly what
// encoding/json gives; anything outside its fast path (nested objects,
// escaped strings, unknown or differently cased keys, null, numbers
// encoding/json would refuse or spell another way) goes to encoding/json
// itself.

// AppendMessage appends m's JSON, exactly as json.Marshal(m) writes it, to
// dst. On error dst is returned as it was.
func AppendMessage(dst []byte, m *Message) ([]byte, error) {
	if out, ok := appendFast(dst, m); ok {
		return out, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendFast is AppendMessage for a message without nested objects, whose
// strings need no escaping and whose numbers encoding/json writes as
// strconv's shortest 'f' form. ok false: dst unchanged in its length (what
// was appended past it is garbage), and the message is for json.Marshal.
func appendFast(dst []byte, m *Message) (out []byte, ok bool) {
	if m.Redis != nil || m.Lock != nil || m.Capabilities != nil {
		return dst, false
	}
	b := dst
	if b, ok = appendString(append(b, `{"type":`...), m.Type); !ok {
		return dst, false
	}
	if m.ID != nil {
		b = strconv.AppendInt(append(b, `,"id":`...), *m.ID, 10)
	}
	if m.InReplyTo != nil {
		b = strconv.AppendInt(append(b, `,"in_reply_to":`...), *m.InReplyTo, 10)
	}
	if m.Client != nil {
		b = strconv.AppendInt(append(b, `,"client":`...), int64(*m.Client), 10)
	}
	if m.Protocol != 0 {
		b = strconv.AppendInt(append(b, `,"protocol":`...), int64(m.Protocol), 10)
	}
	for _, f := range [...]struct {
		name string
		v    *string
	}{{`,"prefix":`, &m.Prefix}} {
		if *f.v != "" {
			if b, ok = appendString(append(b, f.name...), *f.v); !ok {
				return dst, false
			}
		}
	}
	if m.Clients != 0 {
		b = strconv.AppendInt(append(b, `,"clients":`...), int64(m.Clients), 10)
	}
	for _, f := range [...]struct {
		name string
		v    *string
	}{{`,"library":`, &m.Library}, {`,"version":`, &m.Version}, {`,"language":`, &m.Language},
		{`,"key":`, &m.Key}, {`,"token":`, &m.Token}} {
		if *f.v != "" {
			if b, ok = appendString(append(b, f.name...), *f.v); !ok {
				return dst, false
			}
		}
	}
	if m.Interrupt {
		b = append(b, `,"interrupt":true`...)
	}
	if m.TTLMs != 0 {
		if b, ok = appendFloat(append(b, `,"ttl_ms":`...), m.TTLMs); !ok {
			return dst, false
		}
	}
	if m.Fence != 0 {
		b = strconv.AppendUint(append(b, `,"fence":`...), m.Fence, 10)
	}
	if m.ValidityMs != 0 {
		if b, ok = appendFloat(append(b, `,"validity_ms":`...), m.ValidityMs); !ok {
			return dst, false
		}
	}
	if m.TookUs != 0 {
		if b, ok = appendFloat(append(b, `,"took_us":`...), m.TookUs); !ok {
			return dst, false
		}
	}
	if m.NowMs != 0 {
		if b, ok = appendFloat(append(b, `,"now_ms":`...), m.NowMs); !ok {
			return dst, false
		}
	}
	if m.Reason != "" {
		if b, ok = appendString(append(b, `,"reason":`...), m.Reason); !ok {
			return dst, false
		}
	}
	if m.Definite != nil {
		b = strconv.AppendBool(append(b, `,"definite":`...), *m.Definite)
	}
	for _, f := range [...]struct {
		name string
		v    *string
	}{{`,"code":`, &m.Code}, {`,"text":`, &m.Text}} {
		if *f.v != "" {
			if b, ok = appendString(append(b, f.name...), *f.v); !ok {
				return dst, false
			}
		}
	}
	return append(b, '}'), true
}

// appendString appends s quoted, when it holds only printable ASCII that
// encoding/json writes as it is (not ", \, <, > or &).
func appendString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	return append(append(append(b, '"'), s...), '"'), true
}

// appendFloat appends f as encoding/json does, when it writes it in
// strconv's shortest 'f' form (not NaN, infinite, nor exponent-sized).
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if a := math.Abs(f); math.IsNaN(f) || math.IsInf(f, 0) || (a != 0 && (a < 1e-6 || a >= 1e21)) {
		return b, false
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64), true
}

// Decode is the message line holds: exactly what json.Unmarshal gives
// into a zero Message, its error too.
func Decode(line []byte) (Message, error) {
	var m Message
	if decodeFast(line, &m) {
		return m, nil
	}
	return decodeSlow(line)
}

// decodeSlow is Decode by encoding/json (apart, so that Decode's message
// stays on its stack).
func decodeSlow(line []byte) (Message, error) {
	var m Message
	err := json.Unmarshal(line, &m)
	return m, err
}

// decodeFast decodes line into m when it is one JSON object (whitespace
// around its tokens allowed) of Message's own keys, spelled as its tags
// spell them, whose values are of the field's type: strings without
// escapes, integers and numbers in range, true or false. false: it is not,
// and m holds garbage.
func decodeFast(line []byte, m *Message) bool {
	d := decoder{b: line}
	if d.skip(); !d.eat('{') {
		return false
	}
	if d.skip(); d.eat('}') {
		return d.end()
	}
	for {
		d.skip()
		key, ok := d.str()
		if !ok {
			return false
		}
		if d.skip(); !d.eat(':') {
			return false
		}
		d.skip()
		if !d.field(m, key) {
			return false
		}
		d.skip()
		if d.eat('}') {
			return d.end()
		}
		if !d.eat(',') {
			return false
		}
	}
}

// decoder reads a line from b[i:].
type decoder struct {
	b []byte
	i int
}

func (d *decoder) skip() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether nothing but whitespace is left.
func (d *decoder) end() bool {
	d.skip()
	return d.i == len(d.b)
}

// str reads a string without escapes, of valid UTF-8 and no control
// characters; its bytes, which alias the line.
func (d *decoder) str() ([]byte, bool) {
	if !d.eat('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// number reads a JSON number; integer says it has no fraction nor
// exponent.
func (d *decoder) number() (num []byte, integer, ok bool) {
	start := d.i
	d.eat('-')
	switch {
	case d.eat('0'):
	case d.digits() == 0:
		return nil, false, false
	}
	integer = true
	if d.eat('.') {
		if integer = false; d.digits() == 0 {
			return nil, false, false
		}
	}
	if d.eat('e') || d.eat('E') {
		integer = false
		if !d.eat('+') {
			d.eat('-')
		}
		if d.digits() == 0 {
			return nil, false, false
		}
	}
	return d.b[start:d.i], integer, true
}

func (d *decoder) digits() int {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i - start
}

// integer reads an integer that fits bits bits.
func (d *decoder) integer(bits int) (int64, bool) {
	num, integer, ok := d.number()
	if !ok || !integer {
		return 0, false
	}
	v, err := strconv.ParseInt(string(num), 10, bits)
	return v, err == nil
}

// float reads a number that fits a float64.
func (d *decoder) float() (float64, bool) {
	num, _, ok := d.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(num), 64)
	return v, err == nil
}

// boolean reads true or false.
func (d *decoder) boolean() (bool, bool) {
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// field reads the value of key into m.
func (d *decoder) field(m *Message, key []byte) bool {
	var s *string
	switch string(key) {
	case "type":
		s = &m.Type
	case "id", "in_reply_to":
		v, ok := d.integer(64)
		if !ok {
			return false
		}
		if key[0] == 'i' && len(key) == 2 {
			m.ID = &v
		} else {
			m.InReplyTo = &v
		}
		return true
	case "client", "protocol", "clients":
		v, ok := d.integer(strconv.IntSize)
		if !ok {
			return false
		}
		switch n := int(v); string(key) {
		case "client":
			m.Client = &n
		case "protocol":
			m.Protocol = n
		default:
			m.Clients = n
		}
		return true
	case "prefix":
		s = &m.Prefix
	case "library":
		s = &m.Library
	case "version":
		s = &m.Version
	case "language":
		s = &m.Language
	case "key":
		s = &m.Key
	case "token":
		s = &m.Token
	case "reason":
		s = &m.Reason
	case "code":
		s = &m.Code
	case "text":
		s = &m.Text
	case "ttl_ms", "validity_ms", "took_us", "now_ms":
		v, ok := d.float()
		if !ok {
			return false
		}
		switch string(key) {
		case "ttl_ms":
			m.TTLMs = v
		case "validity_ms":
			m.ValidityMs = v
		case "now_ms":
			m.NowMs = v
		default:
			m.TookUs = v
		}
		return true
	case "fence":
		num, integer, ok := d.number()
		if !ok || !integer {
			return false
		}
		v, err := strconv.ParseUint(string(num), 10, 64)
		m.Fence = v
		return err == nil
	case "definite":
		v, ok := d.boolean()
		m.Definite = &v
		return ok
	case "interrupt":
		v, ok := d.boolean()
		m.Interrupt = v
		return ok
	default:
		return false // unknown, or redis, lock, capabilities: encoding/json's
	}
	v, ok := d.str()
	*s = intern(v)
	return ok
}

// known are the strings of the protocol's own that decoded values share
// rather than allocate: the types, reasons and codes.
var known = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{TypeInit, TypeInitOK, TypeAcquire, TypeAcquireOK, TypeNotAcquired, TypeRelease, TypeReleaseOK,
		TypeLeaseGone, TypeExtend, TypeExtendOK, TypeError, TypeLeaseLost, TypeRenewed, TypeClock, TypeClockOK, ReasonBusy, ReasonTimeout,
		CodeUnsupported, CodeMalformed, CodeIO, CodeTimeout} {
		m[s] = s
	}
	return m
}()

// intern is b as a string: a known one's, else a new one.
func intern(b []byte) string {
	if s, ok := known[string(b)]; ok {
		return s
	}
	return string(b)
}
