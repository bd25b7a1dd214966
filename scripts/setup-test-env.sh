#!/usr/bin/env bash
# Ensures everything the test suite needs outside cargo is present.
# Idempotent and silent when there is nothing to do; prints one line per
# thing it sets up. One function per dependency, called in order at the end.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
AWXKIT_VERSION="24.6.1"
REQUESTS_OAUTHLIB_VERSION="2.0.0"
ANSIBLE_CORE_VERSION="2.19.14"
AWX_COLLECTION_VERSION="24.6.1"
# The ansible package whose wheel bundles awx.awx $AWX_COLLECTION_VERSION.
ANSIBLE_BUNDLE_VERSION="10.7.0"
SCHEMATHESIS_VERSION="4.32.5"
AXE_CORE_VERSION="4.14.1"
OIDC_PROVIDER_VERSION="9.13.3"
export DEBIAN_FRONTEND=noninteractive

say() { echo "setup-test-env: $*"; }
die() { echo "setup-test-env: ERROR: $*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    $SUDO apt-get update -qq >/dev/null
    apt_updated=1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- libpq (diesel's postgres backend links it) ---------------------------
ensure_libpq() {
  [ -f /usr/include/postgresql/libpq-fe.h ] && return 0
  say "installing libpq-dev"
  apt_install libpq-dev
}

# --- cargo-nextest: runs the tests, each in its own process with a timeout ------
# (.config/nextest.toml).
ensure_nextest() {
  cargo nextest --version >/dev/null 2>&1 && return 0
  say "installing cargo-nextest from crates.io"
  cargo install --locked cargo-nextest >/dev/null \
    || die "cargo install --locked cargo-nextest failed"
  cargo nextest --version >/dev/null 2>&1 || die "cargo nextest does not run after installing it"
}

# --- PostgreSQL on 127.0.0.1:5432 -------------------------------------------
pg_version() {
  find /etc/postgresql -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort -V | head -1
}

pg_up() {
  command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432
}

ensure_postgres() {
  # A caller-supplied remote server is the caller's business.
  case "${ACS_TEST_POSTGRES_URL:-}" in
    "" | *127.0.0.1* | *localhost*) ;;
    *) return 0 ;;
  esac
  pg_up && return 0

  local installed=0
  if [ -z "$(pg_version)" ]; then
    say "installing postgresql"
    apt_install postgresql
    installed=1
  fi
  local ver
  ver="$(pg_version)"
  if [ "$installed" -eq 1 ]; then
    # Fresh Debian clusters use password auth over TCP; the tests connect
    # as postgres@127.0.0.1 without a password, as on the reference machines.
    say "configuring trust auth for 127.0.0.1 in PostgreSQL $ver"
    local hba="/etc/postgresql/$ver/main/pg_hba.conf"
    $SUDO sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  say "starting PostgreSQL $ver/main"
  # Exits non-zero if already running (e.g. started by the package's postinst).
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  if [ "$installed" -eq 1 ]; then
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main reload || true
  fi

  for _ in $(seq 30); do
    pg_up && return 0
    sleep 1
  done
  die "PostgreSQL does not answer on 127.0.0.1:5432 after 30 s (see /var/log/postgresql/)"
}

# --- pg_dump (the secrets-at-rest test dumps the PostgreSQL test database) ---
ensure_pg_dump() {
  command -v pg_dump >/dev/null && return 0
  say "installing postgresql-client (pg_dump)"
  apt_install postgresql-client
}

# --- awxkit CLI in <repo>/.venv ----------------------------------------------
ensure_awxkit() {
  if [ -x "$VENV/bin/awx" ] && "$VENV/bin/awx" --help >/dev/null 2>&1; then
    return 0
  fi
  say "creating $VENV with awxkit==$AWXKIT_VERSION"
  if ! python3 -m venv --clear "$VENV" >/dev/null 2>&1; then
    apt_install python3-venv
    python3 -m venv --clear "$VENV"
  fi
  # awxkit's CLI imports pkg_resources, which setuptools >= 81 dropped.
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "awxkit==$AWXKIT_VERSION" "setuptools<81"
  "$VENV/bin/awx" --help >/dev/null || die "$VENV/bin/awx --help failed"
}

