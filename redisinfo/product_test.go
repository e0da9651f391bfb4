package redisinfo

import (
	"os"
	"testing"
)

func TestProduct(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"valkey 8", "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\nprocess_id:1\r\n", "valkey 8.0.1"},
		{"redis 7", "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n", "redis 7.0.15"},
		{"a server_name without its own version", "# Server\r\nredis_version:7.2.4\r\nserver_name:KeyDB\r\n", "keydb 7.2.4"},
		{"no version at all", "# Server\r\nprocess_id:1\r\n", "redis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ProductText(tc.text)
			if err != nil || got != tc.want {
				t.Errorf("ProductText = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := ProductText("# Clients\r\nconnected_clients:1\r\n"); err == nil {
		t.Error("ProductText without a server section: no error")
	}
}

// TestProductOfRecordedInfo reads the product from INFO as Redis wrote
// it (testdata/info-master.txt).
func TestProductOfRecordedInfo(t *testing.T) {
	text, err := os.ReadFile("testdata/info-master.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ProductText(string(text))
	if err != nil || len(got) < len("redis 7") || got[:6] != "redis " {
		t.Errorf("ProductText(info-master.txt) = %q, %v; want redis and its version", got, err)
	}
}
