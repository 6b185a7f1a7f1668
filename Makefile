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
# The daemon's executable, which `plumb serve` execs: always beside plumb.
PLUMB_SERVE = $(dir $(PLUMB))plumb-serve
TEST_LOG ?= .build/test.log
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages Plumb builds against and tests with. Every element and program the code,
# the tests, the pipelines and the bench scripts use must come from these or their Depends
# (DebianPackagesTests checks it); systemd is for `systemd-analyze verify` of the unit.
DEB_PACKAGES = \
	pkg-config libstdc++-12-dev \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
	gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-x \
	libgstrtspserver-1.0-dev gstreamer1.0-rtsp libsoup-3.0-dev libzbar-dev \
	ffmpeg libimage-exiftool-perl curl \
	libglib2.0-dev dbus-daemon systemd \
	gpsd gpsd-clients faketime make \
	gstreamer1.0-nice python3-venv chromium chromium-driver qrencode zint \
	python3-matplotlib \
	qemu-system-x86 linux-image-amd64 busybox-static v4l-utils iio-sensor-proxy udev kmod usbip

.PHONY: all deps build test test-kernel test-venv test-trixie run bench order install uninstall clean

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

# The Python the WebRTC tests drive viewers with (aiortc, PyPI), made once; the
# tests call this target themselves when it is missing.
# TEST_VENV from the environment puts it elsewhere (make test-trixie: Debian 13's Python).
TEST_VENV ?= .build/test-venv
TEST_VENV_PACKAGES = aiortc==1.16.0 selenium==4.27.1 virtme-ng==1.42
test-venv: deps
	@[ -x $(TEST_VENV)/bin/python ] && $(TEST_VENV)/bin/python -c "import aiortc, selenium, virtme_ng" 2>/dev/null || { \
		python3 -m venv $(TEST_VENV) && \
		$(TEST_VENV)/bin/pip install -q --disable-pip-version-check $(TEST_VENV_PACKAGES); }

test: deps test-venv
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@# XCTest only (Swift Testing has no tests here and would close on "0 tests"); the
	@# last line is tools/test-summary.sh's "N passed, N failed" (in tests), or that the
	@# test process crashed, in which test, and what passed and failed before it.
	@set -o pipefail; $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-swift-testing $(TEST_ARGS) 2>&1 | tee $(TEST_LOG); \
	bash tools/test-summary.sh $(TEST_LOG) $$?

# Only the kernel-driver tests (the Kernel*Tests classes): one VM of Debian's own kernel
# (linux-image-amd64) booted by virtme-ng under QEMU's emulation runs Tests/Kernel/scenarios
# against vivid, uvcvideo and IIO; `make test` runs them with the rest.
test-kernel: deps test-venv
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@set -o pipefail; $(SWIFT) test $(SWIFT_FLAGS) --skip-build --disable-swift-testing --filter Kernel 2>&1 | tee $(TEST_LOG); \
	bash tools/test-summary.sh $(TEST_LOG) $$?

# The whole suite again in a Debian 13 root (GStreamer 1.26) made with debootstrap under
# .build/ and kept there (tools/test-trixie.sh); not part of `make test`. Needs root.
TRIXIE_PACKAGES = debootstrap
test-trixie:
	@missing=$$(for p in $(TRIXIE_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		$(SUDO) apt-get update -qq -o DPkg::Lock::Timeout=600 && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $$missing >/dev/null; \
	fi
	$(SUDO) TEST_ARGS="$(TEST_ARGS)" bash tools/test-trixie.sh $(DEB_PACKAGES)

# The embedded recorder's default: `plumb serve` on the camera if one is found, else the
# test pattern, rotation from an accelerometer if one is found, else fixed (it says which),
# and the RTSP and HTTP addresses. Ctrl-C finalizes every file and stops.
# RUN_ARGS adds options, e.g. make run RUN_ARGS="--set recording.continuous=true".
run: build
	exec $(PLUMB) serve $(RUN_ARGS)

# One run of every measurement (bench/run.sh): bench/results.json, results.md and charts.
bench: deps test-venv
	$(SWIFT) build -c release
	bash bench/run.sh .build/release/plumb

# Records the functions the common jobs run (valgrind's callgrind) into
# linker/symbol-order.txt, the order the linker lays them out in (Package.swift): re-run it
# when those jobs run much new code, then rebuild. Not part of build or test.
ORDER_PACKAGES = valgrind
order: deps
	@missing=$$(for p in $(ORDER_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		$(SUDO) apt-get update -qq -o DPkg::Lock::Timeout=600 && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends $$missing >/dev/null; \
	fi
	$(SWIFT) build -c release
	bash linker/order-symbols.sh .build/release
	@# SwiftPM does not see the order file change: link again.
	rm -f .build/release/plumb .build/release/plumb-serve .build/release/plumb-bench
	$(SWIFT) build -c release

# DESTDIR stages the files (packaging); the config is installed once and never replaced.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/plumb/pipelines \
		$(DESTDIR)$(SYSCONFDIR)/plumb $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	install -m 755 $(PLUMB) $(DESTDIR)$(PREFIX)/bin/plumb
	install -m 755 $(PLUMB_SERVE) $(DESTDIR)$(PREFIX)/bin/plumb-serve
	install -m 644 pipelines/*.pipeline $(DESTDIR)$(PREFIX)/share/plumb/pipelines/
	install -d $(DESTDIR)$(PREFIX)/share/plumb/web
	install -m 644 web/index.html web/plumb.css web/plumb.js $(DESTDIR)$(PREFIX)/share/plumb/web/
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
	rm -f $(DESTDIR)$(PREFIX)/bin/plumb $(DESTDIR)$(PREFIX)/bin/plumb-serve $(DESTDIR)$(SYSTEMD_UNIT_DIR)/plumb.service
	rm -rf $(DESTDIR)$(PREFIX)/share/plumb

clean:
	rm -rf .build
