import { X509Certificate } from "node:crypto";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

/** Where a server listens, as it was asked to. */
export interface ListenSpec {
  host: string;
  port: number;
  /** The certificate it serves (PEM), when it serves https. */
  certificatePem?: string;
  /** config.json's `publicUrl`: how the user reaches it from elsewhere (a proxy, a tailnet name). */
  publicUrl?: string;
}

/** Where the server can be reached, for whoever asks. */
export interface ServerAddress {
  secure: boolean;
  /** For this machine's own CLI: the bound address, or loopback when bound to every interface. */
  localUrl: string;
  /** For this machine's agents (plugin tools): the certificate's name where it has one, so https checks pass. */
  agentUrl: string;
  /** For other devices, best first: publicUrl, the certificate's names, then each interface's address; never a wildcard. */
  reachableUrls: string[];
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]", ""]);

export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.has(host);

export const isLoopbackHost = (host: string): boolean => host === "localhost" || host === "::1" || /^127\./.test(host);

const urlOf = (scheme: string, host: string, port: number) => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;

/**
 * The names a certificate is good for, as a browser checks them: its subjectAltName DNS names (a
 * wildcard name is no address) and IP addresses.
 */
export function certificateNames(pem: string): string[] {
  const altNames = new X509Certificate(pem).subjectAltName ?? "";
  return altNames
    .split(",")
    .map((entry) => entry.trim())
    .flatMap((entry) => {
      const [kind, value] = [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)];
      if (kind === "DNS" && !value.startsWith("*")) return [value];
      if (kind === "IP Address") return [value];
      return [];
    });
}

/**
 * The machine's addresses another device can use: not loopback, not IPv6 link-local (a browser cannot
 * open those without a zone), IPv4 first. A "0.0.0.0" bind takes IPv4 only; "::" takes both.
 */
function interfaceAddresses(host: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const usable = all.filter((info) => !info.internal && !(info.family === "IPv6" && info.address.toLowerCase().startsWith("fe80")));
  const wanted = host.includes(":") ? usable : usable.filter((info) => info.family === "IPv4");
  return [...wanted.filter((info) => info.family === "IPv4"), ...wanted.filter((info) => info.family === "IPv6")].map((info) => info.address);
}

export function serverAddress(spec: ListenSpec, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): ServerAddress {
  const secure = spec.certificatePem !== undefined;
  const scheme = secure ? "https" : "http";
  const wildcard = isWildcardHost(spec.host);
  const localUrl = urlOf(scheme, wildcard ? (spec.host.includes(":") ? "::1" : "127.0.0.1") : spec.host, spec.port);
  const names = spec.certificatePem ? certificateNames(spec.certificatePem) : [];
  const byName = names.filter((name) => !isLoopbackHost(name)).map((name) => urlOf(scheme, name, spec.port));
  const byInterface = wildcard ? interfaceAddresses(spec.host, interfaces).map((address) => urlOf(scheme, address, spec.port)) : [];
  const reachable = [...(spec.publicUrl ? [spec.publicUrl.replace(/\/+$/, "")] : []), ...byName, ...byInterface];
  // Bound to one address (loopback included), that address is where it is; a wildcard with no
  // interface up has loopback left.
  if (!wildcard || reachable.length === 0) reachable.push(wildcard ? localUrl : urlOf(scheme, spec.host, spec.port));
  return { secure, localUrl, agentUrl: secure && byName[0] ? byName[0] : localUrl, reachableUrls: [...new Set(reachable)] };
}
