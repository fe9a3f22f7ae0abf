package kubeadm

import (
	"encoding/json"
	"fmt"
	"time"
)

// Map is the snapshot as the kubelet_config module registers it: config_exists, config_sha256,
// config_mtime (RFC 3339, "" when missing), manifests, control_plane_version (the lowest tag),
// upgraded_manifests_dirs, backup_dirs, kubelet_config_backups (path, has_config), taken and
// changed (false); fence (busy, key, generation, owner, since, command) when the host has one.
func (s Snapshot) Map() map[string]any {
	man := make(map[string]any, len(s.Manifests))
	for k, v := range s.Manifests {
		man[k] = v
	}
	kb := make([]any, len(s.KubeletConfigBackups))
	for i, b := range s.KubeletConfigBackups {
		kb[i] = map[string]any{"path": b.Path, "has_config": b.HasConfig}
	}
	m := map[string]any{
		"changed":                 false,
		"taken":                   timeText(s.Taken),
		"config_exists":           s.ConfigExists,
		"config_sha256":           s.ConfigSHA256,
		"config_mtime":            timeText(s.ConfigMtime),
		"manifests":               man,
		"control_plane_version":   s.ControlPlaneVersion(),
		"upgraded_manifests_dirs": toAnySlice(s.UpgradedManifestsDirs),
		"backup_dirs":             toAnySlice(s.BackupDirs),
		"kubelet_config_backups":  kb,
	}
	if f := s.Fence; f != nil {
		m["fence"] = map[string]any{"busy": f.Busy, "damaged": f.Damaged, "cluster": f.Cluster, "key": f.Key,
			"generation": f.Generation, "owner": f.Owner, "since": timeText(f.Since), "command": f.Command}
	}
	return m
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// SnapshotFromValue reads a snapshot back from what templating hands over: the registered map
// (Snapshot.Map), a Snapshot, or its JSON text.
func SnapshotFromValue(v any) (Snapshot, error) {
	switch x := v.(type) {
	case Snapshot:
		return x, nil
	case *Snapshot:
		return *x, nil
	case string:
		var s Snapshot
		if err := json.Unmarshal([]byte(x), &s); err != nil {
			return Snapshot{}, fmt.Errorf("read snapshot: %w", err)
		}
		return s, nil
	case map[string]any:
		return snapshotFromMap(x)
	case nil:
		return Snapshot{}, nil
	}
	return Snapshot{}, fmt.Errorf("read snapshot: unexpected %T", v)
}

func snapshotFromMap(m map[string]any) (Snapshot, error) {
	var s Snapshot
	var err error
	if s.Taken, err = parseTime(m["taken"]); err != nil {
		return s, err
	}
	if s.ConfigMtime, err = parseTime(m["config_mtime"]); err != nil {
		return s, err
	}
	s.ConfigExists, _ = m["config_exists"].(bool)
	s.ConfigSHA256, _ = m["config_sha256"].(string)
	s.Manifests = map[string]string{}
	switch man := m["manifests"].(type) {
	case map[string]any:
		for k, v := range man {
			s.Manifests[k] = fmt.Sprint(v)
		}
	case map[string]string:
		for k, v := range man {
			s.Manifests[k] = v
		}
	}
	s.UpgradedManifestsDirs = stringList(m["upgraded_manifests_dirs"])
	s.BackupDirs = stringList(m["backup_dirs"])
	if l, ok := m["kubelet_config_backups"].([]any); ok {
		for _, x := range l {
			b, _ := x.(map[string]any)
			p, _ := b["path"].(string)
			h, _ := b["has_config"].(bool)
			s.KubeletConfigBackups = append(s.KubeletConfigBackups, KubeletBackup{Path: p, HasConfig: h})
		}
	}
	if f, ok := m["fence"].(map[string]any); ok {
		st := &FenceStamp{}
		st.Busy, _ = f["busy"].(bool)
		st.Damaged, _ = f["damaged"].(bool)
		st.Cluster, _ = f["cluster"].(string)
		st.Key, _ = f["key"].(string)
		st.Owner, _ = f["owner"].(string)
		st.Command, _ = f["command"].(string)
		switch g := f["generation"].(type) {
		case int64:
			st.Generation = g
		case int:
			st.Generation = int64(g)
		case float64:
			st.Generation = int64(g)
		}
		if st.Since, err = parseTime(f["since"]); err != nil {
			return s, err
		}
		s.Fence = st
	}
	return s, nil
}

func parseTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return x, nil
	case string:
		if x == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return time.Time{}, fmt.Errorf("read snapshot: %w", err)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("read snapshot: time: unexpected %T", v)
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, s := range x {
			out = append(out, fmt.Sprint(s))
		}
		return out
	}
	return nil
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
