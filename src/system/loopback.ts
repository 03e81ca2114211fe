import { isIP } from "node:net";

/** An IPv6 address in its shortest form (`0:0:0:0:0:0:0:1` → `::1`), as URLs and comparisons want it. */
export function canonicalAddress(address: string): string {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (isIP(bare) !== 6) return bare;
  return new URL(`http://[${bare}]`).hostname.slice(1, -1);
}

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback, in any IPv6 spelling. */
export function isLoopbackAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  const plain = canonical.startsWith("::ffff:") ? canonical.slice(7) : canonical;
  if (isIP(plain) === 4) return plain.startsWith("127.");
  // An IPv4-mapped address in its hex form (`::ffff:7f00:1`) is loopback when its first byte is 127.
  if (/^::ffff:7f[0-9a-f]{2}:/.test(canonical)) return true;
  return plain === "::1";
}

/** A host name or address that stays on this machine: `localhost`, or a loopback address. */
export const isLoopbackHost = (host: string): boolean => host.toLowerCase() === "localhost" || isLoopbackAddress(host);
