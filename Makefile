# Kiosk — the two commands are `make run` and `make test`; the rest are their parts.
SWIFT ?= swift
BUILD := .build
KIOSK := $(BUILD)/release/kiosk
MODULE := $(BUILD)/e2e/kiosk-test-input.so
STRICT := $(BUILD)/e2e/strict-compositor
BAD_CLIENT := $(BUILD)/e2e/bad-client
VINPUT := $(BUILD)/e2e/virtual-input
NO_SCANOUT := $(BUILD)/e2e/cage-no-scanout.so
PYTHON := /usr/bin/python3
# The arm64 package is cross-built on amd64 (Packaging/arm64.py); elsewhere make build is native.
HOST_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
# A module that imports a layer it does not declare (an upward import) fails the build: SwiftPM
# alone would let it through whenever that module happens to be built first.
LAYERS := --explicit-target-dependency-import-check error

.PHONY: run test phase-start deps deps-deb deps-test build locale pot build-arm64 module tools unit e2e vm vm-images vm-shell deb repo test-compositors fuzz soak generate bench pictures clean

run: deps build module
	@if [ -n "$${WAYLAND_DISPLAY:-}" ]; then exec $(KIOSK); \
	else ./Packaging/headless-run.sh $(KIOSK) $(abspath $(MODULE)) out; fi

# Each phase stamped as it ends; the last line says how long each took (CI shows the tail). The
# package comes first, so that the booted machines' images build while the unit and end-to-end
# tests run.
TEST_PHASES := deps-test build module tools deb vm-images unit e2e vm
test: phase-start $(foreach p,$(TEST_PHASES),$(p) phase-$(p))
	@awk 'NR == 1 { start = $$2 } NR > 1 { printf "%s%s %.1f min", sep, $$1, ($$2 - last) / 60; sep = ", " } { last = $$2 } \
		END { printf " (all %.1f min)\n", (last - start) / 60 }' $(BUILD)/test-phases | sed 's/^/make test: /'

phase-start:
	$(CHECK_SWIFT)
	@mkdir -p $(BUILD) && echo "start $$(date +%s)" > $(BUILD)/test-phases
phase-%:
	@echo "$* $$(date +%s)" >> $(BUILD)/test-phases

# `make run` installs what building and running need (Packaging/packages-run.txt), `make deb`
# the packaging tools besides (packages-deb.txt), `make test` what its tests need too
# (packages-test.txt), each under this release's names, with
# Debian 13's own Swift when none is on PATH. Where no Swift can be installed (Debian 12), one
# line says what to install before anything is installed or built.
NO_SWIFT = $(shell ./Packaging/install-deps.sh --no-swift $(SWIFT))
CHECK_SWIFT = $(if $(NO_SWIFT),$(error $(NO_SWIFT)))
deps:
	$(CHECK_SWIFT)
	@./Packaging/install-deps.sh $(SWIFT) Packaging/packages-run.txt
deps-deb:
	$(CHECK_SWIFT)
	@./Packaging/install-deps.sh $(SWIFT) Packaging/packages-run.txt Packaging/packages-deb.txt
deps-test:
	$(CHECK_SWIFT)
	@./Packaging/install-deps.sh $(SWIFT) Packaging/packages-run.txt Packaging/packages-deb.txt Packaging/packages-test.txt

