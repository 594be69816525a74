package permission

import (
	"net/url"
	"path"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// customCommands are commands whose arguments a cmdSpec cannot describe.
var customCommands = &lazy.Value[map[string]func([]word) effects]{Build: func() map[string]func([]word) effects {
	return map[string]func([]word) effects{
		"find": findEffects, "git": gitEffects, "tar": tarEffects, "dd": ddEffects,
		"chmod": modeEffects("chmod"), "chown": modeEffects("chown"), "chgrp": modeEffects("chgrp"),
		"sh": shellEffects, "bash": shellEffects, "dash": shellEffects, "zsh": shellEffects, "ksh": shellEffects,
		"mksh": shellEffects, "ash": shellEffects, "curl": curlEffects, "wget": wgetEffects, "xargs": xargsEffects,
		"jq": jqEffects, "unzip": unzipEffects, "patch": patchEffects,
		"7z": extractorEffects, "7za": extractorEffects, "7zr": extractorEffects, "bsdtar": extractorEffects,
		"cpio": extractorEffects, "pax": extractorEffects, "ar": extractorEffects, "jar": extractorEffects,
		"unrar": extractorEffects, "unar": extractorEffects,
	}
}}

// unzipEffects: unzip ARCHIVE [MEMBER ...] [-x NAME ...] [-d DIR]. The archive is read;
// its members are written below DIR (or the working directory) under the archive's
// names, unless it only lists, tests or prints them (-l, -t, -v, -z, -Z, -p, -c); with
// -: names keep their `../`, so they may land anywhere. Options may follow operands.
func unzipEffects(args []word) effects {
	ef := effects{}
	dest, writes, haveArchive, excluding := litWord("."), true, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.splittable { // may be options: -d DIR, -:
				ef.unknownReads()
				ef.add(roleWrite, dynWord())
			}
			if !haveArchive {
				ef.add(roleRead, a)
				haveArchive = true
			}
			continue
		}
		if strings.HasPrefix(a.lit, "-") && len(a.lit) > 1 {
			excluding = false
		cluster:
			for j := 1; j < len(a.lit); j++ {
				switch c := a.lit[j]; c {
				case 'l', 't', 'v', 'z', 'Z', 'p', 'c':
					writes = false
				case ':':
					ef.add(roleWrite, dynWord())
				case 'x':
					excluding = true
				case 'd', 'P':
					v := litWord(a.lit[j+1:])
					if j+1 == len(a.lit) {
						if i+1 >= len(args) {
							break cluster
						}
						i++
						v = args[i]
					}
					if c == 'd' {
						dest = v
					}
					break cluster
				}
			}
			continue
		}
		if excluding {
			continue
		}
		if !haveArchive {
			ef.add(roleRead, a)
			haveArchive = true
		}
		// Further operands are member names, written below dest with the rest.
	}
	if writes {
		ef.add(roleWrite, dest)
		ef.addTree(treeUnseen, dest, word{})
	}
	ef.readOnly = len(ef.writes) == 0
	return ef
}

// patchEffects: patch writes the files its patch names, below -d DIR (or the working
// directory). We do not read the patch, and its many options are not in the table:
// unknown, and a tree write below the directory.
func patchEffects(args []word) effects {
	ef := effects{unknown: true}
	dest := litWord(".")
	for i, a := range args {
		switch {
		case !a.static:
		case (a.lit == "-d" || a.lit == "--directory") && i+1 < len(args):
			dest = args[i+1]
		case strings.HasPrefix(a.lit, "--directory="):
			dest = litWord(strings.TrimPrefix(a.lit, "--directory="))
		case strings.HasPrefix(a.lit, "-d") && len(a.lit) > 2:
			dest = litWord(a.lit[2:])
		}
	}
	ef.addTree(treeUnseen, dest, word{})
	return ef
}

// extractorEffects: archivers we do not read the options of (7z, bsdtar, cpio, ar ...):
// unknown, and they may write any name below the working directory.
func extractorEffects([]word) effects {
	ef := effects{unknown: true}
	ef.addTree(treeUnseen, litWord("."), word{})
	return ef
}

