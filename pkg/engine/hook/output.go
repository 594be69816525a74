package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Output is a hook's JSON answer on stdout (Claude Code's shape).
type Output struct {
	Continue       *bool
	StopReason     string
	SuppressOutput bool
	SystemMessage  string
	// Decision is "block" (or, for PreToolUse only, the legacy "approve").
	Decision string
	Reason   string
	Specific *SpecificOutput
}

// SpecificOutput is hookSpecificOutput.
type SpecificOutput struct {
	HookEventName            string
	PermissionDecision       string // allow, ask or deny (PreToolUse)
	PermissionDecisionReason string
	UpdatedInput             json.RawMessage // a JSON object that replaces the tool input
	AdditionalContext        string
	// Decision is PermissionRequest's answer (hookSpecificOutput.decision).
	Decision *PermissionDecision
}

// PermissionDecision is a PermissionRequest hook's answer: allow (optionally with a
// replacement input, which the caller checks against the rules again) or deny (with a
// message for the model, and Interrupt to stop the agent too).
type PermissionDecision struct {
	Behavior     string // allow or deny
	UpdatedInput json.RawMessage
	Message      string
	Interrupt    bool
}

// ParseOutput reads stdout. isJSON is false when stdout (ignoring leading white
// space) does not begin with `{`: it is plain text. An error (wrapping
// ErrInvalidOutput) means it began like JSON but is not entirely valid hook output:
// out is nil when stdout is not one JSON object, and otherwise holds every field that
// parsed, invalid ones left at their zero value, so one bad field never discards the
// others (a deny survives a malformed "continue"). Keys and the enumerated values
// (decision, permissionDecision) are matched exactly, as Claude Code's schema does:
// "Deny" is an invalid value, not a deny.
func ParseOutput(stdout string) (out *Output, isJSON bool, err error) {
	trimmed := strings.TrimLeft(stdout, " \t\r\n")
	if !strings.HasPrefix(trimmed, "{") {
		return nil, false, nil
	}
	top, err := decodeObject([]byte(trimmed))
	if err != nil {
		return nil, true, err
	}
	out = &Output{}
	var errs []error
	// field decodes obj[key] into dst and reports whether it did; on a failure dst may
	// hold a partial value, so callers of typed pointers check the result.
	field := func(obj map[string]json.RawMessage, key string, dst any) bool {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return false
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
			return false
		}
		return true
	}
	var cont bool
	if field(top, "continue", &cont) {
		out.Continue = &cont
	}
	field(top, "stopReason", &out.StopReason)
	field(top, "suppressOutput", &out.SuppressOutput)
	field(top, "systemMessage", &out.SystemMessage)
	field(top, "decision", &out.Decision)
	field(top, "reason", &out.Reason)
	if out.Decision != "" && out.Decision != "block" && out.Decision != "approve" {
		errs = append(errs, fmt.Errorf("decision %q is not block or approve (values are case-sensitive)", out.Decision))
		out.Decision = ""
	}
	if raw, ok := top["hookSpecificOutput"]; ok && string(raw) != "null" {
		hso, err := decodeObject(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("hookSpecificOutput: %w", err))
		} else {
			s := &SpecificOutput{}
			field(hso, "hookEventName", &s.HookEventName)
			field(hso, "permissionDecision", &s.PermissionDecision)
			field(hso, "permissionDecisionReason", &s.PermissionDecisionReason)
			field(hso, "additionalContext", &s.AdditionalContext)
			switch s.PermissionDecision {
			case "", "allow", "ask", "deny":
			default:
				errs = append(errs, fmt.Errorf("permissionDecision %q is not allow, ask or deny (values are case-sensitive)", s.PermissionDecision))
				s.PermissionDecision = ""
			}
			if raw, ok := hso["decision"]; ok && string(raw) != "null" {
				if d, err := parsePermissionDecision(raw); err != nil {
					errs = append(errs, fmt.Errorf("decision: %w", err))
				} else {
					s.Decision = d
				}
			}
			if raw, ok := hso["updatedInput"]; ok && string(raw) != "null" {
				if _, err := decodeObject(raw); err != nil {
					errs = append(errs, fmt.Errorf("updatedInput: %w", err))
				} else {
					s.UpdatedInput = append(json.RawMessage(nil), raw...)
				}
			}
			out.Specific = s
		}
	}
	if len(errs) > 0 {
		return out, true, fmt.Errorf("%w: %w", ErrInvalidOutput, errors.Join(errs...))
	}
	return out, true, nil
}

// decodeObject reads exactly one JSON object and nothing after it.
func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOutput, err)
	}
	if obj == nil {
		return nil, fmt.Errorf("%w: not an object", ErrInvalidOutput)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: text after the JSON object", ErrInvalidOutput)
	}
	return obj, nil
}

// parsePermissionDecision reads hookSpecificOutput.decision: {"behavior": "allow",
// "updatedInput": {...}} or {"behavior": "deny", "message": "...", "interrupt": true}.
// A decision whose behavior is not exactly allow or deny is an error, never an allow.
func parsePermissionDecision(raw json.RawMessage) (*PermissionDecision, error) {
	obj, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	d := &PermissionDecision{}
	if err := json.Unmarshal(obj["behavior"], &d.Behavior); err != nil || (d.Behavior != "allow" && d.Behavior != "deny") {
		return nil, fmt.Errorf("behavior %s is not allow or deny (values are case-sensitive)", obj["behavior"])
	}
	if raw, ok := obj["message"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &d.Message); err != nil {
			return nil, fmt.Errorf("message: %w", err)
		}
	}
	if raw, ok := obj["interrupt"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &d.Interrupt); err != nil {
			return nil, fmt.Errorf("interrupt: %w", err)
		}
	}
	if raw, ok := obj["updatedInput"]; ok && string(raw) != "null" && d.Behavior == "allow" {
		if _, err := decodeObject(raw); err != nil {
			return nil, fmt.Errorf("updatedInput: %w", err)
		}
		d.UpdatedInput = append(json.RawMessage(nil), raw...)
	}
	return d, nil
}
