#!/usr/bin/env bash
# Install the TeX packages `make pdf` needs, from Debian's archive only (apt-get), when missing.
# Measured on this Debian 12 machine: 2 min 5 s for the whole install (no recommends). texlive-fonts-extra
# (509 MB download) is NOT needed:
# _config.yml sets latex.use_jupyterbook_latex: false, so the class that loads bbm.sty is not used.
set -euo pipefail
PKGS="texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended fonts-freefont-otf texlive-xetex latexmk poppler-utils"
missing=""
for cmd in xelatex latexmk pdfinfo; do
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $cmd"
done
# kpsewhich finds a few .sty files the Sphinx LaTeX writer loads (texlive-latex-extra ships them).
if [ -z "$missing" ]; then
  for sty in fncychap.sty tabulary.sty varwidth.sty capt-of.sty needspace.sty polyglossia.sty; do
    kpsewhich "$sty" >/dev/null 2>&1 || missing="$missing $sty"
  done
fi
if [ -z "$missing" ]; then
  echo "TeX packages present."
  exit 0
fi
echo "Installing TeX from Debian's archive (missing:$missing) ..."
if ! command -v apt-get >/dev/null 2>&1; then
  echo "apt-get not found: install these Debian packages by hand: $PKGS" >&2
  exit 1
fi
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
run apt-get update -qq
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
echo "TeX installed."
