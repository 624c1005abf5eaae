# Builds and installs Riffle like any other tool:
#   make                       release build, Swift runtime linked statically
#   make install               into $(DESTDIR)$(PREFIX) (default /usr/local)
#   make uninstall             removes exactly what install put there
# The installed binary needs only the Debian libraries it links (see docs/dependencies.md),
# not the Swift toolchain. `install` uses the release build if there is one, so
# `make && sudo make install` needs no Swift on root's PATH; run `make` again after changes.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# Where SwiftPM builds; another folder lets a release build run beside a debug one.
BUILD_DIR ?= .build
SWIFT_BUILD = $(SWIFT) build -c release --static-swift-stdlib --product riffle \
	--scratch-path $(BUILD_DIR)

BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
CATALOG_DIR = $(SHAREDIR)/riffle/Catalog
MAN_PAGE = $(SHAREDIR)/man/man1/riffle.1
DESKTOP_FILE = $(SHAREDIR)/applications/riffle.desktop
BASH_COMPLETION = $(SHAREDIR)/bash-completion/completions/riffle
ZSH_COMPLETION = $(SHAREDIR)/zsh/site-functions/_riffle
FISH_COMPLETION = $(SHAREDIR)/fish/vendor_completions.d/riffle.fish

CATALOG_FILES = $(shell cd Resources/Catalog && find . -type f | sort)

# SwiftPM links .build/release to the host triple's release folder.
RELEASE_BINARY = $(BUILD_DIR)/release/riffle

.PHONY: all build install uninstall

all: build

build:
	$(SWIFT_BUILD)

$(RELEASE_BINARY):
	$(SWIFT_BUILD)

install: $(RELEASE_BINARY)
	@bin="$(RELEASE_BINARY)"; \
	set -e; \
	install -Dm755 -s "$$bin" "$(BINDIR)/riffle"; \
	for f in $(CATALOG_FILES); do install -Dm644 "Resources/Catalog/$$f" "$(CATALOG_DIR)/$$f"; done; \
	install -Dm644 dist/riffle.1 "$(MAN_PAGE)"; \
	install -Dm644 dist/riffle.desktop "$(DESKTOP_FILE)"; \
	install -d "$$(dirname "$(BASH_COMPLETION)")" "$$(dirname "$(ZSH_COMPLETION)")" \
	  "$$(dirname "$(FISH_COMPLETION)")"; \
	"$$bin" --generate-completion-script bash > "$(BASH_COMPLETION)"; \
	"$$bin" --generate-completion-script zsh > "$(ZSH_COMPLETION)"; \
	"$$bin" --generate-completion-script fish > "$(FISH_COMPLETION)"; \
	echo "installed riffle in $(DESTDIR)$(PREFIX)"

uninstall:
	rm -f "$(BINDIR)/riffle" "$(MAN_PAGE)" "$(DESKTOP_FILE)" \
	  "$(BASH_COMPLETION)" "$(ZSH_COMPLETION)" "$(FISH_COMPLETION)"
	for f in $(CATALOG_FILES); do rm -f "$(CATALOG_DIR)/$$f"; done
	-find "$(SHAREDIR)/riffle" -depth -type d -empty -delete 2>/dev/null
