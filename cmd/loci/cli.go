package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/loci-mem/loci/kg"
	"github.com/loci-mem/loci/palace"
	"github.com/loci-mem/loci/palace/redact"
	"github.com/loci-mem/loci/server/argname"
	"gopkg.in/yaml.v3"
)

// The CLI follows seed 000's contract: results on stdout in an envelope
// ({ok,data,meta} / {ok:false,error,meta}) in json and yaml, human text in
// text mode; logs, progress, errors in text mode and hints on stderr.

// Error types (seed 000) and their exit codes.
var exitCodes = map[string]int{
	"invalid_args":        2,
	"not_logged_in":       3,
	"auth":                3,
	"network":             4,
	"upstream":            1,
	"conflict":            1,
	"not_found":           1,
	"rate_limit":          1,
	"permission":          1,
	"plugin_not_detected": 1,
	"io":                  5,
	"cancelled":           130,
	"internal":            5,
}

// cliError is a failure in seed 000's error shape.
type cliError struct {
	Type    string         `json:"type" yaml:"type"`
	Code    int            `json:"code" yaml:"code"`
	Message string         `json:"message" yaml:"message"`
	Hint    string         `json:"hint,omitempty" yaml:"hint,omitempty"`
	Detail  map[string]any `json:"detail,omitempty" yaml:"detail,omitempty"`
}

func (e *cliError) Error() string { return e.Message }

func invalidArgs(msg, hint string) *cliError {
	return &cliError{Type: "invalid_args", Message: msg, Hint: hint}
}

// cliEnv is one CLI invocation's streams and output format.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	format         string // text, json or yaml once resolved
	requestID      string
	// dataOnStdout is set by a command that writes its product to stdout
	// (`loci export` without --out): the envelope or text summary, and any
	// error, then go to stderr so they never mix with the data.
	dataOnStdout bool
	// reveal is the secret the envelope being written may show (result.reveal).
	reveal string
}

// out is where envelopes and text summaries go.
func (e *cliEnv) out() io.Writer {
	if e.dataOnStdout {
		return e.stderr
	}
	return e.stdout
}

// claimStdout marks stdout as carrying the command's data. Unless --format
// was given, the summary is text when stderr is a terminal, JSON otherwise.
func (e *cliEnv) claimStdout(args []string) {
	e.dataOnStdout = true
	if f, ok := formatArg(args); !ok || f == "auto" {
		e.format = "json"
		if isTerminal(e.stderr) {
			e.format = "text"
		}
	}
}

func newCLIEnv(stdin io.Reader, stdout, stderr io.Writer) *cliEnv {
	var b [8]byte
	_, _ = rand.Read(b[:])
	env := &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr, requestID: "req_" + hex.EncodeToString(b[:])}
	env.format = env.resolveFormat("auto")
	return env
}

// resolveFormat maps auto to text on a terminal and json otherwise.
func (e *cliEnv) resolveFormat(f string) string {
	if f == "auto" || f == "" {
		if isTerminal(e.stdout) {
			return "text"
		}
		return "json"
	}
	return f
}

// result is a command's successful output.
type result struct {
	data  any
	count *int
	// text renders the human form; nil prints data as indented JSON.
	text func(w io.Writer)
	// reveal is the one secret the output may show (a new access token,
	// printed once): everything else is redacted as always.
	reveal string
}

func countOf(n int) *int { return &n }

// emit writes a success envelope (or text) and returns exit code 0.
func (e *cliEnv) emit(r *result) int {
	switch e.format {
	case "text":
		var buf strings.Builder
		if r.text != nil {
			r.text(&buf)
		} else {
			b, _ := json.MarshalIndent(r.data, "", "  ")
			buf.Write(b)
			buf.WriteByte('\n')
		}
		out, _ := redact.String(buf.String())
		io.WriteString(e.out(), termSafe(unmask(out, r.reveal)))
	default:
		meta := map[string]any{"requestId": e.requestID}
		if r.count != nil {
			meta["count"] = *r.count
		}
		e.reveal = r.reveal
		e.writeEnvelope(map[string]any{"ok": true, "data": r.data, "meta": meta})
		e.reveal = ""
	}
	return 0
}

