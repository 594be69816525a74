package permission

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// lessSafeCommand is a `+COMMAND` of less that only moves or searches.
var lessSafeCommand = lazy.NewRegexp(`^([0-9]*[gGFjk]?|[/?][^\n]*)$`)

// The command table: for each known command, which operands and option arguments are
// paths it reads or writes, and which of its forms are dangerous (see effects). GNU
// coreutils semantics: options may follow operands and long options may be
// abbreviated. Commands not listed are unknown: any argument naming a denied or
// protected path makes them ask, and plan mode refuses them.

func plainReader(noArg, withArg string, long, longArg []string) *cmdSpec {
	return &cmdSpec{opts: optSpec{noArg: noArg, withArg: withArg, longNoArg: long, longWithArg: longArg},
		abbrev: true, operands: roleRead}
}

func plainWriter(noArg, withArg string, long, longArg []string) *cmdSpec {
	return &cmdSpec{opts: optSpec{noArg: noArg, withArg: withArg, longNoArg: long, longWithArg: longArg},
		abbrev: true, operands: roleWrite, writer: true}
}

// tarDanger are tar's options that run programs or write files besides the archive.
var tarDanger = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"to-command": "tar --to-command runs a program", "use-compress-program": "tar --use-compress-program runs a program",
		"I": "tar -I runs a program", "checkpoint-action": "tar --checkpoint-action can run a program",
		"info-script": "tar --info-script runs a program", "new-volume-script": "tar --new-volume-script runs a program",
		"F": "tar -F runs a program", "rsh-command": "tar --rsh-command runs a program",
		"rmt-command": "tar --rmt-command runs a program", "index-file": "tar --index-file writes a file",
		"g": "tar -g writes a snapshot file", "listed-incremental": "tar --listed-incremental writes a snapshot file",
		"volno-file": "tar --volno-file writes a file",
	}
}}

// The tables of this package are built on first use (internal/lazy) or are switches,
// not maps built in an init: robota pays every init on every command (issue 29).
var commandTable = &lazy.Value[map[string]*cmdSpec]{Build: buildCommandTable}

