import { useEffect, useRef, useState } from "preact/hooks";

/** Typing pauses this long before the server is asked: a search per word, not per letter. */
const SEARCH_PAUSE_MS = 250;

/** Folds ASCII letters only, as the server's search (SQLite's lower()) does, so both find the same records. */
const folded = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** Whether any of the texts holds the search, as the server's `q` decides. */
export const holdsText = (texts: string[], search: string): boolean => !search || texts.some((text) => folded(text).includes(folded(search)));

interface SearchFieldProps {
  label: string;
  placeholder: string;
  /** Told the trimmed text once typing pauses (`""` when cleared). */
  onSearch(text: string): void;
}

/** A search box over a server list. */
export function SearchField({ label, placeholder, onSearch }: SearchFieldProps) {
  const [text, setText] = useState("");
  const told = useRef("");
  useEffect(() => {
    const wanted = text.trim();
    if (wanted === told.current) return;
    const timer = setTimeout(() => {
      told.current = wanted;
      onSearch(wanted);
    }, SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <search class="search-field">
      <input type="search" aria-label={label} placeholder={placeholder} value={text} onInput={(event) => setText(event.currentTarget.value)} />
    </search>
  );
}