# --- requests-oauthlib in <repo>/.venv (the OAuth 2 client test) -------------
ensure_requests_oauthlib() {
  [ -x "$VENV/bin/python" ] || die "$VENV/bin/python missing (ensure_awxkit creates it)"
  if "$VENV/bin/python" -c 'import requests_oauthlib' >/dev/null 2>&1; then
    return 0
  fi
  say "installing requests-oauthlib==$REQUESTS_OAUTHLIB_VERSION into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "requests-oauthlib==$REQUESTS_OAUTHLIB_VERSION" \
    || die "pip install requests-oauthlib==$REQUESTS_OAUTHLIB_VERSION failed"
  "$VENV/bin/python" -c 'import requests_oauthlib' \
    || die "requests_oauthlib does not import in $VENV"
}

# --- ansible-core in <repo>/.venv (the job, inventory and project update tests) --
ansible_installed_version() {
  [ -x "$VENV/bin/ansible-playbook" ] || return 0
  "$VENV/bin/python" -c 'import ansible.release; print(ansible.release.__version__)' 2>/dev/null || true
}

ensure_ansible() {
  [ -x "$VENV/bin/python" ] || die "$VENV/bin/python missing (ensure_awxkit creates it)"
  [ "$(ansible_installed_version)" = "$ANSIBLE_CORE_VERSION" ] && return 0
  say "installing ansible-core==$ANSIBLE_CORE_VERSION into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "ansible-core==$ANSIBLE_CORE_VERSION" \
    || die "pip install ansible-core==$ANSIBLE_CORE_VERSION failed"
  local tool
  for tool in ansible-playbook ansible-inventory ansible-galaxy ansible-config; do
    "$VENV/bin/$tool" --version >/dev/null || die "$VENV/bin/$tool --version failed"
  done
}

# --- the awx.awx collection in <repo>/.venv/collections (the collection test) --
# Galaxy is out of reach, but PyPI's ansible==$ANSIBLE_BUNDLE_VERSION wheel bundles
# awx.awx $AWX_COLLECTION_VERSION. That wheel cannot be installed beside
# ansible-core $ANSIBLE_CORE_VERSION (it pins ansible-core 2.17), so only the
# collection's directory is taken out of it.
AWX_COLLECTIONS="$VENV/collections"

awx_collection_installed_version() {
  local manifest="$AWX_COLLECTIONS/ansible_collections/awx/awx/MANIFEST.json"
  [ -f "$manifest" ] || return 0
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["collection_info"]["version"])' \
    "$manifest" 2>/dev/null || true
}

# Downloads the wheel into $1 and moves the collection out of it into place;
# says what failed on stderr and returns 1.
install_awx_collection_from_wheel() {
  local tmp="$1" wheel
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp" "ansible==$ANSIBLE_BUNDLE_VERSION" >/dev/null || {
    echo "pip download ansible==$ANSIBLE_BUNDLE_VERSION failed" >&2
    return 1
  }
  wheel="$(find "$tmp" -maxdepth 1 -name "ansible-$ANSIBLE_BUNDLE_VERSION-*.whl" | head -1)"
  [ -n "$wheel" ] || {
    echo "pip download left no ansible-$ANSIBLE_BUNDLE_VERSION wheel" >&2
    return 1
  }
  # Only ansible_collections/awx/awx/ (zipfile keeps every member inside the target).
  python3 - "$wheel" "$tmp/out" <<'PY' || return 1
import sys, zipfile
wheel, target = sys.argv[1:]
prefix = "ansible_collections/awx/awx/"
with zipfile.ZipFile(wheel) as archive:
    members = [name for name in archive.namelist() if name.startswith(prefix)]
    if not members:
        sys.exit(f"{wheel} holds no {prefix}")
    archive.extractall(target, members)
PY
  # Swap the whole directory in, so a failed run never leaves half a collection.
  mkdir -p "$AWX_COLLECTIONS/ansible_collections/awx" || return 1
  rm -rf "$AWX_COLLECTIONS/ansible_collections/awx/awx" || return 1
  mv "$tmp/out/ansible_collections/awx/awx" "$AWX_COLLECTIONS/ansible_collections/awx/awx"
}