func buildCommandTable() map[string]*cmdSpec {
	helpVersion := []string{"help", "version"}
	sumSpec := plainReader("bctwz", "", append([]string{"binary", "check", "tag", "text", "ignore-missing", "quiet",
		"status", "strict", "warn", "zero"}, helpVersion...), nil)
	grepSpec := &cmdSpec{
		opts: optSpec{noArg: "EFGPiyvwxcLloqsbHhnTZzaIrRUu", withArg: "efmABCdD",
			longNoArg: append([]string{"extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case",
				"no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count", "files-without-match",
				"files-with-matches", "only-matching", "quiet", "silent", "no-messages", "byte-offset", "with-filename",
				"no-filename", "line-number", "initial-tab", "unix-byte-offsets", "null", "null-data", "text",
				"recursive", "dereference-recursive", "line-buffered", "binary"}, helpVersion...),
			longWithArg: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label",
				"binary-files", "directories", "devices", "exclude", "exclude-from", "exclude-dir", "include",
				"group-separator"},
			longOptArg: []string{"color", "colour", "no-group-separator"}},
		abbrev: true, operands: roleRead, skip: 1, skipUnless: []string{"e", "f", "regexp", "file"},
		optRoles: map[string]role{"f": roleRead, "file": roleRead, "exclude-from": roleRead},
		digits:   true,
		post: func(p *parsed, ef *effects) {
			d, _ := p.arg("d", "directories")
			if p.has("r", "R", "recursive", "dereference-recursive") || litIn(d, "recurse") {
				ef.recursive = true
				ef.followsLinks = p.has("R", "dereference-recursive")
				if globs, ok := p.includeGlobs("include"); ok {
					ef.includes = globs
				}
				if !hasPathOperand(p) {
					ef.add(roleRead, litWord(".")) // grep -r without a file searches the cwd
				}
			}
		},
	}
	sortSpec := &cmdSpec{
		opts: optSpec{noArg: "bdfgiMhnRrVcCmsuz", withArg: "kotTS",
			longNoArg: append([]string{"ignore-leading-blanks", "dictionary-order", "ignore-case",
				"general-numeric-sort", "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort",
				"random-sort", "reverse", "version-sort", "debug", "merge", "stable", "unique", "zero-terminated"},
				helpVersion...),
			longWithArg: []string{"key", "output", "field-separator", "temporary-directory", "buffer-size", "sort",
				"random-source", "files0-from", "parallel", "batch-size", "compress-program"},
			longOptArg: []string{"check"}},
		abbrev: true, operands: roleRead,
		optRoles: map[string]role{"o": roleWrite, "output": roleWrite, "random-source": roleRead,
			"files0-from": roleRead},
		danger: map[string]string{"o": "sort -o writes a file", "output": "sort --output writes a file",
			"compress-program": "sort --compress-program runs a program"},
	}
	uniqSpec := &cmdSpec{
		opts: optSpec{noArg: "cdDiuz", withArg: "fsw",
			longNoArg:   append([]string{"count", "repeated", "ignore-case", "unique", "zero-terminated"}, helpVersion...),
			longWithArg: []string{"skip-fields", "skip-chars", "check-chars"},
			longOptArg:  []string{"all-repeated", "group"}},
		abbrev: true, operands: roleRead, digits: true,
		danger: map[string]string{},
		post: func(p *parsed, ef *effects) {
			// uniq INPUT OUTPUT writes OUTPUT.
			if ops := p.operands; len(ops) >= 2 {
				ef.reads = ef.reads[:0]
				ef.add(roleRead, ops[0])
				ef.add(roleWrite, ops[1])
				ef.setDanger("uniq with two operands writes the second")
			}
		},
	}
	xxdSpec := &cmdSpec{
		opts: optSpec{noArg: "abCEeiprRudhv", withArg: "cglosn"}, operands: roleRead, danger: map[string]string{},
		post: func(p *parsed, ef *effects) {
			if ops := p.operands; len(ops) >= 2 {
				ef.reads = ef.reads[:0]
				ef.add(roleRead, ops[0])
				ef.add(roleWrite, ops[1])
				ef.setDanger("xxd with two operands writes the second")
			}
		},
	}
	lessSpec := &cmdSpec{
		opts: optSpec{noArg: "aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~", withArg: "bhjkoOpPtTxyz#",
			longNoArg: []string{"help", "version"}},
		operands: roleRead,
		optRoles: map[string]role{"o": roleWrite, "O": roleWrite, "k": roleRead},
		danger:   map[string]string{"o": "less -o writes a log file", "O": "less -O writes a log file"},
		post: func(p *parsed, ef *effects) {
			for _, w := range p.operands {
				if w.static && strings.HasPrefix(w.lit, "+") && !lessSafeCommand.MatchString(w.lit[1:]) {
					ef.setDanger("less +COMMAND runs less commands, which can run a shell")
				}
			}
		},
	}
	tailSpec := plainReader("fFqvz", "ncs", append([]string{"follow", "retry", "quiet", "silent", "verbose",
		"zero-terminated"}, helpVersion...), []string{"bytes", "lines", "pid", "sleep-interval", "max-unchanged-stats"})
	headSpec := plainReader("qvz", "nc", append([]string{"quiet", "silent", "verbose", "zero-terminated"},
		helpVersion...), []string{"bytes", "lines"})
	diffSpec := &cmdSpec{
		opts: optSpec{noArg: "abBcdeEfhilnNpPqrstTuvwyZ", withArg: "CDFILSUWxX",
			longNoArg: append([]string{"normal", "brief", "report-identical-files", "ed", "rcs", "side-by-side",
				"left-column", "suppress-common-lines", "show-c-function", "expand-tabs", "initial-tab",
				"suppress-blank-empty", "recursive", "no-dereference", "new-file", "unidirectional-new-file",
				"ignore-file-name-case", "no-ignore-file-name-case", "text", "strip-trailing-cr", "ignore-case",
				"ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space",
				"ignore-blank-lines", "minimal", "speed-large-files", "paginate"}, helpVersion...),
			longWithArg: []string{"ifdef", "show-function-line", "label", "starting-file", "exclude", "exclude-from",
				"ignore-matching-lines", "width", "tabsize", "from-file", "to-file", "horizon-lines",
				"old-line-format", "new-line-format", "unchanged-line-format", "line-format", "old-group-format",
				"new-group-format", "unchanged-group-format", "changed-group-format", "palette"},
			longOptArg: []string{"context", "unified", "color"}},
		abbrev: true, operands: roleRead,
		optRoles: map[string]role{"X": roleRead, "exclude-from": roleRead, "from-file": roleRead, "to-file": roleRead},
		post:     func(p *parsed, ef *effects) { ef.recursive = p.has("r", "recursive") },
	}
	cpSpec := &cmdSpec{
		opts: optSpec{noArg: "abdfHiIlLnPpRrsuvxTZ", withArg: "St",
			longNoArg: append([]string{"archive", "attributes-only", "copy-contents", "dereference", "force",
				"interactive", "link", "no-dereference", "no-clobber", "parents", "recursive", "remove-destination",
				"strip-trailing-slashes", "symbolic-link", "no-target-directory", "verbose", "one-file-system",
				"debug", "keep-directory-symlink"}, helpVersion...),
			longWithArg: []string{"sparse", "suffix", "target-directory", "no-preserve"},
			longOptArg:  []string{"backup", "reflink", "update", "preserve", "context"}},
		abbrev: true, writer: true, post: func(p *parsed, ef *effects) {
			copyLike(roleRead, false)(p, ef)
			ef.recursive = p.has("r", "R", "a", "recursive", "archive")
			if ef.recursive {
				copyTrees(p, ef)
			}
		},
	}
	mvSpec := &cmdSpec{
		opts: optSpec{noArg: "bfinTuvZ", withArg: "St",
			longNoArg: append([]string{"force", "interactive", "no-clobber", "no-copy", "strip-trailing-slashes",
				"no-target-directory", "verbose", "exchange", "debug"}, helpVersion...),
			longWithArg: []string{"suffix", "target-directory"},
			longOptArg:  []string{"backup", "update", "context"}},
		abbrev: true, writer: true, post: func(p *parsed, ef *effects) {
			copyLike(roleReadWrite, false)(p, ef)
			copyTrees(p, ef) // a directory moves with everything below it
		},
	}
	installSpec := &cmdSpec{
		opts: optSpec{noArg: "bcCdDpsTvZ", withArg: "gmoSt",
			longNoArg: append([]string{"compare", "directory", "preserve-timestamps", "strip", "no-target-directory",
				"verbose", "debug"}, helpVersion...),
			longWithArg: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"},
			longOptArg:  []string{"backup", "context", "preserve-context"}},
		abbrev: true, writer: true,
		danger: map[string]string{"strip-program": "install --strip-program runs a program"},
		post: func(p *parsed, ef *effects) {
			if p.has("d", "directory") {
				for _, w := range p.operands {
					ef.add(roleWrite, w)
				}
				return
			}
			copyLike(roleRead, false)(p, ef)
		},
	}
	lnSpec := &cmdSpec{
		opts: optSpec{noArg: "bdfFiLnPrsTv", withArg: "St",
			longNoArg: append([]string{"directory", "force", "interactive", "logical", "no-dereference", "physical",
				"relative", "symbolic", "no-target-directory", "verbose"}, helpVersion...),
			longWithArg: []string{"suffix", "target-directory"},
			longOptArg:  []string{"backup"}},
		// A link to a file is another name to read it and to write it by: its targets
		// count as reads and writes (ln -s .git/hooks h; cp x h/pre-commit).
		abbrev: true, writer: true, post: copyLike(roleReadWrite, true),
	}
	teeSpec := plainWriter("aip", "", append([]string{"append", "ignore-interrupts"}, helpVersion...), []string{"output-error"})
	touchSpec := &cmdSpec{
		opts: optSpec{noArg: "acfhm", withArg: "drt",
			longNoArg:   append([]string{"no-create", "no-dereference"}, helpVersion...),
			longWithArg: []string{"date", "reference", "time"}},
		abbrev: true, operands: roleWrite, writer: true,
		optRoles: map[string]role{"r": roleRead, "reference": roleRead},
	}
	truncateSpec := &cmdSpec{
		opts: optSpec{noArg: "co", withArg: "rs",
			longNoArg:   append([]string{"no-create", "io-blocks"}, helpVersion...),
			longWithArg: []string{"reference", "size"}},
		abbrev: true, operands: roleWrite, writer: true,
		optRoles: map[string]role{"r": roleRead, "reference": roleRead},
	}
	rmSpec := plainWriter("dfiIrRv", "", append([]string{"force", "recursive", "dir", "verbose", "one-file-system",
		"no-preserve-root", "preserve-root"}, helpVersion...), []string{"interactive"})
	addPost(rmSpec, func(p *parsed, ef *effects) {
		if p.has("r", "R", "recursive") {
			for _, w := range p.operands {
				ef.addTree(treeInPlace, w, word{})
			}
		}
	})
	mkdirSpec := &cmdSpec{
		opts: optSpec{noArg: "pvZ", withArg: "m", longNoArg: append([]string{"parents", "verbose"}, helpVersion...),
			longWithArg: []string{"mode"}, longOptArg: []string{"context"}},
		abbrev: true, operands: roleWrite, writer: true,
	}
	shredSpec := plainWriter("fuvxz", "nsr", append([]string{"force", "exact", "zero", "verbose"}, helpVersion...),
		[]string{"iterations", "size", "random-source", "remove"})

	return map[string]*cmdSpec{
		"cat":     plainReader("AbeEnstTuv", "", append([]string{"show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting"}, helpVersion...), nil),
		"tac":     plainReader("br", "s", append([]string{"before", "regex"}, helpVersion...), []string{"separator"}),
		"nl":      plainReader("p", "bdfhilnsvw", append([]string{"no-renumber"}, helpVersion...), []string{"body-numbering", "section-delimiter", "footer-numbering", "header-numbering", "line-increment", "join-blank-lines", "number-format", "number-separator", "starting-line-number", "number-width"}),
		"head":    headSpec,
		"tail":    tailSpec,
		"less":    lessSpec,
		"more":    plainReader("dlfpcsu", "n", helpVersion, []string{"lines"}),
		"wc":      &cmdSpec{opts: optSpec{noArg: "cmlLw", longNoArg: append([]string{"bytes", "chars", "lines", "max-line-length", "words"}, helpVersion...), longWithArg: []string{"files0-from", "total"}}, abbrev: true, operands: roleRead, optRoles: map[string]role{"files0-from": roleRead}},
		"cut":     plainReader("nsz", "bcdf", append([]string{"complement", "only-delimited", "zero-terminated"}, helpVersion...), []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}),
		"paste":   plainReader("sz", "d", append([]string{"serial", "zero-terminated"}, helpVersion...), []string{"delimiters"}),
		"column":  plainReader("tnxeLJlRr", "csoCNEHOWdi", helpVersion, []string{"columns", "separator", "output-separator", "table-columns", "table-name", "table-order", "table-right", "table-wrap", "table-hide", "table-columns-limit", "table-noextreme", "table-noheadings", "tree", "tree-id", "tree-parent"}),
		"fold":    plainReader("bs", "w", append([]string{"bytes", "spaces"}, helpVersion...), []string{"width"}),
		"fmt":     plainReader("cstu", "pwg", append([]string{"crown-margin", "split-only", "tagged-paragraph", "uniform-spacing"}, helpVersion...), []string{"prefix", "width", "goal"}),
		"expand":  plainReader("i", "t", append([]string{"initial"}, helpVersion...), []string{"tabs"}),
		"rev":     plainReader("0", "", helpVersion, nil),
		"od":      &cmdSpec{opts: optSpec{noArg: "bcdfiloxsv", withArg: "AjNSt", optArg: "w", longNoArg: append([]string{"output-duplicates", "traditional"}, helpVersion...), longWithArg: []string{"address-radix", "endian", "skip-bytes", "read-bytes", "format"}, longOptArg: []string{"strings", "width"}}, abbrev: true, operands: roleRead},
		"hexdump": plainReader("bcCdoxv", "efns", nil, nil),
		"hd":      plainReader("bcCdoxv", "efns", nil, nil),
		"strings": plainReader("afwdvh", "nteT", []string{"all", "print-file-name", "include-all-whitespace", "data", "help", "version"}, []string{"bytes", "radix", "encoding", "target", "output-separator"}),
		"base64":  plainReader("di", "w", append([]string{"decode", "ignore-garbage"}, helpVersion...), []string{"wrap"}),
		"base32":  plainReader("di", "w", append([]string{"decode", "ignore-garbage"}, helpVersion...), []string{"wrap"}),
		"basenc":  plainReader("di", "w", append([]string{"decode", "ignore-garbage", "base64", "base64url", "base32", "base32hex", "base16", "base2msbf", "base2lsbf", "z85"}, helpVersion...), []string{"wrap"}),
		"xxd":     xxdSpec,
		"md5sum":  sumSpec, "sha1sum": sumSpec, "sha224sum": sumSpec, "sha256sum": sumSpec, "sha384sum": sumSpec,
		"sha512sum": sumSpec, "b2sum": sumSpec, "cksum": sumSpec, "sum": sumSpec,
		"file": &cmdSpec{opts: optSpec{noArg: "bcEhiklLNnprsSvz0", withArg: "efFmP", longNoArg: append([]string{"brief", "checking-printout", "dereference", "no-dereference", "keep-going", "list", "mime", "mime-type", "mime-encoding", "no-pad", "no-buffer", "preserve-date", "raw", "special-files", "uncompress", "uncompress-noreport", "print0"}, helpVersion...), longWithArg: []string{"exclude", "exclude-quiet", "files-from", "separator", "magic-file", "parameter"}}, abbrev: true, operands: roleRead, optRoles: map[string]role{"f": roleRead, "files-from": roleRead, "m": roleRead, "magic-file": roleRead}},
		"stat": plainReader("LftZ", "c", append([]string{"dereference", "file-system", "terse"}, helpVersion...), []string{"format", "printf", "cached"}),
		"diff": diffSpec,
		"cmp":  plainReader("blsz", "inI", append([]string{"print-bytes", "verbose", "quiet", "silent", "zero-terminated"}, helpVersion...), []string{"ignore-initial", "bytes"}),
		"comm": plainReader("123iz", "", append([]string{"check-order", "nocheck-order", "total", "zero-terminated"}, helpVersion...), []string{"output-delimiter"}),
		"join": plainReader("iz", "aejotv12", append([]string{"ignore-case", "check-order", "nocheck-order", "header", "zero-terminated"}, helpVersion...), nil),
		"sort": sortSpec,
		"uniq": uniqSpec,
		"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec,
		"ls":       &cmdSpec{opts: optSpec{noArg: "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1", withArg: "ITw", longNoArg: append([]string{"all", "almost-all", "author", "escape", "ignore-backups", "directory", "classify", "file-type", "no-group", "human-readable", "si", "dereference-command-line", "dereference-command-line-symlink-to-dir", "inode", "kibibytes", "dereference", "numeric-uid-gid", "literal", "hide-control-chars", "show-control-chars", "quote-name", "recursive", "size", "full-time", "group-directories-first", "zero"}, helpVersion...), longWithArg: []string{"block-size", "format", "hide", "ignore", "indicator-style", "quoting-style", "sort", "time", "time-style", "tabsize", "width"}, longOptArg: []string{"color", "hyperlink", "classify"}}, abbrev: true, operands: roleRead},
		"du":       plainReader("0abcDHhkLlmPSsx", "BdtX", append([]string{"null", "all", "apparent-size", "bytes", "total", "dereference-args", "human-readable", "inodes", "dereference", "count-links", "no-dereference", "separate-dirs", "si", "summarize", "one-file-system"}, helpVersion...), []string{"block-size", "max-depth", "threshold", "time-style", "exclude-from", "exclude", "files0-from", "time"}),
		"tree":     &cmdSpec{opts: optSpec{noArg: "adlfxACDFghinNpqQrstuvS", withArg: "LPIoH"}, operands: roleRead, optRoles: map[string]role{"o": roleWrite}, danger: map[string]string{"o": "tree -o writes a file"}},
		"realpath": plainReader("eEmLPqsz", "", append([]string{"canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet", "strip", "no-symlinks", "zero"}, helpVersion...), []string{"relative-to", "relative-base"}),
		"readlink": plainReader("efmnqsvz", "", append([]string{"canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline", "quiet", "silent", "verbose", "zero"}, helpVersion...), nil),
		"source":   {inOrder: true, operands: roleRead},
		".":        {inOrder: true, operands: roleRead},
		"cp":       cpSpec,
		"mv":       mvSpec,
		"install":  installSpec,
		"ln":       lnSpec,
		"tee":      teeSpec,
		"touch":    touchSpec,
		"truncate": truncateSpec,
		"rm":       rmSpec,
		"rmdir":    plainWriter("pv", "", append([]string{"ignore-fail-on-non-empty", "parents", "verbose"}, helpVersion...), nil),
		"unlink":   plainWriter("", "", helpVersion, nil),
		"shred":    shredSpec,
		"mkdir":    mkdirSpec,
		"mkfifo":   {opts: optSpec{noArg: "Z", withArg: "m", longWithArg: []string{"mode"}, longOptArg: []string{"context"}}, abbrev: true, operands: roleWrite, writer: true},
		"sed":      sedSpec.Get(),
		"awk":      awkSpec.Get(), "gawk": awkSpec.Get(), "mawk": awkSpec.Get(), "nawk": awkSpec.Get(),
		"rg":    rgSpec.Get(),
		"man":   manSpec.Get(),
		"rsync": rsyncSpec.Get(),
		"scp": {opts: optSpec{noArg: "346ABCdOpqRrsTv", withArg: "cDFiJlPoSX"}, writer: true, post: func(p *parsed, ef *effects) {
			remoteCopy(p, ef)
			ef.recursive = p.has("r")
		}},
	}
}

