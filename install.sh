#!/bin/sh
# Installs or upgrades Atrium from a release: downloads the executable for this machine, checks its
# sha256 against the channel manifest, puts it at <prefix>/bin/atrium, and runs `atrium serve` as a
# systemd user unit (Linux) or a launchd agent (macOS), or as a background process where neither can
# be used. Running it again upgrades in place. docs/releases.md describes releases and this script.
#
#   sh install.sh [--base-url URL|DIR] [--channel stable|alpha] [--prefix DIR]
#                 [--system] [--no-service] [--no-start] [--public-key FILE]
#
# POSIX sh (no bash, no jq): it runs on a fresh Linux or macOS.
set -eu

# Where the channel manifests are published. Empty until the project publishes at a fixed address:
# then --base-url (or ATRIUM_BASE_URL) is needed, unless this script sits in a release directory.
DEFAULT_BASE_URL=''

LABEL=dev.atrium.server
# The server exits with this status after swapping in a new executable, to be started again by
# whatever supervises it (see the unit and plist below).
RESTART_EXIT_STATUS=75

usage() {
	cat <<'EOF'
Usage: sh install.sh [options]

  --base-url URL|DIR  where <channel>.json and the executables are: https://..., file:///dir or a
                      directory (default: $ATRIUM_BASE_URL, else this script's directory when it
                      holds a release)
  --channel NAME      stable (default) or alpha (alpha takes the newer of alpha and stable)
  --prefix DIR        install to DIR/bin/atrium (default ~/.local; /usr/local with --system)
  --system            write a system service (/etc/systemd/system/atrium.service, or a launchd
                      daemon) running as the invoking user; needs root
  --no-service        install the executable only: no service, nothing started or stopped
  --no-start          write the service but do not start or restart anything
  --public-key FILE   also check the manifest's Ed25519 signature with this public key (openssl)
  -h, --help          this text
EOF
}

say() { printf 'atrium install: %s\n' "$*"; }
warn() { printf 'atrium install: %s\n' "$*" >&2; }
die() {
	warn "$*"
	exit 1
}
has() { command -v "$1" >/dev/null 2>&1; }

base_url=${ATRIUM_BASE_URL:-$DEFAULT_BASE_URL}
channel=${ATRIUM_CHANNEL:-stable}
prefix=${ATRIUM_PREFIX:-}
mode=user # user | system | none
start=yes
public_key=${ATRIUM_RELEASE_PUBLIC_KEY:-}

while [ $# -gt 0 ]; do
	case $1 in
	--base-url | --channel | --prefix | --public-key)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--base-url) base_url=$2 ;;
		--channel) channel=$2 ;;
		--prefix) prefix=$2 ;;
		--public-key) public_key=$2 ;;
		esac
		shift 2
		;;
	--base-url=*) base_url=${1#*=} && shift ;;
	--channel=*) channel=${1#*=} && shift ;;
	--prefix=*) prefix=${1#*=} && shift ;;
	--public-key=*) public_key=${1#*=} && shift ;;
	--system) mode=system && shift ;;
	--no-service) mode=none && shift ;;
	--no-start) start=no && shift ;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done

: "${HOME:?HOME is not set}"
case $channel in stable | alpha) ;; *) die "--channel must be stable or alpha, not $channel" ;; esac

