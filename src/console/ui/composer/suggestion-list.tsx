import type { Suggestion } from "./use-suggestions.ts";

export const SUGGESTIONS_ID = "composer-suggestions";
export const optionId = (index: number) => `composer-suggestion-${index}`;

/**
 * The rows the composer's combobox suggests (the textarea keeps the focus and names the active row with
 * aria-activedescendant); a tap or a click chooses one, without taking the focus from the text.
 */
export function SuggestionList({
  label,
  options,
  note,
  active,
  choose,
}: {
  label: string;
  options: Suggestion[];
  note: string | null;
  active: number;
  choose: (suggestion: Suggestion) => void;
}) {
  return (
    <div class="suggestions">
      <div id={SUGGESTIONS_ID} role="listbox" aria-label={label}>
        {options.map((option, index) => (
          <div
            key={option.value}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            class={index === active ? "active" : undefined}
            onPointerDown={(event) => event.preventDefault()}
            // The text keeps the focus; a screen reader's own cursor may still land on a row and press it.
            tabIndex={-1}
            onClick={() => choose(option)}
            onKeyDown={(event) => event.key === "Enter" && choose(option)}
          >
            <span class="suggestion-label">{option.label}</span>
            {option.detail && <span class="suggestion-detail">{option.detail}</span>}
          </div>
        ))}
      </div>
      {note && <p class="quiet suggestion-note">{note}</p>}
      <p class="visually-hidden" aria-live="polite">
        {options.length > 0 ? `${options.length} suggestion${options.length === 1 ? "" : "s"}: up and down arrows to choose, Enter to take` : note}
      </p>
    </div>
  );
}
