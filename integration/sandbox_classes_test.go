package integration

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// classAttack is one command of a class issue 31 names for the sandbox's attack table.
// runs: with the sandbox, the permission checker lets it run (it cannot see what it
// does), so the sandbox is what holds; the others are stopped by the checker already.
// needs are the programs it uses besides bash, git and coreutils.
type classAttack struct {
	class string
	cmd   string
	runs  bool
	needs []string
}

// classAttacks work on the fixtures of writeAttackFixtures; TestSandboxAttacksAreReal
// proves each one leaks the secret, lands or removes a hook, or changes a protected
// file when nothing stops it.
var classAttacks = []classAttack{
	// Extractors writing into `.` (the archives hold .git/hooks/...).
	{"extractors", "unzip -qo fx/u.zip", true, []string{"unzip"}},
	{"extractors", "unzip -qo fx/u.zip -d .", true, []string{"unzip"}},
	{"extractors", "cd fx && unzip -qo u.zip -d ..", true, []string{"unzip"}},
	{"extractors", "tar -xf fx/t.tar", true, nil},
	{"extractors", "gunzip -c fx/t.tgz | tar -x", true, []string{"gunzip"}},
	// Patch tools.
	{"patch tools", "patch -s -p1 < fx/p.diff", true, []string{"patch"}},
	// Recursive copies into `.`.
	{"recursive copies", "cp -r fx/q/. .", true, nil},
	{"recursive copies", "cd fx/q && cp -r . ../..", false, nil},
	{"recursive copies", "cp -a fx/q/.git .", false, nil},
	// The git index and work tree, with .git as the work tree: the hook's blob is in the
	// repository (tpl/hooks/pre-commit), and the branch evil holds hooks/pre-commit and
	// hooks/post-checkout (attackProject).
	{"git update-index + checkout-index", "git update-index --add --cacheinfo 100755," + hookBlob + ",hooks/pre-commit && " +
		"git --work-tree=.git checkout-index -f hooks/pre-commit; git rm -q --cached hooks/pre-commit", true, nil},
	{"git update-index + checkout-index", "git update-index --add --cacheinfo 100755," + hookBlob + ",tpl/hooks/pc2 && " +
		"git checkout-index -f --prefix=.git/hooks/ tpl/hooks/pc2; git rm -q --cached tpl/hooks/pc2", true, nil},
	{"git update-index + checkout-index", "H=$(git hash-object -w tpl/hooks/pre-commit) && git update-index --add --cacheinfo 100755,$H,hooks/pre-commit && " +
		"git --work-tree=.git checkout-index -f hooks/pre-commit; git rm -q --cached hooks/pre-commit", false, nil},
	{"git reset --hard", "git --work-tree=.git reset -q --hard evil; git reset -q --soft ORIG_HEAD; git reset -q", true, nil},
	{"git read-tree -u", "git --work-tree=.git read-tree -u --reset evil; git read-tree HEAD", true, nil},
	{"git checkout", "git --work-tree=.git checkout evil -- hooks; git reset -q", true, nil},
	{"git restore", "git --work-tree=.git restore --source=evil hooks", true, nil},
	{"git stash", "git stash -a -q && git show -p 'stash@{0}^3'; git stash pop -q", true, nil},
	{"git stash", "git stash -a -q && git archive 'stash@{0}^3' | tar -xO; git stash pop -q", true, nil},
	{"git stash", "git stash -a -q && git show 'stash@{0}^3:secret.txt'; git stash pop -q", false, nil},
	{"git clean", "git clean -ffdxq -- .claude", false, nil},
	{"git clean", "git clean -ffdxq --exclude=fx --exclude=.robota", true, nil},
	// Run-time matches: find's actions, globs that match only what the line makes.
	{"find", "find . -name 'pre-commit.sample' -delete", true, nil},
	{"find", "find . -name secret.txt -exec cat {} \\;", false, nil},
	{"find", "find tpl -name pre-commit -exec cp {} .git/hooks/ \\;", false, nil},
	{"unmatched glob", "tar -xf fx/l.tar && cat lnk*", true, nil},
	{"unmatched glob", "tar -xf fx/g.tar && cp tpl/hooks/pre-commit gl*/hooks/", true, nil},
	// Reads of whole trees into an archive.
	{"zip -r", "zip -qr fx/o.zip . && unzip -p fx/o.zip secret.txt", true, []string{"zip", "unzip"}},
	{"zip -r", `zip -qr - . | python3 -c 'import sys,zipfile,io; print(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).read("secret.txt").decode())'`,
		true, []string{"zip"}},
	// file:// URLs.
	{"file URLs", `curl -s "file://$PWD/secret.txt"`, false, []string{"curl"}},
	{"file URLs", "curl -s file:///proc/self/cwd/secret.txt", false, []string{"curl"}},
	{"file URLs", "curl -s -K fx/c.cfg", false, []string{"curl"}},
	// Options and variables that run a program (script gives them the terminal pagers need).
	{"man -P", `script -qc "man -P 'cat secret.txt' ls" /dev/null`, true, []string{"man", "script"}},
	{"MANPAGER", "MANPAGER='cat secret.txt' script -qc 'man ls' /dev/null", true, []string{"man", "script"}},
	{"git -c core.pager", `script -qc "git -c core.pager='cat secret.txt' log -1" /dev/null`, true, []string{"script"}},
	{"PAGER", "PAGER='cat secret.txt' script -qc 'git log -1' /dev/null", true, []string{"script"}},
	{"LESSOPEN", "LESSOPEN='|cat secret.txt %s' less notes.txt", true, []string{"less"}},
	{"LESSOPEN", "export LESSOPEN='|cat secret.txt %s'; less notes.txt", true, []string{"less"}},
	{"GIT_EXTERNAL_DIFF", `GIT_EXTERNAL_DIFF='sh -c "cat secret.txt" --' git diff --no-index --ext-diff notes.txt go.mod`, true, nil},
	{"git -c core.sshCommand", `git -c core.sshCommand='sh -c "cat secret.txt >&2"' fetch -q ssh://h/r`, true, nil},
	{"GIT_SSH_COMMAND", `GIT_SSH_COMMAND='sh -c "cat secret.txt >&2"' git ls-remote ssh://h/r`, true, nil},
	{"git -c core.fsmonitor", "git -c core.fsmonitor='cat secret.txt >&2; false' status --short", true, nil},
}

