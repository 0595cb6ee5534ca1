# install.mk: `make install` and `make uninstall`.
#   make install PREFIX=/usr/local DESTDIR=/tmp/root
# installs what `make` built, with no rebuild as root needed when it is up to date:
#   $(BINDIR)/dcg
#   $(PREFIX)/lib/dcg/libdcg-preload.so   where `dcg run` and `dcg sandbox` find it: they
#                                         take $DCG_PRELOAD, else libdcg-preload.so next
#                                         to the dcg binary, else ../lib/dcg/ beside it
#   $(PREFIX)/lib/dcg/libdcg-engine.so    the policy engine the guard loads from its own
#                                         folder (preload/engine.h)
#   $(MANDIR)/man1/dcg.1, $(MANDIR)/man5/dcg-policy.5
#   bash, zsh and fish completions
#   $(DOCDIR)/LICENSE, README.md and the notices of the libraries linked in statically
# The preload's folder is always $(PREFIX)/lib/dcg, whatever LIBDIR a distribution
# uses, since dcg looks for it relative to its own binary.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/dcg
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
PRELOADDIR := $(BINDIR)/../lib/dcg
INSTALL ?= install

# Notices of the libraries linked in statically (PCRE2: BSD, libyaml: MIT), when the
# build host has them; libseccomp (LGPL-2.1) and cJSON stay shared libraries.
THIRD_PARTY_NOTICES := $(wildcard /usr/share/doc/libpcre2-8-0/copyright \
	/usr/share/doc/libyaml-0-2/copyright)

INSTALLED := $(BINDIR)/dcg $(PRELOADDIR)/libdcg-preload.so $(PRELOADDIR)/libdcg-engine.so \
	$(MANDIR)/man1/dcg.1 \
	$(MANDIR)/man5/dcg-policy.5 $(BASHCOMPDIR)/dcg $(ZSHCOMPDIR)/_dcg \
	$(FISHCOMPDIR)/dcg.fish $(DOCDIR)/LICENSE $(DOCDIR)/README.md \
	$(DOCDIR)/copyright.pcre2 $(DOCDIR)/copyright.libyaml

install: $(BUILD)/dcg $(PRELOAD_SO) $(PRELOAD_ENGINE_SO)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PRELOADDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0755 $(BUILD)/dcg $(DESTDIR)$(BINDIR)/dcg
	$(INSTALL) -m 0644 $(PRELOAD_SO) $(DESTDIR)$(PRELOADDIR)/libdcg-preload.so
	$(INSTALL) -m 0644 $(PRELOAD_ENGINE_SO) $(DESTDIR)$(PRELOADDIR)/libdcg-engine.so
	$(INSTALL) -m 0644 doc/dcg.1 $(DESTDIR)$(MANDIR)/man1/dcg.1
	$(INSTALL) -m 0644 doc/dcg-policy.5 $(DESTDIR)$(MANDIR)/man5/dcg-policy.5
	$(INSTALL) -m 0644 completions/dcg.bash $(DESTDIR)$(BASHCOMPDIR)/dcg
	$(INSTALL) -m 0644 completions/_dcg $(DESTDIR)$(ZSHCOMPDIR)/_dcg
	$(INSTALL) -m 0644 completions/dcg.fish $(DESTDIR)$(FISHCOMPDIR)/dcg.fish
	$(INSTALL) -m 0644 LICENSE README.md $(DESTDIR)$(DOCDIR)/
	$(foreach f,$(THIRD_PARTY_NOTICES),$(INSTALL) -m 0644 $(f) \
		$(DESTDIR)$(DOCDIR)/copyright.$(if $(findstring pcre2,$(f)),pcre2,libyaml);)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PRELOADDIR) $(DESTDIR)$(DOCDIR) 2>/dev/null
