import { expect, test } from "bun:test";
import { isIP } from "node:net";
import { canonicalAddress, isLoopbackAddress, isLoopbackHost } from "../../src/system/loopback.ts";

test("IPv6 addresses in their shortest form; anything else as it came", () => {
  expect(canonicalAddress("0:0:0:0:0:0:0:1")).toBe("::1");
  expect(canonicalAddress("[0:0:0:0:0:0:0:1]")).toBe("::1");
  expect(canonicalAddress("::ffff:127.0.0.1")).toBe("::ffff:7f00:1");
  expect(canonicalAddress("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
  for (const other of ["127.0.0.1", "example.com", "localhost", "fe80::1%eth0", "1:2:3", "", "[::1"]) expect(canonicalAddress(other)).toBe(other);
});

test("loopback: 127.0.0.0/8, ::1 and IPv4-mapped loopback in any spelling; not look-alikes", () => {
  for (const address of ["127.0.0.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"]) {
    expect(isLoopbackAddress(address)).toBe(true);
  }
  for (const address of ["128.0.0.1", "127.0.0.256", "127.1", "0127.0.0.1", "127.0.0.1.nip.io", "::2", "::ffff:10.0.0.1", "10.0.0.1", ""]) {
    expect(isLoopbackAddress(address)).toBe(false);
  }
  expect(isLoopbackHost("LocalHost")).toBe(true);
  expect(isLoopbackHost("localhost.example.com")).toBe(false);
});

test("the IPv4 reading agrees with node:net's isIP on dotted quads", () => {
  const samples = ["0.0.0.0", "255.255.255.255", "256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "127.0.0.1", " 127.0.0.1", "127.0.0.1 ", "1e2.0.0.1"];
  for (const sample of samples) expect(isLoopbackAddress(sample)).toBe(isIP(sample) === 4 && sample.startsWith("127."));
});
