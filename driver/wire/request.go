package wire

import (
	"fmt"
)

// CheckRequest says why m is not a request a driver can serve: an unknown
// type, or a field its type requires missing (init's id, protocol, redis,
// prefix and lock; clock's id and client; every other request's id, client
// and key, and the token of release and extend). nil when it is well
// formed.
func (m *Message) CheckRequest() error {
	missing := func(field string) error { return fmt.Errorf("%s request without %q", m.Type, field) }
	switch m.Type {
	case TypeInit, TypeAcquire, TypeRelease, TypeExtend, TypeClock:
	case "":
		return fmt.Errorf("message without %q", "type")
	default:
		return fmt.Errorf("unknown request type %q", m.Type)
	}
	if m.ID == nil {
		return missing("id")
	}
	if m.Type == TypeInit {
		switch {
		case m.Protocol == 0:
			return missing("protocol")
		case m.Redis == nil:
			return missing("redis")
		case m.Prefix == "":
			return missing("prefix")
		case m.Lock == nil:
			return missing("lock")
		}
		return nil
	}
	switch {
	case m.Client == nil || *m.Client < 0:
		return missing("client")
	case m.Type == TypeClock:
		return nil
	case m.Key == "":
		return missing("key")
	case m.Type != TypeAcquire && m.Token == "":
		return missing("token")
	}
	return nil
}

// ReplyTo is a reply of type typ to request req: its in_reply_to and
// client filled from req's id and client.
func ReplyTo(req *Message, typ string) Message {
	return Message{Type: typ, InReplyTo: req.ID, Client: req.Client}
}

// ErrorReply is the error reply to req: definite or not, with its code and
// text. req may be nil or lack an id (a line that was no request): its
// in_reply_to is then null.
func ErrorReply(req *Message, definite bool, code, text string) Message {
	m := Message{Type: TypeError, Definite: Bool(definite), Code: code, Text: text}
	if req != nil {
		m.InReplyTo, m.Client = req.ID, req.Client
	}
	return m
}

// Encode is m as the line a driver writes (without its newline): its
// JSON, in which an error reply that names no request says so with
// "in_reply_to":null (and "client":null when it names no client either),
// as the protocol writes it.
func Encode(m Message) ([]byte, error) {
	return AppendEncoded(make([]byte, 0, 128), &m)
}

// AppendEncoded appends Encode's line for m to dst (on error, dst as it
// was): a driver's writer can encode straight into its buffer.
func AppendEncoded(dst []byte, m *Message) ([]byte, error) {
	if m.Type != TypeError || m.InReplyTo != nil {
		return AppendMessage(dst, m)
	}
	n := len(dst)
	b, err := AppendMessage(dst, m)
	if err != nil {
		return dst, err
	}
	head := `{"in_reply_to":null,`
	if m.Client == nil {
		head += `"client":null,`
	}
	// b[n] is the object's '{': put head in its place.
	body := append([]byte(nil), b[n+1:]...)
	return append(append(b[:n], head...), body...), nil
}
