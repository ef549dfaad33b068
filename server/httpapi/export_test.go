package httpapi

// Exports for the external tests.
var (
	CompileFilter   = compileFilter
	FromEpoch       = fromEpoch
	FormatTime      = formatTime
	FormatErrorTime = formatErrorTime
	ParseISO        = parseISO
	HTMLToText      = htmlToText
	EmailToText     = emailToText
	Decompose       = func(q string) []string {
		var out []string
		for _, s := range decompose(q) {
			out = append(out, string(s.mode)+":"+s.text)
		}
		return out
	}
)
