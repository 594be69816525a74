package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// The stream-json run's side of the control protocol: reading stdin, answering the
// client's control requests, and asking the client about permissions.

// askClient sends a permission question to the client as can_use_tool and applies its
// answer: allow (with its updatedInput), or deny with its message (and interrupt: the
// turn is aborted). No answer, or one robota cannot follow, is robota's own denial
// saying why, never worded as the user's.
func (r *streamRun) askClient(ctx context.Context, s *interactive.InteractiveSession, pr interactive.PermissionRequest) {
	input := pr.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	raw, err := r.ctl.request(ctx, canUseToolRequest{Subtype: "can_use_tool", ToolName: pr.ToolName, Input: input,
		PermissionSuggestions: []any{}, ToolUseID: pr.ToolUseID, DecisionReason: pr.Reason})
	if err != nil {
		_ = s.RespondPermissionAutomatic(pr.RequestID, interactive.ApprovalDeny, "no answer from the client: "+err.Error())
		return
	}
	var a canUseToolAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		_ = s.RespondPermissionAutomatic(pr.RequestID, interactive.ApprovalDeny, "unreadable answer from the client: "+err.Error())
		return
	}
	switch a.Behavior {
	case "allow":
		updated := bytes.TrimSpace(a.UpdatedInput)
		if len(updated) == 0 || string(updated) == "null" {
			updated = nil // no change: the input as asked about
		} else if updated[0] != '{' {
			// Running the original input would not be what the client allowed.
			msg := fmt.Sprintf("the client allowed %s with an updatedInput that is not a JSON object (%.40s): the call is not run",
				pr.ToolName, updated)
			fmt.Fprintf(r.stderr, "robota: can_use_tool: %s\n", msg)
			_ = s.RespondPermissionAutomatic(pr.RequestID, interactive.ApprovalDeny, msg)
			return
		}
		_ = s.RespondPermissionInput(pr.RequestID, interactive.ApprovalAllow, "", json.RawMessage(updated))
	default:
		if a.Behavior != "deny" {
			_ = s.RespondPermissionAutomatic(pr.RequestID, interactive.ApprovalDeny,
				fmt.Sprintf("the client answered behavior %q (want allow or deny)", a.Behavior))
			return
		}
		_ = s.RespondPermission(pr.RequestID, interactive.ApprovalDeny, a.Message)
		if a.Interrupt {
			s.Abort()
		}
	}
}

// read reads stdin line by line: user messages and initialize are queued for the loop;
// the other control requests and the responses to ours are handled at once, so an
// interrupt or a permission answer reaches a turn that is running.
func (r *streamRun) read(stdin io.Reader) {
	br := bufio.NewReaderSize(stdin, 64<<10)
	for {
		raw, tooLong, err := readInputLine(br, maxInputLine)
		if err != nil && len(raw) == 0 && !tooLong {
			if err != io.EOF {
				fmt.Fprintf(r.stderr, "robota: read stdin: %v\n", err)
			}
			break
		}
		if tooLong {
			// Never parsed, never held whole: the line is read past and reported.
			msg := fmt.Sprintf("stream-json input: a line of more than %d MiB (the line limit) was skipped", maxInputLine>>20)
			fmt.Fprintf(r.stderr, "robota: %s\n", msg)
			r.refuseInput(msg)
			continue
		}
		line := strings.TrimSpace(string(raw))
		if line == "" {
			continue
		}
		var in inputLine
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			fmt.Fprintf(r.stderr, "robota: stream-json input: skipping a line that is not JSON: %v\n", err)
			continue
		}
		switch in.Type {
		case "user":
			r.enqueue(inbound{message: in.Message})
		case "control_request":
			r.control(in.RequestID, in.Request)
		case "control_response":
			if in.Response != nil && !r.ctl.deliver(*in.Response) && r.o.Verbose {
				fmt.Fprintf(r.stderr, "robota: stream-json input: response to no pending request %q\n", in.Response.RequestID)
			}
		case "keep_alive", "control_cancel_request", "update_environment_variables":
		default:
			if r.o.Verbose {
				fmt.Fprintf(r.stderr, "robota: stream-json input: ignoring a %q line\n", in.Type)
			}
		}
	}
	r.ctl.close()
	r.mu.Lock()
	r.inEOF = true
	r.mu.Unlock()
	r.notify()
}

