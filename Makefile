# The one entry point: `make run` serves on 127.0.0.1:8080, `make test` runs every test.
# Both install what a fresh Debian machine with the Swift toolchain is missing.

SWIFT ?= swift
APT_PACKAGES := pkg-config libmicrohttpd-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev libmosquitto-dev liblo-dev libmimalloc-dev libqrencode-dev zbar-tools liblo-tools mosquitto mosquitto-clients openssl curl
RELEASE_BIN := .build/release/buttond
# Release builds are optimized across all modules at link time (LTO): a press costs ~3 % fewer
# instructions (docs/performance.md). Every release build is this one (bench/run.sh reads the
# line): with other flags or only one product, the next would link buttond again (~1 min).
RELEASE := -c release --experimental-lto-mode=full

.PHONY: deps build release run test test-swift test-fuzz test-browser test-hostile test-mqtt test-osc test-readme test-container bench clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

run: release
	$(RELEASE_BIN) serve --data-dir ./data --public-dir ./public

# Every test: unit and live-server (Swift Testing), browser (Chromium), hostile input
# (schemathesis and friends), MQTT (a real mosquitto broker), the README's shell blocks, and
# the container build.
test: test-swift test-fuzz test-browser test-hostile test-mqtt test-osc test-readme test-container

test-swift: deps
	python3 tests/lint/tests_assert.py
	$(SWIFT) build --build-tests
	$(SWIFT) build $(RELEASE)
	BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) $(SWIFT) test --skip-build

# A bounded libFuzzer run over the JSON parser and the engine (FUZZ_SECONDS=3600 for a long one).
test-fuzz: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-30} bash fuzz/run.sh

test-browser: release
	BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) bash tests/browser/run.sh

test-hostile: release
	@if [ -f tests/hostile/run.sh ]; then BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) bash tests/hostile/run.sh; fi

test-mqtt: release
	BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) bash tests/mqtt/run.sh

# The README's quick start, handler walkthrough and client section, run as pasted.
test-osc: release
	BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) bash tests/osc/run.sh

test-readme: release
	BUTTOND_BIN=$(CURDIR)/$(RELEASE_BIN) bash tests/readme/run.sh

test-container:
	bash tests/container/run.sh

bench: deps
	bash bench/run.sh

clean:
	rm -rf .build
