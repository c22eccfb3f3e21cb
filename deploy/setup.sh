#!/usr/bin/env bash
# Installs what the mesh needs on a fresh Debian machine of this kind (idempotent):
# pnpm, the workspace dependencies, and Debian packages used by the documents service
# (and, with --tests, those only the test suite needs).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1 || ! pnpm --version | grep -q '^10\.'; then
  echo "installing pnpm 10..."
  npm install -g pnpm@10 >/dev/null
fi

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v pdftotext >/dev/null 2>&1 || need_apt+=(poppler-utils)
if [ "${1:-}" = "--tests" ]; then
  # The Helm chart test renders templates with Go text/template + sprig (no helm binary here).
  command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
  # The fault suite restarts a NATS server of its own (the machine's shared one is never touched).
  # (test/support/nats-server.ts runs /usr/sbin/nats-server, where Debian's package puts it.)
  [ -x /usr/sbin/nats-server ] || need_apt+=(nats-server)
  # The e-invoice tests run the official validation kit (../shared/einvoice): XSD with xmllint,
  # Schematron with Saxon-HE on Java 17; poppler's pdfdetach (above) extracts the ZUGFeRD XML.
  command -v xmllint >/dev/null 2>&1 || need_apt+=(libxml2-utils)
  [ -f /usr/share/java/Saxon-HE.jar ] || need_apt+=(libsaxonhe-java)
  command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
  for pkg in golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
  done
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${need_apt[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "warning: missing ${need_apt[*]} (install them with apt-get as root)" >&2
  fi
fi

pnpm install --frozen-lockfile --prefer-offline

if [ "${1:-}" = "--tests" ]; then
  # The images run Node.js 24 LTS while these machines run Node.js 20: the suite also runs the unit
  # tests on 24, with the Node.js binary the npm registry serves as a package (node-linux-<arch>).
  case "$(uname -m)" in aarch64|arm64) node_arch=arm64 ;; *) node_arch=x64 ;; esac
  if [ ! -x ".run/node24/node_modules/node-linux-$node_arch/bin/node" ]; then
    echo "installing Node.js 24 (node-linux-$node_arch) for the unit tests on the images' line..."
    mkdir -p .run/node24
    npm install --no-save --no-package-lock --no-audit --no-fund --prefix .run/node24 "node-linux-$node_arch@24" >/dev/null
  fi
fi
