// Written without node:net's isIP: loading node:net cost every start about 13 ms of CPU before it
// could answer (the host check and the loopback exception run at start).
const IPV4_PART = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
/** Dotted decimal, four parts of 0–255 without leading zeros: what isIP calls version 4. */
const IPV4 = new RegExp(`^${IPV4_PART}(\\.${IPV4_PART}){3}$`);

/** An IPv6 address in its shortest form, by the URL parser's own IPv6 reading; undefined for anything else. */
function shortestIpv6(address: string): string | undefined {
  if (!address.includes(":") || /[[\]/%]/.test(address)) return undefined;
  try {
    return new URL(`http://[${address}]`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** An IPv6 address in its shortest form (`0:0:0:0:0:0:0:1` → `::1`), as URLs and comparisons want it. */
export function canonicalAddress(address: string): string {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  return shortestIpv6(bare) ?? bare;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback, in any IPv6 spelling. */
export function isLoopbackAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  const plain = canonical.startsWith("::ffff:") ? canonical.slice(7) : canonical;
  if (IPV4.test(plain)) return plain.startsWith("127.");
  // An IPv4-mapped address in its hex form (`::ffff:7f00:1`) is loopback when its first byte is 127.
  if (/^::ffff:7f[0-9a-f]{2}:/.test(canonical)) return true;
  return plain === "::1";
}

/** A host name or address that stays on this machine: `localhost`, or a loopback address. */
export const isLoopbackHost = (host: string): boolean => host.toLowerCase() === "localhost" || isLoopbackAddress(host);
