import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** The GitHub token the REST API is called with where `gh` is not there: a file of the data dir, 0600, never returned. */
export class GitHubToken {
  constructor(private readonly file: string) {}

  get(): string | undefined {
    return existsSync(this.file) ? readFileSync(this.file, "utf8").trim() || undefined : undefined;
  }

  get stored(): boolean {
    return this.get() !== undefined;
  }

  set(token: string): void {
    writeFileSync(this.file, `${token}\n`, { mode: 0o600 });
    chmodSync(this.file, 0o600);
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}
