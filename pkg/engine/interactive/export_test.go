package interactive

// Hooks for the external tests (package interactive_test), which drive the core through
// sessions package assemble builds: an internal test cannot import assemble, which
// imports this package.

// SubscribeBounded subscribes to s with a queue bound of events (a reader cut off early).
func SubscribeBounded(s *InteractiveSession, events int) *Subscription {
	sub, _ := s.hub.subscribe(false, 0)
	sub.limits.SubscriberEvents = events
	return sub
}

// Mergeable reports whether events of type t may merge into an undelivered one.
func Mergeable(t EventType) bool { return t.mergeable() }
