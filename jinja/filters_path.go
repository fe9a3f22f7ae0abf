package jinja

import (
	"encoding/base64"
	"fmt"
	"path"
	"strings"
)

// fBasename and fDirname are Python's os.path.basename and dirname ("a/b/" -> "" and "a/b").
func fBasename(in any, _ []any, _ map[string]any) (any, error) {
	s := str(in)
	return s[strings.LastIndex(s, "/")+1:], nil
}

func fDirname(in any, _ []any, _ map[string]any) (any, error) {
	s := str(in)
	head := s[:strings.LastIndex(s, "/")+1]
	if strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head, nil
}

func fPathJoin(in any, _ []any, _ map[string]any) (any, error) {
	parts, ok := in.([]any)
	if !ok {
		return str(in), nil
	}
	out := ""
	for _, p := range parts {
		s := str(p)
		if strings.HasPrefix(s, "/") || out == "" {
			out = s
		} else if strings.HasSuffix(out, "/") {
			out += s
		} else {
			out += "/" + s
		}
	}
	return out, nil
}

func fSplitext(in any, _ []any, _ map[string]any) (any, error) {
	s := str(in)
	ext := path.Ext(s)
	if ext == s || strings.HasPrefix(path.Base(s), ext) {
		ext = ""
	}
	return []any{strings.TrimSuffix(s, ext), ext}, nil
}

func fB64Encode(in any, _ []any, _ map[string]any) (any, error) {
	return base64.StdEncoding.EncodeToString([]byte(str(in))), nil
}

func fB64Decode(in any, _ []any, _ map[string]any) (any, error) {
	b, err := base64.StdEncoding.DecodeString(str(in))
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func fTypeDebug(in any, _ []any, _ map[string]any) (any, error) {
	switch in.(type) {
	case nil:
		return "NoneType", nil
	case bool:
		return "bool", nil
	case int:
		return "int", nil
	case float64:
		return "float", nil
	case string:
		return "str", nil
	case []any:
		return "list", nil
	case map[string]any:
		return "dict", nil
	}
	return fmt.Sprintf("%T", in), nil
}
