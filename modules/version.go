package modules

// AnsibleVersion is the ansible-core release whose behaviour kupgrade follows: what a Python
// module is told (_ansible_version) and what a playbook reads as ansible_version.
const AnsibleVersion = "2.14.18"
