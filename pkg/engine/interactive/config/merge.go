package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// parsedLayer is one validated settings file.
type parsedLayer struct {
	src  Source
	tree map[string]any
}

// merged is the result of folding the layers together, lowest first.
type merged struct {
	tree    map[string]any    // deep-merged values, union paths removed
	origins map[string]Source // key path -> layer of the winning value
	rules   []Rule            // union of every layer's permission rules
	dirs    []Directory
	hooks   Hooks
}

// union paths: merged by mergeUnions, kept out of the generic deep merge.
var (
	ruleLists = []struct {
		key string
		b   Behavior
	}{{"deny", Deny}, {"ask", Ask}, {"allow", Allow}}
	permissionUnionKeys = []string{"allow", "ask", "deny", "additionalDirectories"}
	topUnionKeys        = []string{"additionalDirectories", "hooks"}
)

func mergeLayers(layers []parsedLayer, home string) merged {
	m := merged{tree: map[string]any{}, origins: map[string]Source{}, hooks: Hooks{}}
	seenRule := map[string]bool{}
	seenDir := map[string]bool{}
	seenHook := map[string]bool{}
	for _, l := range layers {
		perms, _ := l.tree["permissions"].(map[string]any)
		for _, list := range ruleLists {
			for _, v := range asSlice(perms[list.key]) {
				text := strings.TrimSpace(v.(string))
				key := string(list.b) + "\x00" + text + "\x00" + l.src.Root
				if !seenRule[key] {
					seenRule[key] = true
					m.rules = append(m.rules, Rule{Behavior: list.b, Text: text, Source: l.src})
				}
			}
		}
		for _, v := range append(asSlice(perms["additionalDirectories"]), asSlice(l.tree["additionalDirectories"])...) {
			raw := v.(string)
			abs := resolveDir(raw, l.src.Root, home)
			if !seenDir[abs] {
				seenDir[abs] = true
				m.dirs = append(m.dirs, Directory{Path: abs, Raw: raw, Source: l.src})
			}
		}
		hooks, _ := l.tree["hooks"].(map[string]any)
		for _, event := range sortedKeys(hooks) {
			for _, g := range asSlice(hooks[event]) {
				// Map keys marshal sorted: a canonical form. Pruned to known keys first,
				// as the decoder below matches keys case-insensitively.
				canon, _ := json.Marshal(prune(hookGroupSchema.Get(), g))
				key := event + "\x00" + string(canon)
				if seenHook[key] {
					continue
				}
				seenHook[key] = true
				var group HookGroup
				_ = json.Unmarshal(canon, &group) // validated shape: cannot fail
				group.Source = l.src
				m.hooks[event] = append(m.hooks[event], group)
			}
		}

		rest := withoutKeys(l.tree, topUnionKeys)
		if perms != nil {
			rest["permissions"] = withoutKeys(perms, permissionUnionKeys)
		}
		deepMerge(m.tree, rest, "", l.src, m.origins)
	}
	return m
}

// deepMerge folds src into dst: objects merge key by key, anything else replaces.
func deepMerge(dst, src map[string]any, path string, from Source, origins map[string]Source) {
	for _, k := range sortedKeys(src) {
		p := joinPath(path, k)
		if sm, ok := src[k].(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				origins[p] = from
				deepMerge(dm, sm, p, from, origins)
				continue
			}
		}
		forgetBelow(origins, p)
		dst[k] = deepCopy(src[k])
		recordOrigins(dst[k], p, from, origins)
	}
}

func recordOrigins(v any, path string, from Source, origins map[string]Source) {
	origins[path] = from
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			recordOrigins(c, joinPath(path, k), from, origins)
		}
	case []any:
		for i, c := range t {
			recordOrigins(c, fmt.Sprintf("%s[%d]", path, i), from, origins)
		}
	}
}

// forgetBelow drops the origins of a replaced value's former children.
func forgetBelow(origins map[string]Source, path string) {
	for p := range origins {
		if strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			delete(origins, p)
		}
	}
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = deepCopy(c)
		}
		return out
	}
	return v
}

func withoutKeys(m map[string]any, drop []string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !contains(drop, k) {
			out[k] = v
		}
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// resolveDir makes an additional directory absolute: `~/x` is under home, a relative
// path is under the layer's root.
func resolveDir(raw, root, home string) string {
	p := raw
	switch {
	case p == "~" && home != "":
		p = home
	case strings.HasPrefix(p, "~/") && home != "":
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}
