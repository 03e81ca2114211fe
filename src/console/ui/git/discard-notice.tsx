import { useLayoutEffect, useRef } from "preact/hooks";
import type { ChangeList } from "../../../schemas/changes.ts";
import type { Discard } from "../../../schemas/git.ts";
import { api } from "../shared/api.ts";
import { Alert, useAction } from "../shared/use-action.tsx";

/** What the panel says after a discard: the undo, until it is used, dismissed or another discard comes. */
export type DiscardState = { discard: Discard; what: string; undone: boolean };

interface DiscardNoticeProps {
  source: string;
  state: DiscardState;
  onUndone: (list: ChangeList) => void;
  onDismiss: () => void;
}

/**
 * "Discarded a.txt. Undo": the Undo takes the focus (the tapped row may be gone), and stays on the page
 * with no timer, so a wrong tap can be taken back whenever it is noticed.
 */
export function DiscardNotice({ source, state, onUndone, onDismiss }: DiscardNoticeProps) {
  const action = useAction();
  const undo = useRef<HTMLButtonElement>(null);
  const said = useRef<HTMLParagraphElement>(null);
  useLayoutEffect(() => {
    (state.undone ? said : undo).current?.focus();
  }, [state]);
  const run = () => {
    if (action.busy) return;
    void action.run(async () => onUndone(await api<ChangeList>("POST", `${source}/git/discard/undo`, { id: state.discard.id })));
  };
  return (
    <div class="git-notice">
      <p role="status" tabIndex={-1} ref={said}>
        {state.undone ? `Brought back ${state.what}.` : `Discarded ${state.what}.`}
      </p>
      <div class="row-actions">
        {!state.undone && (
          <button type="button" ref={undo} aria-disabled={action.busy} onClick={run}>
            Undo<span class="visually-hidden"> the discard of {state.what}</span>
          </button>
        )}
        <button type="button" class="quiet-button" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      <Alert error={action.error} />
    </div>
  );
}