// xargsEffects: xargs runs its command (a sub-command of its own); -a FILE is read.
func xargsEffects(args []word) effects {
	ef := effects{readOnly: true}
	_, opts, _ := skipOptions(args, xargsSpec)
	for _, o := range opts {
		if o.name == "a" || o.name == "arg-file" {
			ef.add(roleRead, o.arg)
		}
	}
	return ef
}

// joinWord places a relative path word below a directory word (git -C, tar -C): ~
// is carried, a run-time directory makes the result run-time too.
func joinWord(dir, w word) word {
	if !w.static || strings.HasPrefix(w.lit, "/") || w.tilde {
		return w
	}
	if !dir.static {
		return dynWord()
	}
	j := litWord(strings.TrimSuffix(dir.lit, "/") + "/" + w.lit)
	j.tilde = dir.tilde
	return j
}

// curlEffects: files curl uploads or reads options from (-T, -d @FILE, -F name=@FILE,
// -K) are read; files it saves to are written (-o, -O, -D, -c, --trace ...).
func curlEffects(args []word) effects {
	ef := effects{}
	value := map[string]string{"-T": "r", "--upload-file": "r", "-d": "@", "--data": "@", "--data-binary": "@",
		"--data-urlencode": "@", "--json": "@", "-F": "@", "--form": "@", "-K": "r", "--config": "r", "-o": "w",
		"--output": "w", "-D": "w", "--dump-header": "w", "-c": "w", "--cookie-jar": "w", "--trace": "w",
		"--trace-ascii": "w", "--stderr": "w", "--libcurl": "w", "-b": "c", "--cookie": "c", "--netrc-file": "r",
		"-E": "r", "--cert": "r", "--key": "r", "--cacert": "r", "-H": "@", "--header": "@", "-x": "", "-u": "",
		"-A": "", "-e": "", "-X": "", "-m": "", "-w": "", "-r": "", "-U": "", "-y": "", "-Y": "", "-z": "",
		"--url": "u", "--connect-timeout": "", "--max-time": "", "--retry": "", "--user": "", "--user-agent": "",
		"--referer": "", "--request": "", "--proxy": "", "--write-out": "", "--range": "", "--resolve": "",
		"--output-dir": "w"}
	var urls []word
	remoteName := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.splittable { // may be options: -o FILE, -T FILE ...
				ef.unknownReads()
				ef.add(roleWrite, dynWord())
			}
			urls = append(urls, a) // or a URL, file:// too
			continue
		}
		name, val, hasVal := strings.Cut(a.lit, "=")
		kind, known := value[name]
		if !known && strings.HasPrefix(a.lit, "-") && !strings.HasPrefix(a.lit, "--") {
			// A cluster of short options: flags, then at most one taking a value.
			hasVal = false
			for j := 1; j < len(a.lit); j++ {
				if a.lit[j] == 'O' {
					remoteName = true
				}
				if k, ok := value["-"+a.lit[j:j+1]]; ok {
					name, kind, known = "-"+a.lit[j:j+1], k, true
					val, hasVal = a.lit[j+1:], j+1 < len(a.lit)
					break
				}
			}
		}
		if !known {
			switch {
			case a.lit == "--remote-name" || a.lit == "--remote-name-all":
				remoteName = true
			case !strings.HasPrefix(a.lit, "-"):
				urls = append(urls, a)
			}
			continue
		}
		v := litWord(val)
		if !hasVal {
			if i+1 >= len(args) {
				break
			}
			i++
			v = args[i]
		}
		switch kind {
		case "r":
			ef.add(roleRead, v)
			if name == "-K" || name == "--config" {
				ef.unknownReads() // the URLs (file:// too) and options it holds
			}
		case "w":
			ef.add(roleWrite, v)
		case "u":
			urls = append(urls, v)
		case "@", "c":
			if !v.static {
				ef.unknownReads()
				continue
			}
			at := strings.IndexAny(v.lit, "@<")
			switch {
			case kind == "c" && !strings.Contains(v.lit, "="):
				ef.add(roleRead, v)
			case kind == "@" && at >= 0:
				f := v.lit[at+1:]
				if i := strings.IndexByte(f, ';'); i >= 0 {
					f = f[:i]
				}
				ef.add(roleRead, litWord(f))
			}
		}
	}
	if remoteName {
		for _, u := range urls {
			ef.add(roleWrite, urlBaseName(u))
		}
	}
	globOff := false
	for _, a := range args {
		if a.static && (a.lit == "-g" || a.lit == "--globoff") {
			globOff = true
		}
	}
	for _, u := range urls {
		fileURLRead(&ef, u, globOff)
	}
	return ef
}

