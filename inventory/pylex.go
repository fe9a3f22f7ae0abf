package inventory

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

type pyKind int

const (
	pyEOF pyKind = iota
	pyNumber
	pyString
	pyName
	pySign
	pyOpen
	pyClose
	pyComma
	pyColon
)

type pyToken struct {
	kind  pyKind
	text  string // a name, a sign, a bracket, or a string's value
	val   any    // a number's value
	bytes bool   // a b'...' string
}

// pyLexer reads the tokens of one Python expression.
type pyLexer struct {
	src   string
	i     int
	depth int
	tok   pyToken
}

var (
	pyNum = regexp.MustCompile(`^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|` +
		`(?:[0-9](?:_?[0-9])*)?\.?(?:[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?)[jJ]?`)
	pyDecInt = regexp.MustCompile(`^(?:[1-9](?:_?[0-9])*|0(?:_?0)*)$`)
)

func (l *pyLexer) next() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		if c == '#' {
			l.i = len(l.src) // a comment runs to the end of the line
		} else if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			l.i++
		} else {
			break
		}
	}
	if l.i >= len(l.src) {
		l.tok = pyToken{kind: pyEOF}
		return nil
	}
	c := l.src[l.i]
	switch {
	case strings.IndexByte("([{", c) >= 0:
		l.tok = pyToken{kind: pyOpen, text: string(c)}
	case strings.IndexByte(")]}", c) >= 0:
		l.tok = pyToken{kind: pyClose, text: string(c)}
	case c == ',':
		l.tok = pyToken{kind: pyComma}
	case c == ':':
		l.tok = pyToken{kind: pyColon}
	case c == '+' || c == '-':
		l.tok = pyToken{kind: pySign, text: string(c)}
	case c >= '0' && c <= '9' || c == '.':
		return l.number()
	case c == '\'' || c == '"':
		return l.str("")
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
		return l.word()
	default:
		return errNotLiteral
	}
	l.i++
	return nil
}

func (l *pyLexer) word() error {
	j := l.i
	for j < len(l.src) {
		c := l.src[j]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf {
			j++
			continue
		}
		break
	}
	w := l.src[l.i:j]
	if j < len(l.src) && (l.src[j] == '\'' || l.src[j] == '"') && len(w) <= 2 {
		if p := strings.ToLower(w); p == "r" || p == "u" || p == "b" || p == "br" || p == "rb" {
			l.i = j
			return l.str(p)
		}
		return errNotLiteral // f-strings are not literals
	}
	l.tok = pyToken{kind: pyName, text: w}
	l.i = j
	return nil
}

func (l *pyLexer) number() error {
	m := pyNum.FindString(l.src[l.i:])
	if m == "" || m == "." || strings.HasSuffix(m, "j") || strings.HasSuffix(m, "J") {
		return errNotLiteral // complex numbers cannot be written as JSON
	}
	l.i += len(m)
	if l.i < len(l.src) {
		if c := l.src[l.i]; c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return errNotLiteral // 1abc, 08
		}
	}
	clean := strings.ReplaceAll(m, "_", "")
	lower := strings.ToLower(clean)
	isInt := strings.HasPrefix(lower, "0x") || strings.HasPrefix(lower, "0o") || strings.HasPrefix(lower, "0b") ||
		!strings.ContainsAny(lower, ".e")
	if !isInt {
		f, err := strconv.ParseFloat(clean, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return errNotLiteral
		}
		l.tok = pyToken{kind: pyNumber, val: f}
		return nil
	}
	if !strings.HasPrefix(lower, "0x") && !strings.HasPrefix(lower, "0o") && !strings.HasPrefix(lower, "0b") && !pyDecInt.MatchString(m) {
		return errNotLiteral // 007: Python refuses leading zeros
	}
	n, ok := new(big.Int).SetString(clean, 0)
	if !ok {
		return errNotLiteral
	}
	if n.IsInt64() {
		l.tok = pyToken{kind: pyNumber, val: int(n.Int64())}
	} else {
		l.tok = pyToken{kind: pyNumber, val: n}
	}
	return nil
}

// str reads a string literal at l.i (its quote) with the given lower-case prefix.
func (l *pyLexer) str(prefix string) error {
	q := l.src[l.i]
	delim := string(q)
	if strings.HasPrefix(l.src[l.i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	raw := strings.Contains(prefix, "r")
	j := l.i + len(delim)
	var b strings.Builder
	for {
		if j >= len(l.src) {
			return errNotLiteral
		}
		if strings.HasPrefix(l.src[j:], delim) {
			break
		}
		c := l.src[j]
		if c == '\n' && len(delim) == 1 {
			return errNotLiteral
		}
		if c != '\\' {
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(l.src) {
			return errNotLiteral
		}
		if raw {
			b.WriteString(l.src[j : j+2])
			j += 2
			continue
		}
		n, err := pyEscape(l.src[j:], &b, strings.Contains(prefix, "b"))
		if err != nil {
			return err
		}
		j += n
	}
	l.tok = pyToken{kind: pyString, text: b.String(), bytes: strings.Contains(prefix, "b")}
	l.i = j + len(delim)
	return nil
}

var pySimpleEscapes = map[byte]string{'\n': "", '\\': `\`, '\'': "'", '"': `"`, 'a': "\a", 'b': "\b",
	'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}

// pyEscape writes the character of the escape sequence at s[0] (a backslash) and returns its
// length. An unknown escape keeps its backslash, as Python does.
func pyEscape(s string, b *strings.Builder, bytes bool) (int, error) {
	c := s[1]
	if e, ok := pySimpleEscapes[c]; ok {
		b.WriteString(e)
		return 2, nil
	}
	if c >= '0' && c <= '7' {
		n := 2
		for n < 4 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			n++
		}
		v, _ := strconv.ParseUint(s[1:n], 8, 32)
		b.WriteRune(rune(v))
		return n, nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 || (bytes && c != 'x') {
		if c == 'N' && !bytes {
			return 0, errNotLiteral // \N{name}: not worth a table of Unicode names
		}
		b.WriteByte('\\')
		return 1, nil
	}
	if len(s) < 2+width {
		return 0, errNotLiteral
	}
	v, err := strconv.ParseUint(s[2:2+width], 16, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, errNotLiteral
	}
	b.WriteRune(rune(v))
	return 2 + width, nil
}
