from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text


def main():
    m = AnsibleModule(argument_spec=dict(path=dict(type='path', required=True), value=dict(type='str')),
                      supports_check_mode=True)
    p, v = m.params['path'], m.params['value']
    try:
        old = open(p).read()
    except IOError:
        old = None
    changed = old != v
    if changed and not m.check_mode:
        open(p, 'w').write(v)
    m.exit_json(changed=changed, old=to_text(old or ''), ansible_facts=dict(kv_seen=v))


if __name__ == '__main__':
    main()
