import { useEffect, useRef, useState } from "preact/hooks";

/** Typing pauses this long before the server is asked: a search per word, not per letter. */
const SEARCH_PAUSE_MS = 250;

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
