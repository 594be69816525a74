package launcher

import (
	"io"
	"log"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapHCLog adapts a zap logger to hclog.Logger, which go-plugin requires.
type zapHCLog struct {
	z     *zap.Logger
	name  string
	level hclog.Level
	args  []any
}

func newHCLog(z *zap.Logger, name string) hclog.Logger {
	return &zapHCLog{z: z.Named(name), name: name, level: hclog.Trace}
}

func (l *zapHCLog) Log(level hclog.Level, msg string, args ...any) {
	if level < l.level || level == hclog.Off {
		return
	}
	fields := make([]zap.Field, 0, (len(args)+len(l.args))/2+1)
	fields = appendFields(fields, l.args)
	fields = appendFields(fields, args)
	if ce := l.z.Check(zapLevel(level), msg); ce != nil {
		ce.Write(fields...)
	}
}

func appendFields(fields []zap.Field, kv []any) []zap.Field {
	for i := 0; i < len(kv); i += 2 {
		key, ok := kv[i].(string)
		if !ok {
			key = "arg"
		}
		if i+1 < len(kv) {
			fields = append(fields, zap.Any(key, kv[i+1]))
		} else {
			fields = append(fields, zap.Any("extra", kv[i]))
		}
	}
	return fields
}

func zapLevel(level hclog.Level) zapcore.Level {
	switch level {
	case hclog.Trace, hclog.Debug:
		return zapcore.DebugLevel
	case hclog.Info, hclog.NoLevel:
		return zapcore.InfoLevel
	case hclog.Warn:
		return zapcore.WarnLevel
	default:
		return zapcore.ErrorLevel
	}
}

func (l *zapHCLog) Trace(msg string, args ...any) { l.Log(hclog.Trace, msg, args...) }
func (l *zapHCLog) Debug(msg string, args ...any) { l.Log(hclog.Debug, msg, args...) }
func (l *zapHCLog) Info(msg string, args ...any)  { l.Log(hclog.Info, msg, args...) }
func (l *zapHCLog) Warn(msg string, args ...any)  { l.Log(hclog.Warn, msg, args...) }
func (l *zapHCLog) Error(msg string, args ...any) { l.Log(hclog.Error, msg, args...) }

func (l *zapHCLog) enabled(level hclog.Level) bool {
	return level >= l.level && l.z.Core().Enabled(zapLevel(level))
}

func (l *zapHCLog) IsTrace() bool { return l.enabled(hclog.Trace) }
func (l *zapHCLog) IsDebug() bool { return l.enabled(hclog.Debug) }
func (l *zapHCLog) IsInfo() bool  { return l.enabled(hclog.Info) }
func (l *zapHCLog) IsWarn() bool  { return l.enabled(hclog.Warn) }
func (l *zapHCLog) IsError() bool { return l.enabled(hclog.Error) }

func (l *zapHCLog) ImpliedArgs() []any { return l.args }

func (l *zapHCLog) With(args ...any) hclog.Logger {
	c := *l
	c.args = append(append([]any(nil), l.args...), args...)
	return &c
}

func (l *zapHCLog) Name() string { return l.name }

func (l *zapHCLog) Named(name string) hclog.Logger {
	c := *l
	c.z, c.name = l.z.Named(name), l.name+"."+name
	return &c
}

func (l *zapHCLog) ResetNamed(name string) hclog.Logger {
	c := *l
	c.name = name
	return &c
}

func (l *zapHCLog) SetLevel(level hclog.Level) { l.level = level }
func (l *zapHCLog) GetLevel() hclog.Level      { return l.level }

func (l *zapHCLog) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(opts), "", 0)
}

func (l *zapHCLog) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return zap.NewStdLog(l.z).Writer()
}
