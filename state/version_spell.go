package state

// SpellVersions rewrites each non-empty version in vs to the one spelling the store and the
// hosts use ("1.30.1" becomes "v1.30.1"); the first that does not parse is the error, and then
// none is rewritten.
func SpellVersions(vs ...*string) error {
	out := make([]string, len(vs))
	for i, v := range vs {
		if *v == "" {
			continue
		}
		pv, err := ParseVersion(*v)
		if err != nil {
			return err
		}
		out[i] = pv.String()
	}
	for i, v := range vs {
		if *v != "" {
			*v = out[i]
		}
	}
	return nil
}