// fileURLRead adds what a URL curl fetches reads from this machine: a file:// URL reads
// its path (percent-decoded); one whose path we cannot tell (a run-time part that may
// be the scheme, another host, a relative file: URL, curl's own {a,b} and [1-9]
// globbing) reads a file known only at run time. Other schemes read nothing here.
func fileURLRead(ef *effects, u word, globOff bool) {
	if !u.static {
		var lit strings.Builder
		for _, t := range u.toks {
			if t.kind != tokLit {
				break
			}
			lit.WriteRune(t.r)
		}
		scheme, _, found := strings.Cut(lit.String(), "://")
		if !found || strings.EqualFold(scheme, "file") {
			ef.unknownReads()
		}
		return
	}
	scheme, rest, found := strings.Cut(u.lit, ":")
	if !found || !strings.EqualFold(scheme, "file") {
		return
	}
	if !strings.HasPrefix(rest, "//") {
		ef.unknownReads()
		return
	}
	host, p, _ := strings.Cut(rest[2:], "/")
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	decoded, err := url.PathUnescape("/" + p)
	if err != nil || (host != "" && !strings.EqualFold(host, "localhost") && host != "127.0.0.1") ||
		!globOff && strings.ContainsAny(decoded, "{}[]") || strings.ContainsRune(decoded, 0) {
		ef.unknownReads()
		return
	}
	ef.add(roleRead, litWord(decoded))
}

// wgetEffects: wget saves to -O FILE, or below -P DIR under the URL's name; -i and
// --post-file read files.
func wgetEffects(args []word) effects {
	ef := effects{}
	s := &cmdSpec{opts: optSpec{noArg: "VhbqvdnNcrkKmpHLFxE46S", withArg: "oaOPiBeDItTwQlAR", longWithArg: []string{
		"output-file", "append-output", "output-document", "directory-prefix", "input-file", "base", "execute",
		"post-file", "body-file", "post-data", "body-data", "header", "user-agent", "tries", "timeout", "wait",
		"quota", "level", "accept", "reject", "domains", "user", "password", "method", "load-cookies",
		"save-cookies", "certificate", "private-key", "ca-certificate", "referer", "limit-rate"}}, abbrev: true}
	p := parseArgs(args, s)
	if p.dynamic {
		ef.unknownReads()
		ef.add(roleWrite, dynWord())
	}
	for _, o := range p.opts {
		switch o.name {
		case "o", "a", "output-file", "append-output", "save-cookies":
			ef.add(roleWrite, o.arg)
		case "i", "input-file", "post-file", "body-file", "load-cookies", "certificate", "private-key":
			ef.add(roleRead, o.arg)
		case "e", "execute":
			ef.setDanger("wget -e runs wgetrc commands")
		}
	}
	if out, ok := p.arg("O", "output-document"); ok {
		ef.add(roleWrite, out)
		return ef
	}
	dir, hasDir := p.arg("P", "directory-prefix")
	for _, u := range p.operands {
		w := urlBaseName(u)
		if hasDir && w.static {
			if dir.static {
				w = litWord(strings.TrimSuffix(dir.lit, "/") + "/" + w.lit)
			} else {
				w = dynWord()
			}
		}
		ef.add(roleWrite, w)
	}
	return ef
}

