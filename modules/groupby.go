package modules

import (
	"context"
	"fmt"
	"strings"
)

// modGroupBy is Ansible's group_by action: it names the group (spaces become dashes) and its
// parents (all by default) in the result, as add_group and parent_groups; the runner, which
// holds the play's inventory, puts the host in them and says whether that changed anything.
func modGroupBy(_ context.Context, _ *Task, args map[string]any) (map[string]any, error) {
	key, ok := args["key"]
	if !ok {
		return Failure("the 'key' param is required when using group_by"), nil
	}
	var parents []any
	switch p := args["parents"].(type) {
	case nil:
		parents = []any{"all"}
	case string:
		parents = []any{p}
	case []any:
		parents = p
	default:
		return Failure(fmt.Sprintf("parents must be a name or a list of names, not %T", p)), nil
	}
	names := make([]any, len(parents))
	for i, p := range parents {
		names[i] = strings.ReplaceAll(fmt.Sprint(p), " ", "-")
	}
	return map[string]any{"changed": false, "add_group": strings.ReplaceAll(fmt.Sprint(key), " ", "-"),
		"parent_groups": names}, nil
}
