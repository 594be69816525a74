package launcher

import (
	"testing"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestHCLogAdapterRelogsThroughZap(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	l := newHCLog(zap.New(core), "worker").With("pid", 7)
	tests := []struct {
		level hclog.Level
		want  zapcore.Level
	}{
		{hclog.Trace, zapcore.DebugLevel},
		{hclog.Debug, zapcore.DebugLevel},
		{hclog.Info, zapcore.InfoLevel},
		{hclog.Warn, zapcore.WarnLevel},
		{hclog.Error, zapcore.ErrorLevel},
	}
	for _, tt := range tests {
		l.Log(tt.level, "msg-"+tt.level.String(), "job_id", "j1", "dangling")
		entries := logs.TakeAll()
		if len(entries) != 1 {
			t.Fatalf("%v: %d entries", tt.level, len(entries))
		}
		e := entries[0]
		if e.Level != tt.want || e.Message != "msg-"+tt.level.String() || e.LoggerName != "worker" {
			t.Fatalf("%v logged as %v %q by %q", tt.level, e.Level, e.Message, e.LoggerName)
		}
		fields := e.ContextMap()
		if fields["pid"] != int64(7) || fields["job_id"] != "j1" || fields["extra"] != "dangling" {
			t.Fatalf("%v fields = %v", tt.level, fields)
		}
	}
	l.SetLevel(hclog.Warn)
	l.Info("filtered")
	if logs.Len() != 0 || l.IsInfo() || !l.IsWarn() {
		t.Fatalf("SetLevel(Warn) did not filter info: %d entries", logs.Len())
	}
}