// readInputLine reads one line (without its newline) of at most max bytes. A longer
// line is read to its end and dropped (tooLong), so memory stays bounded by max.
func readInputLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, tooLong, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
	}
}

// refuseInput answers an input line robota could not take with an error result line,
// and makes the run's exit status non-zero: a client never sees exit 0 and no output.
func (r *streamRun) refuseInput(msg string) {
	r.mu.Lock()
	r.inputRefused = true
	r.mu.Unlock()
	_ = r.out.Result(output.Result{Subtype: output.SubtypeErrorDuringExecution, IsError: true, Errors: []string{msg}})
}

// permissionModes reports the modes set_permission_mode accepts.
func permissionModes(mode string) bool {
	switch mode {
	case "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk":
		return true
	}
	return false
}

// control answers a control request of the client.
func (r *streamRun) control(id string, raw json.RawMessage) {
	var req struct {
		Subtype    string          `json:"subtype"`
		Model      string          `json:"model"`
		Mode       string          `json:"mode"`
		ServerName string          `json:"server_name"`
		Message    json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		r.ctl.respondError(id, fmt.Errorf("control request: %w", err))
		return
	}
	switch req.Subtype {
	case "initialize":
		var init initializeRequest
		if err := json.Unmarshal(raw, &init); err != nil {
			r.ctl.respondError(id, fmt.Errorf("initialize: %w", err))
			return
		}
		r.enqueue(inbound{requestID: id, init: &init})
	case "interrupt":
		r.mu.Lock()
		s := r.sess
		r.mu.Unlock()
		// Answered before the abort: the interrupted turn's result line follows the
		// answer, never the other way round.
		r.ctl.respond(id, struct{}{})
		if s != nil {
			s.Abort()
		}
	case "set_permission_mode":
		if !permissionModes(req.Mode) {
			r.ctl.respondError(id, fmt.Errorf("set_permission_mode: unknown mode %q", req.Mode))
			return
		}
		r.mu.Lock()
		r.o.PermissionMode = req.Mode
		s := r.sess
		r.mu.Unlock()
		if s != nil {
			s.Session().SetPermissionMode(interactive.PermissionMode(req.Mode))
		}
		// Claude Code answers with the mode and reports it in a system/status line.
		r.ctl.respond(id, map[string]string{"mode": req.Mode})
		r.out.PermissionModeStatus(req.Mode)
	case "set_model":
		r.setModel(id, req.Model)
	case "mcp_message":
		// A message of the client's SDK MCP server to robota (a notification).
		if err := r.mcp.fromClient(req.ServerName, req.Message); err != nil {
			r.ctl.respondError(id, err)
			return
		}
		r.ctl.respond(id, map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "result": map[string]any{}, "id": 0}})
	default:
		r.ctl.respondError(id, fmt.Errorf("unsupported control request subtype %q", req.Subtype))
	}
}

// setModel applies set_model: before the session starts it is the session's model; after,
// the session switches from its next prompt on (a running prompt keeps its model: the
// request then gets an error naming why).
func (r *streamRun) setModel(id, model string) {
	r.mu.Lock()
	s := r.sess
	if s == nil {
		if model != "default" {
			r.o.Model = model
		} else {
			r.o.Model = ""
		}
	}
	r.mu.Unlock()
	if s != nil {
		if _, err := s.SetModel(model); err != nil {
			r.ctl.respondError(id, fmt.Errorf("set_model %q: %w", model, err))
			return
		}
	}
	r.ctl.respond(id, struct{}{})
}
