package store_test

import (
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T, opts store.Options) store.Store { return store.NewMemoryStore(opts) },
		Raw: func(t *testing.T, s store.Store, id string) []byte { return s.(*store.MemoryStore).Journal(id) },
		SetRaw: func(t *testing.T, s store.Store, id string, data []byte) {
			s.(*store.MemoryStore).SetJournal(id, data)
		},
		SetLegacy: func(t *testing.T, s store.Store, id string, data []byte) {
			s.(*store.MemoryStore).SetJournal(id, data)
		},
	})
}
