package shellword

import (
	"errors"
	"strings"
)

var (
	errUnclosedSingle = errors.New("unclosed single quote")
	errUnclosedDouble = errors.New("unclosed double quote")
	errNotPlain       = errors.New("not a line of plain words, single quotes and backslash escapes")
)

// Quote returns s as one POSIX shell word: bare when Plain, else in single quotes, where each
// single quote of s closes the quoted text, comes escaped (\') and opens the next.
func Quote(s string) string {
	if Plain(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and separates them with one space.
func Join(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(w))
	}
	return b.String()
}

// Plain reports whether s is a word that needs no quoting: not empty, and made of letters,
// digits and _-./:=@%+, only, which mean themselves anywhere in an unquoted word.
func Plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return false
		}
	}
	return true
}

func plainByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("_-./:=@%+,", c) >= 0
}

// Split splits s into words as a POSIX shell does: spaces, tabs and newlines separate words;
// single quotes keep everything; double quotes keep everything but a backslash before $, `, "
// or \ (which it escapes) and a backslash-newline (which it removes); outside quotes a backslash
// escapes the next character, a backslash-newline joins two lines, and a trailing backslash is
// itself. Every other character means itself.
func Split(s string) ([]string, error) { return split(s, false) }

// SplitPlain splits a line written only with Quote's forms: plain characters (Plain), single
// quotes and backslash escapes, separated by spaces. Anything else (double quotes, tabs,
// newlines outside quotes, a trailing backslash, any other character unquoted) is an error, so
// the words it returns mean the same to any shell.
func SplitPlain(s string) ([]string, error) { return split(s, true) }

func split(s string, plain bool) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || !plain && (c == '\t' || c == '\n'):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errUnclosedSingle
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '\\' && i+1 < len(s) && s[i+1] != '\n':
			i++
			w.WriteByte(s[i])
		case plain && !plainByte(c):
			return nil, errNotPlain
		case c == '\\' && i+1 < len(s): // backslash-newline: the line goes on
			i++
			continue
		case c == '"':
			n, err := doubleQuoted(s[i+1:], &w)
			if err != nil {
				return nil, err
			}
			i += n + 1
		default: // a plain character, or a trailing backslash
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// doubleQuoted writes the text of s up to its first unescaped double quote to w, and returns
// that quote's index.
func doubleQuoted(s string, w *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0:
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
	}
	return 0, errUnclosedDouble
}