// manSpec is man-db's man. Its operands are page names, or files when they hold a slash
// or -l is given (read, and formatted by groff, whose requests read other files: a
// dangerous form). Options that run programs (-P pager, -H browser, -X viewer) or take
// them from elsewhere (-C config file, -M pages from a directory) are dangerous forms.
var manSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "dDfkKlwWciIaut7ZV", withArg: "CRLmMSsePrEp", optArg: "THX",
			longNoArg: []string{"debug", "default", "whatis", "apropos", "global-apropos", "local-file", "where", "path",
				"location", "where-cat", "location-cat", "catman", "regex", "wildcard", "names-only", "all", "update",
				"no-subpages", "ascii", "ditroff", "troff", "no-hyphenation", "nh", "no-justification", "nj",
				"ignore-case", "match-case", "help", "usage", "version"},
			longWithArg: []string{"config-file", "locale", "systems", "manpath", "sections", "extension", "pager", "prompt",
				"encoding", "recode", "preprocessor"},
			longOptArg: []string{"warnings", "troff-device", "html", "gxditview"}},
		abbrev: true, operands: roleNone,
		danger: map[string]string{"P": "man -P runs a pager program", "pager": "man --pager runs a pager program",
			"H": "man -H runs a browser", "html": "man --html runs a browser", "X": "man -X runs a viewer",
			"gxditview": "man --gxditview runs a viewer", "C": "man -C reads configuration that names programs",
			"config-file": "man --config-file reads configuration that names programs",
			"M":           "man -M formats pages from a directory we do not check", "manpath": "man --manpath formats pages from a directory we do not check"},
		post: func(p *parsed, ef *effects) {
			local := p.has("l", "local-file")
			for _, w := range p.operands {
				if local || !w.static || strings.Contains(w.lit, "/") {
					ef.add(roleRead, w)
					ef.setDanger("man formats a file, whose requests can read other files")
				}
			}
		},
	}
}}

