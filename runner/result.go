package runner

// TaskResult is the typed view of a module's result (what a task registers, and the evidence of a
// host's failure): the keys every module may set, read the way the engine reads them. The
// result's other keys stay in the map (Recap.Registered).
type TaskResult struct {
	RC      *int // the command's exit status; nil when the module ran no command
	Stdout  string
	Stderr  string
	Msg     string
	Changed bool
	Failed  bool
	Skipped bool
	// TimedOut: the task's timeout stopped it (rc is then 124, and Msg says after how long).
	TimedOut bool
}

// ResultOf reads a module's result v (a map, as a task registers it); a value of any other
// shape, or a missing key, reads as the key's zero value.
func ResultOf(v any) TaskResult {
	res, _ := v.(map[string]any)
	r := TaskResult{Stdout: str(res["stdout"]), Stderr: str(res["stderr"]), Msg: str(res["msg"]),
		Changed: truth(res["changed"]), Failed: truth(res["failed"]), Skipped: truth(res["skipped"]),
		TimedOut: truth(res["timedout"])}
	if rc, ok := res["rc"].(int); ok {
		r.RC = &rc
	}
	return r
}

// NonZero reports whether the result records a command that exited non-zero.
func (r TaskResult) NonZero() bool { return r.RC != nil && *r.RC != 0 }

// TaskResult reads the evidence of the host's failure (empty under no_log).
func (e *HostError) TaskResult() TaskResult { return ResultOf(e.Result) }
