package variants_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/variants"
)

// builtin are the variants this package registers itself.
var builtin = []string{"fenced", "get-del", "lua-release", "none", "set-nx-ex", "setnx-expire", "simple", "watchdog"}

func TestNames(t *testing.T) {
	names := variants.Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v; not sorted", names)
	}
	for _, n := range builtin {
		if !slices.Contains(names, n) {
			t.Errorf("Names() = %v; %s missing", names, n)
		}
	}
	all := variants.All()
	if len(all) != len(names) {
		t.Fatalf("All() has %d variants, Names() %d", len(all), len(names))
	}
	for i, info := range all {
		if info.Name != names[i] {
			t.Errorf("All()[%d] = %s; want %s", i, info.Name, names[i])
		}
		if info.Kind != variants.KindLock && info.Kind != variants.KindSemaphore && info.Kind != variants.KindControl {
			t.Errorf("%s: Kind %q is not lock, semaphore or control", info.Name, info.Kind)
		}
		if info.Source == "" || info.Summary == "" {
			t.Errorf("%s: Source %q, Summary %q; want both", info.Name, info.Source, info.Summary)
		}
		libraryOwn := info.DefaultRetry == "" && info.Settings != nil // a library's own retry, said in Settings
		if _, err := variants.ParseRetry(info.DefaultRetry); err != nil && !libraryOwn {
			t.Errorf("%s: DefaultRetry: %v", info.Name, err)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := variants.Lookup("luarelease")
	if !errors.Is(err, variants.ErrUnknown) {
		t.Fatalf("Lookup(luarelease) = %v; want ErrUnknown", err)
	}
	want := `unknown variant "luarelease" (known: ` + strings.Join(variants.Names(), ", ") + ")"
	if err.Error() != want {
		t.Errorf("Lookup(luarelease) error = %q; want %q", err, want)
	}
	if _, err := variants.New("luarelease", variants.Config{}); !errors.Is(err, variants.ErrUnknown) {
		t.Errorf("New(luarelease) = %v; want ErrUnknown", err)
	}
	if info, err := variants.Lookup("lua-release"); err != nil || info.Name != "lua-release" {
		t.Errorf("Lookup(lua-release) = %+v, %v", info, err)
	}
}

func TestNewNeedsConnAndPrefix(t *testing.T) {
	if _, err := variants.New("none", variants.Config{Prefix: "p:"}); err == nil {
		t.Error("New without a connection succeeded")
	}
	if _, err := variants.New("none", variants.Config{Conn: nopConn{}}); err == nil {
		t.Error("New without a key prefix succeeded")
	}
}

// nopConn is never called: it only fills Config.Conn where no command is
// sent.
type nopConn struct{ variants.Conn }

func TestRegisterPanics(t *testing.T) {
	factory := func(variants.Config) (variants.Lock, error) { return nil, nil }
	tests := []struct {
		name    string
		info    variants.Info
		factory variants.Factory
		want    string
	}{
		{"duplicate", variants.Info{Name: "lua-release", Kind: variants.KindLock, DefaultRetry: "none"}, factory, "twice"},
		{"empty name", variants.Info{Kind: variants.KindLock, DefaultRetry: "none"}, factory, "empty name"},
		{"nil factory", variants.Info{Name: "test-nil-factory", Kind: variants.KindLock, DefaultRetry: "none"}, nil, "nil factory"},
		{"bad default retry", variants.Info{Name: "test-bad-retry", Kind: variants.KindLock, DefaultRetry: "sometimes"}, factory, "bad default retry"},
		{"no default retry", variants.Info{Name: "test-no-retry", Kind: variants.KindLock}, factory, "bad default retry"},
	}
	before := variants.Names()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.Contains(msg, tc.want) {
					t.Errorf("Register panicked with %v; want a message saying %q", r, tc.want)
				}
			}()
			variants.Register(tc.info, tc.factory)
		})
	}
	if after := variants.Names(); !slices.Equal(before, after) {
		t.Errorf("a panicking Register changed the registry: %v, then %v", before, after)
	}
	if info, _ := variants.Lookup("lua-release"); info.Kind != variants.KindLock || info.DefaultRetry != "fixed:1ms" {
		t.Errorf("the duplicate replaced lua-release: %+v", info)
	}
	l, err := variants.New("lua-release", variants.Config{Conn: nopConn{}, Prefix: "p:"})
	if err != nil || l == nil {
		t.Errorf("New(lua-release) after the duplicate = %v, %v", l, err)
	}
}
