# kupgrade: `make demo` walks the seed story in a lab; `make test` runs every test.
.DEFAULT_GOAL := help
SHELL := /bin/bash

GO       ?= go
BIN      := bin/kupgrade
LABBIN   := bin/kupgrade-lab
SIMBIN   := bin/kupgrade-fleetsim
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
UNIT_PKGS = $(shell $(GO) list ./... | grep -v /integration)
# Debian packages the tests and the lab need: debootstrap builds the lab image, openssh-server
# gives the sshd-backed unit tests and `make bench` a real sshd (never started as a service
# here), chromium drives the status page of `kupgrade watch` in ./integration, and prometheus
# carries the promtool that checks and tests deploy/prometheus/kupgrade-alerts.yml; spin and gcc
# model-check the lease protocol (state/model); ansible-core gives ansible-inventory, the
# reference of ./integration's inventory test; rpm lists the .rpm of `make package` (rpm -qlp)
# and zsh runs the zsh completion script in cmd/kupgrade's tests. Only `deps` installs them (as root): `unit` runs
# as any user and skips, with a message, the tests whose package is missing; `test`, `bench`,
# `demo` and `lab` call `deps` first.
DEB_PKGS := debootstrap openssh-server openssh-client sudo chromium prometheus spin gcc ansible-core ansible cron rpm zsh
DB       ?= sqlite
KEEP_LAB ?= 0
DIST     := dist

.PHONY: help deps build package man docs check test unit integration faults test-galera lint bench bench-fleet test-fleet demo lab lab-down reallab reallab-down test-real clean

help: ## show this help
	@awk 'BEGIN{FS=":.*## "} /^[a-z-]+:.*## /{printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## install the Debian packages the tests and the lab need, when missing
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null); rc=$$?; \
		rm -f /usr/sbin/policy-rc.d; exit $$rc; \
	fi

build: ## build bin/kupgrade, bin/kupgrade-lab and bin/kupgrade-fleetsim (put bin/ on PATH to type them: README)
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kupgrade
	$(GO) build -o $(LABBIN) ./integration/cmd/kupgrade-lab
	$(GO) build -o $(SIMBIN) ./integration/cmd/kupgrade-fleetsim

package: build ## build dist/*.deb and dist/*.rpm with nfpm (binary, man page, completions, alert rules, systemd unit, Grafana dashboard) and dist/SHA256SUMS
	rm -rf $(DIST)
	$(GO) run ./internal/cmd/kupgrade-package -bin $(BIN) -version $(VERSION) -commit $(COMMIT) -out $(DIST)

man: build ## write kupgrade.1, the man page generated from the command grammar
	$(BIN) man > kupgrade.1

docs: build ## write docs/cli.md, the command reference generated from the command grammar
	$(BIN) man --markdown > docs/cli.md

# How many Docker-backed tests run side by side: they mostly wait on containers, so more than
# the cores; each holds a lab of a few containers.
INTEGRATION_PARALLEL ?= 4

check: ## go vet and the fast unit tests (-short: no Spin model, no Chromium, no older-binary builds); about 2 minutes warm
	$(GO) vet -tags integration ./...
	$(GO) test -short -count=1 -timeout 10m $(UNIT_PKGS)

test: deps unit integration ## every test, unit and integration (what CI runs)

unit: ## unit tests (no Docker, no root; writes nothing outside the tree but Go's caches and temp dirs)
	$(GO) vet -tags integration ./...
	$(GO) test -count=1 -timeout 15m $(UNIT_PKGS)

integration: deps ## integration tests in Docker labs, INTEGRATION_PARALLEL at once (builds the lab image once; the real-Kubernetes tests are make test-real's)
	@echo "make: of the real-Kubernetes tests, make test runs TestRealHops where the real lab is built and skips the rest; make test-real (or KUPGRADE_FULL=1) builds the real lab when missing and runs them all"
	$(GO) test -tags integration -count=1 -timeout 60m -p 2 -parallel $(INTEGRATION_PARALLEL) ./integration/...

