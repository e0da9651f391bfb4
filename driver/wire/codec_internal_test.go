package wire

import "testing"

// The hot messages, as lockbench and go-lua write them and as a Python
// driver's json.dumps spaces them, take the fast paths.
func TestFastPathsTaken(t *testing.T) {
	for _, line := range []string{
		`{"type":"acquire","id":5,"client":3,"key":"lockbench:9f3a2c:k7"}`,
		`{"type":"release","id":6,"client":3,"key":"lockbench:9f3a2c:k7","token":"3.17"}`,
		`{"type":"extend","id":7,"client":3,"key":"lockbench:9f3a2c:k7","token":"3.17","ttl_ms":10000}`,
		`{"type":"acquire_ok","in_reply_to":5,"client":3,"token":"3.17","fence":12,"validity_ms":9987.5,"took_us":412}`,
		`{"type": "not_acquired", "in_reply_to": 5, "client": 3, "reason": "busy", "took_us": 80}`,
		`{"type":"error","in_reply_to":5,"client":3,"definite":false,"code":"io","text":"ConnectionError: ..."}`,
		`{"type":"release_ok","in_reply_to":6,"client":3,"took_us":90}`,
		`{"type":"lease_lost","client":3,"token":"3.17","text":"renewal failed: timeout"}`,
		`{"type":"renewed","client":3,"token":"3.17","validity_ms":10000}`,
		`{"type":"x","key":"é"}`,
	} {
		var m Message
		if !decodeFast([]byte(line), &m) {
			t.Errorf("%s: not decoded by the fast path", line)
			continue
		}
		if _, ok := appendFast(nil, &m); !ok && m.Key != "é" {
			t.Errorf("%s: not encoded by the fast path", line)
		}
	}
}
