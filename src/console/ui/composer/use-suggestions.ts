import { useEffect, useState } from "preact/hooks";
import type { FileSearchHit } from "../../../schemas/project-files.ts";
import type { AvailableCommand } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { matchingCommands, type Trigger, triggerAt } from "./suggestion-trigger.ts";

/** One row of the list: what is inserted, and what is said about it. */
export interface Suggestion {
  value: string;
  label: string;
  detail: string | null;
}

export interface Suggestions {
  trigger: Trigger | null;
  options: Suggestion[];
  /** What the list says when it has no rows (a file search not typed yet, nothing found). */
  note: string | null;
  active: number;
  move(step: 1 | -1): void;
  /** Closes the list until the text changes. */
  dismiss(): void;
}

const FILES_SHOWN = 8;

const commandRow = (command: AvailableCommand): Suggestion => ({
  value: command.name,
  label: `/${command.name}`,
  detail: [command.description, command.inputHint ? `(${command.inputHint})` : ""].filter(Boolean).join(" ") || null,
});

/** The files of the session's folder whose path holds the letters typed, best first (the Files view's search). */
function useFileMatches(query: string | null, projectId: string, sessionId: string): { files: FileSearchHit[] | null; failed: boolean } {
  const [found, setFound] = useState<{ query: string; files: FileSearchHit[] | null; failed: boolean }>({ query: "", files: null, failed: false });
  useEffect(() => {
    if (!query) return;
    let current = true;
    const search = `/v1/projects/${encodeURIComponent(projectId)}/files/search?sessionId=${encodeURIComponent(sessionId)}&limit=${FILES_SHOWN}&q=${encodeURIComponent(query)}`;
    api<FileSearchHit[]>("GET", search).then(
      (files) => current && setFound({ query, files, failed: false }),
      () => current && setFound({ query, files: null, failed: true }),
    );
    return () => {
      current = false;
    };
  }, [query, projectId, sessionId]);
  return found.query === query ? found : { files: null, failed: false };
}

/** The suggestions for the text before the caret: the agent's commands after a leading `/`, the folder's files after an `@`. */
export function useSuggestions(text: string, caret: number, commands: readonly AvailableCommand[], projectId: string, sessionId: string): Suggestions {
  const [activeAt, setActiveAt] = useState({ key: "", index: 0 });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const found = dismissed === text ? null : triggerAt(text, caret);
  const trigger = found?.kind === "command" && commands.length === 0 ? null : found;
  const { files, failed } = useFileMatches(trigger?.kind === "file" ? trigger.query : null, projectId, sessionId);
  let options: Suggestion[] = [];
  let note: string | null = null;
  if (trigger?.kind === "command") {
    options = matchingCommands(commands, trigger.query).map(commandRow);
    if (options.length === 0) note = "The agent has no command by that name.";
  } else if (trigger?.kind === "file") {
    options = (files ?? []).map((hit) => ({ value: hit.path, label: hit.path, detail: null }));
    if (!trigger.query) note = "Type part of a file's name.";
    else if (failed) note = "The files could not be searched.";
    else if (files === null) note = "Searching…";
    else if (files.length === 0) note = "No file by that name.";
  }
  // The first row is active again whenever what is typed changes.
  const key = `${trigger?.kind}:${trigger?.query}`;
  const active = activeAt.key === key ? Math.min(activeAt.index, Math.max(0, options.length - 1)) : 0;
  return {
    trigger,
    options,
    note,
    active,
    move: (step) => options.length > 0 && setActiveAt({ key, index: (active + step + options.length) % options.length }),
    dismiss: () => setDismissed(text),
  };
}
