# Kiosk — the two commands are `make run` and `make test`; the rest are their parts.
SWIFT ?= swift
BUILD := .build
KIOSK := $(BUILD)/release/kiosk
MODULE := $(BUILD)/e2e/kiosk-test-input.so
PYTHON := /usr/bin/python3

.PHONY: run test deps build module unit e2e generate bench clean

run: deps build module
	@if [ -n "$${WAYLAND_DISPLAY:-}" ]; then exec $(KIOSK); \
	else ./Packaging/headless-run.sh $(KIOSK) $(abspath $(MODULE)) out; fi

test: deps unit build module e2e

deps:
	@./Packaging/install-deps.sh

# The Swift runtime linked statically: ~4 ms less dynamic loading before the first frame.
build:
	$(SWIFT) build -c release --static-swift-stdlib

$(MODULE): Tests/E2E/weston-module/kiosk-test-input.c
	@mkdir -p $(dir $@)
	cc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -o $@ $< \
		$$(pkg-config --cflags --libs libweston-10 wayland-server)

module: $(MODULE)

unit:
	$(SWIFT) test

e2e: build module
	KIOSK_BIN=$(abspath $(KIOSK)) KIOSK_TEST_MODULE=$(abspath $(MODULE)) \
		$(PYTHON) -m pytest -q -p no:cacheprovider Tests/E2E

generate:
	./Protocols/generate.sh

bench: deps build
	$(KIOSK) bench --scene touch --size 1920x1080 --frames 2000 --items 1

clean:
	rm -rf $(BUILD) out
