import type { ChangeList } from "../../../schemas/changes.ts";
import type { Discard, GitSelection } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";

/** What the changes panel's rows ask of the repository: each answers once git has done it. */
export interface GitEdits {
  stage(selection: GitSelection): Promise<void>;
  unstage(selection: GitSelection): Promise<void>;
  /** Discards undoably; the panel offers the undo. `what` names it in the undo's sentence. */
  discard(selection: GitSelection, what: string): Promise<void>;
}

/** The git routes under `source` (a location, a worktree or a session), their answers handed to the panel. */
export function gitEdits(source: string, shown: (list: ChangeList) => void, discarded: (discard: Discard, what: string) => void): GitEdits {
  return {
    stage: async (selection) => shown(await api<ChangeList>("POST", `${source}/git/stage`, selection)),
    unstage: async (selection) => shown(await api<ChangeList>("POST", `${source}/git/unstage`, selection)),
    discard: async (selection, what) => discarded(await api<Discard>("POST", `${source}/git/discard`, selection), what),
  };
}

/** After a button's call, gives the focus back to the first button in `group` if it fell to the page (the button tapped was drawn anew). */
export function keepFocusIn(group: HTMLElement | null): void {
  requestAnimationFrame(() => {
    if (!group?.isConnected || (document.activeElement && document.activeElement !== document.body)) return;
    group.querySelector<HTMLElement>("button:not([disabled])")?.focus();
  });
}