ensure_awx_collection() {
  [ -x "$VENV/bin/pip" ] || die "$VENV/bin/pip missing (ensure_awxkit creates it)"
  [ "$(awx_collection_installed_version)" = "$AWX_COLLECTION_VERSION" ] && return 0
  say "installing awx.awx $AWX_COLLECTION_VERSION (from the ansible==$ANSIBLE_BUNDLE_VERSION wheel) into $AWX_COLLECTIONS"
  local tmp status=0
  tmp="$(mktemp -d)"
  install_awx_collection_from_wheel "$tmp" || status=$?
  rm -rf "$tmp"
  [ "$status" -eq 0 ] || die "installing awx.awx $AWX_COLLECTION_VERSION failed (see above)"
  [ "$(awx_collection_installed_version)" = "$AWX_COLLECTION_VERSION" ] \
    || die "$AWX_COLLECTIONS/ansible_collections/awx/awx is not version $AWX_COLLECTION_VERSION after extraction"
  ANSIBLE_COLLECTIONS_PATH="$AWX_COLLECTIONS" "$VENV/bin/ansible-doc" -t module awx.awx.settings >/dev/null 2>&1 \
    || die "ansible-doc does not find awx.awx.settings in $AWX_COLLECTIONS"
}

# --- schemathesis in <repo>/.venv (the OpenAPI test) --------------------------
ensure_schemathesis() {
  [ -x "$VENV/bin/python" ] || die "$VENV/bin/python missing (ensure_awxkit creates it)"
  if [ -x "$VENV/bin/st" ] && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" = "$SCHEMATHESIS_VERSION" ]; then
    return 0
  fi
  say "installing schemathesis==$SCHEMATHESIS_VERSION into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "schemathesis==$SCHEMATHESIS_VERSION" \
    || die "pip install schemathesis==$SCHEMATHESIS_VERSION failed"
  "$VENV/bin/pip" check >/dev/null || die "schemathesis conflicts with the other tools in $VENV"
  "$VENV/bin/st" --version >/dev/null || die "$VENV/bin/st --version failed"
}

# --- headless Chromium and its chromedriver (the browser tests) --------------
# (procps: the harness ends a Chromium left behind by its chromedriver with pkill -P.)
ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && command -v pkill >/dev/null; then
    return 0
  fi
  say "installing chromium, chromium-driver and procps"
  apt_install chromium chromium-driver procps
  /usr/bin/chromium --version >/dev/null 2>&1 || die "/usr/bin/chromium --version failed"
  /usr/bin/chromedriver --version >/dev/null 2>&1 || die "/usr/bin/chromedriver --version failed"
}

# --- npm packages in <repo>/node_modules -----------------------------------------
# `npm install --no-save` in a directory without package.json removes every
# package it is not given: installing oidc-provider alone would remove axe-core
# and the other way round. So every pinned package is installed by one command.
NPM_PACKAGES=("axe-core@$AXE_CORE_VERSION" "oidc-provider@$OIDC_PROVIDER_VERSION")

# The version of <repo>/node_modules/<name>, or nothing when it is missing.
npm_installed_version() {
  local pkg="$ROOT/node_modules/$1/package.json"
  [ -f "$pkg" ] || return 0
  command -v node >/dev/null || return 0
  node -p 'require(process.argv[1]).version' "$pkg" 2>/dev/null || true
}

npm_install_pinned() {
  say "installing ${NPM_PACKAGES[*]} into $ROOT/node_modules"
  npm install --no-save --no-audit --no-fund --no-package-lock --loglevel=error \
    --prefix "$ROOT" "${NPM_PACKAGES[@]}" >/dev/null \
    || die "npm install ${NPM_PACKAGES[*]} failed"
}

# --- axe-core in <repo>/node_modules (the browser tests' accessibility check) --
axe_installed_version() {
  [ -f "$ROOT/node_modules/axe-core/axe.min.js" ] || return 0
  npm_installed_version axe-core
}

ensure_axe() {
  [ "$(axe_installed_version)" = "$AXE_CORE_VERSION" ] && return 0
  if ! command -v npm >/dev/null; then
    say "installing nodejs and npm"
    apt_install nodejs npm
  fi
  npm_install_pinned
  [ "$(axe_installed_version)" = "$AXE_CORE_VERSION" ] \
    || die "$ROOT/node_modules/axe-core is not version $AXE_CORE_VERSION after npm install"
}

