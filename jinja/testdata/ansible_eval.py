"""Evaluates kupgrade's Jinja conformance cases with Ansible's own Templar, in one process.

Reads {"vars": {...}, "cases": [{"kind": "template" | "file" | "cond", "src": "..."}]} as JSON on stdin
and writes one JSON list: for each case {"value": ...} or {"error": "..."}. A template is
rendered as module arguments are (Templar.template); a file as the template module renders
one (do_template without doubling backslashes or converting the result); a condition as
`when:` is (Conditional.evaluate_conditional).
"""
import json
import sys

from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.conditional import Conditional
from ansible.template import Templar


def plain(v):
    """JSON-ready copy of a result: tuples become lists, other objects their text."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v if not isinstance(v, str) else str(v)
    return str(v)


def main():
    spec = json.load(sys.stdin)
    loader = DataLoader()
    variables = spec["vars"]
    templar = Templar(loader=loader, variables=variables)
    out = []
    for case in spec["cases"]:
        try:
            if case["kind"] == "cond":
                cond = Conditional(loader=loader)
                cond.when = [case["src"]]
                value = cond.evaluate_conditional(templar, variables)
            elif case["kind"] == "file":
                value = templar.do_template(case["src"], preserve_trailing_newlines=True,
                                            escape_backslashes=False)
            else:
                value = templar.template(case["src"])
            out.append({"value": plain(value)})
        except (AnsibleError, Exception) as e:  # every failure is an answer to compare
            out.append({"error": str(e).splitlines()[0] if str(e) else type(e).__name__})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
