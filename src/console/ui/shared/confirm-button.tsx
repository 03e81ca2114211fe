import { useState } from "preact/hooks";

interface ConfirmStepProps {
  /** The change asked about on the button that makes it, e.g. "Delete Notebook?". */
  question: string;
  /** What else goes with the change, said above the buttons. */
  note?: string;
  busy: boolean;
  small?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** The second click of a change that cannot be undone: the button that makes it, and Cancel. */
export function ConfirmStep({ question, note, busy, small, onConfirm, onCancel }: ConfirmStepProps) {
  const size = small ? " small" : "";
  return (
    <div class="confirm-step">
      {note && <p class="quiet">{note}</p>}
      <div class="row-actions">
        <button type="button" class={`danger${size}`} disabled={busy} onClick={onConfirm}>
          {question}
        </button>
        <button type="button" class={`quiet-button${size}`} disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

interface ConfirmButtonProps {
  /** What the change is, e.g. "Delete"; the second click asks "Delete <name>?". */
  verb: string;
  name: string;
  note: string;
  busy: boolean;
  /** A small first button, beside a card's other small ones. */
  small?: boolean;
  onConfirm: () => void;
}

/** A button for a change that cannot be undone, asked again in its place before it is made. */
export function ConfirmButton({ verb, name, note, busy, small, onConfirm }: ConfirmButtonProps) {
  const [confirming, setConfirming] = useState(false);
  if (confirming) return <ConfirmStep question={`${verb} ${name}?`} note={note} busy={busy} onConfirm={onConfirm} onCancel={() => setConfirming(false)} />;
  return (
    <div class="row-actions">
      <button type="button" class={small ? "quiet-button small" : "quiet-button"} disabled={busy} onClick={() => setConfirming(true)}>
        {verb}
        <span class="visually-hidden"> {name}</span>
      </button>
    </div>
  );
}