test-real: deps ## the real-Kubernetes tests: builds the real lab when missing (cold about 30 min on 2 cores), then about 60 min
	KUPGRADE_FULL=1 $(GO) test -tags integration -count=1 -timeout 120m -p 1 -run 'TestReal' -v ./integration/

faults: deps ## the Docker kill campaigns at full size (make test runs 10 and 2 here, 100 and 40 on simulated clusters): SIGKILL of upgrade run at 200 seeded moments, shared among KUPGRADE_FAULT_SHARDS labs side by side, and of upgrade abort at 12 (KUPGRADE_FAULT_KILLS, KUPGRADE_ABORT_KILLS, KUPGRADE_FAULT_SEED)
	KUPGRADE_FAULT_KILLS=$${KUPGRADE_FAULT_KILLS:-200} KUPGRADE_ABORT_KILLS=$${KUPGRADE_ABORT_KILLS:-12} KUPGRADE_FAULT_SHARDS=$${KUPGRADE_FAULT_SHARDS:-8} $(GO) test -tags integration -count=1 -timeout 90m -p 1 -parallel 8 -run 'TestFaultKillAtRandomMoments|TestFaultKillInsideTheAbort' -v ./integration/

test-galera: deps ## the store, the audit lock and an upgrade against a 3-node MariaDB Galera cluster (about 5 minutes; KUPGRADE_GALERA_NODES=all runs the store suite on every node)
	KUPGRADE_GALERA=1 $(GO) test -tags integration -count=1 -timeout 30m -p 1 -run 'Galera' -v ./integration/...

lint: ## gofmt and go vet
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "run gofmt -w on the files above"; exit 1; }
	$(GO) vet -tags integration ./...

bench: deps ## kupgrade play vs ansible-playbook vs a Go lower bound on N local sshd servers, N up to 200 (about 12 minutes)
	@command -v ansible-playbook >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ansible-core >/dev/null)
	$(GO) run -tags integration ./integration/bench -n 5,20,50,200 -ansible-n 5,20

bench-fleet: ## fleet run on 100 and 1,000 simulated clusters, SQLite and MariaDB: wall, CPU, transactions and statements per cluster (about 10 minutes; needs Docker for MariaDB)
	$(GO) run -tags integration ./integration/benchfleet -n 100,1000 -db sqlite,mariadb

test-fleet: ## the fleet at full size: 1,000 simulated clusters by one fleet run on SQLite, and by three runs sharing MariaDB with one SIGKILLed (about 5 minutes)
	KUPGRADE_FULL=1 $(GO) test -count=1 -timeout 30m -run 'TestFleetRun$$' -v ./cmd/kupgrade
	KUPGRADE_FULL=1 $(GO) test -tags integration -count=1 -timeout 30m -run 'TestFleetThreeRunnersOneKilled' -v ./integration/

demo: deps build ## walk the seed story in a lab (DB=mysql for MariaDB, KEEP_LAB=1 to keep it)
	@$(LABBIN) image >/dev/null
	DB=$(DB) KEEP_LAB=$(KEEP_LAB) integration/demo/demo.sh

lab: deps build ## start a lab (2 controllers, 1 worker) and write lab/inventory.yml and lab/known_hosts
	@$(LABBIN) --dir lab up --controllers 2 --workers 1

lab-down: build ## remove the lab started by `make lab`
	@$(LABBIN) --dir lab down

reallab: deps build ## start a real Kubernetes lab (kubeadm 2+1, external etcd) in reallab/; the first build takes about 30 min
	@$(LABBIN) --dir reallab up --real --controllers 2 --workers 1

reallab-down: build ## remove the lab started by `make reallab`
	@$(LABBIN) --dir reallab down

clean: ## remove build outputs
	rm -rf bin $(DIST) kupgrade.db kupgrade.db-* kupgrade.1 lab-demo
