# Plumb — build, test, run. No CMake: SwiftPM builds, this file wires the rest.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
# The config lives in /etc whatever the prefix; the unit goes where systemd looks for the
# prefix's units (/usr/lib/systemd/system for a distribution's /usr, /etc/systemd/system else).
SYSCONFDIR ?= /etc
SYSTEMD_UNIT_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,/etc/systemd/system)
CONFIG ?= debug
SWIFT ?= swift
SWIFT_FLAGS ?= -c $(CONFIG)
PLUMB ?= .build/$(CONFIG)/plumb
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages Plumb builds against and tests with.
DEB_PACKAGES = \
	pkg-config \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
	gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-x \
	libgstrtspserver-1.0-dev gstreamer1.0-rtsp libsoup-3.0-dev \
	ffmpeg libimage-exiftool-perl curl \
	libglib2.0-dev dbus-daemon

.PHONY: all deps build test run bench install uninstall clean

all: build

# Installs only what is missing, so a warm machine skips apt entirely.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq -o DPkg::Lock::Timeout=600 && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

test: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@# XCTest only (Swift Testing has no tests here and would close on "0 tests");
	@# the last line restates XCTest's summary as "N passed, N failed".
	@set -o pipefail; $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-swift-testing $(TEST_ARGS) 2>&1 | tee .build/test.log; \
	status=$$?; \
	summary=$$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" .build/test.log | tail -1); \
	total=$$(echo "$$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/'); \
	failed=$$(echo "$$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/'); \
	[ -n "$$summary" ] && echo "$$((total - failed)) passed, $$failed failed"; \
	exit $$status

# The embedded recorder's default: `plumb serve` on the camera if one is found, else the
# test pattern, rotation from an accelerometer if one is found, else fixed (it says which),
# and the RTSP and HTTP addresses. Ctrl-C finalizes every file and stops.
# RUN_ARGS adds options, e.g. make run RUN_ARGS="--set recording.continuous=true".
run: build
	exec $(PLUMB) serve $(RUN_ARGS)

bench: deps
	$(SWIFT) build -c release
	@for b in bench/*.sh; do [ -e "$$b" ] || continue; echo "== $$b"; bash "$$b" .build/release/plumb || exit 1; done

# DESTDIR stages the files (packaging); the config is installed once and never replaced.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/plumb/pipelines \
		$(DESTDIR)$(SYSCONFDIR)/plumb $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	install -m 755 $(PLUMB) $(DESTDIR)$(PREFIX)/bin/plumb
	install -m 644 pipelines/*.pipeline $(DESTDIR)$(PREFIX)/share/plumb/pipelines/
	install -m 644 config/plumb.example.ini $(DESTDIR)$(PREFIX)/share/plumb/plumb.example.ini
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/plumb/plumb.ini ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/plumb/plumb.ini (the new defaults are in $(PREFIX)/share/plumb/plumb.example.ini)"; \
	else \
		install -m 644 config/plumb.example.ini $(DESTDIR)$(SYSCONFDIR)/plumb/plumb.ini; \
	fi
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' packaging/plumb.service \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/plumb.service
	chmod 644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/plumb.service
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
	@echo "installed; start the service with: systemctl enable --now plumb"

# The config in /etc stays: it is the user's.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/plumb $(DESTDIR)$(SYSTEMD_UNIT_DIR)/plumb.service
	rm -rf $(DESTDIR)$(PREFIX)/share/plumb

clean:
	rm -rf .build
