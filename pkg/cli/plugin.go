package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"text/tabwriter"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble/plugins"
)

const pluginUsage = `Usage: robota plugin COMMAND (Claude Code's plugin formats; plugins load through enabledPlugins)

  robota plugin marketplace add SOURCE     add a marketplace: a directory, a git URL (#ref), or owner/repo
  robota plugin marketplace list           the known marketplaces (settings and added)
  robota plugin marketplace update [NAME]  fetch git marketplaces again
  robota plugin marketplace remove NAME    forget a marketplace added here (and its clone)
  robota plugin install NAME@MARKETPLACE [--scope user|project|local]
  robota plugin uninstall NAME@MARKETPLACE [--scope user|project|local]
  robota plugin enable NAME@MARKETPLACE [--scope user|project|local]
  robota plugin disable NAME@MARKETPLACE [--scope user|project|local]
  robota plugin list                       the enabled and installed plugins and whether they load
  robota plugin search [TEXT]              the known marketplaces' plugins matching TEXT
  robota plugin validate PATH              check a plugin or marketplace directory

--scope picks the settings file enabledPlugins is written to: ~/.robota/settings.json (user,
the default), .robota/settings.json (project) or .robota/settings.local.json (local); installs
go to ~/.robota/plugins or .robota/plugins.
`

// runPlugin runs `robota plugin ...`; the exit status is 0, 1 when the command failed, 2
// for a usage mistake.
func runPlugin(args []string, stdout, stderr io.Writer) int {
	ctx := context.Background()
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "robota plugin: %v\n", err)
		return exitFailed
	}
	home, _ := os.UserHomeDir()
	fs := flag.NewFlagSet("robota plugin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	scope := fs.String("scope", plugins.ScopeUser, "user, project or local")
	fs.StringVar(scope, "s", plugins.ScopeUser, "user, project or local")
	fs.StringVar(&cwd, "cwd", cwd, "project directory")
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, pluginUsage)
				return exitOK
			}
			fmt.Fprintf(stderr, "robota plugin: %v\n%s", err, pluginUsage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos, rest = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		fmt.Fprintf(stderr, "robota plugin: %v\n", err)
		return exitFailed
	}
	usage := func() int {
		fmt.Fprint(stderr, pluginUsage)
		return 2
	}
	if len(pos) == 0 {
		return usage()
	}
	opts, warnings, err := assemble.PluginOptions(cwd, home)
	if err != nil {
		fmt.Fprintf(stderr, "robota plugin: %v\n", err)
		return exitFailed
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "robota: warning: %s\n", w)
	}
	m := plugins.Manager{Opts: opts}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "robota plugin: %v\n", err)
		return exitFailed
	}
	one := func() (string, bool) { return argAt(pos, 1), len(pos) == 2 }
	switch pos[0] {
	case "marketplace":
		return runMarketplace(ctx, m, pos[1:], cwd, home, stdout, stderr)
	case "install", "i":
		id, ok := one()
		if !ok {
			return usage()
		}
		inst, problems, err := m.Install(ctx, id, *scope)
		for _, p := range problems {
			fmt.Fprintf(stderr, "robota: warning: %s\n", p.Error())
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "Installed %s %s in %s and enabled it (%s scope).\n", id, orDash(inst.Version), inst.InstallPath, *scope)
	case "uninstall", "remove":
		id, ok := one()
		if !ok {
			return usage()
		}
		if err := m.Uninstall(id, *scope); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "Uninstalled %s (%s scope).\n", id, *scope)
	case "enable", "disable":
		id, ok := one()
		if !ok {
			return usage()
		}
		if _, mkt, err := plugins.SplitID(id); err != nil || mkt == "" {
			return fail(fmt.Errorf("%q: want name@marketplace", id))
		}
		path, err := plugins.SettingsPath(*scope, cwd, home)
		if err != nil {
			return fail(err)
		}
		on := pos[0] == "enable"
		if err := plugins.SetEnabled(path, id, &on); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "%s %s in %s.\n", map[bool]string{true: "Enabled", false: "Disabled"}[on], id, path)
		if on { // say now when it would not load
			check := opts
			check.Enabled = map[string]bool{id: true}
			for _, p := range plugins.Load(ctx, check).Problems {
				fmt.Fprintf(stderr, "robota: warning: %s\n", p.Error())
			}
		}
	case "list":
		return listPlugins(ctx, opts, stdout)
	case "search":
		if len(pos) > 2 {
			return usage()
		}
		found, problems := m.Search(ctx, argAt(pos, 1))
		for _, p := range problems {
			fmt.Fprintf(stderr, "robota: warning: %s\n", p.Error())
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PLUGIN\tVERSION\tDESCRIPTION")
		for _, f := range found {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.ID(), orDash(f.Entry.Version), f.Entry.Description)
		}
		if err := tw.Flush(); err != nil {
			return exitFailed
		}
	case "validate":
		path, ok := one()
		if !ok {
			return usage()
		}
		return validatePlugin(path, cwd, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "robota plugin: unknown command %q\n", pos[0])
		return usage()
	}
	return exitOK
}

