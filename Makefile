# gpuform — one non-recursive Makefile.
#
#   make                      build ./gpuform
#   make test                 install missing Debian packages, then build with
#                             SANITIZE=address,undefined and run every test
#   make demo                 the main job: render every example in specs/
#   make bench                benchmarks (ratios against kubectl, same run)
#   make install              PREFIX=/usr/local, DESTDIR honoured: the binary,
#                             man pages, bash and zsh completions, docs
#   make man                  build/<variant>/man/*.1 and completion/ only
#   make dist                 build/dist/gpuform-<version>.tar.gz (+ .sha256),
#                             reproducible from the commit
#   make image                the OCI image archive, without a container daemon
#                             (root, umoci); make docker-image: the Dockerfile
#   make DEVELOPER=1          strict warnings, -Werror
#   make SANITIZE=address,undefined
#   make coverage             unit-suite line coverage of the library (gcov)
#   make V=1                  show full commands
all::

-include config.mak

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
bindir ?= $(PREFIX)/bin
datadir ?= $(PREFIX)/share
docdir ?= $(datadir)/doc/gpuform
mandir ?= $(datadir)/man
man1dir ?= $(mandir)/man1
bashcompdir ?= $(datadir)/bash-completion/completions
zshcompdir ?= $(datadir)/zsh/site-functions
DESTDIR ?=
TEST_SANITIZE ?= address,undefined

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# libgit2: the Git module (git/, for `gpuform commit`, `diff --base`, `reconcile --git`)
PKGS = libgit2 yaml-0.1 libcjson libcurl openssl zlib
BASE_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -I. -Wall -Wextra \
	-Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wformat=2 \
	-Wvla -Wwrite-strings -fno-common -Wno-unused-parameter
DEV_CFLAGS = -Werror -Wpedantic -Wno-overlength-strings

variant := rel
ifdef SANITIZE
variant := san
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifdef COVERAGE
variant := cov
COV_FLAGS = --coverage -O0
endif
ifdef DEVELOPER
variant := $(variant)-dev
EXTRA_CFLAGS += $(DEV_CFLAGS)
endif
B := build/$(variant)

