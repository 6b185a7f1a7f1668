# Plumb — build, test, run. No CMake: SwiftPM builds, this file wires the rest.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

PREFIX ?= /usr/local
CONFIG ?= debug
SWIFT ?= swift
SWIFT_FLAGS ?= -c $(CONFIG)
PLUMB = .build/$(CONFIG)/plumb
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages Plumb builds against and tests with.
DEB_PACKAGES = \
	pkg-config \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev \
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
	gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav \
	libgstrtspserver-1.0-dev gstreamer1.0-rtsp libsoup-3.0-dev \
	ffmpeg libimage-exiftool-perl \
	libglib2.0-dev dbus-daemon

.PHONY: all deps build test run bench install uninstall clean

all: build

# Installs only what is missing, so a warm machine skips apt entirely.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

test: deps
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	$(SWIFT) test $(SWIFT_FLAGS) --skip-build

# The default pipeline: the camera when one answers, otherwise the test pattern.
# A window when there is a display, otherwise a sink that just consumes frames.
run: build
	@sink=$$( [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && echo autovideosink || echo "fakesink sync=true" ); \
	if ls /dev/video* >/dev/null 2>&1 && \
	   $(PLUMB) check --strict pipelines/v4l2-preview.pipeline -D "sink=$$sink" >/dev/null 2>&1; then \
		echo "Camera found: running pipelines/v4l2-preview.pipeline into $$sink (Ctrl-C to stop)"; \
		exec $(PLUMB) run pipelines/v4l2-preview.pipeline -D "sink=$$sink"; \
	else \
		echo "No camera found: running the test pattern, pipelines/test-preview.pipeline, into $$sink (Ctrl-C to stop)"; \
		exec $(PLUMB) run pipelines/test-preview.pipeline -D "sink=$$sink" $(RUN_ARGS); \
	fi

bench: deps
	$(SWIFT) build -c release
	@for b in bench/*.sh; do [ -e "$$b" ] || continue; echo "== $$b"; bash "$$b" .build/release/plumb || exit 1; done

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/plumb/pipelines
	install -m 755 $(PLUMB) $(DESTDIR)$(PREFIX)/bin/plumb
	install -m 644 pipelines/*.pipeline $(DESTDIR)$(PREFIX)/share/plumb/pipelines/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/plumb
	rm -rf $(DESTDIR)$(PREFIX)/share/plumb

clean:
	rm -rf .build