// rsyncSpec: the last operand is written, the others are read; a HOST:PATH operand
// is remote. -e (--rsh) and --rsync-path run programs.
var rsyncSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "vqcarRbuldLkKHpEAXogDtOJNUSnWxCIy0zPhi468", withArg: "efBTM",
			longNoArg: []string{"verbose", "quiet", "checksum", "archive", "recursive", "relative", "backup", "update",
				"inplace", "append", "append-verify", "dirs", "links", "copy-links", "copy-unsafe-links", "safe-links",
				"munge-links", "copy-dirlinks", "keep-dirlinks", "hard-links", "perms", "executability", "acls", "xattrs",
				"owner", "group", "devices", "specials", "times", "atimes", "crtimes", "omit-dir-times",
				"omit-link-times", "super", "fake-super", "sparse", "preallocate", "dry-run", "whole-file",
				"one-file-system", "existing", "ignore-existing", "remove-source-files", "delete", "delete-before",
				"delete-during", "delete-delay", "delete-after", "delete-excluded", "ignore-missing-args",
				"delete-missing-args", "ignore-errors", "force", "partial", "delay-updates", "prune-empty-dirs",
				"numeric-ids", "ignore-times", "size-only", "fuzzy", "compress", "cvs-exclude", "from0", "protect-args",
				"secluded-args", "trust-sender", "blocking-io", "stats", "8-bit-output", "human-readable", "progress",
				"itemize-changes", "list-only", "ipv4", "ipv6", "version", "help", "mkpath", "no-motd",
				"no-implied-dirs", "open-noatime", "copy-as"},
			longWithArg: []string{"rsh", "rsync-path", "filter", "exclude", "exclude-from", "include", "include-from",
				"files-from", "backup-dir", "suffix", "chmod", "chown", "usermap", "groupmap", "timeout", "contimeout",
				"port", "password-file", "log-file", "log-file-format", "out-format", "bwlimit", "compare-dest",
				"copy-dest", "link-dest", "partial-dir", "temp-dir", "max-size", "min-size", "max-delete",
				"modify-window", "iconv", "write-batch", "only-write-batch", "read-batch", "info", "debug",
				"compress-choice", "compress-level", "checksum-choice", "block-size", "protocol", "sockopts", "outbuf",
				"stop-after", "stop-at", "skip-compress", "remote-option", "address", "early-input"}},
		writer: true,
		optRoles: map[string]role{"exclude-from": roleRead, "include-from": roleRead, "files-from": roleRead,
			"password-file": roleRead, "read-batch": roleRead, "early-input": roleRead, "log-file": roleWrite,
			"write-batch": roleWrite, "only-write-batch": roleWrite, "backup-dir": roleWrite},
		danger: map[string]string{"e": "rsync -e runs a program", "rsh": "rsync --rsh runs a program",
			"rsync-path": "rsync --rsync-path runs a program"},
		post: func(p *parsed, ef *effects) {
			remoteCopy(p, ef)
			ef.recursive = p.has("r", "a", "recursive", "archive")
			if ef.recursive {
				copyTrees(p, ef)
			}
		},
	}
}}

