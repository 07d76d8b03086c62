#!/usr/bin/env bash
# A private LemonLDAP::NG portal (Debian's packages, an OpenID Certified provider) for the school sign-in tests:
#
#   scripts/lemonldap.sh install                          the packages, if missing
#   scripts/lemonldap.sh start DIR PORT REDIRECT_URI [ALG] a portal on http://localhost:PORT, all its state in DIR
#   scripts/lemonldap.sh rotate DIR                       a new OpenID Connect signing key (its own rotateOidcKeys)
#   scripts/lemonldap.sh stop DIR
#
# The configuration is Debian's shipped one (/var/lib/lemonldap-ng/conf/lmConf-1.json) changed only where a test
# needs it, through LemonLDAP::NG's own CLI: the issuer on, users from DIR/users.sqlite (DBI authentication), and one
# relying party, `rollcall`, whose ID tokens are signed with ALG (default RS256; HS256/HS512 sign with the client
# secret). Everything else keeps LemonLDAP::NG's defaults: claims in UserInfo only, no email_verified, consent asked
# once per user, and claims released by scope, the role and student number only under the `school` scope (that is
# oidcServiceIgnoreScopeForClaims back at 0, its default: Debian's first configuration sets 1, which releases every
# exported claim whatever the scope). `start` returns at once; the caller waits for /.well-known/openid-configuration.
# Settings from the environment: CLIENT_SECRET (no double quote or backslash in it), POST_LOGOUT_REDIRECT_URIS
# (space-separated; by default ORIGIN/sign-in and ORIGIN/ of the redirect URI). Logs: DIR/portal.log, and what the
# portal logs while answering requests in DIR/nginx-error.log.
set -euo pipefail

LLNG=/usr/share/lemonldap-ng
# The portal's recommended Perl modules that it loads whatever the configuration (captcha, mail, issuer), and the
# DBI backend's SQLite driver; no fonts, LDAP or WebAuthn.
packages=(lemonldap-ng lemonldap-ng-fastcgi-server nginx libcrypt-openssl-bignum-perl libstring-random-perl
    libemail-sender-perl libmime-tools-perl libgd-securityimage-perl libimage-magick-perl libio-string-perl
    libdbi-perl libdbd-sqlite3-perl)
modules=(Crypt::OpenSSL::Bignum String::Random Email::Sender MIME::Entity GD::SecurityImage Image::Magick IO::String
    DBD::SQLite)

install() {
    if [ -x /usr/sbin/llng-fastcgi-server ] && [ -x /usr/sbin/nginx ] && [ -x $LLNG/bin/lemonldap-ng-cli ] \
        && perl "${modules[@]/#/-M}" -e1 2>/dev/null; then
        return
    fi
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    # The packages start their own FastCGI server and nginx as system services: a policy-rc.d refusing every start
    # keeps this machine's services as they were (only for the install, and only where there is none already).
    local policy=/usr/sbin/policy-rc.d
    if [ ! -e $policy ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
        $sudo chmod +x $policy
        trap "$sudo rm -f $policy" EXIT
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
        "${packages[@]}" >/dev/null
}

# Runs a command as the portal's user: the FastCGI server refuses to run as root.
as_portal() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u www-data -- "$@"; else "$@"; fi
}

cli() {
    as_portal env LLNG_DEFAULTCONFFILE="$dir/lemonldap-ng.ini" $LLNG/bin/lemonldap-ng-cli -yes 1 -safe 1 "$@" \
        2>>"$dir/cli.log" || { cat "$dir/cli.log" >&2; return 1; }
}

# A teacher and three students, unless the caller made DIR/users.sqlite with its own people. Passwords are the
# login, as in LemonLDAP::NG's demo; several affiliations are separated by "; ", its multiValuesSeparator.
users() {
    [ -e "$dir/users.sqlite" ] && return
    perl -MDBI -e '
        my $db = DBI->connect("dbi:SQLite:dbname=$ARGV[0]", "", "", {RaiseError => 1});
        $db->do("CREATE TABLE users (uid TEXT PRIMARY KEY, password TEXT, cn TEXT, sn TEXT, mail TEXT,
                 eduPersonAffiliation TEXT, studentNumber TEXT)");
        $db->do("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?)", undef, @$_) for
            ["tess", "tess", "Tess Hill", "Hill", "tess\@hill.test", "faculty; member", undef],
            ["amara", "amara", "Amara Okafor", "Okafor", "amara\@hill.test", "student", "h1001"],
            ["ben", "ben", "Ben Castle", "Castle", "ben\@hill.test", "student", "h1002"],
            ["chloe", "chloe", "Chloe Marsh", "Marsh", "chloe\@hill.test", "student", "h1003"];
    ' "$dir/users.sqlite"
}

