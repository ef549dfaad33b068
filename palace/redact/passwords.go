package redact

import "strings"

// Passwords that fail the entropy test. A labelled secret is redacted only
// when its value looks generated (strongValue), so that prose and code
// around the labels are left alone. A password is chosen by a person, not
// generated: "POSTGRES_PASSWORD=postgres", "DB_PASS=hunter2" and
// `"password": "letmein"` are the passwords people write into compose
// files, .env files and configs, and they are secrets all the same. A
// password label's value is so read by what it is written as, not only by
// how random it looks.

// The forms a password label's value is written in (pwForm).
const (
	// pwStrong: the value is read only by the entropy test, as every other
	// labelled secret is: a value that code follows (",", ")", or ";"
	// after a space), or a quoted value holding a space ("Enter your
	// password" is a label's text).
	pwStrong = iota
	// pwSpaced: after a space ("password: …", "password = …", "password
	// is …", "--password …"), where YAML and INI write a password but
	// prose, code and type annotations write a word ("password: string",
	// "password = hashed"): the value must hold a digit or a symbol, or mix
	// cases as random text does.
	pwSpaced
	// pwLiteral: written as a literal, a whole quoted string or a value
	// glued to its '=' (a shell's, an .env file's, a URL query's
	// KEY=value), or after an environment variable's name (compose's
	// "POSTGRES_PASSWORD: example"): letters alone are a password there.
	pwLiteral
)

// minWeakPassword is the shortest value of a password label redacted
// though it fails the entropy test: shorter ones ("pw", "x", "no") are
// flags and abbreviations far more often than passwords, and a PIN has
// four digits.
const minWeakPassword = 4

// labelledPassword reports whether v, the value of a password label in
// the given form, is a password: one that passes the entropy test of
// every labelled secret, or a weak one that reads as nothing else (not a
// placeholder, a type or state word, a path, an identifier of code, a
// constant's number, or another key=value).
func labelledPassword(v string, form int) bool {
	if strongValue(v, 8) && !pathLike(v) {
		return true
	}
	if form == pwStrong || len(v) < minWeakPassword || len(v) > maxValue || hasMarker(v) || pathLike(v) {
		return false
	}
	if placeholder(v) || notAPassword(v) || identifier(v) || strings.IndexByte(v, '=') >= 0 || hexNumber(v) {
		return false
	}
	if form == pwLiteral {
		return true
	}
	var lo, up, other int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isLower(c):
			lo++
		case isUpper(c):
			up++
		case c != '-' && c != '_' && c != '\'':
			other++ // a digit or a symbol
		}
	}
	return other > 0 || up*4 >= len(v) && lo*4 >= len(v)
}

// placeholder reports whether v stands for a password rather than being
// one: a reference or template (${DB_PASSWORD}, $PW, %(pw)s, {{ vault_pw
// }}, <password>, [password]), a mask (********, xxxx), a YAML tag (!!str)
// or an instruction in capitals (YOUR_PASSWORD, CHANGE_ME) or beginning
// "your" (yourpassword, your-password-here).
func placeholder(v string) bool {
	if strings.IndexByte("$%<{[(*!?#@&~", v[0]) >= 0 || strings.Contains(v, "{{") || strings.Contains(v, "${") {
		return true
	}
	same, caps, under := true, true, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		same = same && c == v[0]
		caps = caps && (isUpper(c) || isDigit(c) || c == '_')
		under = under || c == '_'
	}
	if same || caps && under {
		return true
	}
	return len(v) > 4 && strings.EqualFold(v[:4], "your")
}

// notAPassword reports whether v is a word that a password label's value
// is in schemas, type annotations and settings (password: string, password:
// required, password = None, password: true), not a password.
func notAPassword(v string) bool {
	switch strings.ToLower(v) {
	case "string", "str", "text", "varchar", "char", "bytes", "byte", "secret", "secretstr",
		"int", "integer", "number", "bool", "boolean", "object", "any", "unknown",
		"null", "nil", "none", "true", "false", "undefined", "empty", "blank", "unset",
		"required", "optional", "hidden", "masked", "redacted", "omitted", "sensitive",
		"password", "passwd", "passphrase", "prompt", "stdin", "default", "changed",
		"enabled", "disabled", "yes", "no", "on", "off":
		return true
	}
	return false
}

// identifier reports whether v reads as a name in code rather than a
// value: a selector (cfg.Password, os.environ, self.pw), a name in snake
// case (pw_hash, hashed_password) or in camel case (hashedPw, newPass).
// What a password label is assigned in code is most often a variable.
func identifier(v string) bool {
	dots, under, upper := 0, 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			if i == 0 || i == len(v)-1 || v[i-1] == '.' || isDigit(v[i+1]) {
				return false
			}
			dots++
		case c == '_':
			under++
		case isUpper(c):
			upper++
		case isLower(c), isDigit(c) && i > 0:
		default:
			return false
		}
	}
	switch {
	case dots > 0:
		return true
	case under > 0:
		return upper == 0 // pw_hash; DB_PASSWORD is a placeholder's form
	default:
		return isLower(v[0]) && upper > 0 && upper*4 < len(v) // hashedPw, not xK9mQ2
	}
}

// hexNumber reports whether v is a number as code writes it in hex, octal
// or binary (0x4f, 0o755): constants named for a password's attribute
// (NL80211_ATTR_SAE_PASSWORD = 0x115).
func hexNumber(v string) bool {
	if len(v) < 3 || v[0] != '0' || strings.IndexByte("xXoObB", v[1]) < 0 {
		return false
	}
	for i := 2; i < len(v); i++ {
		if c := v[i] | 0x20; !isDigit(v[i]) && (c < 'a' || c > 'f') && v[i] != '_' {
			return false
		}
	}
	return true
}

// namesLabel reports whether v ends in a word that labels a secret
// (password, passwd, pwd, pass, passphrase, secret, token, key), as the
// names of settings and constants do ("PGSSLPASSWORD": "sslpassword",
// RuleURLPassword = "url-password"), and a weak password rarely does.
func namesLabel(v string) bool {
	return namesSecret(v) || endsInWord(v, "pwd", "pass", "passphrase")
}

// pwForm is the form of the value of a password label, key s[ks:ke], that
// runs from v to e after the separator at sep. quote is the byte that opened
// the value (0 when it is not quoted).
func pwForm(s string, ks, ke, sep, v, e int, quote byte) int {
	switch {
	case quote != 0:
		if e < len(s) && (s[e] == quote || quote == '"' && s[e] == '\\' && e+1 < len(s) && s[e+1] == '"') {
			return pwLiteral // the whole quoted string
		}
		return pwStrong
	case e < len(s) && strings.IndexByte(",)]}", s[e]) >= 0:
		return pwStrong // an argument or a field of code
	case s[sep] == '=' && v == sep+1, envName(s[ks:ke]):
		return pwLiteral // ";" may part a connection string's pairs
	case e < len(s) && s[e] == ';':
		return pwStrong // a statement of code
	}
	return pwSpaced
}

// envName reports whether key is written as an environment variable's name
// of several words: capitals and digits joined by underscores
// (POSTGRES_PASSWORD, DB_PASS). A word alone in capitals ("PWD: want %s")
// is as often a heading or a message's label.
func envName(key string) bool {
	letter, under := false, false
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
		letter = letter || isUpper(c)
		under = under || c == '_' && i > 0 && i < len(key)-1
	}
	return letter && under
}
