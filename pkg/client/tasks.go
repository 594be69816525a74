package client

import (
	"context"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// LogPage is a page of a background task's output.
type LogPage struct {
	Data       []byte
	NextOffset int64
	EOF        bool
}

// ReadTaskLog reads a background task's output from offset (limit 0: 64 KiB).
func (c *Client) ReadTaskLog(ctx context.Context, sessionID, taskID string, offset, limit int64) (LogPage, error) {
	resp, err := c.rpc.ReadBackgroundTaskLog(ctx, &robotav1.ReadBackgroundTaskLogRequest{
		SessionId: sessionID, TaskId: taskID, Offset: offset, Limit: limit})
	if err != nil {
		return LogPage{}, rpcErr("read the log of task "+taskID, err)
	}
	return LogPage{Data: resp.GetData(), NextOffset: resp.GetNextOffset(), EOF: resp.GetEof()}, nil
}

// CancelTask stops a background task (a subagent or a command); reason is recorded in
// its state.
func (c *Client) CancelTask(ctx context.Context, sessionID, taskID, reason string) error {
	_, err := c.rpc.CancelBackgroundTask(ctx, &robotav1.CancelBackgroundTaskRequest{
		SessionId: sessionID, TaskId: taskID, Reason: reason})
	return rpcErr("cancel task "+taskID, err)
}
