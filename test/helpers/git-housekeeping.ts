/**
 * Preloaded before every test file (bunfig.toml): git's housekeeping after a write (`git maintenance
 * run --auto` after a commit, fetch or merge; `git gc --auto` after a push is received) is one more
 * process per write in every throwaway repository, the server's own git included, and no test is about it.
 */
const settings: [string, string][] = [
  ["maintenance.auto", "false"],
  ["gc.auto", "0"],
  ["receive.autoGc", "false"],
];
const count = Number(process.env.GIT_CONFIG_COUNT ?? 0);
for (const [index, [key, value]] of settings.entries()) {
  process.env[`GIT_CONFIG_KEY_${count + index}`] = key;
  process.env[`GIT_CONFIG_VALUE_${count + index}`] = value;
}
process.env.GIT_CONFIG_COUNT = String(count + settings.length);
