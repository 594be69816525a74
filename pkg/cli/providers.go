package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// listProviders prints the registry: what --provider and a profile's "type" accept.
func listProviders(w io.Writer) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tALIASES\tDEFAULT MODEL\tCREDENTIAL\tDESCRIPTION")
	for _, d := range registry.List() {
		cred := "-"
		if d.Credential.EnvVar != "" {
			cred = d.Credential.EnvVar
			if !d.Credential.Required {
				cred += " (optional)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Type, orDash(strings.Join(d.Aliases, ",")), orDash(d.DefaultModel), cred, d.Description)
	}
	if err := tw.Flush(); err != nil {
		return exitFailed
	}
	fmt.Fprintln(w, "\nChoose with --provider TYPE, or in settings: \"currentProvider\" naming a profile under \"providers\".")
	return exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