# How the kiosk is linked, each for less start-up work and memory (numbers: docs/measurements.md):
# - the Swift runtime statically: less dynamic loading, and a binary that runs without the
#   toolchain (so no run path to it, nor $ORIGIN);
# - by lld with packed relative relocations (DT_RELR, glibc 2.36+), ASLR kept;
# - libstdc++ statically (nothing else loads it): the runtime's `-lstdc++` finds only the
#   archive in STATIC_CXX, searched first (GCC's runtime library exception allows this);
# - no exported symbols (nothing loads symbols from the kiosk);
# - a build ID (dh_strip and debuggers find its debug symbols by it; Debian's Swift 6.0 does
#   not ask lld for one);
# - functions in the order of Packaging/link-order.txt (the screensaver's first, then the rest
#   a running kiosk executes), one section per function, so the code it runs shares pages; the
#   list is regenerated with Tests/E2E/tools/link_order.py (a name no longer found only loses
#   its place).
# EXTRA_LINK adds link flags for one build (link_order.py asks for a link map with it).
STATIC_CXX := $(BUILD)/static-cxx
LINK_ORDER := Packaging/link-order.txt
LINK := -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xswiftc -L$(abspath $(STATIC_CXX)) \
	-Xlinker --no-export-dynamic -Xlinker --build-id=sha1 -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --symbol-ordering-file=$(abspath $(LINK_ORDER)) -Xlinker --no-warn-symbol-ordering $(EXTRA_LINK)
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -no-toolchain-stdlib-rpath $(LINK)
# SwiftPM keeps its build plan when only the -X flags change, and does not relink when the
# order file does: drop a plan made with other flags ($(1): the scratch folder, $(2): the
# flags), and a binary older than the list ($(3)).
define fresh-plan
	@mkdir -p $(1) && if [ "$$(cat $(1)/release-flags 2>/dev/null)" != "$(2)" ]; then \
		rm -f $(1)/release.yaml; printf '%s' "$(2)" > $(1)/release-flags; fi
	@if [ -e $(3) ] && [ $(3) -ot $(LINK_ORDER) ]; then rm -f $(3); fi
endef
build:
	@mkdir -p $(STATIC_CXX) && ln -sf "$$($(CC) -print-file-name=libstdc++.a)" $(STATIC_CXX)/libstdc++.a
	@test -f $(STATIC_CXX)/libstdc++.a || { echo "make build: libstdc++.a not found (Debian's libstdc++-N-dev for $$($(CC) -dumpversion)'s gcc; make deps installs it)" >&2; exit 1; }
	$(call fresh-plan,$(BUILD),$(RELEASE_FLAGS),$(KIOSK))
	$(SWIFT) build $(LAYERS) $(RELEASE_FLAGS)
	@$(MAKE) --no-print-directory locale