# --- oidc-provider in <repo>/node_modules (the single sign-on tests) -------------
# tests/oidc/provider.mjs runs it as the tests' OpenID Connect provider
# (tests/src/oidc.rs). It needs Node.js >= 20.12 (crypto.hash); it warns that it
# prefers 22 but works on 20. Debian 12's own nodejs (18) is too old: the
# machines have Node.js 20 from NodeSource, which ensure_axe does not replace.
ensure_oidc_provider() {
  command -v node >/dev/null || die "node not found (oidc-provider needs Node.js >= 20.12)"
  local node_version
  node_version="$(node -p 'process.versions.node')"
  node -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit(major > 20 || (major === 20 && minor >= 12) ? 0 : 1);
  ' || die "node $node_version is too old for oidc-provider@$OIDC_PROVIDER_VERSION (needs >= 20.12)"
  [ "$(npm_installed_version oidc-provider)" = "$OIDC_PROVIDER_VERSION" ] && return 0
  command -v npm >/dev/null || die "npm not found (ensure_axe installs it)"
  npm_install_pinned
  [ "$(npm_installed_version oidc-provider)" = "$OIDC_PROVIDER_VERSION" ] \
    || die "$ROOT/node_modules/oidc-provider is not version $OIDC_PROVIDER_VERSION after npm install"
  # npm_install_pinned reinstalled axe-core as well: check it survived.
  [ "$(axe_installed_version)" = "$AXE_CORE_VERSION" ] \
    || die "$ROOT/node_modules/axe-core is not version $AXE_CORE_VERSION after npm install"
  (cd "$ROOT" && node --input-type=module -e 'await import("oidc-provider")' 2>/dev/null) \
    || die "oidc-provider@$OIDC_PROVIDER_VERSION does not import with node $node_version"
}

# --- git, python3 and ssh-keygen (git projects) --------------------------------
# Project updates run git; the git project tests serve repositories with
# `git daemon` and `git http-backend` (behind a small python3 HTTP server) on a
# test host, and make an SSH key with ssh-keygen.
ensure_git() {
  # `git daemon -h` prints its usage and exits 129: judge it by its output.
  daemon_usage() { git daemon -h 2>&1 || true; }
  if ! command -v git >/dev/null 2>&1 || [[ "$(daemon_usage)" != *base-path* ]]; then
    say "installing git"
    apt_install git
  fi
  command -v python3 >/dev/null 2>&1 || { say "installing python3"; apt_install python3; }
  command -v ssh-keygen >/dev/null 2>&1 || { say "installing openssh-client"; apt_install openssh-client; }
  [[ "$(daemon_usage)" == *base-path* ]] || die "git daemon missing after installing git"
  [ -x "$(git --exec-path)/git-http-backend" ] || die "git http-backend missing"
  command -v ssh-keygen >/dev/null 2>&1 || die "ssh-keygen missing after installing openssh-client"
}

# --- sshd (the git-over-SSH test host, tests/src/git_server.rs) ---------------
# The tests start their own sshd as a foreground process inside a test host's
# network namespace, with a host key and authorized key in a temporary
# directory. The package's own service must not stay running on port 22.
ensure_sshd() {
  if ! [ -x /usr/sbin/sshd ] || ! command -v ssh-agent >/dev/null 2>&1; then
    say "installing openssh-server"
    apt_install openssh-server openssh-client
    $SUDO service ssh stop >/dev/null 2>&1 || true
    local pid
    pid="$(cat /run/sshd.pid 2>/dev/null || true)"
    case "$pid" in
      '' | *[!0-9]*) ;;
      *)
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" = "sshd" ]; then
          say "stopping the system sshd (pid $pid) the package started"
          $SUDO kill "$pid" || true
        fi
        ;;
    esac
  fi
  [ -x /usr/sbin/sshd ] || die "/usr/sbin/sshd missing after installing openssh-server"
  for tool in ssh ssh-agent ssh-add ssh-keygen; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool missing after installing openssh-client"
  done
}

# --- bubblewrap (every run's sandbox, contract §6) ---------------------------
# The runner starts each job, project update and inventory update inside bwrap;
# the tests run real ansible through it and prove what a run cannot see.
ensure_bwrap() {
  if ! [ -x /usr/bin/bwrap ]; then
    say "installing bubblewrap"
    apt_install bubblewrap
  fi
  [ -x /usr/bin/bwrap ] || die "/usr/bin/bwrap missing after installing bubblewrap"
  /usr/bin/bwrap --ro-bind / / --unshare-pid --die-with-parent true \
    || die "/usr/bin/bwrap cannot make a sandbox on this machine"
  [ -x /usr/bin/setpriv ] || die "/usr/bin/setpriv missing (util-linux)"
}

