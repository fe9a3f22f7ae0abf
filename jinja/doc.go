// Package jinja is kupgrade's Ansible-flavoured Jinja2: the templating of `{{ }}` and `{% %}`
// in module arguments, template files and `when:`-style conditions, with Ansible 2.14's
// semantics. It knows nothing of playbooks, hosts or the upgrade: it reads the variables it is
// given and returns a value, a text or a truth.
//
// The API:
//   - Render renders module arguments and set_fact values: a result that reads as a list, a dict
//     or a boolean becomes one; "{{ var }}" holding a number keeps it.
//   - RenderString renders to text (names, commands, file names); RenderFile renders a template
//     file as the template module does; RenderValue renders every string inside a map or list.
//   - Cond evaluates a condition (`when:`, `failed_when:`, `that:`), bare or in "{{ }}".
//   - CheckTemplate and CheckCond parse without evaluating, for a loader that must refuse a typo
//     before anything runs; Str is Python's str() of a value.
//   - An undefined variable is an *UndefinedError; Omit is the value `omit` stands for; DataKey
//     lists the variables that are data and never rendered again.
//   - Mappings keep their keys' order, as Python's dicts do (order.go): OrderYAML and OrderJSON
//     record it for decoded documents, SetOrder for a map built in order, CopyOrder for a copy;
//     Keys returns it (keys never recorded follow, sorted).
//
// Templates are Jinja2 (github.com/nikolalohinski/gonja/v2), parsed once and cached
// (jinja.go), checked as they parse (walker.go, nesting.go) and adapted to Ansible: its filters
// and tests over Jinja's (filters*.go, jtests*.go), Python's arithmetic (ops*.go), dotted
// filter names and Python's string escapes (preprocess.go), `x if c else y` inside brackets and
// tests with keyword arguments, which gonja alone does not parse (syntax.go, rewrite.go), its
// undefined variables and lazy templating (scope.go, undefined.go, hostvars.go), its bounded
// macros (macro.go) and its conversion of results (template.go, run.go, output.go, convert.go,
// repr.go, literal.go), PyYAML's emitter for to_yaml and to_nice_yaml (pyyaml.go), and Jinja's
// selectattr, rejectattr and sum with Python's semantics (filters_select.go).
// testdata/cases.yaml is a table of real-world expressions that
// TestJinjaMatchesAnsible checks against Ansible's own Templar (`go test ./jinja`).
//
// Guarantees:
//   - Templates never run shell or touch the host by themselves: lookup(), query() and q() call
//     the Lookuper their caller puts in the variables (LookupKey; the runner's runs Ansible's
//     lookups on the controller, as Ansible does), and fail without one; now() is refused when
//     parsed, and so is a filter or test kupgrade does not have, by its whole name
//     (ansible.utils.ipmath, say). An undefined variable is an *UndefinedError ("'foo' is
//     undefined"), except under default() or `is defined`/`is undefined`.
//   - A variable whose value holds a template is rendered when it is read, with the same
//     variables, so play vars may refer to each other in any order; one that refers to itself is
//     an error naming the chain. Variables listed under DataKey (registered results, set_fact)
//     are data and never rendered again; through hostvars, only another host's text variables
//     are rendered (with that host's variables), its maps and lists are read as they are.
//   - Parsed templates are cached by source, so a condition evaluated on many hosts is parsed
//     once. Every function of the API is safe for concurrent use.
//   - Macro calls nest at most MaxMacroDepth deep: a macro that calls itself without end is an
//     error naming its line, never a stack overflow (TestRecursiveMacroRefused).
//   - Brackets and block statements nest at most MaxNesting deep, and the syntax tree (a chain
//     of operators is as deep as it is long) at most 1000: deeper is an error, never a stack
//     overflow (TestDeepNestingRefused).
//   - Mappings keep their order through YAML, JSON, dict literals, combine, dict2items,
//     items2dict, dict(), keys()/values()/items(), `for k in d`, list/first/map and the other
//     iterating filters, repr and to_json/to_nice_json(sort_keys=False), as Ansible's; the order
//     table never keeps a map alive (TestKeysAfterChanges, TestDeadMapForgotten; the
//     mapping-order cases of testdata/cases.yaml in TestJinjaMatchesAnsible).
//   - No input makes the templating panic or hang (FuzzTemplate).
package jinja