// urlBaseName is the file a download of the URL is saved as.
func urlBaseName(u word) word {
	if !u.static {
		return dynWord()
	}
	s := u.lit
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	b := path.Base(s)
	if !strings.Contains(s, "/") || b == "" || b == "/" || b == "." {
		return litWord("index.html")
	}
	return litWord(b)
}

// copyLike places the operands of cp, mv, install and ln: sources get srcRole, the
// destination (the last operand, or -t DIR) is written, and so is DEST/NAME for every
// source, in case the destination is a directory.
func copyLike(srcRole role, link bool) func(p *parsed, ef *effects) {
	return func(p *parsed, ef *effects) {
		srcRole := srcRole // per call: the closure is shared by every evaluation
		if srcRole == roleRead && p.has("s", "symbolic-link", "l", "link") {
			srcRole = roleReadWrite // cp -s, cp -l link rather than copy
		}
		ops := p.operands
		dest, hasDest := p.arg("t", "target-directory")
		if !hasDest {
			if len(ops) == 1 && link {
				// ln TARGET: the link is ./NAME.
				ef.add(srcRole, ops[0])
				if ops[0].static {
					ef.add(roleWrite, litWord(path.Base(ops[0].lit)))
				} else {
					ef.add(roleWrite, dynWord())
				}
				return
			}
			if len(ops) == 0 {
				return
			}
			dest, ops, hasDest = ops[len(ops)-1], ops[:len(ops)-1], true
		}
		ef.add(roleWrite, dest)
		for _, src := range ops {
			ef.add(srcRole, src)
			if p.has("T", "no-target-directory") {
				continue
			}
			switch {
			case src.static && dest.static:
				ef.add(roleWrite, litWord(strings.TrimSuffix(dest.lit, "/")+"/"+path.Base(src.lit)))
			case dest.static:
				ef.add(roleWrite, word{toks: append(litTokens(strings.TrimSuffix(dest.lit, "/")+"/"), ctok{kind: tokDyn}), splittable: true})
			}
		}
	}
}