func argAt(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func runMarketplace(ctx context.Context, m plugins.Manager, args []string, cwd, home string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "robota plugin marketplace: %v\n", err)
		return exitFailed
	}
	switch argAt(args, 0) {
	case "add":
		if len(args) != 2 {
			break
		}
		src, err := plugins.ParseSourceArg(args[1], cwd, home)
		if err != nil {
			return fail(err)
		}
		name, err := m.AddMarketplace(ctx, src)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "Added marketplace %s (%s). Install its plugins with: robota plugin install PLUGIN@%s\n", name, src, name)
		return exitOK
	case "list":
		return listMarketplaces(m, stdout)
	case "update":
		names := args[1:]
		if len(names) == 0 {
			known, err := m.Store(plugins.ScopeUser).KnownMarketplaces()
			if err != nil {
				return fail(err)
			}
			for n := range known {
				names = append(names, n)
			}
			for n := range m.Opts.Declared {
				names = append(names, n)
			}
			sort.Strings(names)
			names = slices.Compact(names)
		}
		status := exitOK
		for _, n := range names {
			if err := m.UpdateMarketplace(ctx, n); err != nil {
				fmt.Fprintf(stderr, "robota plugin marketplace: %s: %v\n", n, err)
				status = exitFailed
				continue
			}
			fmt.Fprintf(stdout, "Updated marketplace %s.\n", n)
		}
		return status
	case "remove", "rm":
		if len(args) != 2 {
			break
		}
		if err := m.RemoveMarketplace(args[1]); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "Removed marketplace %s.\n", args[1])
		return exitOK
	}
	fmt.Fprint(stderr, pluginUsage)
	return 2
}

func listMarketplaces(m plugins.Manager, stdout io.Writer) int {
	known, err := m.Store(plugins.ScopeUser).KnownMarketplaces()
	if err != nil {
		fmt.Fprintf(stdout, "robota plugin marketplace: %v\n", err)
		return exitFailed
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFROM\tSOURCE\tLOCATION")
	var names []string
	for n := range m.Opts.Declared {
		names = append(names, n)
	}
	for n := range known {
		if _, dup := m.Opts.Declared[n]; !dup {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if d, ok := m.Opts.Declared[n]; ok {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\n", n, orDash(d.Origin), d.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\tadded\t%s\t%s\n", n, known[n].Source, known[n].InstallLocation)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}

// listPlugins shows every plugin enabled in the settings or installed in a store, and
// whether it loads (nothing is fetched).
func listPlugins(ctx context.Context, opts plugins.Options, stdout io.Writer) int {
	ids := map[string]bool{}
	for id := range opts.Enabled {
		ids[id] = true
	}
	installed := map[string]string{}
	for _, st := range []plugins.Store{plugins.ProjectStore(opts.Cwd), plugins.UserStore(opts.Home)} {
		all, err := st.Installed()
		if err != nil {
			fmt.Fprintf(stdout, "robota plugin: %v\n", err)
			continue
		}
		for id, list := range all.Plugins {
			for _, i := range list {
				if i.Scope == st.Scope {
					ids[id] = true
					if installed[id] == "" {
						installed[id] = st.Scope + " " + orDash(i.Version)
					}
				}
			}
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tENABLED\tINSTALLED\tSTATUS")
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range ids {
			if !yield(id) {
				return
			}
		}
	}) {
		status := "-"
		if opts.Enabled[id] {
			check := opts
			check.Enabled, check.Fetch = map[string]bool{id: true}, false
			res := plugins.Load(ctx, check)
			status = "loads"
			if len(res.Plugins) == 0 {
				status = "fails"
			}
			for _, p := range res.Problems {
				if p.Skipped {
					status = "fails: " + p.Err.Error()
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%v\t%s\t%s\n", id, opts.Enabled[id], orDash(installed[id]), status)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}

// validatePlugin checks a plugin directory or a marketplace directory (each of its
// local plugins too) and prints every problem; exit 1 when any was found.
func validatePlugin(path, cwd string, stdout, stderr io.Writer) int {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	var problems []string
	if _, err := os.Stat(filepath.Join(path, filepath.FromSlash(plugins.MarketplacePath))); err == nil {
		mk, entryErrs, err := plugins.ReadMarketplace(path)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", path, err)
			return exitFailed
		}
		for _, e := range entryErrs {
			problems = append(problems, e.Error())
		}
		fmt.Fprintf(stdout, "marketplace %s: %d plugins\n", mk.Name, len(mk.Plugins))
		for _, e := range mk.Plugins {
			if e.Source.Kind != plugins.KindPath {
				fmt.Fprintf(stdout, "  %s: %s (not checked: not local)\n", e.Name, e.Source)
				continue
			}
			problems = append(problems, checkPluginDir(filepath.Join(path, filepath.FromSlash(e.Source.Path)), stdout)...)
		}
	} else {
		problems = append(problems, checkPluginDir(path, stdout)...)
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "problem: %s\n", p)
	}
	if len(problems) > 0 {
		return exitFailed
	}
	fmt.Fprintln(stdout, "ok")
	return exitOK
}

func checkPluginDir(dir string, stdout io.Writer) []string {
	p, problems := plugins.LoadDir(dir, nil)
	var out []string
	for _, pr := range problems {
		out = append(out, pr.Error())
	}
	if p != nil {
		hooks := 0
		for _, gs := range p.Hooks {
			hooks += len(gs)
		}
		fmt.Fprintf(stdout, "  plugin %s %s: %d command/skill paths, %d agent paths, %d hook groups, %d MCP servers\n",
			p.Name, orDash(p.Manifest.Version), len(p.Skills), len(p.Agents), hooks, len(p.MCPServers))
	}
	return out
}
