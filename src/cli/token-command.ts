import { defineCommand } from "citty";
import { AccessTokens, readOrCreateAdminToken } from "../auth/access-tokens.ts";
import { TokenRepository } from "../store/token-repository.ts";
import type { DataPaths } from "../config/paths.ts";
import type { Store } from "../store/database.ts";
import { cliPaths, runCli, withStore } from "./cli-context.ts";

function withTokens<T>(work: (tokens: AccessTokens) => T): Promise<void> {
  return runCli(() => {
    const paths: DataPaths = cliPaths();
    return withStore(paths, (store: Store) => work(new AccessTokens(readOrCreateAdminToken(paths.adminToken), new TokenRepository(store))));
  });
}

const createCommand = defineCommand({
  meta: { name: "create", description: "Create a named token (for a phone, a laptop); prints it once" },
  args: { name: { type: "string", required: true, description: "A name to list and revoke it by" } },
  run: ({ args }) => withTokens((tokens) => process.stdout.write(`${tokens.create(args.name).token}\n`)),
});

const listCommand = defineCommand({
  meta: { name: "list", description: "List the named tokens (names and dates, never the tokens)" },
  args: { json: { type: "boolean", description: "Print JSON" } },
  run: ({ args }) =>
    withTokens((tokens) => {
      const list = tokens.list();
      if (args.json) return process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      if (list.length === 0) return process.stdout.write("no named tokens (the admin token is printed by `atrium token`)\n");
      for (const token of list) {
        process.stdout.write(`${token.name}\tcreated ${token.createdAt}\tlast used ${token.lastUsedAt ?? "never"}\n`);
      }
    }),
});

const revokeCommand = defineCommand({
  meta: { name: "revoke", description: "Revoke a named token; requests with it fail from then on" },
  args: { name: { type: "positional", required: true, description: "The token's name" } },
  run: ({ args }) =>
    withTokens((tokens) => {
      tokens.revoke(args.name);
      process.stdout.write(`revoked ${args.name}\n`);
    }),
});

const tokenSubCommands = { create: createCommand, list: listCommand, revoke: revokeCommand };

export const tokenCommand = defineCommand({
  meta: { name: "token", description: "Print the admin token, or manage named tokens" },
  subCommands: tokenSubCommands,
  run: ({ rawArgs }) => {
    // citty runs this after a subcommand too; print the admin token only when none was named.
    if (rawArgs.some((arg) => arg in tokenSubCommands)) return;
    return runCli(() => process.stdout.write(`${readOrCreateAdminToken(cliPaths().adminToken)}\n`));
  },
});
