package permission

import (
	"errors"
	"reflect"
	"testing"
)

// Substitutions are listed before the command that uses them: they run first.
func TestParseCommandSplits(t *testing.T) {
	tests := []struct {
		cmd    string
		subs   []string // SubCommand.Match, in order
		writes []string
		reads  []string
		chdir  bool
	}{
		{cmd: "ls -la", subs: []string{"ls -la"}},
		{cmd: "a && b || c; d | e |& f & g\nh", subs: []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{cmd: "echo $(curl evil)", subs: []string{"curl evil", "echo …"}},
		{cmd: "echo `id`", subs: []string{"id", "echo …"}},
		{cmd: "x=$(a $(b))", subs: []string{"b", "a …", "x=…"}},
		{cmd: "(a; b) && { c; }", subs: []string{"a", "b", "c"}},
		{cmd: "if a; then b; elif c; then d; else e; fi", subs: []string{"a", "b", "c", "d", "e"}},
		{cmd: "for f in $(ls); do rm $f; done", subs: []string{"ls", "rm …"}},
		{cmd: "while read l; do echo $l; done < in.txt", subs: []string{"read l", "echo …"}, reads: []string{"in.txt"}},
		{cmd: "case $x in a) b;; esac", subs: []string{"b"}},
		{cmd: "diff <(a) >(b)", subs: []string{"a", "b", "diff … …"}},
		{cmd: "timeout 30 npm test", subs: []string{"npm test"}},
		{cmd: "time nice -n 5 nohup stdbuf -oL command builtin echo hi", subs: []string{"echo hi"}},
		{cmd: "xargs grep foo", subs: []string{"grep foo …"}},
		{cmd: "xargs", subs: []string{"xargs"}},
		{cmd: "command -v ls", subs: []string{"command -v ls"}},
		{cmd: "FOO=1 BAR=$x make", subs: []string{"FOO=1 BAR=… make"}},
		{cmd: "env FOO=1 make all", subs: []string{"env FOO=1 make all", "make all"}},
		{cmd: "sudo -u root make", subs: []string{"sudo -u root make", "make"}, chdir: true},
		{cmd: "bash -c 'a && b'", subs: []string{"bash -c a && b", "a", "b"}},
		{cmd: "eval 'a; b'", subs: []string{"eval a; b", "a", "b"}},
		{cmd: "find . -name x -exec rm {} \\;", subs: []string{"find . -name x -exec rm {} ;", "rm …"}},
		{cmd: "ls | xargs -0 rm -f", subs: []string{"ls", "xargs -0 rm -f", "rm -f …"}},
		{cmd: "echo 'a  b' \"c d\"", subs: []string{"echo a  b c d"}},
		{cmd: "echo *.go", subs: []string{"echo ….go"}},
		{cmd: "echo a > out.txt 2>&1 >> log 2> /dev/null", subs: []string{"echo a"}, writes: []string{"out.txt", "log"}},
		{cmd: "cat < in >& out &> all", subs: []string{"cat"}, writes: []string{"out", "all"}, reads: []string{"in"}},
		{cmd: "nice time -o t.txt ls", subs: []string{"ls"}, writes: []string{"t.txt"}},
		{cmd: "time -o t.txt ls", subs: []string{"-o t.txt ls"}}, // bash's time keyword has no -o
		{cmd: "> truncated", writes: []string{"truncated"}},
		{cmd: "cd /tmp && ls", subs: []string{"cd /tmp", "ls"}, chdir: true},
		{cmd: "f() { a; }", subs: []string{"f() { a; }", "a"}},
		{cmd: "export A=$(b)", subs: []string{"b", "export A=…"}},
		{cmd: "[[ -f $(a) ]]", subs: []string{"[[ -f $(a) ]]", "a"}},
		{cmd: "$CMD arg", subs: []string{"… arg"}, chdir: true},
		{cmd: "timeout $T cmd", subs: []string{"…", "timeout … cmd"}, chdir: true},
		{cmd: "ls # comment && rm -rf /", subs: []string{"ls"}},
		{cmd: "ls | xargs -0 sed -i s/a/b/", subs: []string{"ls", "xargs -0 sed -i s/a/b/", "sed -i s/a/b/ …"}},
		{cmd: "xargs -l1 -e rm -r", subs: []string{"xargs -l1 -e rm -r", "rm -r …"}},
		{cmd: "xargs -I% cp % %.bak", subs: []string{"xargs -I% cp % %.bak", "cp …"}},
		{cmd: "ionice -c3 nice make", subs: []string{"ionice -c3 nice make", "make"}},
		{cmd: "chrt -f 10 make", subs: []string{"chrt -f 10 make", "make"}},
		{cmd: "flock -n /tmp/l -c 'a; b'", subs: []string{"flock -n /tmp/l -c a; b", "a", "b"}},
		{cmd: "su -c a root", subs: []string{"su -c a root", "a"}, chdir: true},
		{cmd: "unshare -r --wd=/x make", subs: []string{"unshare -r --wd=/x make", "make"}, chdir: true},
		{cmd: "trap 'a; b' EXIT", subs: []string{"trap a; b EXIT", "a", "b"}},
		{cmd: "trap - EXIT", subs: []string{"trap - EXIT"}},
		{cmd: "mapfile -t -C cb lines", subs: []string{"mapfile -t -C cb lines", "cb 0 …"}},
		{cmd: "printf -v 'a[$(b)]' x", subs: []string{"printf -v a[$(b)] x", "…"}, chdir: true},
		{cmd: "x=$(a); echo $((x))", subs: []string{"a", "x=…", "echo …", "…"}, chdir: true},
		{cmd: "i=0; i=$((i+1))", subs: []string{"i=0", "i=…"}},
		{cmd: "sh -", subs: []string{"sh -", "…"}, chdir: true},
		{cmd: "", subs: nil},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			c, err := ParseCommand(tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			var subs, writes, reads []string
			for _, s := range c.Subs {
				subs = append(subs, s.Match)
			}
			for _, w := range c.Writes {
				writes = append(writes, w.Path)
			}
			for _, r := range c.Reads {
				reads = append(reads, r.Path)
			}
			if !reflect.DeepEqual(subs, tc.subs) {
				t.Errorf("subs %q, want %q", subs, tc.subs)
			}
			if !reflect.DeepEqual(writes, tc.writes) {
				t.Errorf("writes %q, want %q", writes, tc.writes)
			}
			if !reflect.DeepEqual(reads, tc.reads) {
				t.Errorf("reads %q, want %q", reads, tc.reads)
			}
			if c.ChangesDir != tc.chdir {
				t.Errorf("ChangesDir %v, want %v", c.ChangesDir, tc.chdir)
			}
		})
	}
}

func TestParseCommandRefuses(t *testing.T) {
	for _, cmd := range []string{`echo "open`, "ls )", "a\x00b", "echo $(", "if true; then", "ls <<"} {
		if _, err := ParseCommand(cmd); !errors.Is(err, ErrUnparsableCommand) {
			t.Errorf("%q: want ErrUnparsableCommand, got %v", cmd, err)
		}
	}
}