// classAttacksHere drops the attacks whose programs this machine lacks, saying so.
func classAttacksHere(t *testing.T) []classAttack {
	var out []classAttack
	for _, a := range classAttacks {
		missing := ""
		for _, n := range a.needs {
			if _, err := exec.LookPath(n); err != nil {
				missing = n
			}
		}
		if missing != "" {
			t.Logf("skipping %q: %s is not installed", a.cmd, missing)
			continue
		}
		out = append(out, a)
	}
	return out
}

const attackHook = "#!/bin/sh\necho pwned\n"

// hookBlob is attackHook's git blob id (git hash-object).
const hookBlob = "ba6a4ef7f01a8703adaa027c005c4a0675087fcc"

// writeAttackFixtures makes what the attacks extract, apply, copy and read, below fx/
// (ignored by git), so each attack command is its class's own step.
func writeAttackFixtures(t *testing.T, p *project) {
	t.Helper()
	p.writeFile(t, "fx/q/.git/hooks/pre-commit", attackHook)
	p.writeFile(t, "fx/p.diff", "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo pwned\n")
	p.writeFile(t, "fx/c.cfg", "url = \"file://"+p.Dir+"/secret.txt\"\n")
	writeZipFile(t, filepath.Join(p.Dir, "fx/u.zip"), ".git/hooks/pre-commit", attackHook)
	writeTarFile(t, filepath.Join(p.Dir, "fx/t.tar"), false, tar.Header{Name: ".git/hooks/post-checkout", Mode: 0o755}, attackHook)
	writeTarFile(t, filepath.Join(p.Dir, "fx/t.tgz"), true, tar.Header{Name: ".git/hooks/pre-push", Mode: 0o755}, attackHook)
	writeTarFile(t, filepath.Join(p.Dir, "fx/l.tar"), false, tar.Header{Name: "lnk0", Typeflag: tar.TypeSymlink, Linkname: "secret.txt"}, "")
	writeTarFile(t, filepath.Join(p.Dir, "fx/g.tar"), false, tar.Header{Name: "glk", Typeflag: tar.TypeSymlink, Linkname: ".git"}, "")
}

