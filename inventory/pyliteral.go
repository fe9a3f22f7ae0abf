package inventory

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// pyValue is what Ansible's ini plugin makes of a value: Python's ast.literal_eval of it when
// that succeeds (numbers, strings, True/False/None, lists, tuples, dicts and sets, nested),
// else the text unchanged. So port=22 is the number 22, x="'22'" the string "22", flag=True a
// boolean, and name=web-1 or debug=yes stay text.
func pyValue(s string) any {
	if v, err := pyLiteral(s); err == nil {
		return v
	}
	return s
}

var errNotLiteral = errors.New("not a Python literal")

// pyLiteral evaluates s as ast.literal_eval does (blanks and tabs before it ignored, a trailing
// # comment allowed, a bare a, b a tuple). Tuples and sets become lists and bytes become text,
// as they come out of ansible-inventory's JSON; an int too big for int64 is a *big.Int.
func pyLiteral(s string) (any, error) {
	l := &pyLexer{src: strings.TrimLeft(s, " \t")}
	if err := l.next(); err != nil {
		return nil, err
	}
	v, err := l.tuple(pyEOF)
	if err != nil {
		return nil, err
	}
	if l.tok.kind != pyEOF {
		return nil, errNotLiteral
	}
	return v, nil
}

// tuple reads `expr (, expr)* [,]` up to the token close; a comma makes a list.
func (l *pyLexer) tuple(close pyKind) (any, error) {
	if l.tok.kind == close && close != pyEOF {
		return []any{}, nil // ()
	}
	first, err := l.expr()
	if err != nil {
		return nil, err
	}
	if l.tok.kind != pyComma {
		return first, nil
	}
	items := []any{first}
	for l.tok.kind == pyComma {
		if err := l.next(); err != nil {
			return nil, err
		}
		if l.tok.kind == close {
			break
		}
		v, err := l.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	return items, nil
}

func (l *pyLexer) expr() (any, error) {
	t := l.tok
	if err := l.next(); err != nil {
		return nil, err
	}
	switch t.kind {
	case pyNumber:
		return t.val, nil
	case pySign:
		return l.signed(t.text)
	case pyString:
		return l.strings(t)
	case pyName:
		return l.name(t.text)
	case pyOpen:
		switch t.text {
		case "[":
			return l.seq("]")
		case "(":
			return l.seq(")")
		case "{":
			return l.brace()
		}
	}
	return nil, errNotLiteral
}

// signed allows one sign before a number, as literal_eval does (not --1, not -'a').
func (l *pyLexer) signed(sign string) (any, error) {
	t := l.tok
	if t.kind != pyNumber {
		return nil, errNotLiteral
	}
	if err := l.next(); err != nil {
		return nil, err
	}
	if sign == "+" {
		return t.val, nil
	}
	switch n := t.val.(type) {
	case int:
		return -n, nil
	case float64:
		return -n, nil
	case *big.Int:
		return new(big.Int).Neg(n), nil
	}
	return nil, errNotLiteral
}

// strings joins adjacent string literals ('a' 'b' is 'ab'), as Python's parser does.
func (l *pyLexer) strings(first pyToken) (any, error) {
	s := first.text
	for l.tok.kind == pyString {
		if l.tok.bytes != first.bytes {
			return nil, errNotLiteral // Python refuses to join bytes and text
		}
		s += l.tok.text
		if err := l.next(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (l *pyLexer) name(n string) (any, error) {
	switch n {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	case "set": // set() is the only call literal_eval accepts
		if l.tok.kind == pyOpen && l.tok.text == "(" {
			if err := l.next(); err != nil {
				return nil, err
			}
			if l.tok.kind == pyClose && l.tok.text == ")" {
				return []any{}, l.next()
			}
		}
	}
	return nil, errNotLiteral
}

// seq reads the rest of a list or a tuple (the opening bracket is read).
func (l *pyLexer) seq(close string) (any, error) {
	l.depth++
	if l.depth > 100 {
		return nil, errNotLiteral
	}
	defer func() { l.depth-- }()
	var v any
	var err error
	if close == ")" {
		v, err = l.tuple(pyClose)
	} else {
		v, err = l.list()
	}
	if err != nil {
		return nil, err
	}
	if l.tok.kind != pyClose || l.tok.text != close {
		return nil, errNotLiteral
	}
	return v, l.next()
}

func (l *pyLexer) list() ([]any, error) {
	items := []any{}
	for l.tok.kind != pyClose {
		v, err := l.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if l.tok.kind != pyComma {
			break
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// brace reads a dict or a set (the { is read); a set becomes a list.
func (l *pyLexer) brace() (any, error) {
	l.depth++
	if l.depth > 100 {
		return nil, errNotLiteral
	}
	defer func() { l.depth-- }()
	dict, set := map[string]any{}, []any{}
	isSet := false
	for i := 0; l.tok.kind != pyClose; i++ {
		k, err := l.expr()
		if err != nil {
			return nil, err
		}
		if i == 0 {
			isSet = l.tok.kind != pyColon
		}
		if isSet {
			set = append(set, k)
		} else {
			if l.tok.kind != pyColon {
				return nil, errNotLiteral
			}
			if err := l.next(); err != nil {
				return nil, err
			}
			v, err := l.expr()
			if err != nil {
				return nil, err
			}
			key, ok := pyKey(k)
			if !ok {
				return nil, errNotLiteral
			}
			dict[key] = v
		}
		if l.tok.kind != pyComma {
			break
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
	if l.tok.kind != pyClose || l.tok.text != "}" {
		return nil, errNotLiteral
	}
	if isSet {
		return set, l.next()
	}
	return dict, l.next()
}

// pyKey writes a dict key the way Python's json module does.
func pyKey(k any) (string, bool) {
	switch t := k.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case nil:
		return "null", true
	case int:
		return strconv.Itoa(t), true
	case *big.Int:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), true
	}
	return "", false
}
