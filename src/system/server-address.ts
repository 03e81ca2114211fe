import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";
import { canonicalAddress, isLoopbackHost } from "./loopback.ts";
import { nodeCrypto } from "./node-crypto.ts";

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
  /** For this machine's agents (plugin tools): over https a name the certificate is good for, loopback where it has one. */
  agentUrl: string;
  /** For other devices, best first: publicUrl, the certificate's names, then each interface's address; never a wildcard. */
  reachableUrls: string[];
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]", ""]);

export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.has(host);

const urlOf = (scheme: string, host: string, port: number) => `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}`;

/**
 * The names a certificate is good for, as a browser checks them: its subjectAltName DNS names (a
 * wildcard name is no address) and IP addresses, in their shortest form (`::1`, not `0:0:0:0:0:0:0:1`).
 */
export function certificateNames(pem: string): string[] {
  const altNames = new (nodeCrypto().X509Certificate)(pem).subjectAltName ?? "";
  return altNames
    .split(",")
    .map((entry) => entry.trim())
    .flatMap((entry) => {
      const [kind, value] = [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)];
      if (kind === "DNS" && !value.startsWith("*")) return [value];
      if (kind === "IP Address") return [canonicalAddress(value)];
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

/**
 * Where the server is reached. The machine's interfaces are read at each call: a service starts
 * before the network is up, and a laptop moves between networks.
 *   - Bound to every interface: publicUrl, the certificate's DNS names and those of its IP addresses
 *     the machine has, then every interface address.
 *   - Bound to one address beyond loopback: publicUrl, the certificate's DNS names (one may point at
 *     it), then the address.
 *   - Bound to loopback: publicUrl (a proxy in front), then the loopback address; nothing else can
 *     reach it, which the console says when it shows a QR code.
 */
export function serverAddress(spec: ListenSpec, readInterfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces): ServerAddress {
  const secure = spec.certificatePem !== undefined;
  const scheme = secure ? "https" : "http";
  const wildcard = isWildcardHost(spec.host);
  const loopbackBind = !wildcard && isLoopbackHost(spec.host);
  const localUrl = urlOf(scheme, wildcard ? (spec.host.includes(":") ? "::1" : "127.0.0.1") : spec.host, spec.port);
  const names = spec.certificatePem ? certificateNames(spec.certificatePem) : [];
  const dnsNames = names.filter((name) => !isLoopbackHost(name) && !name.includes(":") && !/^\d+\.\d+\.\d+\.\d+$/.test(name));
  // Read only for a wildcard bind: listing them takes milliseconds, before health can answer.
  const machine = wildcard ? interfaceAddresses(spec.host, readInterfaces()) : [];
  const certified = names.filter((name) => machine.includes(name));
  const reachable = [
    ...(spec.publicUrl ? [spec.publicUrl.replace(/\/+$/, "")] : []),
    ...(loopbackBind ? [] : dnsNames.map((name) => urlOf(scheme, name, spec.port))),
    ...certified.map((address) => urlOf(scheme, address, spec.port)),
    ...machine.map((address) => urlOf(scheme, address, spec.port)),
    ...(wildcard ? [] : [urlOf(scheme, spec.host, spec.port)]),
  ];
  if (reachable.length === 0) reachable.push(localUrl);
  // Agents run on this machine: a loopback name the certificate covers needs no name resolution.
  const loopbackName = names.find((name) => isLoopbackHost(name) && (wildcard || loopbackBind));
  const agentUrl = !secure ? localUrl : loopbackName ? urlOf(scheme, loopbackName, spec.port) : dnsNames[0] ? urlOf(scheme, dnsNames[0], spec.port) : localUrl;
  return { secure, localUrl, agentUrl, reachableUrls: [...new Set(reachable)] };
}
