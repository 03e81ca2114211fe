import type { BarKey } from "./control-keys.ts";

/** The key bar's keys in its order: what each shows, and its name for screen readers. */
const KEYS: Array<{ key: BarKey; text: string; label: string }> = [
  { key: "escape", text: "Esc", label: "Escape" },
  { key: "tab", text: "Tab", label: "Tab" },
  { key: "left", text: "←", label: "Left arrow" },
  { key: "up", text: "↑", label: "Up arrow" },
  { key: "down", text: "↓", label: "Down arrow" },
  { key: "right", text: "→", label: "Right arrow" },
  { key: "pipe", text: "|", label: "Vertical bar" },
  { key: "tilde", text: "~", label: "Tilde" },
];

/** A key bar button leaves the focus in the emulator: the phone's keyboard stays open. */
const keepFocus = (event: Event) => event.preventDefault();

export interface KeyBarProps {
  /** Ctrl is held for the next key (typed, or on the bar). */
  control: boolean;
  toggleControl(): void;
  press(key: BarKey): void;
  copy(): void;
  paste(): void;
}

/** The keys a phone's keyboard lacks, above it: Esc, a sticky Ctrl, Tab, the arrows, | and ~; copy and paste. */
export function KeyBar({ control, toggleControl, press, copy, paste }: KeyBarProps) {
  return (
    <div class="key-bar" role="toolbar" aria-label="Terminal keys">
      <button type="button" aria-label="Control, for the next key" aria-pressed={control} onMouseDown={keepFocus} onClick={toggleControl}>
        Ctrl
      </button>
      {KEYS.map(({ key, text, label }) => (
        <button key={key} type="button" aria-label={label} onMouseDown={keepFocus} onClick={() => press(key)}>
          {text}
        </button>
      ))}
      <button type="button" onMouseDown={keepFocus} onClick={copy}>
        Copy
      </button>
      <button type="button" onMouseDown={keepFocus} onClick={paste}>
        Paste
      </button>
    </div>
  );
}
