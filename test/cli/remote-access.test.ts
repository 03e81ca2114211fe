import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { readTerminalQr } from "../helpers/terminal-qr-reader.ts";
import { runAtrium, builtCommand, startServe, StreamedText, type ServeProcess } from "../helpers/cli-process.ts";
import { makeTestCertificate, type TestCertificate } from "../helpers/test-certificate.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";

// Reaching the server from a phone, as a person does it: https with a certificate they bring, the
// addresses printed instead of a wildcard, a warning for clear text, and the sign-in link as a QR code.
const dirs: ReturnType<typeof makeTempDir>[] = [];
const tempDir = () => {
  const dir = makeTempDir("atrium-remote-");
  dirs.push(dir);
  return dir.path;
};
const servers: ServeProcess[] = [];
afterAll(async () => {
  // Each stops gracefully (the agents and probes it started with it), all at once.
  await Promise.all(
    servers.map((server) => {
      server.child.kill("SIGTERM");
      return server.child.exited;
    }),
  );
  for (const dir of dirs) dir.remove();
});

async function serve(home: string, args: string[]): Promise<ServeProcess> {
  const server = await startServe(builtCommand, home, args);
  servers.push(server);
  return server;
}

/** The machine's addresses another device can use (IPv4, not loopback), as the test sees them. */
const interfaceAddresses = () =>
  Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((info) => !info.internal && info.family === "IPv4")
    .map((info) => info.address);

describe("https in the binary", () => {
  /** The certificate a person brings for this machine, and one for another, made once for these tests. */
  let certificate: TestCertificate;
  let other: TestCertificate;
  beforeAll(async () => {
    certificate = await makeTestCertificate(tempDir(), { dns: ["localhost"], ips: ["127.0.0.1"] });
    other = await makeTestCertificate(tempDir(), { dns: ["other"], ips: [] });
  });

  test("with --tls-cert and --tls-key it serves https from the first moment; plain http on that port gets nothing; the CLI still talks to it", async () => {
    const home = tempDir();
    const server = await serve(home, ["--port", "0", "--tls-cert", certificate.certFile, "--tls-key", certificate.keyFile]);
    expect(server.url).toStartWith("https://127.0.0.1:");
    const health = await fetch(`${server.url}/v1/health`, { tls: { ca: certificate.cert } } as RequestInit);
    expect(health.status).toBe(200);
    await expect(fetch(`${server.url.replace("https:", "http:")}/v1/health`)).rejects.toThrow();
    // A browser that does not trust the certificate is refused: nothing is served around it.
    await expect(fetch(`${server.url}/v1/health`)).rejects.toThrow();
    const [status, link] = await Promise.all([runAtrium(builtCommand, ["status"], home), runAtrium(builtCommand, ["console"], home)]);
    expect(status.code).toBe(0);
    expect(link.code).toBe(0);
    expect(link.stdout.split("\n")[0]).toStartWith("https://");
  });

  test("config.json's tls does the same; a key that is not the certificate's, or a missing file, stops the start with the reason", async () => {
    const home = tempDir();
    Bun.write(join(home, "config.json"), JSON.stringify({ tls: { certFile: certificate.certFile, keyFile: other.keyFile } }));
    // The half pair is refused before the data dir is locked: beside the first start. The other two
    // each take the lock, so one after the other.
    const [mismatched, half] = await Promise.all([
      runAtrium(builtCommand, ["serve", "--port", "0"], home),
      runAtrium(builtCommand, ["serve", "--port", "0", "--tls-cert", certificate.certFile], home),
    ]);
    expect(mismatched.code).toBe(1);
    expect(mismatched.stderr).toContain(`${other.keyFile} is not the key of the certificate ${certificate.certFile}`);
    const missing = await runAtrium(builtCommand, ["serve", "--port", "0", "--tls-cert", join(home, "nope.pem"), "--tls-key", certificate.keyFile], home);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("the TLS certificate");
    expect(missing.stderr).toContain("nope.pem cannot be read");
    expect(half.stderr).toContain("--tls-cert and --tls-key go together");

    Bun.write(join(home, "config.json"), JSON.stringify({ tls: { certFile: certificate.certFile, keyFile: certificate.keyFile } }));
    const server = await serve(home, ["--port", "0"]);
    expect(server.url).toStartWith("https://");
    expect((await fetch(`${server.url}/v1/health`, { tls: { ca: certificate.cert } } as RequestInit)).status).toBe(200);
  });
});

