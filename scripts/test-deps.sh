#!/usr/bin/env bash
# Installs what Rollcall's tests need beyond the Swift toolchain: Chromium and its driver for the browser tests,
# zbar and librsvg to decode rendered QR codes, PostgreSQL for the tests on it, nginx for the test behind a reverse
# proxy, and a Python environment with selenium, pytest, cryptography (the tests' self-signed certificates),
# aiosmtpd (the mail server the mail tests deliver to), oidc-provider-mock (the school sign-in the browser tests go
# through), lti1p3platform and Flask (the LTI 1.3 platform the LTI tests launch Rollcall from), pymarkdownlnt (the
# lint of the README and docs/) and axe-core, which the accessibility audit injects into every page (`axe.min.js`
# from the axe-playwright-python wheel, taken without Playwright); gettext's msgfmt checks the message catalogs as
# translators' tools read them. LemonLDAP::NG's portal, and the Perl modules it loads, is the real OpenID Connect
# provider the school sign-in is also tested against (scripts/lemonldap.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v zbarimg >/dev/null || missing+=(zbar-tools)
command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
command -v python3 >/dev/null || missing+=(python3)
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
[ -d /usr/share/fonts/truetype/dejavu ] || missing+=(fonts-dejavu-core)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v msgfmt >/dev/null || missing+=(gettext)
[ -x /usr/sbin/llng-fastcgi-server ] && perl -MDBD::SQLite -MImage::Magick -MIO::String -e1 2>/dev/null ||
    missing+=(lemonldap-ng lemonldap-ng-fastcgi-server libcrypt-openssl-bignum-perl libstring-random-perl
        libemail-sender-perl libmime-tools-perl libgd-securityimage-perl libimage-magick-perl libio-string-perl
        libdbi-perl libdbd-sqlite3-perl)

if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv=.build/python
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import selenium, pytest, schemathesis, cryptography, aiosmtpd, pymarkdown, oidc_provider_mock, flask, lti1p3platform.ltiplatform" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check selenium pytest schemathesis cryptography aiosmtpd pymarkdownlnt oidc-provider-mock flask lti1p3platform
fi
if ! "$venv/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('axe_playwright_python') is None)"; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps axe-playwright-python
fi
