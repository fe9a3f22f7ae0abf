package mysql

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

func TestConfigTimeouts(t *testing.T) {
	tests := []struct {
		dsn               string
		dial, read, write time.Duration
	}{
		{"mysql://u:pw@db/k", dialTimeout, readTimeout, writeTimeout},
		{"mysql://u:pw@db/k?timeout=2s&readTimeout=5m", 2 * time.Second, 5 * time.Minute, writeTimeout},
		{"u:pw@tcp(db:3306)/k?writeTimeout=0", dialTimeout, readTimeout, 0}, // 0 is the user's "none"
	}
	for _, tc := range tests {
		d, err := state.ParseDSN(tc.dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config(d, slog.Default())
		if err != nil {
			t.Fatalf("config(%s): %v", d, err)
		}
		if cfg.Timeout != tc.dial || cfg.ReadTimeout != tc.read || cfg.WriteTimeout != tc.write {
			t.Errorf("config(%s): timeouts %v, %v, %v; want %v, %v, %v", d, cfg.Timeout, cfg.ReadTimeout,
				cfg.WriteTimeout, tc.dial, tc.read, tc.write)
		}
	}
}

func TestConfigBadParamHidesPassword(t *testing.T) {
	d, err := state.ParseDSN("mysql://u:hunter2@db/k?tls=hunter2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = config(d, slog.Default())
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("config with a bad tls value = %v: want an error without the password", err)
	}
}

func TestDriverLogScrubs(t *testing.T) {
	rec := &recorder{}
	driverLog{log: slog.New(rec), password: "p@ss w"}.Print("auth with p@ss w, p%40ss%20w, p%40ss+w failed\n")
	got := rec.all()
	if len(got) != 1 || strings.Contains(got[0], "ss") || !strings.Contains(got[0], "mysql driver: auth with ***") {
		t.Fatalf("driver log = %q", got)
	}
}