// unmask puts secret back where redaction masked it in out.
func unmask(out, secret string) string {
	if secret == "" {
		return out
	}
	masked, _ := redact.String(secret)
	return strings.ReplaceAll(out, masked, secret)
}

// fail writes an error envelope (or, in text mode, "error:" and "hint:"
// lines on stderr with stdout left empty) and returns the exit code.
func (e *cliEnv) fail(err error) int {
	ce := toCLIError(err)
	if ce.Hint == "" {
		ce.Hint = defaultHints[ce.Type]
	}
	ce.Message, _ = redact.String(ce.Message)
	ce.Hint, _ = redact.String(ce.Hint)
	if e.format == "text" {
		fmt.Fprintf(e.stderr, "error: %s\n", termSafe(ce.Message))
		if ce.Hint != "" {
			fmt.Fprintf(e.stderr, "hint: %s\n", termSafe(ce.Hint))
		}
	} else {
		e.writeEnvelope(map[string]any{"ok": false, "error": ce, "meta": map[string]any{"requestId": e.requestID}})
	}
	if code, ok := exitCodes[ce.Type]; ok {
		return code
	}
	return 1
}

func (e *cliEnv) writeEnvelope(v map[string]any) {
	// Round-trip through JSON so yaml sees the same field names and shapes.
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"ok":false,"error":{"type":"internal","code":0,"message":"unencodable result"}}`)
	}
	b = []byte(unmask(string(redact.JSON(b)), e.reveal))
	if e.format == "yaml" {
		var generic any
		_ = json.Unmarshal(b, &generic)
		y, err := yaml.Marshal(generic)
		if err == nil {
			e.out().Write(y)
			return
		}
	}
	e.out().Write(append(b, '\n'))
}

// toCLIError classifies any error into seed 000's taxonomy.
func toCLIError(err error) *cliError {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &cliError{Type: "cancelled", Message: "interrupted: " + err.Error()}
	}
	if errors.Is(err, kg.ErrInvalid) {
		return &cliError{Type: "invalid_args", Message: err.Error()}
	}
	if errors.Is(err, kg.ErrNotFound) {
		return &cliError{Type: "not_found", Message: err.Error(), Hint: "Run `loci kg history SUBJECT` to see a subject's facts"}
	}
	var pe *palace.Error
	if errors.As(err, &pe) {
		switch pe.Code {
		case palace.CodeInvalid:
			return &cliError{Type: "invalid_args", Message: pe.Message, Hint: pe.Hint}
		case palace.CodeNotFound:
			return &cliError{Type: "not_found", Message: pe.Message, Hint: cmp.Or(pe.Hint, "Run `loci palace list` to see what exists")}
		case palace.CodeConflict:
			return &cliError{Type: "conflict", Message: pe.Message, Hint: pe.Hint}
		case palace.CodeUnavailable:
			return &cliError{Type: "network", Message: pe.Message, Hint: pe.Hint}
		case palace.CodeForbidden:
			return &cliError{Type: "permission", Message: pe.Message, Hint: pe.Hint}
		}
		return &cliError{Type: "io", Message: pe.Message, Hint: pe.Hint}
	}
	return &cliError{Type: "internal", Message: err.Error()}
}

// defaultHints give every error envelope a hint (seed 000): what to do
// next when the error itself did not say.
var defaultHints = map[string]string{
	"invalid_args": "Run `loci help` for the commands and `loci <command> -h` for their flags",
	"not_found":    "Run `loci palace list` to see what exists",
	"conflict":     "Check the current state (`loci palace info`, `loci review list`) and try again",
	"io":           "Run `loci doctor` to check the data dir, palaces and indexes",
	"internal":     "Run `loci doctor`; if it passes, report this with the requestId",
	"cancelled":    "Run the command again and let it finish",
	"network":      "Check that the endpoint is reachable and the LOCI_* settings point at it",
	"upstream":     "Check the provider's logs and settings; it answered with an error",
	"auth":         "Check the token (LOCI_HTTP_TOKEN or --token)",
	"permission":   "Check the file permissions of the data dir and the host configs",
}

// commonFlags are accepted by every CLI subcommand.
type commonFlags struct {
	format string
	palace string
	homeFlags
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.format, "format", "auto", "output format: auto, text, json or yaml")
	fs.StringVar(&c.palace, "palace", "", "palace name (default: derived from the current git repository)")
	c.homeFlags.register(fs)
}

// cliFunc is a subcommand in the envelope contract.
type cliFunc func(ctx context.Context, env *cliEnv, args []string) (*result, error)

// cli adapts a cliFunc to a command: it resolves --format before the
// command parses its flags, so that even flag errors use the right format.
func cli(f cliFunc) func(ctx context.Context, env *cliEnv, args []string) int {
	return func(ctx context.Context, env *cliEnv, args []string) int {
		if f, ok := formatArg(args); ok {
			switch f {
			case "auto", "text", "json", "yaml":
				env.format = env.resolveFormat(f)
			default:
				return env.fail(&cliError{Type: "invalid_args", Message: "invalid value for --format: " + f,
					Hint: "Use --format auto|text|json|yaml", Detail: map[string]any{"flag": "format"}})
			}
		}
		r, err := f(ctx, env, args)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return env.fail(err)
		}
		return env.emit(r)
	}
}

// subcommandHelp answers `loci CMD -h` (or --help, or help) for a command
// whose first argument names a subcommand: the usage goes to stderr, as a
// flag set's does, and the command exits 0 (flag.ErrHelp). nil when args
// ask for no help.
func subcommandHelp(env *cliEnv, args []string, usage string) error {
	if len(args) == 0 {
		return nil
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintf(env.stderr, "Usage: %s\nA subcommand's flags: loci %s SUBCOMMAND -h\n", usage, strings.Fields(usage)[1])
		return flag.ErrHelp
	}
	return nil
}

// formatArg finds --format's value in raw arguments.
func formatArg(args []string) (string, bool) {
	for i, a := range args {
		for _, p := range []string{"--format=", "-format="} {
			if strings.HasPrefix(a, p) {
				return strings.TrimPrefix(a, p), true
			}
		}
		if (a == "--format" || a == "-format") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// parseFlags parses a subcommand's flags, allowing them before, between and
// after positional arguments, and returns the positional ones. Usage goes
// to stderr; a bad flag is an invalid_args error.
func parseFlags(env *cliEnv, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := quietParse(env, fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, invalidArgs(err.Error(), flagHint(fs, err))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagHint is the hint for err, fs's refusal of a flag: a format asked
// for as a flag of its own ("--json", as many tools spell it) is named
// with --format, a flag misspelt or named as other tools name it
// ("--topk", "-k" for --limit) with the flag it likely meant
// (flagMeant), and any other mistake is sent to the usage.
func flagHint(fs *flag.FlagSet, err error) string {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok && fs.Lookup("format") != nil {
		switch name = strings.TrimPrefix(name, "-"); name {
		case "json", "yaml", "text":
			return "Use --format " + name
		}
	}
	usage := "Run `loci " + fs.Name() + " -h` for usage"
	if m := flagMeant(fs, err); m != "" {
		return "Did you mean " + m + "? " + usage
	}
	return usage
}

// flagMeant is the flag of fs that err's undefined flag most likely
// stands for, as --name (argname.Meant, as the MCP tools and the HTTP API
// name an argument they do not take), or "".
func flagMeant(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if m := argname.Meant(strings.TrimPrefix(name, "-"), names); m != "" {
		return "--" + m
	}
	return ""
}

// quietParse parses flags without letting the flag package print: a bad
// flag is reported once by the caller, redacted (a mistyped flag value may
// be a token), and only -h prints the usage.
func quietParse(env *cliEnv, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(env.stderr)
		fs.Usage()
	}
	return err
}

// meantSuffix is "; did you mean --x?" for a flag meant, or "".
func meantSuffix(flag string) string {
	if flag == "" {
		return ""
	}
	return "; did you mean " + flag + "?"
}

// flagFailure reports a bad flag or argument of a command outside the
// envelope contract (serve, http) on stderr, redacted, and returns exit
// code 2.
func flagFailure(env *cliEnv, command, msg string) int {
	msg, _ = redact.String(msg)
	fmt.Fprintf(env.stderr, "loci %s: %s (run `loci %s -h` for the flags)\n", command, termSafe(msg), command)
	return 2
}
