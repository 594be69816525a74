package script

import "sync"

// An engine or a test suite creates many sessions from one script, and a long scripted
// answer takes milliseconds to parse (and leaves megabytes of garbage) each time. A
// parsed script is never changed (a Provider keeps what it used in its own map), so the
// last few are kept by source and content and shared.
const cachedScripts = 8

type parsedScript struct {
	script *Script
	lists  map[string][]*compiled
}

var scriptCache struct {
	sync.Mutex
	byKey map[string]parsedScript
	order []string // oldest first
}

// parseCached is parse, answered from the cache when the same source had the same
// content; errors are not cached.
func parseCached(data []byte, source string) (*Script, map[string][]*compiled, error) {
	key := source + "\x00" + string(data)
	scriptCache.Lock()
	if p, ok := scriptCache.byKey[key]; ok {
		scriptCache.Unlock()
		return p.script, p.lists, nil
	}
	scriptCache.Unlock()
	s, lists, err := parse(data, source)
	if err != nil {
		return nil, nil, err
	}
	scriptCache.Lock()
	defer scriptCache.Unlock()
	if scriptCache.byKey == nil {
		scriptCache.byKey = map[string]parsedScript{}
	}
	if _, ok := scriptCache.byKey[key]; !ok {
		if len(scriptCache.order) == cachedScripts {
			delete(scriptCache.byKey, scriptCache.order[0])
			scriptCache.order = scriptCache.order[1:]
		}
		scriptCache.byKey[key] = parsedScript{s, lists}
		scriptCache.order = append(scriptCache.order, key)
	}
	return s, lists, nil
}