// addPost sets a spec's post function (for specs built by plainWriter).
func addPost(s *cmdSpec, post func(p *parsed, ef *effects)) *cmdSpec {
	s.post = post
	return s
}

// copyTrees records the tree writes of a recursive copy or move: every local source's
// entries land below the destination (the last operand, or -t DIR). A remote operand
// (HOST:PATH) is neither walked nor written here.
func copyTrees(p *parsed, ef *effects) {
	ops := p.operands
	dest, hasDest := p.arg("t", "target-directory")
	if !hasDest {
		if len(ops) < 2 {
			return
		}
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	if isRemote(dest) {
		return
	}
	for _, src := range ops {
		if !isRemote(src) {
			ef.addTree(treeCopy, dest, src)
		}
	}
	if p.has("delete", "delete-before", "delete-during", "delete-delay", "delete-after", "delete-excluded") {
		ef.addTree(treeInPlace, dest, word{}) // rsync --delete removes what the destination holds
	}
}

// isRemote: a HOST:PATH operand of rsync or scp.
func isRemote(w word) bool {
	if !w.static {
		return false
	}
	head, _, found := strings.Cut(w.lit, ":")
	return found && !strings.Contains(head, "/")
}

// hasPathOperand reports an operand after grep's pattern (the pattern is the first
// operand unless -e or -f gives it).
func hasPathOperand(p *parsed) bool {
	n := len(p.operands)
	if !p.has("e", "f", "regexp", "file") {
		n--
	}
	return n > 0
}

// remoteCopy places rsync's and scp's operands: the last is written, the others
// read; HOST:PATH operands are on another machine.
func remoteCopy(p *parsed, ef *effects) {
	ops := p.operands
	local := func(w word) bool {
		if !w.static {
			return true
		}
		head, _, found := strings.Cut(w.lit, ":")
		return !found || strings.Contains(head, "/")
	}
	for k, w := range ops {
		if !local(w) {
			continue
		}
		if k == len(ops)-1 && len(ops) > 1 {
			ef.add(roleWrite, w)
			continue
		}
		ef.add(roleRead, w)
		if p.has("remove-source-files") {
			ef.add(roleWrite, w)
		}
	}
}

// Commands that read nothing named by their arguments and change nothing.
func inertCommands(s string) bool {
	switch s {
	case "echo", "printf", "pwd", "true", "false", ":", "whoami", "id", "uname", "uptime", "nproc", "free", "df",
		"ps", "sleep", "seq", "yes", "test", "[", "expr", "basename", "dirname", "which", "type", "printenv",
		"locale", "groups", "tr", "cd", "pushd", "popd", "dirs", "wait", "read", "shift", "getopts", "exit",
		"return", "break", "continue", "tput", "tty", "arch", "logname", "users", "who", "w", "lsb_release",
		"getconf", "numfmt", "factor", "cal", "jobs", "set", "shopt", "unset", "export", "declare", "typeset",
		"local", "readonly", "let", "alias", "trap", "mapfile", "readarray", "compgen", "complete", "help":
		return true
	}
	return false
}
