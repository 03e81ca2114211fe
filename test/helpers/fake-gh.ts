/**
 * A fake `gh` (GitHub's CLI) for a temp PATH: it speaks gh's public shapes (`auth status`, `pr create`
 * printing the URL, `pr view --json` the fields asked for) over a `state.json` beside it
 * (`{signedIn, calls, prs}`), which a test reads to see what was asked and writes to change what GitHub has.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FAKE_GH = `#!${process.execPath}
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const stateFile = join(import.meta.dir, "state.json");
const state = JSON.parse(readFileSync(stateFile, "utf8"));
const args = process.argv.slice(2);
state.calls.push({ args, cwd: process.cwd() });
const save = () => writeFileSync(stateFile, JSON.stringify(state));
const fail = (text) => { save(); process.stderr.write(text + "\\n"); process.exit(1); };
const option = (name) => { const at = args.indexOf(name); return at < 0 ? undefined : args[at + 1]; };
const url = (n) => "https://github.com/octo/repo/pull/" + n;
if (args[0] === "auth" && args[1] === "status") {
  if (!state.signedIn) fail("You are not logged into any GitHub hosts. To log in, run: gh auth login");
  save(); process.stdout.write("github.com\\n  Logged in to github.com account octo\\n"); process.exit(0);
}
if (args[0] === "pr" && args[1] === "create") {
  const head = option("--head");
  const open = state.prs.find((pr) => pr.headRefName === head && pr.state === "OPEN");
  if (open) fail('a pull request for branch "' + head + '" into branch "' + open.baseRefName + '" already exists:\\n' + open.url);
  const number = state.prs.length + 1;
  state.prs.push({ number, url: url(number), state: "OPEN", title: option("--title"), headRefName: head, baseRefName: option("--base") ?? "main", isDraft: args.includes("--draft") });
  save(); process.stdout.write("Creating pull request for " + head + " into main in octo/repo\\n\\n" + url(number) + "\\n"); process.exit(0);
}
if (args[0] === "pr" && args[1] === "view") {
  const pr = state.prs.find((candidate) => String(candidate.number) === args[2] || candidate.url === args[2]);
  if (!pr) fail("GraphQL: Could not resolve to a PullRequest with the number of " + args[2] + ". (repository.pullRequest)");
  const fields = option("--json").split(",");
  save(); process.stdout.write(JSON.stringify(Object.fromEntries(fields.map((field) => [field, pr[field]])))); process.exit(0);
}
fail("unknown command " + args.join(" "));
`;

/** Puts the fake `gh` and its state (signed in, no pull requests yet) in `bin`. */
export function installFakeGh(bin: string): void {
  writeFileSync(join(bin, "gh"), FAKE_GH);
  chmodSync(join(bin, "gh"), 0o755);
  writeFileSync(join(bin, "state.json"), JSON.stringify({ signedIn: true, calls: [], prs: [] }));
}
