package plugins

import (
	"context"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/plugins/gitclone"
)

// inProcess clones with gitclone in the test process (robota uses WorkerCloner).
type inProcess struct{}

func (inProcess) Clone(ctx context.Context, url, ref, dir string) (string, error) {
	return gitclone.Clone(ctx, url, ref, dir)
}