# --- slirp4netns (each run's own network, JOB_ISOLATION_NETWORK "isolated") ----
# A run's network namespace reaches other machines through this user-mode stack,
# never the host; nsenter and ip close the host's addresses in it. The tests' own
# test hosts are network namespaces made with ip, and they check PostgreSQL from
# outside with psql.
ensure_slirp4netns() {
  if ! [ -x /usr/bin/slirp4netns ]; then
    say "installing slirp4netns"
    apt_install slirp4netns
  fi
  [ -x /usr/bin/slirp4netns ] || die "/usr/bin/slirp4netns missing after installing slirp4netns"
  if ! command -v ip >/dev/null 2>&1; then
    say "installing iproute2"
    apt_install iproute2
  fi
  command -v ip >/dev/null 2>&1 || die "ip missing after installing iproute2"
  command -v nsenter >/dev/null 2>&1 || die "nsenter missing (util-linux)"
  if ! command -v psql >/dev/null 2>&1; then
    say "installing postgresql-client"
    apt_install postgresql-client
  fi
  command -v psql >/dev/null 2>&1 || die "psql missing after installing postgresql-client"
  /usr/bin/slirp4netns --version >/dev/null || die "/usr/bin/slirp4netns does not run"
}

# --- wrk (the load generator of `cargo xtask bench`) ---------------------------
ensure_wrk() {
  if ! command -v wrk >/dev/null 2>&1; then
    say "installing wrk"
    apt_install wrk
  fi
  command -v wrk >/dev/null 2>&1 || die "wrk missing after installing it"
}

# --- OpenLDAP slapd and its tools (the directory login tests) -----------------
# The tests run their own slapd (tests/src/ldap.rs): a foreground process on a
# free loopback port with a configuration and database in a temporary directory.
# The package must not configure a database of its own nor leave a system slapd
# running on port 389.
system_slapd_pid() {
  local pidfile pid
  for pidfile in /run/slapd/slapd.pid /var/run/slapd/slapd.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    case "$pid" in '' | *[!0-9]*) continue ;; esac
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" = "slapd" ]; then
      echo "$pid"
      return 0
    fi
  done
}

ensure_slapd() {
  if [ -x /usr/sbin/slapd ] && [ -x /usr/sbin/slapadd ] && [ -x /usr/bin/ldapsearch ]; then
    return 0
  fi
  say "installing slapd and ldap-utils"
  # Without this the postinst builds a dc=<host domain> database in
  # /var/lib/ldap and asks for an admin password.
  echo "slapd slapd/no_configuration boolean true" | $SUDO debconf-set-selections
  apt_install slapd ldap-utils
  # The postinst may have started the system service (where policy-rc.d allows
  # it). Stop that instance only, by its own pid file, never the tests' slapds.
  $SUDO service slapd stop >/dev/null 2>&1 || true
  local pid
  pid="$(system_slapd_pid)"
  if [ -n "$pid" ]; then
    say "stopping the system slapd (pid $pid) the package started"
    $SUDO kill "$pid" || true
  fi
  local tool
  for tool in /usr/sbin/slapd /usr/sbin/slapadd /usr/bin/ldapsearch /usr/bin/ldapadd \
    /usr/bin/ldapmodify /usr/bin/ldapdelete /usr/bin/ldapwhoami; do
    [ -x "$tool" ] || die "$tool missing after installing slapd and ldap-utils"
  done
  # slapd -VV prints its version on stderr and its exit status differs between
  # versions: judge it by its output, not its status.
  local version
  version="$(/usr/sbin/slapd -VV 2>&1 || true)"
  case "$version" in
    *"slapd 2."*) ;;
    *) die "/usr/sbin/slapd -VV printed no version: $version" ;;
  esac
  [ -f /usr/lib/ldap/back_mdb.so ] || [ -f /usr/lib/ldap/back_mdb.la ] \
    || die "/usr/lib/ldap/back_mdb missing (the tests' slapd.conf loads it)"
}

ensure_nextest
ensure_git
ensure_sshd
ensure_bwrap
ensure_slirp4netns
ensure_wrk
ensure_libpq
ensure_postgres
ensure_pg_dump
ensure_awxkit
ensure_requests_oauthlib
ensure_ansible
ensure_awx_collection
ensure_schemathesis
ensure_chromium
ensure_axe
ensure_slapd
ensure_oidc_provider