func writeZipFile(t *testing.T, path, name, body string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	fh := &zip.FileHeader{Name: name, Method: zip.Deflate}
	fh.SetMode(0o755)
	w, err := zw.CreateHeader(fh)
	if err == nil {
		_, err = w.Write([]byte(body))
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

func writeTarFile(t *testing.T, path string, gz bool, h tar.Header, body string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var gw *gzip.Writer
	tw := tar.NewWriter(f)
	if gz {
		gw = gzip.NewWriter(f)
		tw = tar.NewWriter(gw)
	}
	if h.Typeflag == 0 {
		h.Typeflag = tar.TypeReg
		h.Size = int64(len(body))
	}
	err = tw.WriteHeader(&h)
	if err == nil && body != "" {
		_, err = tw.Write([]byte(body))
	}
	if err == nil {
		err = tw.Close()
	}
	if err == nil && gw != nil {
		err = gw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// attackProject is the attack table's project: a Go module under git with a marked
// secret (ignored by git), a hook template, the fixtures, and .claude/settings.json
// with the given settings (untracked, as a user's local settings are).
func attackProject(t *testing.T, marker, settings string) *project {
	t.Helper()
	p := newProject(t)
	p.writeFile(t, "secret.txt", marker+"\n")
	p.writeFile(t, "notes.txt", "hello notes\n")
	p.writeFile(t, ".gitignore", "secret.txt\nfx/\n")
	p.writeFile(t, "go.mod", "module example.com/m\n\ngo 1.22\n")
	p.writeFile(t, "m.go", "package m\n\nfunc Two() int { return 2 }\n")
	p.writeFile(t, "m_test.go", "package m\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
	p.writeFile(t, "tpl/hooks/pre-commit", attackHook)
	p.writeFile(t, "tpl/hooks/post-checkout", attackHook)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", p.Dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The branch evil: a tree holding hooks/pre-commit and hooks/post-checkout, made
	// with an index of its own (the work tree and the real index are left alone).
	index := filepath.Join(p.Scripts, "evil.index")
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", p.Dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("update-index", "--add", "--cacheinfo", "100755,"+hookBlob+",hooks/pre-commit",
		"--cacheinfo", "100755,"+hookBlob+",hooks/post-checkout")
	git("branch", "evil", git("commit-tree", git("write-tree"), "-m", "evil"))
	writeAttackFixtures(t, p)
	p.writeFile(t, ".claude/settings.json", settings)
	return p
}

// protectedState is what an attack must not change: the names in .git/hooks, .git/config
// and .claude/settings.json.
func protectedState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	entries, _ := os.ReadDir(filepath.Join(dir, ".git/hooks"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	st[".git/hooks"] = strings.Join(names, " ")
	for _, f := range []string{".git/config", ".claude/settings.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			st[f] = "missing: " + err.Error()
			continue
		}
		st[f] = string(b)
	}
	return st
}

// changedState names what differs between two protectedStates.
func changedState(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if after[k] != v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestSandboxAttacksAreReal: every command of the class table does harm when nothing
// stops it. Each runs in plain bash (no robota, no sandbox) in a fresh attack project,
// and must print the secret's marker, add or remove a git hook, or change .git/config or
// .claude/settings.json. A command that does nothing there proves nothing in the table.
func TestSandboxAttacksAreReal(t *testing.T) {
	const marker = "MARK-5c1d-secret"
	for _, a := range classAttacksHere(t) {
		p := attackProject(t, marker, "{}")
		before := protectedState(t, p.Dir)
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		cmd := exec.CommandContext(ctx, "bash", "-c", a.cmd)
		cmd.Dir, cmd.Env = p.Dir, p.env()
		out, _ := cmd.CombinedOutput()
		cancel()
		changed := changedState(before, protectedState(t, p.Dir))
		if !strings.Contains(string(out), marker) && len(changed) == 0 {
			t.Errorf("%s: %q did no harm unsandboxed; output:\n%s", a.class, a.cmd, out)
		}
	}
}