newline='
'
tmp=
staged=
cleanup() {
	if [ -n "$staged" ]; then rm -f "$staged"; fi
	if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/atrium-install.XXXXXX")

# --- where the release is -----------------------------------------------------------------------

if [ -z "$base_url" ]; then
	script_dir=$(dirname -- "$0")
	if [ -f "$script_dir/$channel.json" ]; then
		base_url=$script_dir
	else
		die "no release location: pass --base-url URL (or a directory holding $channel.json)"
	fi
fi

# resolve_url BASE URL: a manifest's file URL is relative to the manifest's folder unless absolute.
resolve_url() {
	case $2 in
	*://*) printf '%s\n' "$2" ;;
	/*) printf '%s%s\n' "$(printf '%s\n' "$1" | sed -n 's#^\([A-Za-z][A-Za-z0-9+.-]*://[^/]*\).*#\1#p')" "$2" ;;
	*) printf '%s/%s\n' "${1%/}" "$2" ;;
	esac
}

# fetch SOURCE DEST: an http(s) URL, a file:// URL or a local path.
fetch() {
	case $1 in
	file://*) cp -- "${1#file://}" "$2" ;;
	*://*)
		if has curl; then
			curl -fsSL --retry 2 -o "$2" "$1"
		elif has wget; then
			wget -q -O "$2" "$1"
		else
			die "curl or wget is needed to download $1"
		fi
		;;
	*) cp -- "$1" "$2" ;;
	esac
}

# --- what this machine is -----------------------------------------------------------------------

is_musl() {
	# musl's ldd names itself in its --version text (on stderr, exit 1); glibc's says GNU libc.
	if has ldd; then
		ldd --version 2>&1 | grep -qi musl
		return
	fi
	for loader in /lib/ld-musl-*.so.1; do
		if [ -e "$loader" ]; then return 0; fi
	done
	return 1
}

detect_platform() {
	case $(uname -s) in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) die "there is no Atrium build for $(uname -s)" ;;
	esac
	case $(uname -m) in
	x86_64 | amd64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "there is no Atrium build for $(uname -m)" ;;
	esac
	# A shell under Rosetta reports x86_64 on Apple silicon; the native build is the one to run.
	if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
		arch=arm64
	fi
	platform=$os-$arch
	if [ "$os" = linux ] && is_musl; then platform=$platform-musl; fi
}

# ATRIUM_PLATFORM (e.g. linux-x64-musl) overrides the detection: an unusual libc, or a test.
if [ -n "${ATRIUM_PLATFORM:-}" ]; then
	platform=$ATRIUM_PLATFORM
	os=${platform%%-*}
else
	detect_platform
fi

# --- the manifest ---------------------------------------------------------------------------------
# release/release.ts writes <channel>.json as canonical JSON on one line, keys sorted:
#   {"keyId":"…","manifest":{"buildNumber":N,"channel":"…","files":{"linux-x64":{"name":"…",
#   "sha256":"…","size":N,"url":"…"},…},"minServiceVersion":…,"notes":"…","publishedAt":"…",
#   "version":"…"},"signature":"…"}
# so sed and awk can read it. The patterns are anchored on that order: a quote inside notes is
# escaped (\"), so notes cannot imitate them.

manifest_build() { sed -n 's/^{"keyId":"[^"]*","manifest":{"buildNumber":\([0-9][0-9]*\),.*/\1/p' "$1"; }
manifest_version() { sed -n 's/.*,"version":"\([^"\\]*\)"},"signature":"[^"]*"}$/\1/p' "$1"; }

# The {"name":…} object of one platform, from the "files" object (whose members hold no braces).
manifest_entry() {
	awk -v key="$2" '{
		start = index($0, "\"files\":{"); if (!start) exit
		files = substr($0, start + 9); files = substr(files, 1, index(files, "}}"))
		at = index(files, "\"" key "\":{"); if (!at) exit
		entry = substr(files, at + length(key) + 3)
		print substr(entry, 1, index(entry, "}"))
	}' "$1"
}

# entry_string ENTRY FIELD, entry_number ENTRY FIELD
entry_string() { printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p"; }
entry_number() { printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p"; }

verify_signature() {
	has openssl || die "--public-key needs openssl (1.1.1 or later) to check the signature"
	# The signed bytes are the manifest object exactly as written; sed adds a newline, $() drops it.
	sed -n 's#^{"keyId":"[^"]*","manifest":\(.*\),"signature":"[A-Za-z0-9+/=]*"}$#\1#p' "$1" >"$tmp/signed.txt"
	printf '%s' "$(cat "$tmp/signed.txt")" >"$tmp/signed.bin"
	sed -n 's#.*,"signature":"\([A-Za-z0-9+/=]*\)"}$#\1#p' "$1" | openssl base64 -d -A >"$tmp/signature.bin"
	openssl pkeyutl -verify -pubin -inkey "$public_key" -rawin -in "$tmp/signed.bin" -sigfile "$tmp/signature.bin" >/dev/null 2>&1 ||
		die "the signature of $(basename "$1") does not match the public key $public_key"
}

# get_manifest NAME: downloads NAME.json; false when there is none.
get_manifest() {
	fetch "$(resolve_url "$base_url" "$1.json")" "$tmp/$1.json" 2>/dev/null || return 1
	[ -n "$(manifest_build "$tmp/$1.json")" ] || die "$1.json from $base_url is not a manifest written by the release script"
}

# version_order A B: prints -1, 0 or 1 as version A is older than, as old as or newer than B, by
# semantic version precedence (a pre-release is older than its release; build metadata is ignored).
version_order() {
	awk -v a="$1" -v b="$2" '
	function ident(x, y,   xn, yn) {
		xn = (x ~ /^[0-9]+$/); yn = (y ~ /^[0-9]+$/)
		if (xn && yn) return (x + 0 < y + 0) ? -1 : (x + 0 > y + 0)
		if (xn != yn) return xn ? -1 : 1
		return (x "" < y "") ? -1 : (x "" > y "")
	}
	function order(x, y,   xp, yp, xc, yc, xs, ys, i, n, m, c) {
		sub(/\+.*/, "", x); sub(/\+.*/, "", y)
		xp = ""; yp = ""
		i = index(x, "-"); if (i) { xp = substr(x, i + 1); x = substr(x, 1, i - 1) }
		i = index(y, "-"); if (i) { yp = substr(y, i + 1); y = substr(y, 1, i - 1) }
		split(x, xc, "."); split(y, yc, ".")
		for (i = 1; i <= 3; i++) if (xc[i] + 0 != yc[i] + 0) return (xc[i] + 0 < yc[i] + 0) ? -1 : 1
		if (xp == yp) return 0
		if (xp == "") return 1
		if (yp == "") return -1
		n = split(xp, xs, "."); m = split(yp, ys, ".")
		for (i = 1; i <= n && i <= m; i++) { c = ident(xs[i], ys[i]); if (c) return c }
		return (n < m) ? -1 : (n > m)
	}
	BEGIN { print order(a, b) }'
}

# newer_manifest A B: A's release is newer than B's. Across channels the version decides, the build
# number breaks a tie: the server's updater orders them so (src/update/release-order.ts).
newer_manifest() {
	order=$(version_order "$(manifest_version "$1")" "$(manifest_version "$2")")
	[ "$order" -gt 0 ] || { [ "$order" -eq 0 ] && [ "$(manifest_build "$1")" -gt "$(manifest_build "$2")" ]; }
}

# An alpha install takes whichever is newer: each manifest lists only its own channel's latest build,
# so a stable release newer than the last alpha reaches alpha users too. Before the first alpha there
# is only stable.json.
manifest=
if get_manifest "$channel"; then manifest=$tmp/$channel.json; fi
if [ "$channel" = alpha ] && get_manifest stable; then
	if [ -z "$manifest" ] || newer_manifest "$tmp/stable.json" "$manifest"; then
		manifest=$tmp/stable.json
	fi
fi
[ -n "$manifest" ] || die "could not get $channel.json from $base_url"
if [ -n "$public_key" ]; then verify_signature "$manifest"; fi

version=$(manifest_version "$manifest")
build=$(manifest_build "$manifest")
entry=$(manifest_entry "$manifest" "$platform")
[ -n "$entry" ] || die "release $version (build $build) has no executable for $platform"
sha256=$(entry_string "$entry" sha256)
size=$(entry_number "$entry" size)
file_url=$(entry_string "$entry" url)
if [ "${#sha256}" -ne 64 ] || [ -z "$size" ] || [ -z "$file_url" ] || [ -z "$version" ]; then
	die "the $platform entry of the manifest is incomplete"
fi
url=$(resolve_url "$base_url" "$file_url")

# --- download and check ---------------------------------------------------------------------------

sha256_of() {
	if has sha256sum; then
		sha256sum -- "$1" | cut -d' ' -f1
	elif has shasum; then
		shasum -a 256 -- "$1" | cut -d' ' -f1
	elif has openssl; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		die "sha256sum, shasum or openssl is needed to check the download"
	fi
}

say "atrium $version (build $build) for $platform from $url"
download=$tmp/atrium
fetch "$url" "$download" || die "could not download $url"
actual_size=$(wc -c <"$download" | tr -d ' ')
[ "$actual_size" = "$size" ] || die "the download is $actual_size bytes, the manifest says $size: not installed"
actual_sha=$(sha256_of "$download")
[ "$actual_sha" = "$sha256" ] || die "sha256 mismatch for $url (got $actual_sha, the manifest says $sha256): not installed"

# --- install --------------------------------------------------------------------------------------

if [ -z "$prefix" ]; then
	if [ "$mode" = system ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
fi
case $prefix in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
# These characters would need escaping in a unit file or plist; no sensible prefix has them.
case $prefix in *[\"\\%\$\&\<\>]* | *"$newline"*) die "the prefix $prefix has a character the service files cannot carry" ;; esac
bindir=$prefix/bin
target=$bindir/atrium
mkdir -p "$bindir"

changed=yes
if [ -f "$target" ] && [ "$(sha256_of "$target")" = "$sha256" ]; then
	changed=no
	say "$target is already atrium $version (build $build)"
else
	# Staged in the same directory, checked, then renamed over the old one: the switch is atomic, and
	# a running atrium keeps its (old) file. Copying over a running executable instead fails (ETXTBSY)
	# or, on macOS, kills it.
	staged=$bindir/.atrium.new.$$
	cp -- "$download" "$staged"
	chmod 755 "$staged"
	[ "$(sha256_of "$staged")" = "$sha256" ] || die "the copy at $staged does not match; $target is unchanged"
	reported=$("$staged" --version 2>/dev/null) || die "the downloaded atrium does not run on this machine; $target is unchanged"
	[ "$reported" = "$version" ] || die "the downloaded atrium says it is $reported, the manifest $version; $target is unchanged"
	mv -f "$staged" "$target"
	staged=
	say "installed $target"
fi
case ":$PATH:" in *":$bindir:"*) ;; *) say "note: $bindir is not on your PATH" ;; esac

# --- service ----------------------------------------------------------------------------------------

if [ "$mode" = none ]; then
	say "no service written (--no-service); run it with: $target serve"
	exit 0
fi

service_user=$(id -un)
service_home=$HOME
if [ "$mode" = system ]; then
	service_user=${SUDO_USER:-$service_user}
	if has getent; then
		service_home=$(getent passwd "$service_user" | cut -d: -f6)
	elif has dscl; then
		service_home=$(dscl . -read "/Users/$service_user" NFSHomeDirectory | sed 's/^NFSHomeDirectory: //')
	fi
	[ -n "$service_home" ] || die "cannot find the home directory of $service_user"
fi

# The data dir, as the server finds it (src/config/paths.ts): logs and the pid file go there.
if [ -n "${ATRIUM_HOME:-}" ]; then
	data_dir=$ATRIUM_HOME
elif [ "$os" = darwin ]; then
	data_dir="$service_home/Library/Application Support/atrium"
elif [ "$mode" = user ]; then
	data_dir=${XDG_DATA_HOME:-$HOME/.local/share}/atrium
else
	data_dir=$service_home/.local/share/atrium
fi
pid_file=$data_dir/atrium.pid
out_log=$data_dir/logs/stdout.log

# The data dir holds the token, the database and transcripts: 0700 whatever the caller's umask, and
# narrowed when an earlier install.sh made it with the umask (0755).
make_data_dir() {
	(umask 077 && mkdir -p "$data_dir/logs") || die "cannot create $data_dir"
	chmod 700 "$data_dir" "$data_dir/logs" || die "cannot make $data_dir private"
}

# A service does not get the login shell's PATH, yet the server must find the agent CLIs. So: this
# shell's PATH first (its order is what the user sees at the terminal), then the usual install places
# of npm, bun and Homebrew. Relative, temporary and oddly named directories are left out.
service_path=
add_path_dir() {
	case $1 in /*) ;; *) return 0 ;; esac
	case $1 in *[\"\\%\$\&\<\>]* | *"$newline"*) return 0 ;; esac
	case ":$service_path:" in *":$1:"*) return 0 ;; esac
	service_path=${service_path:+$service_path:}$1
}
add_path_dir "$bindir"
saved_ifs=$IFS
IFS=:
set -f
for dir in $PATH; do
	# A package runner's node_modules/.bin (npx, npm run) is not where the CLIs live.
	case $dir in */node_modules/*) continue ;; esac
	if [ -d "$dir" ]; then add_path_dir "$dir"; fi
done
set +f
IFS=$saved_ifs
for dir in "$service_home/.local/bin" "$service_home/.bun/bin" "$service_home/.npm-global/bin" \
	"$service_home/.opencode/bin" "$service_home/.cargo/bin" /usr/local/bin /opt/homebrew/bin /usr/bin /bin /usr/sbin /sbin; do
	add_path_dir "$dir"
done

# write_if_changed FILE: stdin to FILE, atomically; true when the content differs from before.
# (Called in an `if`, where set -e does not apply: failures are checked one by one.)
write_if_changed() {
	mkdir -p "$(dirname -- "$1")" || die "cannot create the folder of $1"
	cat >"$1.new" || die "cannot write $1"
	if [ -f "$1" ] && cmp -s "$1" "$1.new"; then
		rm -f "$1.new"
		return 1
	fi
	mv -f "$1.new" "$1" || die "cannot write $1"
}

systemd_unit() {
	printf '%s\n' \
		"# Written by install.sh; running it again rewrites this file." \
		"[Unit]" \
		"Description=Atrium: the coding-agent CLIs on this machine behind one HTTP interface"
	if [ "$mode" = system ]; then printf '%s\n' "Wants=network-online.target" "After=network-online.target"; fi
	printf '%s\n' \
		"" \
		"[Service]" \
		"Type=simple" \
		"ExecStart=\"$target\" serve" \
		"# After a self-update the server exits with $RESTART_EXIT_STATUS for systemd to start the new executable." \
		"# RestartForceExitStatus restarts on it whatever Restart= says (a drop-in may set Restart=no);" \
		"# on-failure also brings the server back after a crash, while a clean stop (SIGTERM, exit 0) stays" \
		"# stopped. Restart=always would also undo an intentional exit 0." \
		"Restart=on-failure" \
		"RestartForceExitStatus=$RESTART_EXIT_STATUS" \
		"RestartSec=2" \
		"Environment=\"PATH=$service_path\"" \
		"# Tells the server that exiting with $RESTART_EXIT_STATUS gets it restarted." \
		"Environment=ATRIUM_SUPERVISOR=systemd"
	if [ -n "${ATRIUM_HOME:-}" ]; then printf '%s\n' "Environment=\"ATRIUM_HOME=$ATRIUM_HOME\""; fi
	if [ "$mode" = system ]; then printf '%s\n' "User=$service_user" "WorkingDirectory=~"; fi
	printf '%s\n' "" "[Install]"
	if [ "$mode" = system ]; then echo "WantedBy=multi-user.target"; else echo "WantedBy=default.target"; fi
}

xml() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

launchd_plist() {
	cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by install.sh; running it again rewrites this file. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>$LABEL</string>
	<key>ProgramArguments</key>
	<array>
		<string>$(xml "$target")</string>
		<string>serve</string>
	</array>
	<key>EnvironmentVariables</key>
	<dict>
		<key>PATH</key>
		<string>$(xml "$service_path")</string>
		<key>ATRIUM_SUPERVISOR</key>
		<string>launchd</string>
$(if [ -n "${ATRIUM_HOME:-}" ]; then printf '\t\t<key>ATRIUM_HOME</key>\n\t\t<string>%s</string>\n' "$(xml "$ATRIUM_HOME")"; fi)
	</dict>
$(if [ "$mode" = system ]; then printf '\t<key>UserName</key>\n\t<string>%s</string>\n' "$(xml "$service_user")"; fi)
	<key>WorkingDirectory</key>
	<string>$(xml "$service_home")</string>
	<key>RunAtLoad</key>
	<true/>
	<!-- Started again when it exits unsuccessfully: a crash, or exit $RESTART_EXIT_STATUS after a self-update.
	     A clean exit 0 (SIGTERM) stays stopped. -->
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>5</integer>
	<key>StandardOutPath</key>
	<string>$(xml "$out_log")</string>
	<key>StandardErrorPath</key>
	<string>$(xml "$out_log")</string>
</dict>
</plist>
EOF
}

# --- background process: where no service manager can be used ----------------------------------

pid_in() { if [ -f "$1" ]; then sed -n '1{s/[^0-9]//g;p;}' "$1"; fi; }

is_running_atrium() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null && ps -p "$1" -o comm= 2>/dev/null | grep -q atrium
}

# Waits a tenth of a second and counts it in `waited`. A sleep that takes no fractions waits a whole
# second and counts ten: the waits below last as long either way.
nap() {
	if sleep 0.1 2>/dev/null; then
		waited=$((waited + 1))
	else
		sleep 1
		waited=$((waited + 10))
	fi
}

# Stops the atrium started by an earlier run (its pid file), or whichever holds the data dir lock.
stop_background() {
	for pid in $(pid_in "$pid_file") $(pid_in "$data_dir/server.lock"); do
		is_running_atrium "$pid" || continue
		say "stopping atrium (pid $pid)"
		kill "$pid" 2>/dev/null || continue
		waited=0
		while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 200 ]; do nap; done
		if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
	done
	rm -f "$pid_file"
}

start_background() {
	if [ "$changed" = no ] && is_running_atrium "$(pid_in "$pid_file")"; then
		say "atrium is already running in the background (pid $(pid_in "$pid_file"))"
		return 0
	fi
	stop_background
	make_data_dir
	if [ -f "$out_log" ]; then mv -f "$out_log" "$out_log.1"; fi
	# Created private first: the redirections below keep an existing file's mode.
	(umask 077 && : >"$out_log" && : >"$pid_file") || die "cannot write $out_log"
	# Nothing restarts it: the server has to start its successor itself after an update.
	PATH=$service_path ATRIUM_SUPERVISOR=none nohup "$target" serve >"$out_log" 2>&1 </dev/null &
	pid=$!
	printf '%s\n' "$pid" >"$pid_file"
	waited=0
	while [ "$waited" -lt 150 ]; do
		if grep -q '^listening on ' "$out_log" 2>/dev/null; then
			say "atrium runs in the background (pid $pid), $(sed -n 's/^listening on //p' "$out_log" | head -n 1)"
			say "its output goes to $out_log; pid file $pid_file; it is not restarted at login"
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$pid_file"
			warn "atrium stopped as it started; its output ($out_log):"
			cat "$out_log" >&2
			exit 1
		fi
		nap
	done
	warn "atrium (pid $pid) has not said it is listening after 15 s; see $out_log"
}

# --- per service manager ------------------------------------------------------------------------

systemctl_usable() {
	if [ "$mode" = system ]; then
		has systemctl && [ -d /run/systemd/system ] && systemctl show-environment >/dev/null 2>&1
	else
		has systemctl && systemctl --user show-environment >/dev/null 2>&1
	fi
}

install_systemd() {
	if [ "$mode" = system ]; then
		unit_dir=${ATRIUM_SYSTEM_UNIT_DIR:-/etc/systemd/system}
		mkdir -p "$unit_dir" 2>/dev/null || true
		[ -w "$unit_dir" ] || die "--system writes $unit_dir: run as root (sudo)"
		systemctl_cmd=systemctl
	else
		unit_dir=${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user
		systemctl_cmd="systemctl --user"
	fi
	unit=$unit_dir/atrium.service
	unit_changed=no
	if systemd_unit | write_if_changed "$unit"; then unit_changed=yes; fi
	say "wrote $unit"
	if [ "$start" = no ]; then
		say "not started (--no-start)"
		return 0
	fi
	if ! systemctl_usable; then
		if [ "$mode" = system ]; then
			warn "systemd is not running here; start atrium later with: systemctl enable --now atrium"
			return 0
		fi
		say "systemctl --user cannot be used here; starting atrium as a background process instead"
		start_background
		return 0
	fi
	# A background atrium from an earlier run would hold the data dir.
	if [ "$mode" = user ]; then stop_background; fi
	$systemctl_cmd daemon-reload
	$systemctl_cmd enable atrium.service >/dev/null 2>&1
	if [ "$changed" = yes ] || [ "$unit_changed" = yes ]; then
		$systemctl_cmd restart atrium.service
	else
		$systemctl_cmd start atrium.service
	fi
	say "atrium.service is enabled and running; logs: atrium logs (or journalctl${systemctl_cmd#systemctl} -u atrium)"
	if [ "$mode" = user ] && has loginctl && [ "$(loginctl show-user "$service_user" -p Linger --value 2>/dev/null || true)" = no ]; then
		say "to keep it running when you are logged out: loginctl enable-linger $service_user"
	fi
}

install_launchd() {
	if [ "$mode" = system ]; then
		plist_dir=${ATRIUM_LAUNCHD_DIR:-/Library/LaunchDaemons}
		domain=system
		[ -w "$plist_dir" ] || die "--system writes $plist_dir: run as root (sudo)"
	else
		plist_dir=${ATRIUM_LAUNCHD_DIR:-$HOME/Library/LaunchAgents}
		domain=gui/$(id -u)
	fi
	plist=$plist_dir/$LABEL.plist
	make_data_dir
	plist_changed=no
	if launchd_plist | write_if_changed "$plist"; then plist_changed=yes; fi
	say "wrote $plist"
	if [ "$start" = no ]; then
		say "not started (--no-start)"
		return 0
	fi
	if ! has launchctl || ! launchctl print "$domain" >/dev/null 2>&1; then
		if [ "$mode" = system ]; then
			warn "launchctl cannot be used here; load it later with: launchctl bootstrap system $plist"
			return 0
		fi
		say "launchctl cannot be used here (no GUI session?); starting atrium as a background process instead"
		start_background
		return 0
	fi
	if [ "$mode" = user ]; then stop_background; fi
	if [ "$changed" = yes ] || [ "$plist_changed" = yes ] || ! launchctl print "$domain/$LABEL" >/dev/null 2>&1; then
		# bootout stops the old server (SIGTERM) before the new definition is loaded and started.
		launchctl bootout "$domain/$LABEL" >/dev/null 2>&1 || true
		launchctl bootstrap "$domain" "$plist"
	fi
	launchctl kickstart "$domain/$LABEL" >/dev/null 2>&1 || true
	say "$LABEL is loaded and running; logs: atrium logs"
}

if [ "$os" = darwin ]; then install_launchd; else install_systemd; fi