# The package's languages (po/LANG.po) compiled where a kiosk looks for them from its
# executable, ../share/kiosk/locale: /usr/bin/kiosk finds /usr/share/kiosk/locale, a built one
# .build/<target>/share/kiosk/locale.
locale:
	@dir=$$(dirname "$$(readlink -f $(KIOSK))")/../share/kiosk/locale; \
	for po in po/*.po; do l=$$(basename $$po .po); mkdir -p $$dir/$$l/LC_MESSAGES; \
		msgfmt --check -o $$dir/$$l/LC_MESSAGES/kiosk.mo $$po || exit 1; done

# After changing an English text: the template again, and each language merged with it
# (msgmerge marks the translations of changed texts fuzzy; the unit tests name them until a
# translator checks them).
pot: build
	$(KIOSK) texts --pot > po/kiosk.pot
	for po in po/*.po; do msgmerge --quiet --update --backup=none --no-wrap --previous $$po po/kiosk.pot || exit 1; done

# The arm64 kiosk, linked the same way, cross-built with Debian 13's own Swift in a Debian 13
# root (Packaging/arm64.py; docs/cross-building.md): .build/arm64/release/kiosk. Building the
# root needs root, as the booted-machine tests do.
ARM64 := $(BUILD)/arm64/release/kiosk
ARM64_FLAGS := $(subst $(abspath $(STATIC_CXX)),$(abspath $(BUILD)/arm64/static-cxx),$(RELEASE_FLAGS))
build-arm64:
ifeq ($(HOST_ARCH),amd64)
	$(call fresh-plan,$(BUILD)/arm64,$(ARM64_FLAGS),$(ARM64))
	@if [ "$$(id -u)" = 0 ]; then $(PYTHON) Packaging/arm64.py build $(LAYERS) $(ARM64_FLAGS); \
	else echo "build-arm64: skipped (its Debian 13 root needs root)"; fi
else
	@echo "build-arm64: nothing to cross-build on $(HOST_ARCH) (make build is this machine's own)"
endif

# Built against the release's libweston (10 on Debian 12, 14 on Debian 13).
$(MODULE): Tests/E2E/weston-module/kiosk-test-input.c
	@mkdir -p $(dir $@)
	@weston=$$(pkg-config --list-all | awk '$$1 ~ /^libweston-[0-9]+$$/ { print $$1 }' | sort -V | tail -1); \
	[ -n "$$weston" ] || { echo "make module: no libweston-N-dev (make deps installs it)" >&2; exit 1; }; \
	echo "cc -shared -o $@ $< ($$weston)"; cc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -o $@ $< \
		$$(pkg-config --cflags --libs $$weston wayland-server)

module: $(MODULE)

# The strict test compositor (Tests/E2E/strict-compositor): xdg-shell's server glue comes from
# the vendored XML, like the client's.
$(STRICT): Tests/E2E/strict-compositor/strict-compositor.c Protocols/xdg-shell.xml
	@mkdir -p $(BUILD)/e2e/strict-gen
	wayland-scanner server-header Protocols/xdg-shell.xml $(BUILD)/e2e/strict-gen/xdg-shell-server-protocol.h
	wayland-scanner private-code Protocols/xdg-shell.xml $(BUILD)/e2e/strict-gen/xdg-shell-protocol.c
	cc -O2 -Wall -Wextra -Wno-unused-parameter -I$(BUILD)/e2e/strict-gen -o $@ $< \
		$(BUILD)/e2e/strict-gen/xdg-shell-protocol.c $$(pkg-config --cflags --libs wayland-server pixman-1 xkbcommon)

# A client that makes one mistake on purpose: the tests show the strict compositor catches it.
$(BAD_CLIENT): Tests/E2E/strict-compositor/bad-client.c Sources/CWayland/xdg-shell-protocol.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -Wno-unused-parameter -ISources/CWayland/include -o $@ $< \
		Sources/CWayland/xdg-shell-protocol.c $$(pkg-config --cflags --libs wayland-client)

# Long-lived virtual pointer and keyboard for the tests under sway (Tests/E2E/virtual-input).
VINPUT_XML := $(wildcard Tests/E2E/virtual-input/*.xml)
$(VINPUT): Tests/E2E/virtual-input/virtual-input.c $(VINPUT_XML)
	@mkdir -p $(BUILD)/e2e/vinput-gen
	for x in $(VINPUT_XML); do n=$$(basename $$x .xml); \
		wayland-scanner client-header $$x $(BUILD)/e2e/vinput-gen/$$n-client-protocol.h && \
		wayland-scanner private-code $$x $(BUILD)/e2e/vinput-gen/$$n-protocol.c || exit 1; done
	cc -O2 -Wall -Wextra -Wno-unused-parameter -I$(BUILD)/e2e/vinput-gen -o $@ $< $(BUILD)/e2e/vinput-gen/*-protocol.c \
		$$(pkg-config --cflags --libs wayland-client xkbcommon)

# A measuring shim that makes headless cage composite as on a panel (Tests/E2E/cage-no-scanout).
$(NO_SCANOUT): Tests/E2E/cage-no-scanout/cage-no-scanout.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -Wextra -shared -fPIC -o $@ $< -ldl

# Test programs beside the compositors: the strict compositor, its bad client, virtual input,
# the cage shim.
tools: $(STRICT) $(BAD_CLIENT) $(VINPUT) $(NO_SCANOUT)

unit:
	for po in po/*.po; do msgfmt --check --output-file=/dev/null $$po || exit 1; done
	$(SWIFT) test $(LAYERS)

# Then the wlroots checks again under Debian 13's cage and sway (with the speech, large-mode,
# screenshot and closing-time checks that drive them), run from a trixie root that mmdebstrap builds (as root; cached in
# .build/e2e-roots).
e2e: build module tools
	KIOSK_BIN=$(abspath $(KIOSK)) KIOSK_TEST_MODULE=$(abspath $(MODULE)) KIOSK_STRICT=$(abspath $(STRICT)) \
		$(PYTHON) -m pytest -q -p no:cacheprovider Tests/E2E
	@if [ "$$(id -u)" = 0 ]; then \
		KIOSK_E2E_RELEASE=trixie KIOSK_BIN=$(abspath $(KIOSK)) KIOSK_STRICT=$(abspath $(STRICT)) \
			$(PYTHON) -m pytest -q -p no:cacheprovider Tests/E2E/test_wlroots.py Tests/E2E/test_speech.py Tests/E2E/test_large.py Tests/E2E/test_screenshot.py Tests/E2E/test_hours.py Tests/E2E/test_exhibits.py Tests/E2E/test_orientation.py \
			-k "cage or sway"; \
	else echo "e2e: Debian 13's compositors skipped (building their root needs root)"; fi

# Booted for real (Tests/VM): the package installed the README's way on a Debian booted in qemu
# (an image made by mmdebstrap, cached in .build/vm by what goes into it), touched and read back.
# Each release in VM_SUITES gets its own image and run, and the arm64 package a Debian 13 arm64
# board in software emulation (VM_ARM64_SUITES; empty skips it); all run even when one fails.
# The arm64 image (its package scripts run by qemu-user: most of 20 minutes) is made in the
# background while the amd64 machines run, and waited for; its machines run after theirs (two
# emulated machines at once on a 2-core machine take as long as one after the other).
# The machines are amd64 PCs and the arm64 board, emulated from an amd64 machine; elsewhere none.
ifeq ($(HOST_ARCH),amd64)
VM_SUITES ?= bookworm trixie
VM_ARM64_SUITES ?= trixie
endif
ARM64_DEB = out/kiosk_$$($(KIOSK) --version)_arm64.deb
NATIVE_DEB = out/kiosk_$$($(KIOSK) --version)_$(HOST_ARCH).deb
vm: deb
	@rc=0; images=""; \
	if [ "$$(id -u)" = 0 ]; then for suite in $(VM_ARM64_SUITES); do \
		$(PYTHON) Tests/VM/image.py $(ARM64_DEB) $$suite > $(BUILD)/vm-image-arm64-$$suite.log 2>&1 & images="$$images $$!"; \
	done; fi; \
	for suite in $(VM_SUITES); do \
		KIOSK_VM_SUITE=$$suite KIOSK_BIN=$(abspath $(KIOSK)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/VM || rc=1; \
	done; \
	for pid in $$images; do wait $$pid || { cat $(BUILD)/vm-image-arm64-*.log; rc=1; }; done; \
	for suite in $(VM_ARM64_SUITES); do \
		KIOSK_VM_SUITE=$$suite KIOSK_VM_ARCH=arm64 KIOSK_BIN=$(abspath $(KIOSK)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/VM || rc=1; \
	done; exit $$rc

# The booted machines' images started in the background (make test does, before e2e, which
# leaves a core mostly idle); `vm` finds them made or waits for the build under way (image.py
# locks each). Their logs: .build/vm-image-*.log. After the amd64 images, a newcomer's `make run`
# on a fresh Debian 13 (Tests/E2E/newcomer.py), whose result test_newcomer.py waits for.
vm-images: deb
	@if [ "$$(id -u)" = 0 ] && [ "$(HOST_ARCH)" = amd64 ]; then \
		( for suite in $(VM_ARM64_SUITES); do $(PYTHON) Tests/VM/image.py $(ARM64_DEB) $$suite || exit 1; done ) \
			> $(BUILD)/vm-image-arm64.log 2>&1 & \
		( ( for suite in $(VM_SUITES); do $(PYTHON) Tests/VM/image.py $(NATIVE_DEB) $$suite || exit 1; done ) \
			> $(BUILD)/vm-image-native.log 2>&1; $(PYTHON) Tests/E2E/newcomer.py > $(BUILD)/newcomer.log 2>&1 ) & \
		echo "vm-images: building in the background (.build/vm-image-arm64.log, .build/vm-image-native.log), then a newcomer's make run (.build/newcomer.log)"; \
	else echo "vm-images: skipped (building them needs root, on amd64)"; fi

# The same machine booted with a network and a root shell on this terminal, for debugging
# (VM_SUITE=trixie for Debian 13, VM_ARCH=arm64 VM_SUITE=trixie for the emulated arm64 board).
VM_SUITE ?= bookworm
VM_ARCH ?= $(HOST_ARCH)
vm-shell: deb
	$(PYTHON) Tests/VM/vm.py out/kiosk_$$($(KIOSK) --version)_$(VM_ARCH).deb $(VM_SUITE)

# The README's pictures (docs/pictures), drawn by this build; Tests/E2E/test_docs.py fails when
# they no longer match it.
pictures: build
	$(PYTHON) Tests/E2E/tools/pictures.py write $(abspath $(KIOSK))

# Long fuzz runs (make test runs 20,000 documents a target): FUZZ=documents, SEED=number.
FUZZ ?= 2000000
fuzz:
	KIOSK_FUZZ=$(FUZZ) KIOSK_FUZZ_SEED=$(SEED) $(SWIFT) test $(LAYERS) -c release --filter LongFuzzRuns

# A simulated hour of visitors and screensaver, headless: exits 1 on a leak (make test runs 10 minutes).
soak: deps build
	$(KIOSK) bench --scene soak --seconds 3600 --size 1920x1080

# Not part of `make test` or CI: kwin and mutter in their headless modes (docs/developing.md).
test-compositors: deps-test build
	@./Packaging/install-deps.sh $(SWIFT) Packaging/desktop-compositors.txt
	KIOSK_BIN=$(abspath $(KIOSK)) $(PYTHON) -m pytest -q -p no:cacheprovider Tests/Compositors

# The Debian packages: out/kiosk_<version>_amd64.deb and, as root, out/kiosk_<version>_arm64.deb
# (see Packaging/build-deb.sh).
deb: deps-deb build build-arm64
	@./Packaging/build-deb.sh
	@if [ "$(HOST_ARCH)" != amd64 ]; then :; elif [ "$$(id -u)" = 0 ]; then ./Packaging/build-deb.sh arm64; \
	else echo "deb: the arm64 package skipped (its build needs root)"; fi

# A signed apt repository of this build's packages in out/repo (Packaging/repo.py; earlier
# versions there stay), signed with the key in $$KIOSK_REPO_KEY (~/.local/share/kiosk/repo-key,
# made at the first run: keep it outside the project). docs/updating.md serves it to panels.
repo: deb
	$(PYTHON) Packaging/repo.py

generate:
	./Protocols/generate.sh

# The whole-system cost table (live, kiosk and compositor CPU, PSS; several minutes), then the
# headless frame timings, then what a frame costs at the Raspberry Pi panels' sizes in counts
# that hold on any machine (callgrind). BENCH_ARGS=--quick for a rougher table in about five minutes.
bench: deps-test build tools
	KIOSK_BIN=$(abspath $(KIOSK)) KIOSK_STRICT=$(abspath $(STRICT)) $(PYTHON) Tests/E2E/tools/bench_table.py $(BENCH_ARGS)
	$(KIOSK) bench --scene words --items 200 --label-size 333 --phrases 16 --frames 1000
	$(KIOSK) bench --scene touch --size 1920x1080 --frames 2000 --items 1
	$(PYTHON) Tests/E2E/tools/frame_cost.py

clean:
	rm -rf $(BUILD) out
