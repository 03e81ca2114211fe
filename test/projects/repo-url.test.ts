import { describe, expect, test } from "bun:test";
import { checkCloneUrl, redactCredentials, repoKeyOf, repoNameOf } from "../../src/projects/repo-url.ts";
import { firstFree, slugify } from "../../src/projects/safe-names.ts";

describe("clone URLs", () => {
  test("accepts the ordinary forms", () => {
    for (const url of [
      "https://github.com/a/b.git",
      "http://example.com/a/b",
      "ssh://git@github.com/a/b",
      "git://example.com/a/b",
      "file:///srv/git/b.git",
      "git@github.com:a/b.git",
      "github.com:a/b",
      "/srv/git/b.git",
      "ssh://git@[::1]/srv/repo.git",
      "https://[2001:db8::1]/a/b.git",
    ]) {
      expect(() => checkCloneUrl(url)).not.toThrow();
    }
  });

  test("refuses options, remote helpers and unknown forms", () => {
    const refused: Array<[string, string]> = [
      ["-uhelp", "start with '-'"],
      ["--upload-pack=touch /tmp/x", "start with '-'"],
      ["ext::sh -c touch% /tmp/pwned", "remote helper"],
      ["fd::17", "remote helper"],
      ["https::example.com/a", "remote helper"],
      ["ftp://example.com/a", 'scheme "ftp"'],
      ["relative/path", "absolute path"],
      ["", "empty"],
      [" https://github.com/a/b", "padded"],
      ["https://github.com/a/b\n", "padded"],
      ["https://github.com/a\u0000b", "control characters"],
      ["https://", "not a valid URL"],
      ["ssh://[bad", "not a valid URL"],
      ["git://:99999/x", "not a valid URL"],
      ["file://%zz", "not a valid URL"],
      ["https://exa mple.com/a", "not a valid URL"],
    ];
    for (const [url, message] of refused) expect(() => checkCloneUrl(url)).toThrow(message);
  });

  test("repoKey is the same for every form of one repository", () => {
    const forms = [
      "https://github.com/a/b.git",
      "https://GitHub.com/a/b/",
      "git@github.com:a/b",
      "git@github.com:a/b.git",
      "ssh://git@github.com/a/b",
      "ssh://git@github.com:22/a/b.git",
      "https://user@github.com:443/a/b",
    ];
    for (const url of forms) expect(repoKeyOf(url)).toBe("github.com/a/b");
    expect(repoKeyOf("ssh://git@host:2222/a/b")).toBe("host:2222/a/b");
    expect(repoKeyOf("ssh://git@[::1]/srv/repo.git")).toBe("[::1]/srv/repo");
    expect(repoKeyOf("file:///srv/git/b.git")).toBe("/srv/git/b");
    expect(repoKeyOf("/srv/git/b.git/")).toBe("/srv/git/b");
    expect(repoNameOf("github.com/a/b")).toBe("b");
  });
});

describe("credentials in URLs", () => {
  test("are removed from a URL: all of the userinfo over http(s), the password elsewhere", () => {
    const cases: Array<[string, string]> = [
      ["https://user:tok@github.com/a/b.git", "https://github.com/a/b.git"],
      ["HTTPS://ghp_abc@GitHub.com/a/b", "HTTPS://GitHub.com/a/b"],
      ["http://us@er:p@ss:w@127.0.0.1:8080/x", "http://127.0.0.1:8080/x"],
      ["ssh://git:pw@host:2222/a/b", "ssh://git@host:2222/a/b"],
      ["ssh://git@github.com/a/b", "ssh://git@github.com/a/b"],
      ["git@github.com:a/b.git", "git@github.com:a/b.git"],
      ["https://github.com/a/b?x=a@b", "https://github.com/a/b?x=a@b"],
      ["/srv/git/b.git", "/srv/git/b.git"],
    ];
    for (const [url, shown] of cases) expect(redactCredentials(url)).toBe(shown);
  });

  test("are removed from git's messages wherever a URL appears", () => {
    expect(redactCredentials("fatal: unable to access 'https://x-access-token:t0k@host/a.git/': 403\nremote: see https://u:p@h/help")).toBe(
      "fatal: unable to access 'https://host/a.git/': 403\nremote: see https://h/help",
    );
  });
});

describe("safe names", () => {
  test("slugs are lower-case letters, digits and single dashes", () => {
    expect(slugify("My Session: fix #12!", "x")).toBe("my-session-fix-12");
    expect(slugify("Ünïcode ça va", "x")).toBe("unicode-ca-va");
    expect(slugify("../../etc/passwd", "x")).toBe("etc-passwd");
    expect(slugify("***", "fallback")).toBe("fallback");
    expect(slugify("a".repeat(100), "x")).toHaveLength(40);
  });

  test("firstFree counts up past taken names", () => {
    const taken = new Set(["a", "a-2"]);
    expect(firstFree("a", (name) => taken.has(name))).toBe("a-3");
    expect(firstFree("b", (name) => taken.has(name))).toBe("b");
  });
});
