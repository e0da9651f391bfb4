package driver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// init carries the protocol's every field, the password by its source,
// durations in milliseconds and the library's retry as "library".
func TestInitJSON(t *testing.T) {
	cfg := Config{
		Redis:    RedisOf(topologies.Access{Mode: topologies.ModeSingle, Endpoints: []topologies.Endpoint{{Addr: "127.0.0.1:6379"}}}),
		Password: "hunter2", Prefix: "lockbench:9f3a2c:", Clients: 16, TTL: 10 * time.Second,
		Retry:          variants.RetryPolicy{Kind: variants.RetryFixed, Min: time.Millisecond, Max: time.Millisecond},
		AcquireTimeout: 10 * time.Second,
	}.withDefaults()
	msg := cfg.init()
	msg.ID = wire.Int64(0)
	got, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"init","id":0,"protocol":1,"redis":{"mode":"single","addrs":["127.0.0.1:6379"],"master_name":"","username":"",` +
		`"password":{"env":"LOCKBENCH_REDIS_PASSWORD"}},"prefix":"lockbench:9f3a2c:","clients":16,` +
		`"lock":{"ttl_ms":10000,"retry":{"kind":"fixed","min_ms":1,"max_ms":1},"acquire_timeout_ms":10000,"limit":1,"renew":false}}`
	if string(got) != want {
		t.Errorf("init:\n%s\nwant:\n%s", got, want)
	}
	cfg.Retry, cfg.Password = variants.RetryPolicy{}, ""
	if r := cfg.init(); r.Lock.Retry.Kind != wire.RetryLibrary || r.Redis.Password != nil {
		t.Errorf("no retry, no password: %+v, %+v", r.Lock.Retry, r.Redis.Password)
	}
}

// Every retry policy goes over the wire and back unchanged.
func TestRetryRoundTrip(t *testing.T) {
	for _, s := range []string{"none", "spin", "fixed:5ms", "exp:1ms-100ms", "random:2ms-10ms"} {
		p, err := variants.ParseRetry(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := PolicyOf(RetryOf(p))
		if err != nil || back != p {
			t.Errorf("%s: %v, %v", s, back, err)
		}
	}
	if _, err := PolicyOf(wire.Retry{Kind: "fixed"}); err == nil {
		t.Error("fixed without a pause accepted")
	}
	if _, err := PolicyOf(wire.Retry{Kind: "sometimes"}); err == nil {
		t.Error("an unknown kind accepted")
	}
}
