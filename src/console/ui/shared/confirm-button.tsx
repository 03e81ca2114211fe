import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { focusPageHeading } from "../shell/page-heading.tsx";

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

/**
 * The second click of a change that cannot be undone: the button that makes it, which takes the focus,
 * and Cancel (or Escape), which gives it back to the button that opened the step. The buttons stay
 * enabled while busy and ignore clicks: a disabled button loses the focus. When the step goes with the
 * focus in it and nothing took it (the change was made, its card is gone), the page's heading takes it.
 */
export function ConfirmStep({ question, note, busy, small, onConfirm, onCancel }: ConfirmStepProps) {
  const size = small ? " small" : "";
  const step = useRef<HTMLDivElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  // Read while drawing, before the step is in the page: what had the focus is what opened it.
  const [opener] = useState(() => document.activeElement);
  const cancelled = useRef(false);

  useLayoutEffect(() => {
    confirm.current?.focus();
    const element = step.current;
    return () => {
      if (!element?.contains(document.activeElement)) return;
      // After the change that removes the step: a button drawn in its place may have taken the focus.
      setTimeout(() => {
        if (document.activeElement !== document.body) return;
        if (cancelled.current && opener instanceof HTMLElement && opener.isConnected) opener.focus();
        else focusPageHeading();
      });
    };
  }, []);

  const cancel = () => {
    if (busy) return;
    cancelled.current = true;
    onCancel();
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the step cancels it, as in a dialog.
    <div
      class="confirm-step"
      ref={step}
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        cancel();
      }}
    >
      {note && <p class="quiet">{note}</p>}
      <div class="row-actions">
        <button type="button" ref={confirm} class={`danger${size}`} aria-disabled={busy} onClick={() => busy || onConfirm()}>
          {question}
        </button>
        <button type="button" class={`quiet-button${size}`} aria-disabled={busy} onClick={cancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * The button that opens a confirm step in its own place, and takes the focus back when the step is
 * cancelled (the step replaced it, so the button is drawn anew). `ref` goes on the button.
 */
export function useStepOpener(): { ref: (button: HTMLButtonElement | null) => void; cancelled(): void } {
  const refocus = useRef(false);
  return {
    ref(button) {
      if (!button || !refocus.current) return;
      refocus.current = false;
      button.focus();
    },
    cancelled() {
      refocus.current = true;
    },
  };
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
  const opener = useStepOpener();
  if (confirming) {
    const cancel = () => {
      opener.cancelled();
      setConfirming(false);
    };
    return <ConfirmStep question={`${verb} ${name}?`} note={note} busy={busy} onConfirm={onConfirm} onCancel={cancel} />;
  }
  return (
    <div class="row-actions">
      <button type="button" ref={opener.ref} class={small ? "quiet-button small" : "quiet-button"} disabled={busy} onClick={() => setConfirming(true)}>
        {verb}
        <span class="visually-hidden"> {name}</span>
      </button>
    </div>
  );
}
