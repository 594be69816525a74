package cli

import (
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

// ruleList collects permission rules from a repeatable flag. One argument may
// hold several rules separated by commas or spaces outside parentheses:
// "Read,Bash(git log *)" is two rules. Rule syntax is checked when the session
// is assembled, where the error can name the rule.
type ruleList []string

func (r *ruleList) String() string { return strings.Join(*r, ",") }

func (r *ruleList) Set(v string) error {
	*r = append(*r, permission.SplitRuleList(v)...)
	return nil
}
