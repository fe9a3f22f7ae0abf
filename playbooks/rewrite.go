package playbooks

import (
	"fmt"
	"strings"
)

// rewrite turns the Jinja idioms playbooks use into expr syntax before compiling:
// `x | default('y')` -> `default(x, 'y')`, `x | int` -> `int(x)`, `x is not defined` ->
// `not defined(x)`, `True`/`None` -> `true`/`nil`. A filter binds to the operand just before it
// (Jinja's precedence), not to the whole expression as expr's own pipe would. String literals are
// never touched.
func rewrite(src string) (string, error) {
	toks, err := lex(src)
	if err != nil {
		return "", err
	}
	root, rest, err := group(toks, "", 0)
	if err != nil {
		return "", err
	}
	if len(rest) > 0 {
		return "", fmt.Errorf("unexpected %q", rest[0].text)
	}
	out, err := rewriteLevel(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, it := range out {
		it.write(&b)
	}
	return b.String(), nil
}

// filterNames maps Ansible filter and test names onto expr builtins or our functions.
var filterNames = map[string]string{
	"d": "default", "length": "len", "count": "len", "unique": "uniq", "list": "_list",
	"to_json": "toJSON", "from_json": "fromJSON", "b64encode": "toBase64", "b64decode": "fromBase64",
	"quote": "_quote", "basename": "_basename", "dirname": "_dirname", "regex_search": "_regexSearch",
	"regex_replace": "_regexReplace", "dict2items": "_dict2items", "items2dict": "_items2dict",
}

var testNames = map[string]string{
	"defined": "defined", "undefined": "undefined", "none": "_isnone", "failed": "_failed",
	"failure": "_failed", "succeeded": "_succeeded", "success": "_succeeded",
	"successful": "_succeeded", "changed": "_changed", "skipped": "_skipped",
	"string": "_isstring", "number": "_isnumber", "mapping": "_ismapping",
}

// keywords are identifiers that are operators, never the callee of a call or an operand.
var keywords = map[string]bool{
	"not": true, "and": true, "or": true, "in": true, "matches": true, "contains": true,
	"startsWith": true, "endsWith": true, "let": true, "if": true, "else": true, "is": true,
}

func rewriteLevel(items []item) ([]item, error) {
	out := make([]item, 0, len(items))
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.kind == kGroup {
			kids, err := rewriteLevel(it.kids)
			if err != nil {
				return nil, err
			}
			it.kids = kids
		}
		afterDot := len(out) > 0 && out[len(out)-1].kind == kPunct &&
			(out[len(out)-1].text == "." || out[len(out)-1].text == "?.")
		switch {
		case it.kind == kPunct && it.text == "|":
			next, err := applyCall(&out, items, i, it, filterNames, false)
			if err != nil {
				return nil, err
			}
			i = next
		case it.kind == kIdent && it.text == "is" && !afterDot:
			next, err := applyCall(&out, items, i, it, testNames, true)
			if err != nil {
				return nil, err
			}
			i = next
		case it.kind == kIdent && !afterDot && jinjaConst[it.text] != "":
			it.text = jinjaConst[it.text]
			out = append(out, it)
		default:
			out = append(out, it)
		}
	}
	return out, nil
}

var jinjaConst = map[string]string{"True": "true", "False": "false", "None": "nil", "none": "nil"}

// applyCall rewrites `operand | name(args)` or `operand is [not] name(args)` found at items[i]
// into `name(operand, args)` at the end of out; it returns the index of the last item consumed.
func applyCall(out *[]item, items []item, i int, op item, names map[string]string, test bool) (int, error) {
	what := "filter"
	if test {
		what = "test"
	}
	start := operandStart(*out)
	if start < 0 {
		return 0, fmt.Errorf("%q with nothing before it", op.text)
	}
	j := i + 1
	negate := false
	if test && j < len(items) && items[j].kind == kIdent && items[j].text == "not" {
		negate = true
		j++
	}
	if j >= len(items) || items[j].kind != kIdent {
		return 0, fmt.Errorf("expected a %s name after %q", what, op.text)
	}
	name := items[j].text
	if mapped, ok := names[name]; ok {
		name = mapped
	} else if test {
		return 0, fmt.Errorf("unknown test %q", items[j].text)
	}
	operand := append([]item(nil), (*out)[start:]...)
	pre := operand[0].pre
	operand[0].pre = ""
	call := item{kind: kGroup, text: "(", close: ")", kids: operand}
	if j+1 < len(items) && items[j+1].kind == kGroup && items[j+1].text == "(" {
		args, err := rewriteLevel(items[j+1].kids)
		if err != nil {
			return 0, err
		}
		if len(args) > 0 {
			call.kids = append(call.kids, item{kind: kPunct, text: ","})
			call.kids = append(call.kids, args...)
		}
		j++
	}
	repl := []item{}
	if negate {
		repl = append(repl, item{kind: kIdent, pre: pre, text: "not"}, item{kind: kIdent, pre: " ", text: name})
	} else {
		repl = append(repl, item{kind: kIdent, pre: pre, text: name})
	}
	*out = append((*out)[:start], append(repl, call)...)
	return j, nil
}

// operandStart finds where the operand ending at the end of out begins: a primary (name,
// literal, bracketed group) followed by any member accesses, indexes and calls. -1: no operand.
func operandStart(out []item) int {
	j := len(out) - 1
	for j >= 0 {
		it := out[j]
		switch {
		case it.kind == kGroup && (it.text == "(" || it.text == "["):
			if j > 0 && isPostfixable(out[j-1]) {
				j--
				continue
			}
			return j
		case it.kind == kIdent && keywords[it.text]:
			return -1
		case it.kind == kIdent || it.kind == kNumber || it.kind == kString || it.kind == kGroup:
			if it.kind == kIdent && j >= 2 && out[j-1].kind == kPunct &&
				(out[j-1].text == "." || out[j-1].text == "?.") {
				j -= 2
				continue
			}
			return j
		default:
			return -1
		}
	}
	return -1
}

// isPostfixable reports whether a "(" or "[" right after it is a call or an index on it.
func isPostfixable(it item) bool {
	switch it.kind {
	case kIdent:
		return !keywords[it.text]
	case kGroup, kString:
		return it.text != "{"
	}
	return false
}
