import { afterAll, describe, expect, test } from "bun:test";
import type { NetworkInterfaceInfo } from "node:os";
import { certificateNames, serverAddress } from "../../src/system/server-address.ts";
import { makeTestCertificate } from "../helpers/test-certificate.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

const dir = makeTempDir("atrium-address-");
afterAll(() => dir.remove());

const nic = (address: string, family: "IPv4" | "IPv6", internal = false) => ({ address, family, internal }) as NetworkInterfaceInfo;
/** A laptop: loopback, Wi-Fi with IPv4 and a link-local and a global IPv6, a tailnet. */
const INTERFACES = {
  lo: [nic("127.0.0.1", "IPv4", true), nic("::1", "IPv6", true)],
  wlan0: [nic("fe80::1c2:3ff:fe44:5566", "IPv6"), nic("192.168.1.20", "IPv4"), nic("2001:db8::20", "IPv6")],
  tailscale0: [nic("100.101.102.103", "IPv4")],
};

describe("where a server is reached", () => {
  test("bound to 0.0.0.0: each interface's IPv4 address, never the wildcard; the CLI uses loopback", () => {
    const address = serverAddress({ host: "0.0.0.0", port: 7433 }, () => INTERFACES);
    expect(address.reachableUrls).toEqual(["http://192.168.1.20:7433", "http://100.101.102.103:7433"]);
    expect(address.localUrl).toBe("http://127.0.0.1:7433");
    expect(address.agentUrl).toBe("http://127.0.0.1:7433");
    expect(address.secure).toBe(false);
  });

  test("bound to ::: IPv4 first, then global IPv6 in brackets; link-local left out", () => {
    const address = serverAddress({ host: "::", port: 7433 }, () => INTERFACES);
    expect(address.reachableUrls).toEqual(["http://192.168.1.20:7433", "http://100.101.102.103:7433", "http://[2001:db8::20]:7433"]);
    expect(address.localUrl).toBe("http://[::1]:7433");
  });

  test("publicUrl leads; one bound address is itself; a wildcard with no interface up has loopback", () => {
    expect(serverAddress({ host: "0.0.0.0", port: 1, publicUrl: "https://laptop.example.net/" }, () => INTERFACES).reachableUrls[0]).toBe(
      "https://laptop.example.net",
    );
    expect(serverAddress({ host: "100.101.102.103", port: 7433 }, () => INTERFACES).reachableUrls).toEqual(["http://100.101.102.103:7433"]);
    expect(serverAddress({ host: "127.0.0.1", port: 7433 }, () => INTERFACES).reachableUrls).toEqual(["http://127.0.0.1:7433"]);
    expect(serverAddress({ host: "0.0.0.0", port: 7433 }, () => ({ lo: INTERFACES.lo })).reachableUrls).toEqual(["http://127.0.0.1:7433"]);
  });

  test("only a wildcard bind reads the machine's interfaces (it takes milliseconds before health answers)", () => {
    const unread = () => {
      throw new Error("the interfaces were read");
    };
    for (const host of ["127.0.0.1", "::1", "localhost", "100.101.102.103"]) expect(() => serverAddress({ host, port: 7433 }, unread)).not.toThrow();
    expect(() => serverAddress({ host: "0.0.0.0", port: 7433 }, unread)).toThrow("the interfaces were read");
  });

  test("over https the certificate's names come first (a wildcard name is no address); agents use a loopback name it covers", async () => {
    const certificate = await makeTestCertificate(dir.path, { dns: ["laptop.tail1234.ts.net", "*.example.net", "localhost"], ips: ["100.101.102.103"] });
    expect(certificateNames(certificate.cert)).toEqual(["laptop.tail1234.ts.net", "localhost", "100.101.102.103"]);
    const address = serverAddress({ host: "0.0.0.0", port: 7433, certificatePem: certificate.cert }, () => INTERFACES);
    expect(address.secure).toBe(true);
    expect(address.reachableUrls).toEqual(["https://laptop.tail1234.ts.net:7433", "https://100.101.102.103:7433", "https://192.168.1.20:7433"]);
    expect(address.agentUrl).toBe("https://localhost:7433");
    expect(address.localUrl).toBe("https://127.0.0.1:7433");
  });

  test("a certificate as mkcert makes one (::1 spelled out): loopback is never offered; without a loopback name agents use its first name", async () => {
    const mkcert = await makeTestCertificate(dir.path, { dns: ["laptop.local"], ips: ["192.168.1.20", "127.0.0.1", "0:0:0:0:0:0:0:1"] });
    expect(certificateNames(mkcert.cert)).toEqual(["laptop.local", "192.168.1.20", "127.0.0.1", "::1"]);
    const wide = serverAddress({ host: "::", port: 7433, certificatePem: mkcert.cert }, () => INTERFACES);
    expect(wide.reachableUrls).toEqual([
      "https://laptop.local:7433",
      "https://192.168.1.20:7433",
      "https://100.101.102.103:7433",
      "https://[2001:db8::20]:7433",
    ]);
    expect(wide.agentUrl).toBe("https://127.0.0.1:7433");
    // On loopback only, nothing else is offered: the console then says a phone cannot reach it.
    expect(serverAddress({ host: "127.0.0.1", port: 7433, certificatePem: mkcert.cert }, () => INTERFACES).reachableUrls).toEqual(["https://127.0.0.1:7433"]);
    const tailnet = await makeTestCertificate(dir.path, { dns: ["laptop.tail1234.ts.net"], ips: [] });
    const onTailnet = serverAddress({ host: "100.101.102.103", port: 7433, certificatePem: tailnet.cert }, () => INTERFACES);
    expect(onTailnet.reachableUrls).toEqual(["https://laptop.tail1234.ts.net:7433", "https://100.101.102.103:7433"]);
    expect(onTailnet.agentUrl).toBe("https://laptop.tail1234.ts.net:7433");
  });
});
