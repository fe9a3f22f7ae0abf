package jinja

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

var hashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha256": sha256.New, "sha512": sha512.New,
	"sha224": sha256.New224, "sha384": sha512.New384,
}

func fHash(in any, args []any, kw map[string]any) (any, error) {
	return fHashOf(str(arg(args, kw, 0, "hashtype", "sha1")))(in, nil, nil)
}

func fHashOf(name string) filter {
	return func(in any, _ []any, _ map[string]any) (any, error) {
		h, ok := hashes[name]
		if !ok {
			return nil, fmt.Errorf("unknown hash type %q", name)
		}
		d := h()
		d.Write([]byte(str(in)))
		return hex.EncodeToString(d.Sum(nil)), nil
	}
}

// fFormat is Jinja's format filter: Python's printf-style "%s" % args.
func fFormat(in any, args []any, kw map[string]any) (any, error) {
	return pyPercent(str(in), args)
}

// pyPercent formats like Python's % operator for %s %r %d %i %f %x %o %e %g and %%.
func pyPercent(f string, args []any) (string, error) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ #0123456789.", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			return "", fmt.Errorf("incomplete format")
		}
		spec, verb := f[i+1:j], f[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if n >= len(args) {
			return "", fmt.Errorf("not enough arguments for format string")
		}
		a := args[n]
		n++
		switch verb {
		case 's':
			fmt.Fprintf(&b, "%"+spec+"s", str(a))
		case 'r':
			var r strings.Builder
			writeRepr(&r, a)
			fmt.Fprintf(&b, "%"+spec+"s", r.String())
		case 'd', 'i':
			v, _ := fInt(a, nil, nil)
			fmt.Fprintf(&b, "%"+spec+"d", v)
		case 'f', 'e', 'g', 'F', 'E', 'G':
			v, _ := fFloat(a, nil, nil)
			if !strings.Contains(spec, ".") && verb != 'g' && verb != 'G' {
				spec += ".6"
			}
			fmt.Fprintf(&b, "%"+spec+string(verb), v)
		case 'x', 'X', 'o':
			v, _ := fInt(a, nil, nil)
			fmt.Fprintf(&b, "%"+spec+string(verb), v)
		default:
			return "", fmt.Errorf("unsupported format character %q", verb)
		}
	}
	return b.String(), nil
}
