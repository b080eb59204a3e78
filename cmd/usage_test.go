package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// TestUsageErrorsAreToldByType: exit 2 is for the errors of the command
// line itself (an unknown command or flag, a flag's bad value, missing or
// extra arguments), whatever their words; an error of the work that reads
// like one (an EINVAL from the system: "invalid argument") exits 1.
func TestUsageErrorsAreToldByType(t *testing.T) {
	failsWith := func(*Env) *cobra.Command {
		return &cobra.Command{Use: "fails-with", Hidden: true, Args: cobra.ExactArgs(1), RunE: func(_ *cobra.Command, args []string) error {
			switch args[0] {
			case "einval":
				return fmt.Errorf("locking the note: %w", syscall.EINVAL)
			case "words":
				return fmt.Errorf("the remote accepts only fast-forwards: unknown command %q", "x")
			}
			return usagef("%s is not a mode", args[0])
		}}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		err  string // in stderr
	}{
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown command after -C", []string{"-C", t.TempDir(), "frobnicate"}, 2, `unknown command "frobnicate"`},
		{"close to a command", []string{"recal"}, 2, "Did you mean this?"},
		{"unknown flag", []string{"list", "--frob"}, 2, "unknown flag: --frob"},
		{"bad flag value", []string{"list", "--limit", "many"}, 2, "invalid argument"},
		{"missing id", []string{"show"}, 2, "give the memory id"},
		{"argument where none is taken", []string{"doctor", "now"}, 2, `unknown command "now"`},
		{"too many arguments", []string{"fails-with", "a", "b"}, 2, "accepts 1 arg(s)"},
		{"the command's own usage error", []string{"fails-with", "fast"}, 2, "fast is not a mode"},
		{"EINVAL from the work", []string{"fails-with", "einval"}, 1, "invalid argument"},
		{"words of usage from the work", []string{"fails-with", "words"}, 1, "accepts only"},
		{"help", []string{"help", "list"}, 0, ""},
		{"completion request", []string{cobra.ShellCompRequestCmd, "lis"}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			env := &Env{Streams: Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Dir: t.TempDir(),
				Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }}
			code := runRoot(context.Background(), env, newRoot(env, append(verbs(), failsWith)), tc.args)
			require.Equal(t, tc.code, code, "stdout %s\nstderr %s", out.String(), errb.String())
			require.Contains(t, errb.String(), tc.err)
			require.Equal(t, tc.code == 2, strings.Contains(errb.String(), "for usage."), errb.String())
		})
	}
}