start() {
    local port=$2 redirect=$3 alg=${4:-RS256}
    local origin
    origin=$(sed -E 's#^([a-z]+://[^/]+).*#\1#' <<<"$redirect")
    local logout=${POST_LOGOUT_REDIRECT_URIS:-$origin/sign-in $origin/}
    local secret=${CLIENT_SECRET:-rollcall-secret}
    install
    if [ ! -r /var/lib/lemonldap-ng/conf/lmConf-1.json ]; then
        echo "Debian's LemonLDAP::NG configuration is readable by root and group www-data only" >&2
        exit 1
    fi
    # Again from Debian's configuration at every start; sessions and consents stay.
    stop
    rm -rf "$dir/conf" "$dir/cache" "$dir/cli.log"
    mkdir -p "$dir"/{conf,sessions/lock,psessions/lock,cache,notifications,nginx}
    users
    cp /var/lib/lemonldap-ng/conf/lmConf-1.json "$dir/conf/"
    # Debian's lemonldap-ng.ini with DIR for /var/lib/lemonldap-ng, and the log on standard error (not syslog).
    sed -e "s#/var/lib/lemonldap-ng#$dir#g" -e 's/^\[all\]$/&\nlogger = Lemonldap::NG::Common::Logger::Std/' \
        /etc/lemonldap-ng/lemonldap-ng.ini >"$dir/lemonldap-ng.ini"
    cat >"$dir/changes.json" <<EOF
{
  "portal": "http://localhost:$port/",
  "domain": "localhost",
  "reloadUrls": {"localhost": null},
  "globalStorageOptions": {"Directory": "$dir/sessions", "LockDirectory": "$dir/sessions/lock"},
  "persistentStorageOptions": {"Directory": "$dir/psessions", "LockDirectory": "$dir/psessions/lock"},
  "localSessionStorageOptions": {"cache_root": "$dir/cache"},
  "notificationStorageOptions": {"dirName": "$dir/notifications"},
  "authentication": "DBI", "userDB": "Same", "passwordDB": "DBI",
  "dbiAuthChain": "dbi:SQLite:dbname=$dir/users.sqlite", "dbiAuthUser": "", "dbiAuthPassword": "",
  "dbiAuthTable": "users", "dbiAuthLoginCol": "uid", "dbiAuthPasswordCol": "password", "dbiMailCol": "mail",
  "dbiExportedVars": {"uid": "uid", "cn": "cn", "sn": "sn", "mail": "mail",
                      "eduPersonAffiliation": "eduPersonAffiliation", "studentNumber": "studentNumber"},
  "issuerDBOpenIDConnectActivation": 1,
  "oidcServiceMetaDataIssuer": "http://localhost:$port",
  "oidcServiceIgnoreScopeForClaims": 0,
  "oidcRPMetaDataOptions": {"rollcall": {
    "oidcRPMetaDataOptionsDisplayName": "Rollcall",
    "oidcRPMetaDataOptionsClientID": "rollcall",
    "oidcRPMetaDataOptionsClientSecret": "$secret",
    "oidcRPMetaDataOptionsRedirectUris": "$redirect",
    "oidcRPMetaDataOptionsPostLogoutRedirectUris": "$logout",
    "oidcRPMetaDataOptionsIDTokenSignAlg": "$alg"
  }},
  "oidcRPMetaDataExportedVars": {"rollcall": {
    "name": "cn", "family_name": "sn", "email": "mail",
    "eduPersonAffiliation": "eduPersonAffiliation", "student_number": "studentNumber"
  }},
  "oidcRPMetaDataOptionsExtraClaims": {"rollcall": {"school": "eduPersonAffiliation student_number"}}
}
EOF
    [ "$(id -u)" -ne 0 ] || chown -R www-data:www-data "$dir"
    # The signing key first: the CLI refuses an RS256 relying party without one.
    as_portal env LLNG_DEFAULTCONFFILE="$dir/lemonldap-ng.ini" $LLNG/bin/rotateOidcKeys
    cli merge "$dir/changes.json"

    # Debian's portal site for nginx, on loopback only, with the FastCGI socket in DIR.
    sed -e "s#listen 80;#listen 127.0.0.1:$port;#" -e '/listen \[::\]:80;/d' \
        -e 's#server_name auth.example.com;#server_name localhost;#' \
        -e "s#unix:/var/run/llng-fastcgi-server/llng-fastcgi.sock#unix:$dir/llng-fastcgi.sock#" \
        /etc/lemonldap-ng/portal-nginx.conf >"$dir/nginx/portal.conf"
    grep -q "listen 127.0.0.1:$port;" "$dir/nginx/portal.conf" || { echo "portal-nginx.conf has changed" >&2; exit 1; }
    local user=""
    [ "$(id -u)" -ne 0 ] || user="user www-data;"
    cat >"$dir/nginx/nginx.conf" <<EOF
$user
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log $dir/nginx-access.log;
  client_body_temp_path $dir/nginx/body;
  fastcgi_temp_path $dir/nginx/fastcgi;
  proxy_temp_path $dir/nginx/proxy;
  uwsgi_temp_path $dir/nginx/uwsgi;
  scgi_temp_path $dir/nginx/scgi;
  include $dir/nginx/portal.conf;
}
EOF
    # Two workers rather than seven: each compiles the portal on its first request, and the tests are sequential.
    as_portal env LLNG_DEFAULTCONFFILE="$dir/lemonldap-ng.ini" setsid /usr/sbin/llng-fastcgi-server --foreground \
        --proc 2 --socket "$dir/llng-fastcgi.sock" --pid "$dir/llng-fastcgi.pid" >>"$dir/portal.log" 2>&1 </dev/null &
    /usr/sbin/nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx-error.log"
}

# The portal reads its configuration from a local cache, which rotateOidcKeys does not refresh: update-cache does, and
# each FastCGI worker then takes the new key within checkTime (1 s in Debian's lemonldap-ng.ini). The old key leaves
# the JWKS at once.
rotate() {
    as_portal env LLNG_DEFAULTCONFFILE="$dir/lemonldap-ng.ini" $LLNG/bin/rotateOidcKeys
    cli update-cache
}

stop() {
    local file pid
    for file in "$dir/nginx.pid" "$dir/llng-fastcgi.pid"; do
        [ -s "$file" ] || continue
        pid=$(cat "$file")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
}

command=${1:-}
case "$command $#" in
    "install 1") install ;;
    "start 4" | "start 5") dir=$(realpath -m "$2"); shift; start "$@" ;;
    "rotate 2") dir=$(realpath -m "$2"); rotate ;;
    "stop 2") dir=$(realpath -m "$2"); stop ;;
    *) sed -n '3,6s/^# *//p' "$0" >&2; exit 2 ;;
esac