// findEffects: the paths before the expression are read (listed); the expression's
// actions that delete, write or run programs are dangerous forms.
func findEffects(args []word) effects {
	ef := effects{readOnly: true}
	i := 0
	for i < len(args) && args[i].static {
		a := args[i].lit
		if a == "-H" || a == "-L" || a == "-P" || strings.HasPrefix(a, "-O") {
			i++
			continue
		}
		if a == "-D" {
			i += 2
			continue
		}
		break
	}
	var starts []word
	for ; i < len(args); i++ {
		a := args[i]
		if a.static && (strings.HasPrefix(a.lit, "-") || a.lit == "(" || a.lit == "!" || a.lit == ")" || a.lit == ",") {
			break
		}
		if !a.static && a.splittable {
			ef.setDanger("find with arguments known only at run time")
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = []word{litWord(".")}
	}
	for _, s := range starts {
		ef.add(roleRead, s)
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if a.splittable {
				ef.setDanger("a find expression known only at run time")
			}
			continue
		}
		switch a.lit {
		case "-delete":
			ef.setDanger("find -delete deletes files")
			for _, s := range starts {
				ef.add(roleWrite, s)
				ef.addTree(treeInPlace, s, word{})
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			ef.setDanger("find " + a.lit + " runs a program")
			for i++; i < len(args) && !(args[i].static && (args[i].lit == ";" || args[i].lit == "+")); i++ {
			}
		case "-fprint", "-fprint0", "-fls":
			ef.setDanger("find " + a.lit + " writes a file")
			if i+1 < len(args) {
				i++
				ef.add(roleWrite, args[i])
			}
		case "-fprintf":
			ef.setDanger("find -fprintf writes a file")
			if i+1 < len(args) {
				i++
				ef.add(roleWrite, args[i])
			}
			i++
		case "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from":
			if i+1 < len(args) {
				i++
				ef.add(roleRead, args[i])
			}
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype",
			"-size", "-perm", "-user", "-group", "-uid", "-gid", "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin",
			"-used", "-links", "-inum", "-maxdepth", "-mindepth", "-fstype", "-context", "-regextype", "-printf", "-lname",
			"-ilname":
			i++
		default:
			if strings.HasPrefix(a.lit, "-newer") && len(a.lit) == len("-newerXY") {
				if i+1 < len(args) {
					i++
					if a.lit[len(a.lit)-1] != 't' {
						ef.add(roleRead, args[i])
					}
				}
			}
		}
	}
	if ef.danger != "" {
		ef.readOnly = false
	}
	return ef
}

// ddEffects: if= is read, of= is written.
func ddEffects(args []word) effects {
	var ef effects
	for _, a := range args {
		if !a.static {
			ef.add(roleRead, dynWord())
			ef.add(roleWrite, dynWord())
			continue
		}
		switch k, v, _ := strings.Cut(a.lit, "="); k {
		case "if":
			ef.add(roleRead, litWord(v))
		case "of":
			ef.add(roleWrite, litWord(v))
		}
	}
	return ef
}

// modeEffects: chmod MODE FILE..., chown OWNER FILE..., chgrp GROUP FILE...; the
// first operand is not a path unless --reference gives it. chmod reads `-x` as a mode.
func modeEffects(name string) func([]word) effects {
	return func(args []word) effects {
		ef := effects{}
		skip := 1
		recursive := false
		var ops []word
		for i := 0; i < len(args); i++ {
			a := args[i]
			if !a.static {
				ops = append(ops, a)
				continue
			}
			switch {
			case a.lit == "--":
				ops = append(ops, args[i+1:]...)
				i = len(args)
			case strings.HasPrefix(a.lit, "--reference="):
				ef.add(roleRead, litWord(strings.TrimPrefix(a.lit, "--reference=")))
				skip = 0
			case a.lit == "--reference" && i+1 < len(args):
				i++
				ef.add(roleRead, args[i])
				skip = 0
			case strings.HasPrefix(a.lit, "--from=") || a.lit == "--from":
				if a.lit == "--from" {
					i++
				}
			case a.lit == "--recursive":
				recursive = true
			case strings.HasPrefix(a.lit, "--"):
			case strings.HasPrefix(a.lit, "-") && len(a.lit) > 1 && strings.Trim(a.lit[1:], "cfvRHLPh") == "":
				recursive = recursive || strings.Contains(a.lit, "R")
			default:
				ops = append(ops, a) // an operand, or chmod's -x style mode
			}
		}
		for k, w := range ops {
			if k >= skip {
				ef.add(roleWrite, w)
				if recursive {
					ef.addTree(treeInPlace, w, word{})
				}
			}
		}
		return ef
	}
}

// shellEffects: a shell running -c SCRIPT adds nothing of its own (the script's
// commands are sub-commands); a shell running a script file reads it, is not
// read-only, and is unknown for its arguments (bash x.sh .env).
func shellEffects(args []word) effects {
	for i, a := range args {
		if !a.static {
			return effects{}
		}
		switch {
		case a.lit == "--" || a.lit == "-":
			if i+1 < len(args) {
				return effects{reads: args[i+1 : i+2], unknown: true}
			}
			return effects{}
		case a.lit == "-o" || a.lit == "+o" || a.lit == "-O" || a.lit == "+O" || a.lit == "--rcfile" || a.lit == "--init-file":
			return effects{}
		case strings.HasPrefix(a.lit, "--"):
		case len(a.lit) > 1 && (a.lit[0] == '-' || a.lit[0] == '+'):
			if strings.ContainsRune(a.lit[1:], 'c') {
				return effects{readOnly: true}
			}
		default:
			// A script file: read, and what it does with its arguments is unknown.
			return effects{reads: []word{a}, unknown: true}
		}
	}
	return effects{}
}