ALL_CFLAGS = $(BASE_CFLAGS) $(EXTRA_CFLAGS) $(SAN_FLAGS) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	-DGPUFORM_VERSION='"$(VERSION)"' $(CPPFLAGS) $(CFLAGS) $(COV_FLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(COV_FLAGS) $(LDFLAGS)
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

ifneq ($(V),1)
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_GEN = @echo '   ' GEN $@;
endif

UTIL_SRCS = $(wildcard util/*.c)
GEN_SRCS = $(wildcard generator/*.c)
RECON_SRCS = $(wildcard reconcile/*.c)
GIT_SRCS = $(wildcard git/*.c)
HTTP_SRCS = $(wildcard http/*.c)
KUBE_SRCS = $(wildcard kube/*.c)
AWS_SRCS = $(wildcard aws/*.c)
CMD_SRCS = $(filter-out cmd/main.c,$(wildcard cmd/*.c))
CORE_SRCS = $(UTIL_SRCS) $(GEN_SRCS) $(GIT_SRCS) $(HTTP_SRCS) $(KUBE_SRCS) \
	$(AWS_SRCS) $(RECON_SRCS)
EMBED_INPUTS = $(sort $(wildcard templates/*.yaml)) generator/catalog.tsv

CORE_OBJS = $(CORE_SRCS:%.c=$(B)/%.o) $(B)/embedded.o
CMD_OBJS = $(CMD_SRCS:%.c=$(B)/%.o)
MAIN_OBJ = $(B)/cmd/main.o
TEST_SRCS = $(wildcard tests/unit/*.c)
TEST_OBJS = $(TEST_SRCS:%.c=$(B)/%.o)

PROGRAM = $(B)/gpuform
UNIT = $(B)/tests/unit/run

all:: $(PROGRAM) gpuform

# the commit gpuform is built from, for `gpuform version`: GPUFORM_COMMIT=...
# from the caller (an image build); else the COMMIT file of a source tarball
# (`make dist` writes it; never committed); else git's short id (+ "-dirty"
# with local changes); else "unknown". The release: GPUFORM_RELEASE=...,
# the tarball's release= line, or vVERSION when that tag points at a clean
# HEAD; empty for every other build.
# Rewritten only when it changes, so only cmd/main.o is rebuilt.
$(B)/commit.h: FORCE
	@mkdir -p $(dir $@)
	@c='$(GPUFORM_COMMIT)'; r='$(GPUFORM_RELEASE)'; \
	if [ -z "$$c" ] && [ -f COMMIT ]; then \
		c=$$(sed -n 's/^commit=//p' COMMIT); \
		[ -n "$$r" ] || r=$$(sed -n 's/^release=//p' COMMIT); \
	fi; \
	if [ -z "$$c" ]; then \
		c=$$(git rev-parse --short=12 HEAD 2>/dev/null) || c=unknown; \
		if [ "$$c" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; \
		then c="$$c-dirty"; \
		elif [ -z "$$r" ] && [ "$$c" != unknown ] && \
			git tag --points-at HEAD 2>/dev/null | grep -qx 'v$(VERSION)'; \
		then r='v$(VERSION)'; fi; \
	fi; \
	{ echo "#define GPUFORM_COMMIT \"$$c\""; \
	  echo "#define GPUFORM_RELEASE \"$$r\""; } >$@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(MAIN_OBJ): $(B)/commit.h
$(MAIN_OBJ): ALL_CFLAGS += -include $(B)/commit.h
.PHONY: FORCE
FORCE:

gpuform: $(PROGRAM)
	@cp $(PROGRAM) $@

$(PROGRAM): $(MAIN_OBJ) $(CMD_OBJS) $(CORE_OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -lm

$(B)/embedded.c: util/embed.sh $(EMBED_INPUTS)
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh util/embed.sh $(EMBED_INPUTS) > $@.tmp && mv $@.tmp $@

$(B)/embedded.o: $(B)/embedded.c
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(UNIT): $(TEST_OBJS) $(CORE_OBJS)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(CHECK_LIBS) -lm

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- tests -------------------------------------------------------------
.PHONY: deps test-deps test check unit coverage golden invalid hostile cli docs e2e oracle kueue demo bench install \
	uninstall clean check-headers check-layering style format man

# `make deps`: the build dependencies only (no test daemons, no kubectl);
# `make test-deps`: those and what the suites need (tests/deps.sh)
deps:
	@sh tests/deps.sh build

test-deps:
	@sh tests/deps.sh test

# `make test`: one command on a fresh machine. Installs what is missing,
# rebuilds under the sanitizers and runs every suite (re-invoking make so
# pkg-config flags are read after the packages exist).
test: test-deps
	@$(MAKE) --no-print-directory SANITIZE=$(TEST_SANITIZE) check

check: $(PROGRAM) $(UNIT)
	@GPUFORM=$(abspath $(PROGRAM)) UNIT=$(abspath $(UNIT)) \
		sh tests/run-all.sh

unit: $(UNIT)
	$(UNIT)

# `make coverage`: a --coverage -O0 build in build/cov/ and the unit suite's
# line coverage of the library (tests/coverage.sh, gcov only)
coverage:
	@$(MAKE) --no-print-directory COVERAGE=1 build/cov/tests/unit/run
	@sh tests/coverage.sh build/cov

golden invalid hostile cli docs e2e: $(PROGRAM)
	@GPUFORM=$(abspath $(PROGRAM)) sh tests/$@.sh

# Karpenter's scheduler as the oracle (Go >= 1.26; builds build/oracle/karpenter-sim)
oracle: $(PROGRAM)
	@GPUFORM=$(abspath $(PROGRAM)) bash tests/oracle.sh

# Kueue v0.19.2 admitting the examples' gangs (Go >= 1.26; builds build/kueue/kueue;
# docs/kueue-suite.md)
kueue: $(PROGRAM)
	@GPUFORM=$(abspath $(PROGRAM)) bash tests/kueue.sh

# ---- the main job ------------------------------------------------------
demo: test-deps
	@$(MAKE) --no-print-directory gpuform
	@bash tests/demo.sh

# ---- benchmarks --------------------------------------------------------
bench: test-deps
	@$(MAKE) --no-print-directory gpuform
	@sh bench/run.sh
	@sh bench/plan.sh
	@bash bench/reconcile.sh

# ---- man pages and completions ------------------------------------------
# made by the binary from its option tables (cmd/options.c), never edited
# or committed; tests/docs.sh checks that they render and agree with --help
$(B)/gen/.stamp: $(PROGRAM) util/gen-docs.sh
	$(QUIET_GEN)rm -rf $(B)/gen && sh util/gen-docs.sh $(PROGRAM) $(B)/gen && touch $@

man: $(B)/gen/.stamp

# ---- install -----------------------------------------------------------
install: $(PROGRAM) $(B)/gen/.stamp
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(docdir) $(DESTDIR)$(docdir)/docs \
		$(DESTDIR)$(man1dir) $(DESTDIR)$(bashcompdir) $(DESTDIR)$(zshcompdir)
	install -m 0755 $(PROGRAM) $(DESTDIR)$(bindir)/gpuform
	install -m 0644 $(B)/gen/man/*.1 $(DESTDIR)$(man1dir)/
	install -m 0644 $(B)/gen/completion/gpuform.bash $(DESTDIR)$(bashcompdir)/gpuform
	install -m 0644 $(B)/gen/completion/_gpuform $(DESTDIR)$(zshcompdir)/_gpuform
	install -m 0644 README.md CHANGELOG.md LICENSE $(DESTDIR)$(docdir)/
	install -m 0644 docs/*.md $(DESTDIR)$(docdir)/docs/

uninstall:
	rm -f $(DESTDIR)$(bindir)/gpuform $(DESTDIR)$(man1dir)/gpuform.1 \
		$(DESTDIR)$(man1dir)/gpuform-*.1 $(DESTDIR)$(bashcompdir)/gpuform \
		$(DESTDIR)$(zshcompdir)/_gpuform
	rm -rf $(DESTDIR)$(docdir)

# ---- source tarball ------------------------------------------------------
# build/dist/gpuform-VERSION[-COMMIT].tar.gz and .sha256: the same bytes from
# the same commit (util/dist.sh says how); docs/development.md, "Releases"
.PHONY: dist
dist:
	@sh util/dist.sh build/dist

# ---- container image --------------------------------------------------------
# make image: an OCI image archive without a container daemon (util/image.sh:
# umoci over a root filesystem of the binary, its libraries, CA certificates
# and a non-root user): build/image/<variant>/gpuform-<version>.oci.tar. Needs umoci,
# skopeo (to push or inspect it) and binutils; tests/image.sh checks it.
# make docker-image: the same from the Dockerfile, for those with docker or
# podman (says so and fails when there is none, or no daemon).
IMAGE ?= gpuform:$(VERSION)
IMAGE_SOURCE ?= $(shell git config --get remote.origin.url 2>/dev/null | sed -E 's|//[^/@]*@|//|')
CONTAINER_ENGINE ?= $(shell command -v podman 2>/dev/null || command -v docker 2>/dev/null)
.PHONY: image docker-image
image: $(PROGRAM)
	@IMAGE_VERSION='$(VERSION)' IMAGE_TAG='$(VERSION)' IMAGE_SOURCE='$(IMAGE_SOURCE)' \
	IMAGE_REVISION=$$(sed -n 's/^#define GPUFORM_COMMIT "\(.*\)"$$/\1/p' $(B)/commit.h) \
		sh util/image.sh $(PROGRAM) build/image/$(variant)

docker-image:
	@if [ -z "$(CONTAINER_ENGINE)" ]; then \
		echo "make docker-image: no container engine is installed (docker or" \
		     "podman); 'make image' needs none (docs/in-cluster.md)" >&2; exit 1; fi; \
	if ! $(CONTAINER_ENGINE) info >/dev/null 2>&1; then \
		echo "make docker-image: $(CONTAINER_ENGINE) is installed but cannot" \
		     "build (is its daemon running?); 'make image' needs none" >&2; \
		exit 1; fi
	$(CONTAINER_ENGINE) build -t $(IMAGE) .

# ---- hygiene -----------------------------------------------------------
check-headers:
	@for h in $$(git ls-files '*.h'); do \
		echo "#include \"$$h\"" | $(CC) $(ALL_CFLAGS) -x c -fsyntax-only - || exit 1; \
	done; echo "headers: ok"

check-layering:
	@sh tests/check-layering.sh

# .clang-format is the house style for new code; the tree predates it (about
# 2,800 lines would change), so both targets touch only the lines changed since
# STYLE_BASE: HEAD (default) = the uncommitted changes; STYLE_BASE=main = a
# branch's. git clang-format exits 0 either way: its message decides.
STYLE_BASE ?= HEAD
style:
	@out=$$(git clang-format --diff --extensions c,h $(STYLE_BASE) 2>&1); \
	case $$out in \
	"no modified files"* | "clang-format did not modify"*) \
		echo "style: ok (the C lines changed since $(STYLE_BASE))" ;; \
	*) printf '%s\n' "$$out"; \
		echo "style: these changes differ from .clang-format; 'make format STYLE_BASE=$(STYLE_BASE)' applies them" >&2; \
		exit 1 ;; \
	esac

format:
	@git clang-format --force --extensions c,h $(STYLE_BASE)

clean:
	rm -rf build gpuform

# ---- fuzzing (libFuzzer) -----------------------------------------------
# Separate from everything above: its own compiler (clang), flags and
# build/fuzz/ tree; `make`, `make test` and `make bench` never touch it.
#
#   make fuzz                 build the targets, run each for FUZZ_SECONDS
#   make fuzz FUZZ_SECONDS=60
#   make fuzz-build           only build build/fuzz/fuzz_<target>
#
# Project sources are compiled directly into build/fuzz/ (cmd/ is not
# used); see tests/fuzz/README.md.
.PHONY: fuzz fuzz-build

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FZ := build/fuzz
FUZZ_SAN = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g -O1
FUZZ_CFLAGS = $(BASE_CFLAGS) $(FUZZ_SAN) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	-DGPUFORM_VERSION='"$(VERSION)"' $(CPPFLAGS)
FUZZ_NAMES = intent yaml kubeconfig json_response template lint kube_response \
	pricelist
FUZZ_BINS = $(FUZZ_NAMES:%=$(FZ)/fuzz_%)
FUZZ_CORE_OBJS = $(CORE_SRCS:%.c=$(FZ)/%.o) $(FZ)/embedded.o
FUZZ_LIB = $(FZ)/libgpuform.a

# keep the targets' objects (make would delete them as intermediates)
.SECONDARY: $(FUZZ_NAMES:%=$(FZ)/tests/fuzz/fuzz_%.o)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@FUZZ_NO_BUILD=1 sh tests/fuzz/run.sh $(FUZZ_SECONDS)

$(FZ)/embedded.c: util/embed.sh $(EMBED_INPUTS)
	@mkdir -p $(dir $@)
	$(QUIET_GEN)sh util/embed.sh $(EMBED_INPUTS) > $@.tmp && mv $@.tmp $@

$(FZ)/embedded.o: $(FZ)/embedded.c
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(FZ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_CORE_OBJS)
	$(QUIET_LINK)rm -f $@ && ar rcs $@ $^

$(FZ)/fuzz_%: $(FZ)/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_SAN) -o $@ $^ $(LIBS) -lm