describe("the right address", () => {
  test("bound to 0.0.0.0 over plain http: it names the machine's addresses, warns what crosses the network in clear text, and its console link opens on a real address", async () => {
    const home = tempDir();
    const server = await serve(home, ["--host", "0.0.0.0", "--port", "0"]);
    const port = new URL(server.url).port;
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    const addresses = interfaceAddresses();
    if (addresses.length > 0) {
      await server.stdout.waitFor(`reachable at http://${addresses[0]}:${port}`);
    }
    await server.stderr.waitFor("clear text");
    expect(server.stderr.text).toContain("the bearer token, prompts, replies and files cross the network in clear text");
    expect(server.stdout.text + server.stderr.text).not.toContain("0.0.0.0:");

    const [status, printed] = await Promise.all([runAtrium(builtCommand, ["status"], home), runAtrium(builtCommand, ["console", "--qr"], home)]);
    expect(status.stdout).toContain(`url        ${server.url}`);
    for (const address of addresses) expect(status.stdout).toContain(`reachable  http://${address}:${port}`);
    expect(status.stdout).not.toContain("0.0.0.0");

    expect(printed.code).toBe(0);
    const links = printed.stdout.split("\n").filter((line) => line.startsWith("http"));
    const expected = addresses.length > 0 ? addresses : ["127.0.0.1"];
    expect(links.map((link) => new URL(link).hostname)).toEqual(expected);
    // The QR code says the first link, as a phone's camera reads it.
    expect(readTerminalQr(printed.stdout)).toBe(links[0]!);
    const code = new URLSearchParams(new URL(links[0]!).hash.slice(1)).get("code");
    const signIn = await fetch(`${server.url}/v1/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(signIn.status).toBe(201);
  });

  test("on loopback over plain http: no warning; --device names the token the link signs in with", async () => {
    const home = tempDir();
    const server = await serve(home, ["--port", "0"]);
    const printed = await runAtrium(builtCommand, ["console", "--device", "Ada's Phone"], home);
    expect(printed.stdout.trim()).toStartWith(`${server.url}/#code=`);
    // Not a terminal: the link alone, no QR code.
    expect(printed.stdout).not.toContain("▀");
    const code = new URLSearchParams(new URL(printed.stdout.trim()).hash.slice(1)).get("code");
    const signIn = await fetch(`${server.url}/v1/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(((await signIn.json()) as { name: string }).name).toMatch(/^console-ada-s-phone-[0-9a-f]{8}$/);
    // All it wrote to stderr from start to exit: no warning.
    server.child.kill("SIGTERM");
    await server.child.exited;
    expect(await server.stderr.whole()).not.toContain("clear text");
  });
});

describe("the first start at a terminal", () => {
  /** `atrium serve` in a pseudo-terminal (util-linux's script), as a person runs it by hand. */
  async function serveAtTerminal(home: string) {
    const command = [...builtCommand, "serve", "--port", "0"].map((part) => `'${part}'`).join(" ");
    const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
      env: { ...process.env, ATRIUM_HOME: home },
      stdout: "pipe",
      stderr: "pipe",
      stdin: "pipe",
    });
    const output = new StreamedText(child.stdout);
    await output.waitFor("listening on");
    const stop = async () => {
      const { pid } = JSON.parse(readFileSync(join(home, "server.json"), "utf8")) as { pid: number };
      process.kill(pid, "SIGTERM");
      await child.exited;
    };
    return { output, stop };
  }

  test("prints the console's sign-in link and its QR code until a console has signed in; then only where it listens", async () => {
    const home = tempDir();
    const first = await serveAtTerminal(home);
    try {
      await first.output.waitFor("Sign in to the console");
      await until(
        async () => first.output.text,
        (text) => /#code=\S+\r?\n/.test(text) && readTerminalQr(text) !== null,
      );
      const link = /(http:\/\/\S+#code=\S+)/.exec(first.output.text)![1]!;
      expect(readTerminalQr(first.output.text)).toBe(link);
      const code = new URLSearchParams(new URL(link).hash.slice(1)).get("code");
      const origin = new URL(link).origin;
      const signIn = await fetch(`${origin}/v1/console/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code }),
      });
      expect(signIn.status).toBe(201);
    } finally {
      await first.stop();
    }
    const second = await serveAtTerminal(home);
    await second.stop();
    // All it printed from start to exit: where it listens, and no sign-in link.
    const printed = await second.output.whole();
    expect(printed).toContain("listening on");
    expect(printed).not.toContain("Sign in to the console");
  });
});
